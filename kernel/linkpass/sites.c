// SPDX-License-Identifier: GPL-2.0
/*
 * The scan: the call sites a linked image's table must list.
 *
 * Candidates come from what the link kept: on x86 every relocation of a
 * call to __fentry__ (vmlinux is linked with --emit-relocs; a module is a
 * relocatable object), elsewhere every entry of the compiler's lists of
 * patchable entries.  A candidate is a site when it lies in a traced
 * section (sections.c) at the entry of a function symbol the image still
 * has: the body of an overridden weak function keeps its call or pad but
 * lost its symbol, and code the link dropped is in no section at all.
 */
#include <stdlib.h>
#include <string.h>

#include "linkpass.h"

/* The longest landing pad before an entry (endbr64, bti c). */
#define LANDING_PAD_MAX	4

static int grow(const struct image *im, struct site **v, size_t n,
		size_t *cap)
{
	struct site *p;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(*v, *cap * sizeof(**v));
	if (!p)
		return error(im, NULL, "out of memory");
	*v = p;
	return 0;
}

static bool is_call(const struct arch *a, const struct reloc *r)
{
	return r->type == a->r_call[0] || r->type == a->r_call[1];
}

/*
 * Every call to the mcount symbol that the relocations of code show,
 * sorted.  Each must be on its call instruction.
 */
int mcount_calls(struct image *im, struct site **out, size_t *n)
{
	const struct arch *a = im->arch;
	bool relocated = false;
	size_t i, j, count, cap = 0;
	uint32_t mcount = 0;	/* the last symbol found to be the callee */
	struct reloc r;

	*out = NULL;
	*n = 0;
	for (i = 1; i < im->nsecs; i++) {
		const struct section *rs = &im->secs[i];
		uint32_t code = rs->sh.sh_info;

		if (rs->sh.sh_type != SHT_RELA || code >= im->nsecs ||
		    !(im->secs[code].sh.sh_flags & SHF_EXECINSTR))
			continue;
		relocated = true;
		if (rela_count(im, rs, &count) < 0)
			goto out_free;
		for (j = 0; j < count; j++) {
			const uint8_t *p;

			rela_get(rs, j, &r);
			if (!is_call(a, &r) || r.sym >= im->nsyms ||
			    (r.sym != mcount && strcmp(im->syms[r.sym].name, a->mcount)))
				continue;
			mcount = r.sym;
			p = image_bytes(im, code, r.offset - 1, a->call_len);
			if (!p || p[0] != 0xe8) {
				error(im, rs->name,
				      "entry %zu: the relocation of %s at %s+0x%llx is not on a call",
				      j, a->mcount, im->secs[code].name,
				      (unsigned long long)(r.offset - 1 -
							   im->secs[code].sh.sh_addr));
				goto out_free;
			}
			if (grow(im, out, *n, &cap) < 0)
				goto out_free;
			(*out)[(*n)++] = (struct site){
				.shndx = code,
				.addr = r.offset - 1,
				.rela = rs->sh.sh_offset + j * sizeof(Elf64_Rela),
			};
		}
	}
	if (!relocated && !im->rel) {
		error(im, NULL, "no relocations of code: link it with --emit-relocs");
		goto out_free;
	}
	sites_sort(im, *out, n);
	return 0;

out_free:
	free(*out);
	*out = NULL;
	return -1;
}

/*
 * The entries of the compiler's lists of patchable entries in a
 * relocatable object (a module, or vmlinux.o), as sites: one relocation
 * each.  Entries of code the link dropped name no symbol or are
 * R_*_NONE.  ld -r may leave one list per code section.
 */
