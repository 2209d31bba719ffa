// SPDX-License-Identifier: GPL-2.0
/*
 * The check: the table linked into an image against the image's bytes,
 * by another route than the scan.  The scan starts from the call
 * relocations or the compiler's lists and keeps what lands at a function
 * entry; the check starts from every function symbol of every code
 * section and asks whether its entry holds an ftrace site: a call to the
 * mcount symbol (its bytes in a linked image, its relocation in a module)
 * or the whole pad of -fpatchable-function-entry, its entry perhaps in
 * the state --nop writes (so that a built arm64 or riscv image can be
 * checked again; an x86 image is checked before its calls are NOP'd).
 * Then, both ways:
 *
 *  - every entry of the table is the site of a function in a traced
 *    section, and the table is sorted with no repeat;
 *  - every function with a site is listed if its section is traced, not
 *    listed if the rules name it untraced, and an error in a section the
 *    rules do not name: a wrong rule fails the build instead of dropping
 *    functions in silence.
 *
 * The compiler's lists are not read: a function whose entry holds a whole
 * pad the compiler did not list (nops of jump labels in a notrace
 * function, say) makes the check fail rather than pass unseen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkpass.h"

/* Report at most this many differences one by one. */
#define SHOW_MAX	20

struct audit {
	struct image *im;
	size_t found;	/* differences */
};

static void differ(struct audit *au, const struct site *s, const char *fmt,
		   const char *what)
{
	const struct section *sec = &au->im->secs[s->shndx];
	char place[256];

	if (au->found++ >= SHOW_MAX)
		return;
	snprintf(place, sizeof(place), "%s+0x%llx (%s)", sec->name,
		 (unsigned long long)(s->addr - sec->sh.sh_addr),
		 s->fn ? s->fn->sym->name : "no function");
	error(au->im, place, fmt, what);
}

/* Entry @k of a linked table: the word, or its RELATIVE relocation. */
static int table_linked(struct image *im, struct site **t, size_t *n)
{
	const struct symbol *a = image_symbol(im, TABLE_START);
	const struct symbol *b = image_symbol(im, TABLE_STOP);
	const uint8_t *p;
	size_t i, j, count;
	struct reloc r;

	if (!a || !b || a->value > b->value || (b->value - a->value) % 8)
		return error(im, TABLE_START, "no valid table bounds");
	*n = (b->value - a->value) / 8;
	*t = calloc(*n ? *n : 1, sizeof(**t));
	if (!*t)
		return error(im, NULL, "out of memory");
	if (!*n)
		return 0;
	p = image_bytes(im, a->shndx, a->value, b->value - a->value);
	if (!p)
		return error(im, TABLE_START, "the table is not inside its section");
	for (i = 0; i < *n; i++)
		memcpy(&(*t)[i].addr, p + i * 8, 8);
	/* a relocatable kernel keeps the addresses in RELATIVE addends */
	for (i = 1; i < im->nsecs; i++) {
		const struct section *rs = &im->secs[i];

		if (rs->sh.sh_type != SHT_RELA || !(rs->sh.sh_flags & SHF_ALLOC))
			continue;
		if (rela_count(im, rs, &count) < 0)
			return -1;
		for (j = 0; j < count; j++) {
			rela_get(rs, j, &r);
			if (r.type == im->arch->r_relative &&
			    r.offset - a->value < b->value - a->value &&
			    !(r.offset % 8))
				(*t)[(r.offset - a->value) / 8].addr = r.addend;
		}
	}
	for (i = 0; i < *n; i++) {
		const struct section *s = image_section_at(im, (*t)[i].addr);

		(*t)[i].shndx = s ? s - im->secs : 0;
	}
	return 0;
}

/* A module's table: one absolute relocation per entry. */
static int table_object(struct image *im, struct site **t, size_t *n)
{
	const struct section *sec = image_section(im, MCOUNT_SECTION), *rs;
	size_t i, count;
	struct reloc r;

	*n = 0;
	*t = NULL;
	if (!sec || !sec->sh.sh_size)
		return 0;
	rs = image_relocs_for(im, sec - im->secs);
	if (sec->sh.sh_size % 8 || !rs || rela_count(im, rs, &count) < 0 ||
	    count != sec->sh.sh_size / 8)
		return error(im, sec->name, "not one relocation per 8-byte entry");
	*n = count;
	*t = calloc(*n ? *n : 1, sizeof(**t));
	if (!*t)
		return error(im, NULL, "out of memory");
	for (i = 0; i < count; i++) {
		rela_get(rs, i, &r);
		if (r.type != im->arch->r_abs64 || r.offset != i * 8 ||
		    r.sym >= im->nsyms)
			return error(im, rs->name, "entry %zu is not an address", i);
		/* an entry that names no section is reported by the audit */
		if (im->syms[r.sym].shndx < im->nsecs)
			(*t)[i].shndx = im->syms[r.sym].shndx;
		(*t)[i].addr = im->syms[r.sym].value + r.addend;
	}
	return 0;
}

