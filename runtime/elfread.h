/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elfread.h - the one reader of ELF files (see elfread.c).
 * lpt_elf_open() maps the file read-only and checks its header and
 * section header table; 0 or -errno.  Sections are then found by name
 * (allocated ones) and the symbol table (.symtab, else .dynsym), NULL
 * when absent.
 */
#ifndef LPT_ELFREAD_H
#define LPT_ELFREAD_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct lpt_elf {
	const char *base;	/* the file, mapped read-only */
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;	/* e_shnum headers, inside the file */
};
int lpt_elf_open(struct lpt_elf *f, const char *path);
void lpt_elf_close(struct lpt_elf *f);
const Elf64_Shdr *lpt_elf_section(const struct lpt_elf *f, const char *name);
const Elf64_Shdr *lpt_elf_symtab(const struct lpt_elf *f);

/* Are the @len bytes at file offset @off inside the file? */
static inline int lpt_elf_in(const struct lpt_elf *f, uint64_t off,
			     uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

#pragma GCC visibility pop

#endif /* LPT_ELFREAD_H */
