// SPDX-License-Identifier: GPL-2.0
/*
 * The byte audit's pads.  -fpatchable-function-entry=N,M puts N nops
 * at each traced function, M before its symbol, all of one width: the
 * kernel's compiler writes "nop", which is 4 bytes on arm64 and on
 * riscv without RVC and the 2-byte c.nop with RVC.  A function opened
 * by nops of another width, or by nops the kernel patches for another
 * reason (audit_patched.c), has no pad: a notrace function may open
 * with a static key's nop after alignment nops, which counted alone
 * look like a pad.
 */
#include "audit_pads.h"

#include <stdlib.h>

#include "arch.h"
#include "pads.h"
#include "patchable.h"
#include "util.h"

/* The most nops a pad has: the --patchable-entries limit. */
#define PAD_NOPS_MAX 64

/* The length of the nop of width @w (0: any) at @pos in @sec, or 0. */
static unsigned int nop_at(const struct image *im, const struct section *sec,
			   uint64_t pos, unsigned int w)
{
	uint64_t base = image_section_base(im, sec), avail;
	unsigned int len;

	if (pos < base || pos - base >= sec->sh.sh_size)
		return 0;
	avail = base + sec->sh.sh_size - pos;
	/* a nop of exactly @w bytes: not the first half of a longer one */
	if (w && avail > w)
		avail = w;
	len = im->arch->pad_nop_len(sec->bytes + (pos - base), avail);
	return !w || len == w ? len : 0;
}

/*
 * @count nops of width @w from @pos, none patched for another reason:
 * true with the address after them in *@end.
 */
static bool pad_walk(const struct image *im, const struct section *sec,
		     const struct patched *p, uint64_t pos, unsigned int count,
		     unsigned int w, uint64_t *end)
{
	unsigned int len;

	while (count--) {
		len = nop_at(im, sec, pos, w);
		if (!len || patched_covers(p, pos, len))
			return false;
		pos += len;
	}
	*end = pos;
	return true;
}

bool audit_pad_site(struct image *im, const struct pad_geom *g,
		    const struct patched *p, const struct func *fn,
		    uint64_t *site)
{
	struct section *sec = &im->secs[fn->shndx];
	uint64_t first, end, base;

	if (sec->sh.sh_type == SHT_NOBITS ||
	    (sec->sh.sh_flags & SHF_COMPRESSED) ||
	    !image_section_bytes(im, sec))
		return false;
	base = image_section_base(im, sec);
	first = pad_entry(im, sec, fn);
	if (g->m) {
		/* the M nops before the start: of one width, found backwards */
		if (g->width) {
			if (fn->start - base < (uint64_t)g->m * g->width)
				return false;
			first = fn->start - (uint64_t)g->m * g->width;
		} else if (!pad_run_back(im, sec, fn->start, g->m, &first)) {
			return false;
		}
		if (!pad_walk(im, sec, p, first, g->m, g->width, &end) ||
		    end != fn->start)
			return false;
	}
	if (!pad_walk(im, sec, p, pad_entry(im, sec, fn), g->n - g->m,
		      g->width, &end))
		return false;
	*site = first;
	return true;
}

/*
 * The pad entry @addr shows: *@m nops from it to a function's start
 * (0 when it is the entry of one) and *@after nops from that
 * function's entry on.  False when it leads to no function.
 */
static bool pad_shown(struct image *im, const struct funcs *f, uint64_t addr,
		      unsigned int w, unsigned int *m, unsigned int *after)
{
	struct section *sec = image_section_at(im, addr);
	const struct func *fn = NULL;
	uint64_t pos = addr;
	unsigned int len;

	*m = 0;
	if (!sec || !(sec->sh.sh_flags & SHF_EXECINSTR) ||
	    sec->sh.sh_type == SHT_NOBITS || !image_section_bytes_quiet(im, sec))
		return false;
	fn = funcs_lookup(f, (uint32_t)sec->idx, addr, NULL);
	if (fn && pad_entry(im, sec, fn) != addr)
		return false;	/* inside a function: no pad's first nop */
	while (!fn) {
		len = nop_at(im, sec, pos, w);
		if (!len || ++*m > PAD_NOPS_MAX)
			return false;
		pos += len;
		fn = funcs_lookup(f, (uint32_t)sec->idx, pos, NULL);
		if (fn && fn->start != pos)
			return false;
	}
	pos = pad_entry(im, sec, fn);
	for (*after = 0; *m + *after < PAD_NOPS_MAX; ++*after, pos += len) {
		len = nop_at(im, sec, pos, w);
		if (!len)
			break;
	}
	return *m + *after > 0;
}

bool audit_pad_geometry(struct image *im, const struct funcs *f,
			const uint64_t *v, size_t n, unsigned int width,
			struct pad_geom *g, size_t *agree, size_t *seen)
{
	/* how many entries show each (M, N - M) */
	size_t *count = xcalloc((PAD_NOPS_MAX + 1) * (PAD_NOPS_MAX + 1),
				sizeof(*count));
	unsigned int m, after;
	size_t i, best = 0;

	*seen = 0;
	for (i = 0; i < n; i++) {
		if (!v[i] || !pad_shown(im, f, v[i], width, &m, &after))
			continue;
		++*seen;
		if (++count[m * (PAD_NOPS_MAX + 1) + after] > best) {
			best = count[m * (PAD_NOPS_MAX + 1) + after];
			g->m = m;
			g->n = m + after;
		}
	}
	free(count);
	g->width = width;
	*agree = best;
	return best > 0;
}
