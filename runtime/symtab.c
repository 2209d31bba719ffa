// SPDX-License-Identifier: GPL-2.0
/*
 * symtab.c - function names of this program, from the .symtab of
 * /proc/self/exe (.dynsym if stripped), for globs and for output.
 *
 * A small reader of our own: the file is mapped read-only and names
 * point into that mapping, which stays for the life of the process.
 * Every offset read from the file is bounds-checked.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define LPT_EXE "/proc/self/exe"

struct lpt_func {
	uintptr_t addr;		/* run-time address (load bias applied) */
	uint64_t size;
	const char *name;
	int rank;		/* lower wins among aliases: global, weak, local */
};

static struct {
	int loaded;
	int err;
	struct lpt_func *v;
	size_t n;
} symtab;

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;	/* the first object listed is the program itself */
}

/* Difference between run-time and link-time addresses (0 unless PIE). */
static uintptr_t load_bias(const Elf64_Ehdr *eh)
{
	uintptr_t bias = 0;

	if (eh->e_type == ET_DYN)
		dl_iterate_phdr(first_object, &bias);
	return bias;
}

static int bind_rank(unsigned char bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

static int cmp_func(const void *a, const void *b)
{
	const struct lpt_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank - y->rank;
}

static int in_file(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

static const Elf64_Shdr *pick_symtab(const Elf64_Ehdr *eh,
				     const Elf64_Shdr *sh)
{
	const Elf64_Shdr *dyn = NULL;
	unsigned int i;

	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB)
			return &sh[i];
		if (sh[i].sh_type == SHT_DYNSYM)
			dyn = &sh[i];
	}
	return dyn;
}

/* Collect defined functions from @ss; returns 0 or -errno. */
static int read_funcs(const char *base, size_t size, const Elf64_Ehdr *eh,
		      const Elf64_Shdr *sh, const Elf64_Shdr *ss)
{
	const Elf64_Shdr *str;
	const Elf64_Sym *sym;
	const char *strtab;
	uintptr_t bias = load_bias(eh);
	size_t i, j, nsym;

	if (ss->sh_entsize != sizeof(*sym) || ss->sh_link >= eh->e_shnum ||
	    !in_file(ss->sh_offset, ss->sh_size, size))
		return -EINVAL;
	str = &sh[ss->sh_link];
	if (!in_file(str->sh_offset, str->sh_size, size) || !str->sh_size)
		return -EINVAL;
	sym = (const Elf64_Sym *)(base + ss->sh_offset);
	nsym = ss->sh_size / sizeof(*sym);
	strtab = base + str->sh_offset;

	symtab.v = calloc(nsym ? nsym : 1, sizeof(*symtab.v));
	if (!symtab.v)
		return -ENOMEM;
	for (i = j = 0; i < nsym; i++) {
		if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC ||
		    sym[i].st_shndx == SHN_UNDEF || !sym[i].st_value ||
		    sym[i].st_name >= str->sh_size ||
		    !memchr(strtab + sym[i].st_name, '\0',
			    str->sh_size - sym[i].st_name))
			continue;
		symtab.v[j].addr = sym[i].st_value + bias;
		symtab.v[j].size = sym[i].st_size;
		symtab.v[j].name = strtab + sym[i].st_name;
		symtab.v[j].rank = bind_rank(ELF64_ST_BIND(sym[i].st_info));
		j++;
	}
	qsort(symtab.v, j, sizeof(*symtab.v), cmp_func);
	/* One name per address: the best-ranked alias, sorted first. */
	for (i = symtab.n = 0; i < j; i++)
		if (!symtab.n || symtab.v[symtab.n - 1].addr != symtab.v[i].addr)
			symtab.v[symtab.n++] = symtab.v[i];
	return 0;
}

static int load(void)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *ss;
	struct stat stb;
	char *base;
	int fd, err;

	fd = open(LPT_EXE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &stb)) {
		err = -errno;
		goto out_close;
	}
	base = mmap(NULL, stb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	err = -ENOEXEC;
	eh = (const Elf64_Ehdr *)base;
	if ((size_t)stb.st_size < sizeof(*eh) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(*sh) ||
	    !in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh),
		     stb.st_size))
		goto out_unmap;
	sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	ss = pick_symtab(eh, sh);
	if (!ss)
		goto out_unmap;
	err = read_funcs(base, stb.st_size, eh, sh, ss);
	if (err)
		goto out_unmap;
	/* Names point into the mapping: it stays. */
	close(fd);
	return 0;

out_unmap:
	munmap(base, stb.st_size);
out_close:
	close(fd);
	return err;
}

/* Load once; later calls return the first result.  Caller holds the lock. */
int lpt_symtab_load(void)
{
	if (symtab.loaded)
		return symtab.err;
	symtab.loaded = 1;
	symtab.err = load();
	if (symtab.err)
		lpt_msg("%s: no usable symbol table (%s); function names unknown",
			LPT_EXE, strerror(-symtab.err));
	return symtab.err;
}

/*
 * Name of the function covering @addr and the offset into it, or NULL.
 * A symbol without a size covers only its own address.
 */
const char *lpt_symtab_lookup(uintptr_t addr, uintptr_t *off)
{
	size_t lo = 0, hi = symtab.n;
	const struct lpt_func *f;

	*off = 0;
	while (lo < hi) {		/* first entry above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (symtab.v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &symtab.v[lo - 1];
	if (addr - f->addr >= (f->size ? f->size : 1))
		return NULL;
	*off = addr - f->addr;
	return f->name;
}

/* The functions, in address order, for the trace file (stream.c). */
size_t lpt_symtab_count(void)
{
	return symtab.n;
}

const char *lpt_symtab_get(size_t i, uintptr_t *addr, uint64_t *size)
{
	*addr = symtab.v[i].addr;
	*size = symtab.v[i].size;
	return symtab.v[i].name;
}