/*
 * The site of every function whose entry holds one, sorted: a call to
 * the mcount symbol, or a whole pad.
 */
static int function_sites(struct image *im, struct site **out, size_t *n)
{
	const struct symbol *mcount = NULL;
	struct site *calls = NULL;
	size_t i, ncalls = 0;

	*n = 0;
	*out = calloc(im->nfuncs ? im->nfuncs : 1, sizeof(**out));
	if (!*out)
		return error(im, NULL, "out of memory");
	if (im->arch->mcount && im->rel && mcount_calls(im, &calls, &ncalls) < 0)
		return -1;
	if (im->arch->mcount && !im->rel)
		mcount = image_symbol(im, im->arch->mcount);
	for (i = 0; i < im->nfuncs; i++) {
		const struct func *f = &im->funcs[i];
		struct site s = { .shndx = f->shndx, .fn = f };
		bool site;

		if (!im->arch->mcount) {
			site = pad_at(im, f, &s.addr, true);
		} else {
			s.addr = func_entry(im, f);
			site = im->rel ? !!site_find(im, calls, ncalls, f->shndx, s.addr) :
			       mcount && call_bytes(im, f->shndx, s.addr, mcount->value);
		}
		if (site)
			(*out)[(*n)++] = s;
	}
	free(calls);
	sites_sort(im, *out, n);
	return 0;
}

static void audit_table(struct audit *au, struct site *t, size_t nt,
			const struct site *fs, size_t nfs)
{
	struct image *im = au->im;
	const struct site *f;
	size_t i;

	for (i = 0; i < nt; i++) {
		f = t[i].shndx ? site_find(im, fs, nfs, t[i].shndx, t[i].addr) : NULL;
		t[i].fn = f ? f->fn : NULL;
		if (!t[i].shndx) {
			if (au->found++ < SHOW_MAX)
				error(im, MCOUNT_SECTION, "entry %zu: 0x%llx is in no section",
				      i, (unsigned long long)t[i].addr);
		} else if (!f) {
			differ(au, &t[i], "%s", "listed, but no function's site is there");
		} else if (im->secs[t[i].shndx].rule != SEC_TRACED) {
			differ(au, &t[i], "%s", "listed, but its section is not traced");
		} else if (i && !im->rel && t[i].addr <= t[i - 1].addr) {
			differ(au, &t[i], "%s", "listed out of order, or twice");
		}
	}
}

/*
 * A module's table is sorted when it is loaded, and its sections may be
 * numbered anew by the link that adds the table: it need only list each
 * site once.
 */
static int audit_repeats(struct audit *au, const struct site *t, size_t nt)
{
	struct site *v = malloc((nt ? nt : 1) * sizeof(*v));
	size_t n = nt;

	if (!v)
		return error(au->im, NULL, "out of memory");
	memcpy(v, t, nt * sizeof(*v));
	sites_sort(au->im, v, &n);
	if (n != nt && au->found++ < SHOW_MAX)
		error(au->im, MCOUNT_SECTION, "lists %zu sites twice", nt - n);
	free(v);
	return 0;
}

/* Every function site of a traced section is listed; no unknown code. */
static void audit_functions(struct audit *au, const struct site *t, size_t nt,
			    const struct site *fs, size_t nfs)
{
	struct image *im = au->im;
	size_t i;

	for (i = 0; i < nfs; i++) {
		switch (im->secs[fs[i].shndx].rule) {
		case SEC_TRACED:
			if (!site_find(im, t, nt, fs[i].shndx, fs[i].addr))
				differ(au, &fs[i], "%s", "a traced function's site is not listed");
			break;
		case SEC_UNTRACED:
			break;
		default:
			differ(au, &fs[i], "holds an ftrace site in %s, which no rule names",
			       im->secs[fs[i].shndx].name);
		}
	}
}

int check_image(struct image *im, struct site **table, size_t *n)
{
	struct audit au = { .im = im };
	struct site *fs = NULL;
	size_t nfs = 0;
	int ret = -1;

	if (!im->arch->mcount && !im->pad.n)
		return error(im, NULL, "%s: give the pad's geometry (--patchable=N,M)",
			     im->arch->name);
	if ((im->rel ? table_object(im, table, n) : table_linked(im, table, n)) < 0 ||
	    function_sites(im, &fs, &nfs) < 0)
		goto out_free;
	audit_table(&au, *table, *n, fs, nfs);
	if (im->rel && audit_repeats(&au, *table, *n) < 0)
		goto out_free;
	audit_functions(&au, *table, *n, fs, nfs);
	if (au.found > SHOW_MAX)
		error(im, NULL, "and %zu more differences", au.found - SHOW_MAX);
	if (au.found)
		error(im, NULL, "the ftrace table is not exact: %zu differences in %zu entries",
		      au.found, *n);
	ret = au.found ? 1 : 0;
out_free:
	free(fs);
	if (ret < 0) {
		free(*table);
		*table = NULL;
	}
	return ret;
}
