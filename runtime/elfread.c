// SPDX-License-Identifier: GPL-2.0
/*
 * elfread.c - the runtime's one reader of ELF files: the file of a
 * loaded object (the program's /proc/self/exe, a library's path),
 * mapped read-only, its header and section header table checked once;
 * then a section by name (objects.c: a library's table) and the symbol
 * table (symtab.c: function names).  Every offset read from the file is
 * bounds-checked.  64-bit objects only, as the runtime is x86_64's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfread.h"

int lpt_elf_open(struct lpt_elf *f, const char *path)
{
	struct stat st;
	void *base;
	int fd, err = 0;

	memset(f, 0, sizeof(*f));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	base = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	f->base = base;
	f->size = st.st_size;
	f->eh = base;
	if (f->size < sizeof(*f->eh) ||
	    memcmp(f->eh->e_ident, ELFMAG, SELFMAG) ||
	    f->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    f->eh->e_shentsize != sizeof(*f->sh) ||
	    !lpt_elf_in(f, f->eh->e_shoff,
			(uint64_t)f->eh->e_shnum * sizeof(*f->sh))) {
		lpt_elf_close(f);
		err = -ENOEXEC;
		goto out_close;
	}
	f->sh = (const Elf64_Shdr *)(f->base + f->eh->e_shoff);
out_close:
	close(fd);	/* the mapping stays */
	return err;
}

void lpt_elf_close(struct lpt_elf *f)
{
	if (f->base)
		munmap((void *)f->base, f->size);
	memset(f, 0, sizeof(*f));
}

const Elf64_Shdr *lpt_elf_section(const struct lpt_elf *f, const char *name)
{
	const Elf64_Shdr *names;
	size_t len = strlen(name);
	unsigned int i;

	if (f->eh->e_shstrndx >= f->eh->e_shnum)
		return NULL;
	names = &f->sh[f->eh->e_shstrndx];
	if (!lpt_elf_in(f, names->sh_offset, names->sh_size))
		return NULL;
	for (i = 1; i < f->eh->e_shnum; i++)
		if (f->sh[i].sh_name < names->sh_size &&
		    names->sh_size - f->sh[i].sh_name > len &&
		    !memcmp(f->base + names->sh_offset + f->sh[i].sh_name,
			    name, len + 1) &&
		    (f->sh[i].sh_flags & SHF_ALLOC))
			return &f->sh[i];
	return NULL;
}

const Elf64_Shdr *lpt_elf_symtab(const struct lpt_elf *f)
{
	const Elf64_Shdr *dyn = NULL;
	unsigned int i;

	for (i = 0; i < f->eh->e_shnum; i++) {
		if (f->sh[i].sh_type == SHT_SYMTAB)
			return &f->sh[i];
		if (f->sh[i].sh_type == SHT_DYNSYM)
			dyn = &f->sh[i];
	}
	return dyn;
}
