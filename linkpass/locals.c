// SPDX-License-Identifier: GPL-2.0
/*
 * An image linked without local symbols (ld -x, strip -x): refused when
 * calls in traced sections lie in no function symbol; then the check of
 * objects stripped before the link starts.
 */
#include <stdlib.h>

#include "arch-refs.h"
#include "image.h"
#include "inplace.h"
#include "site.h"
#include "stripped.h"
#include "util.h"

/*
 * Does @f mark a page of [@from, @to] (which overlaps [f->lo, f->hi])?
 * True at once for a range of more than two pages: the binary searches
 * cost less than testing each page of a huge (malformed) symbol.
 */
static bool pages_marked(const struct branch_filter *f, uint64_t from,
			 uint64_t to)
{
	uint64_t b = from < f->lo ? 0 : (from - f->lo) >> f->shift;
	uint64_t e = ((to > f->hi ? f->hi : to) - f->lo) >> f->shift;

	if (e - b > 1)
		return true;
	for (; b <= e; b++)
		if (f->bucket[b / 64] >> (b % 64) & 1)
			return true;
	return false;
}

/* The first of the @n sites @v at or after (@shndx, @addr). */
static size_t first_site_at(const struct site *v, size_t n, uint32_t shndx,
			    uint64_t addr)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].shndx < shndx ||
		    (v[mid].shndx == shndx && v[mid].addr < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Of the calls the fast filter dropped for lying at no function entry
 * (r->unentered, in (section, address) order), how many does no function
 * symbol cover?  One pass over the symbols: each function's range
 * [start, end) is found among those calls by two binary searches and
 * counted into a difference array, so a malformed image of huge
 * overlapping symbols costs n log n, not n * m.  What the sorted
 * function index would tell for these few calls, without building it.
 * (The index looks at most 8 nested starts back; this looks at every
 * symbol.)  Most symbols are nowhere near these calls: a bit per 4 KiB
 * page that holds one rules out a symbol on one or two pages at once.
 */
static size_t count_uncovered(const struct image *im,
			      const struct scan_result *r)
{
	const struct site *v = r->unentered;
	size_t n = r->nunentered, i, a, b, left = 0;
	long *cover = xcalloc(n + 1, sizeof(*cover)), depth = 0;
	struct branch_filter f = { .lo = UINT64_MAX, .shift = 12 };
	uint64_t *bucket = NULL, k, last;
	struct symbol local;
	const struct symbol *s;

	for (i = 0; i < n; i++) {
		f.lo = v[i].addr < f.lo ? v[i].addr : f.lo;
		f.hi = v[i].addr > f.hi ? v[i].addr : f.hi;
	}
	if (n && (f.hi - f.lo) >> f.shift < ((uint64_t)1 << 26)) {
		bucket = xcalloc(((f.hi - f.lo) >> f.shift) / 64 + 1,
				 sizeof(*bucket));
		for (i = 0; i < n; i++) {
			k = (v[i].addr - f.lo) >> f.shift;
			bucket[k / 64] |= 1ULL << (k % 64);
		}
		f.bucket = bucket;
	}
	for (i = 1; i < im->nsyms; i++) {
		if (im->syms_decoded) {
			s = &im->syms[i];
		} else {
			image_sym_get(im, i, &local);	/* the scan read it */
			s = &local;
		}
		if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC) ||
		    s->shndx == SHN_UNDEF || s->shndx >= im->nsecs ||
		    !s->name[0])
			continue;
		/* its last byte (a size past the address space: to the end) */
		last = !s->size ? s->value :
		       s->size - 1 > UINT64_MAX - s->value ? UINT64_MAX :
		       s->value + (s->size - 1);
		if (last < f.lo || s->value > f.hi)
			continue;
		if (bucket && !pages_marked(&f, s->value, last))
			continue;
		a = first_site_at(v, n, s->shndx, s->value);
		b = last == UINT64_MAX ? first_site_at(v, n, s->shndx + 1, 0) :
		    first_site_at(v, n, s->shndx, last + 1);
		cover[a]++;
		cover[b]--;
	}
	for (i = 0; i < n; i++) {
		depth += cover[i];
		left += depth <= 0;
	}
	free(cover);
	free(bucket);
	return left;
}

/*
 * Never drop live sites silently: with local symbols discarded, every
 * static function looks like code no function covers.  A linked image
 * with no local function symbol, and calls in traced sections that no
 * function symbol covers, is refused.  Judged by the fast filter, only
 * the calls at no function entry need looking at: the covered ones are
 * inside functions, and no candidate for stripped.c.
 */
static int check_local_symbols(const struct image *im,
			       struct scan_result *r)
{
	size_t n = r->stats.verdicts[DROP_NO_FUNC] +
		   r->stats.verdicts[DROP_DEAD_BODY];

	if (im->ehdr.e_type == ET_REL || im->nlocal_funcs)
		return 0;
	if (!r->explained && r->nunentered) {
		n = count_uncovered(im, r);
		if (!n)
			r->nunentered = 0;
	}
	if (!n)
		return 0;
	return lp_error(im->path, im->symtab->name,
			"no local function symbols (discarded by ld -x/--discard-all or strip -x?), so %zu call site%s in traced sections lie%s in no function symbol and static functions cannot be told from dead code; link keeping local symbols",
			n, n == 1 ? "" : "s", n == 1 ? "s" : "");
}

/*
 * Never drop a live site silently: an image linked without local
 * symbols (locals.c), then objects stripped before the link (stripped.c).
 */
int stripped_begin(struct image *im, struct scan_result *r, int threads,
		   struct stripped_check **job)
{
	*job = NULL;
	if (check_local_symbols(im, r) < 0)
		return -1;
	return stripped_start(im, r, threads, job);
}