int patchable_list(struct image *im, struct site **out, size_t *n)
{
	size_t i, j, count, cap = 0;
	struct reloc r;

	*out = NULL;
	*n = 0;
	for (i = 1; i < im->nsecs; i++) {
		const struct section *rs = image_relocs_for(im, i);
		const struct symbol *sym;

		if (strcmp(im->secs[i].name, PATCHABLE_SECTION))
			continue;
		if (!rs || rela_count(im, rs, &count) < 0)
			goto out_free;
		for (j = 0; j < count; j++) {
			rela_get(rs, j, &r);
			if (r.type == im->arch->r_none || !r.sym)
				continue;
			sym = &im->syms[r.sym];
			if (r.type != im->arch->r_abs64 || sym->shndx >= im->nsecs ||
			    !image_bytes(im, sym->shndx, sym->value + r.addend, 1) ||
			    !(im->secs[sym->shndx].sh.sh_flags & SHF_EXECINSTR)) {
				error(im, rs->name, "entry %zu: not an address in code", j);
				goto out_free;
			}
			if (grow(im, out, *n, &cap) < 0)
				goto out_free;
			(*out)[(*n)++] = (struct site){
				.shndx = sym->shndx,
				.addr = sym->value + r.addend,
			};
		}
	}
	if (!*n && !image_section(im, PATCHABLE_SECTION) && !im->rel)
		return error(im, PATCHABLE_SECTION, "no such section");
	sites_sort(im, *out, n);
	return 0;

out_free:
	free(*out);
	*out = NULL;
	return -1;
}

