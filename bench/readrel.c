// SPDX-License-Identifier: GPL-2.0
/*
 * readrel: the floor for `linkpass scan`.  Map an ELF64 image, find the
 * relocation sections that apply to allocated, executable sections (the
 * ones the scan reads) and touch every byte of them once, summing 8-byte
 * words so the compiler cannot skip the reads.
 *
 *   readrel [-s] IMAGE     prints "<bytes> <sections> <sum>"
 *
 * -s also reads the symbol table and its string table, which the scan
 * must read as well to know where the live functions are.
 *
 * Plain libc and <elf.h>, no libelf: nothing but the mapping and the
 * reads, which is what "read the bytes once" costs.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t sum_words(const char *p, uint64_t size)
{
	const uint64_t *w = (const uint64_t *)p;
	uint64_t n = size / 8, k, sum = 0;

	for (k = 0; k < n; k++)
		sum += w[k];
	return sum;
}

static int inside(const Elf64_Shdr *s, const struct stat *st)
{
	return s->sh_offset <= (uint64_t)st->st_size &&
	       s->sh_size <= (uint64_t)st->st_size - s->sh_offset;
}

int main(int argc, char **argv)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	uint64_t bytes = 0, sum = 0;
	unsigned int nsec = 0, i;
	const char *path, *p;
	struct stat st;
	int fd, syms = 0;

	if (argc == 3 && !strcmp(argv[1], "-s")) {
		syms = 1;
	} else if (argc != 2) {
		fprintf(stderr, "usage: readrel [-s] IMAGE\n");
		return 2;
	}
	path = argv[argc - 1];
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "readrel: %s: %s\n", path, strerror(errno));
		return 2;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "readrel: %s: mmap: %s\n", path,
			strerror(errno));
		return 2;
	}
	eh = (const Elf64_Ehdr *)p;
	if ((size_t)st.st_size < sizeof(*eh) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) >
	    (uint64_t)st.st_size) {
		fprintf(stderr, "readrel: %s: ELF header: not a 64-bit ELF "
			"file with section headers\n", path);
		return 2;
	}
	sh = (const Elf64_Shdr *)(p + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i];

		if (syms && s->sh_type == SHT_SYMTAB &&
		    s->sh_link < eh->e_shnum) {
			const Elf64_Shdr *str = &sh[s->sh_link];

			if (!inside(s, &st) || !inside(str, &st)) {
				fprintf(stderr, "readrel: %s: section %u: "
					"symbols outside the file\n", path, i);
				return 2;
			}
			sum += sum_words(p + s->sh_offset, s->sh_size);
			sum += sum_words(p + str->sh_offset, str->sh_size);
			bytes += s->sh_size + str->sh_size;
			nsec += 2;
			continue;
		}
		if (s->sh_type != SHT_RELA && s->sh_type != SHT_REL)
			continue;
		if (s->sh_flags & SHF_ALLOC)	/* .rela.dyn, .rela.plt */
			continue;
		if (s->sh_info == 0 || s->sh_info >= eh->e_shnum ||
		    (sh[s->sh_info].sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		if (!inside(s, &st)) {
			fprintf(stderr, "readrel: %s: section %u: outside "
				"the file\n", path, i);
			return 2;
		}
		sum += sum_words(p + s->sh_offset, s->sh_size);
		bytes += s->sh_size;
		nsec++;
	}
	printf("%" PRIu64 " %u %" PRIx64 "\n", bytes, nsec, sum);
	return 0;
}
