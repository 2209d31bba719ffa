// SPDX-License-Identifier: GPL-2.0
/*
 * symtab.c - function names of the program and of each shared library
 * with a table, from the .symtab of its file (.dynsym if stripped), for
 * globs and for output.
 *
 * The file is read by elfread.c, mapped read-only; names point into
 * that mapping, which stays for the life of the process.
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfread.h"
#include "msg.h"
#include "symtab.h"

#define LPT_EXE "/proc/self/exe"

struct lpt_func {
	uintptr_t addr;		/* run-time address (load bias applied) */
	uint64_t size;
	const char *name;
	int rank;		/* lower wins among aliases: global, weak, local */
};

static struct lpt_symtab symtab;	/* the program's */

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;	/* the first object listed is the program itself */
}

/* The program's run-time minus link-time addresses (0 unless PIE). */
static uintptr_t program_bias(void)
{
	uintptr_t bias = 0;

	dl_iterate_phdr(first_object, &bias);
	return bias;
}

/* Lower sorts first among aliases: global, weak, local. */
static int alias_order(unsigned char bind)
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

/* Collect the defined functions of @f's symbol table @ss; 0 or -errno. */
static int read_funcs(struct lpt_symtab *symtab, const struct lpt_elf *f,
		      const Elf64_Shdr *ss, uintptr_t bias)
{
	const Elf64_Shdr *str;
	const Elf64_Sym *sym;
	const char *strtab;
	size_t i, j, nsym;

	if (ss->sh_entsize != sizeof(*sym) || ss->sh_link >= f->eh->e_shnum ||
	    !lpt_elf_in(f, ss->sh_offset, ss->sh_size))
		return -EINVAL;
	str = &f->sh[ss->sh_link];
	if (!lpt_elf_in(f, str->sh_offset, str->sh_size) || !str->sh_size)
		return -EINVAL;
	sym = (const Elf64_Sym *)(f->base + ss->sh_offset);
	nsym = ss->sh_size / sizeof(*sym);
	strtab = f->base + str->sh_offset;

	symtab->v = calloc(nsym ? nsym : 1, sizeof(*symtab->v));
	if (!symtab->v)
		return -ENOMEM;
	for (i = j = 0; i < nsym; i++) {
		if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC ||
		    sym[i].st_shndx == SHN_UNDEF || !sym[i].st_value ||
		    sym[i].st_name >= str->sh_size ||
		    !memchr(strtab + sym[i].st_name, '\0',
			    str->sh_size - sym[i].st_name))
			continue;
		symtab->v[j].addr = sym[i].st_value + bias;
		symtab->v[j].size = sym[i].st_size;
		symtab->v[j].name = strtab + sym[i].st_name;
		symtab->v[j].rank = alias_order(ELF64_ST_BIND(sym[i].st_info));
		j++;
	}
	qsort(symtab->v, j, sizeof(*symtab->v), cmp_func);
	/* One name per address: the best-ranked alias, sorted first. */
	for (i = symtab->n = 0; i < j; i++)
		if (!symtab->n || symtab->v[symtab->n - 1].addr != symtab->v[i].addr)
			symtab->v[symtab->n++] = symtab->v[i];
	return 0;
}

static int load(struct lpt_symtab *symtab, const char *path, uintptr_t bias)
{
	const Elf64_Shdr *ss;
	struct lpt_elf f;
	int err;

	err = lpt_elf_open(&f, path);
	if (err)
		return err;
	ss = lpt_elf_symtab(&f);
	err = ss ? read_funcs(symtab, &f, ss,
			      f.eh->e_type == ET_DYN ? bias : 0) : -ENOEXEC;
	if (err)
		lpt_elf_close(&f);
	/* else names point into the mapping: it stays */
	return err;
}

/*
 * Read the functions of the object in file @path loaded with @bias;
 * once: later calls return the first result.  Caller holds the lock.
 */
int lpt_symtab_open(struct lpt_symtab *t, const char *path, uintptr_t bias)
{
	if (t->loaded)
		return t->err;
	t->loaded = 1;
	t->err = load(t, path, bias);
	if (t->err)
		lpt_msg("%s: no usable symbol table (%s); function names unknown",
			path, strerror(-t->err));
	return t->err;
}

int lpt_symtab_load(void)
{
	return lpt_symtab_open(&symtab, LPT_EXE,
			       symtab.loaded ? 0 : program_bias());
}

/*
 * Name of the function of @t (NULL: the program's) covering @addr and
 * the offset into it, or NULL.  A symbol without a size covers only its
 * own address.
 */
const char *lpt_symtab_find(const struct lpt_symtab *t, uintptr_t addr,
			    uintptr_t *off)
{
	const struct lpt_func *f;
	size_t lo = 0, hi;

	t = t ? t : &symtab;
	hi = t->n;
	*off = 0;
	while (lo < hi) {		/* first entry above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &t->v[lo - 1];
	if (addr - f->addr >= (f->size ? f->size : 1))
		return NULL;
	*off = addr - f->addr;
	return f->name;
}

/* Run-time address of function @name of @t (first found); 0 or -ENOENT. */
int lpt_symtab_addr(const struct lpt_symtab *t, const char *name,
		    uintptr_t *addr)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (!strcmp(t->v[i].name, name)) {
			*addr = t->v[i].addr;
			return 0;
		}
	}
	return -ENOENT;
}

/* The functions of @t (NULL: the program's), in address order (stream.c). */
size_t lpt_symtab_count(const struct lpt_symtab *t)
{
	return (t ? t : &symtab)->n;
}

const char *lpt_symtab_get(const struct lpt_symtab *t, size_t i,
			   uintptr_t *addr, uint64_t *size)
{
	t = t ? t : &symtab;
	*addr = t->v[i].addr;
	*size = t->v[i].size;
	return t->v[i].name;
}