/* Sites in address order; a module's by section, then offset. */
static int site_cmp(const struct image *im, const struct site *x,
		    const struct site *y)
{
	if (im->rel && x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const struct image *sort_image;

static int qsort_cmp(const void *a, const void *b)
{
	return site_cmp(sort_image, a, b);
}

/* Sort @v (most often in order already) and drop repeats. */
void sites_sort(const struct image *im, struct site *v, size_t *n)
{
	size_t i, k = 0;

	for (i = 1; i < *n && site_cmp(im, &v[i - 1], &v[i]) <= 0; i++)
		;
	sort_image = im;
	if (i < *n)
		qsort(v, *n, sizeof(*v), qsort_cmp);
	for (i = 0; i < *n; i++)
		if (!k || site_cmp(im, &v[k - 1], &v[i]))
			v[k++] = v[i];
	*n = k;
}

const struct site *site_find(const struct image *im, const struct site *v,
			     size_t n, uint32_t shndx, uint64_t addr)
{
	struct site key = { .shndx = shndx, .addr = addr };
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = site_cmp(im, &v[mid], &key);

		if (!c)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The function whose site is at @s, or NULL.  A listed pad that belongs
 * to a live function but does not hold its nops is an error (*@bad).
 */
static const struct func *site_func(struct image *im, const struct site *s,
				    bool *bad)
{
	unsigned int before = im->pad.n ? im->pad.m * 4 : 0;
	uint64_t lo = s->addr, site;
	const struct func *f;

	if (!before)
		lo = s->addr < LANDING_PAD_MAX ? 0 : s->addr - LANDING_PAD_MAX;
	for (f = func_from(im, s->shndx, lo);
	     f && f < im->funcs + im->nfuncs && f->shndx == s->shndx &&
	     f->start <= s->addr + before; f++) {
		if (im->pad.n ? pad_at(im, f, &site, false) && site == s->addr :
				func_entry(im, f) == s->addr)
			return f;
		if (im->pad.n && f->start >= s->addr)
			*bad = true;
	}
	/* a call inside a live function, not at its entry */
	f = func_after(im, s->shndx, s->addr) - 1;
	if (!im->pad.n && f >= im->funcs && f->shndx == s->shndx &&
	    f->start < s->addr && s->addr < f->end)
		*bad = true;
	return NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void free_names(const char **names, size_t n)
{
	size_t i;

	for (i = 0; names && i < n; i++)
		free((void *)names[i]);
	free(names);
}

/*
 * The names of the functions whose pads the compiler listed in @lists
 * (vmlinux.o), sorted: vmlinux is linked without the lists, which the
 * link could only keep loaded, so its pads are found from its functions
 * and told from look-alike nops by those names.  Every function symbol
 * at a listed function's start is taken, as vmlinux may name the
 * function by another of its aliases (ThinLTO's weak syscall stubs).
 */
static int listed_names(struct image *im, const char *lists,
			const char ***names, size_t *n)
{
	struct image o;
	struct site *l;
	bool *listed = NULL;
	size_t i, nl;
	bool bad = false;
	int ret = -1;

	*names = NULL;
	*n = 0;
	if (image_open(&o, lists, false) < 0)
		return -1;
	o.pad = im->pad;
	if (!o.rel || o.arch != im->arch) {
		error(&o, NULL, "not a relocatable object of %s", im->arch->name);
		goto out_close;
	}
	if (patchable_list(&o, &l, &nl) < 0)
		goto out_close;
	listed = calloc(o.nfuncs ? o.nfuncs : 1, sizeof(*listed));
	*names = calloc(o.nsyms ? o.nsyms : 1, sizeof(**names));
	if (!listed || !*names) {
		error(&o, NULL, "out of memory");
		goto out_free;
	}
	for (i = 0; i < nl; i++) {
		const struct func *f = site_func(&o, &l[i], &bad);

		if (f)
			listed[f - o.funcs] = true;
	}
	for (i = 1; i < o.nsyms; i++) {
		const struct symbol *s = &o.syms[i];
		const struct func *f = func_from(&o, s->shndx, s->value);

		if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC) || !f ||
		    f->start != s->value || !listed[f - o.funcs])
			continue;
		(*names)[*n] = strdup(s->name);
		if (!(*names)[(*n)++]) {
			error(&o, NULL, "out of memory");
			goto out_free;
		}
	}
	qsort(*names, *n, sizeof(**names), name_cmp);
	ret = 0;
out_free:
	free(listed);
	free(l);
out_close:
	image_close(&o);
	if (ret < 0)
		free_names(*names, *n);
	return ret;
}

/* Linked vmlinux with a pad geometry: the padded functions @lists names. */
static int padded_functions(struct image *im, const char *lists,
			    struct site **out, size_t *n)
{
	const char **names;
	size_t i, nn;
	struct site s;

	if (!lists)
		return error(im, NULL, "%s (--lists=vmlinux.o)",
			     "give the object that holds the compiler's lists");
	if (listed_names(im, lists, &names, &nn) < 0)
		return -1;
	*n = 0;
	*out = calloc(im->nfuncs ? im->nfuncs : 1, sizeof(**out));
	for (i = 0; *out && i < im->nfuncs; i++) {
		s.fn = &im->funcs[i];
		s.shndx = s.fn->shndx;
		if (pad_at(im, s.fn, &s.addr, false) &&
		    bsearch(&s.fn->sym->name, names, nn, sizeof(*names), name_cmp))
			(*out)[(*n)++] = s;
	}
	free_names(names, nn);
	if (!*out)
		return error(im, NULL, "out of memory");
	sites_sort(im, *out, n);
	return 0;
}

int sites_find(struct image *im, const char *lists, struct site **out,
	       size_t *n)
{
	bool bad = false;
	size_t i, k = 0;
	int ret;

	if (!im->arch->mcount && !im->pad.n)
		return error(im, NULL, "%s: give the pad's geometry (--patchable=N,M)",
			     im->arch->name);
	if (im->arch->mcount)
		ret = mcount_calls(im, out, n);
	else if (im->rel)
		ret = patchable_list(im, out, n);
	else
		ret = padded_functions(im, lists, out, n);
	if (ret < 0)
		return -1;
	for (i = 0; i < *n; i++) {
		struct site s = (*out)[i];

		if (im->secs[s.shndx].rule != SEC_TRACED)
			continue;
		if (!s.fn)
			s.fn = site_func(im, &s, &bad);
		if (bad && im->pad.n) {
			error(im, im->secs[s.shndx].name,
			      "0x%llx: the listed pad of the function there does not hold %u,%u nops",
			      (unsigned long long)s.addr, im->pad.n, im->pad.m);
		} else if (bad) {
			error(im, im->secs[s.shndx].name,
			      "0x%llx: a call to %s inside a function, not at its entry",
			      (unsigned long long)s.addr, im->arch->mcount);
		}
		if (bad) {
			free(*out);
			*out = NULL;
			return -1;
		}
		if (s.fn)
			(*out)[k++] = s;
	}
	*n = k;
	return 0;
}
