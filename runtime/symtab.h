/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symtab.h - the function symbols of one loaded object, read from its
 * file (.symtab, else .dynsym, by elfread.c), at run-time addresses
 * (see symtab.c).
 */
#ifndef LPT_SYMTAB_H
#define LPT_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct lpt_func;
struct lpt_symtab {
	int loaded;
	int err;
	struct lpt_func *v;	/* sorted by address, one name per address */
	size_t n;
};
int lpt_symtab_open(struct lpt_symtab *t, const char *path, uintptr_t bias);
/* NULL @t: the program's (lpt_symtab_load first). */
const char *lpt_symtab_find(const struct lpt_symtab *t, uintptr_t addr,
			    uintptr_t *off);
int lpt_symtab_addr(const struct lpt_symtab *t, const char *name,
		    uintptr_t *addr);
/* The program's own (/proc/self/exe), loaded on first use. */
int lpt_symtab_load(void);
/* The functions of @t, NULL for the program's (loaded first). */
size_t lpt_symtab_count(const struct lpt_symtab *t);
const char *lpt_symtab_get(const struct lpt_symtab *t, size_t i,
			   uintptr_t *addr, uint64_t *size);

#pragma GCC visibility pop

#endif /* LPT_SYMTAB_H */
