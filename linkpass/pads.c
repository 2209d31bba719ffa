// SPDX-License-Identifier: GPL-2.0
/* Patchable pads placed at function entries by the entry set alone. */
#include "pads.h"

#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "inplace.h"
#include "patchable.h"
#include "relocs.h"
#include "util.h"

bool pad_run_back(const struct image *im, const struct section *sec,
		  uint64_t end, unsigned int n, uint64_t *start)
{
	uint64_t base = image_section_base(im, sec), pos = end;
	unsigned int len;

	if (end < base || end - base > sec->sh.sh_size)
		return false;
	while (n--) {
		/* the longest nop first: a c.nop pair is no "nop" */
		for (len = 4; len; len /= 2)
			if (pos - base >= len &&
			    im->arch->pad_nop_len(sec->bytes + (pos - len - base),
						  len) == len)
				break;
		if (!len)
			return false;
		pos -= len;
	}
	*start = pos;
	return true;
}

/*
 * pad_fits(), for @addr that @nops nops lead from to @fn's start (0: an
 * address at the entry): the walk is not made again.
 */
static bool pad_fits_after(const struct image *im,
			   const struct scan_opts *o,
			   const struct section *sec, const struct func *fn,
			   uint64_t addr, unsigned int nops)
{
	uint64_t end;

	/* pad_run(addr, M) ends at fn's start exactly when M nops lead to it */
	if (o->pad_m ? nops != o->pad_m : pad_entry(im, sec, fn) != addr)
		return false;
	return pad_run(im, sec, o->pad_m ? pad_entry(im, sec, fn) : addr,
		       o->pad_n - o->pad_m, &end);
}

/* Is there a list with relocations to read in place? */
static bool patchable_candidates_ok(struct image *im)
{
	struct section *list = image_find_section(im, PATCHABLE_SECTION), *rsec;

	if (!list || list->sh.sh_type == SHT_NOBITS ||
	    im->ehdr.e_type == ET_REL)
		return false;
	rsec = image_relocs_of(im, list);
	/* what image_relocs() would refuse */
	return rsec && im->symtab && rsec->sh.sh_link == im->symtab->idx &&
	       rsec->sh.sh_entsize ==
	       reloc_entsize(image_reloc_layout(im, rsec)) &&
	       !(rsec->sh.sh_size % rsec->sh.sh_entsize);
}

/* Does an allocated section before @sec share an address with it? */
static bool overlapped(const struct image *im, const struct section *sec)
{
	const GElf_Shdr *a = &sec->sh, *b;
	size_t i;

	for (i = 1; i < sec->idx; i++) {
		b = &im->secs[i].sh;
		if ((b->sh_flags & SHF_ALLOC) && b->sh_size &&
		    b->sh_addr < a->sh_addr + a->sh_size &&
		    a->sh_addr < b->sh_addr + b->sh_size)
			return true;
	}
	return false;
}

/*
 * image_section_at(@addr), but first @*last, the section the entry
 * before was in, when no section before it overlaps it (the list names
 * one section's functions after another's): *@last is the answer.
 */
static struct section *section_at(struct image *im, struct section **last,
				  uint64_t addr)
{
	struct section *sec = *last;

	if (sec && addr - sec->sh.sh_addr < sec->sh.sh_size)
		return sec;
	sec = image_section_at(im, addr);
	*last = sec && !overlapped(im, sec) ? sec : NULL;
	return sec;
}

/*
 * entry_target() for patchable_candidates(): 1 where it would refuse.
 * *@last: the section of the entry before, or NULL (section_at()).
 */
static int fast_target(struct image *im, const struct section *list,
		       enum reloc_layout l, const struct reloc *r,
		       struct section **last, struct section **secp,
		       uint64_t *addrp)
{
	unsigned int w = im->arch->addr_size;
	uint64_t off = r->offset - list->sh.sh_addr, addr, v = 0;
	struct section *sec;
	struct symbol sym;

	if (r->offset < list->sh.sh_addr || off >= list->sh.sh_size ||
	    off % w || list->sh.sh_size - off < w ||
	    r->type != im->arch->abs_reloc || r->sym >= im->nsyms ||
	    !image_sym_get(im, r->sym, &sym))
		return 1;
	if (reloc_has_addend(l)) {
		addr = sym.value + (uint64_t)r->addend;
	} else {
		memcpy(&v, list->bytes + off, w);
		addr = v;
	}
	sec = section_at(im, last, addr);
	if (!sec || !(sec->sh.sh_flags & SHF_EXECINSTR) ||
	    sec->sh.sh_type == SHT_NOBITS ||
	    addr - sec->sh.sh_addr >= sec->sh.sh_size)
		return 1;
	*secp = sec;
	*addrp = addr;
	return 0;
}

/*
 * The rest of entry_target()'s checks for the listed site @s: the nop
 * at its address (its section's bytes loaded first, reported as
 * entry_target() reports them).
 */
static int fast_nop(struct image *im, const struct site *s)
{
	struct section *sec = &im->secs[s->shndx];
	uint64_t off = s->addr - sec->sh.sh_addr;

	if (!image_section_bytes(im, sec))
		return -1;
	return im->arch->pad_nop_len(sec->bytes + off,
				     sec->sh.sh_size - off) ? 0 : 1;
}

/* How many sites ahead fast_nop()'s bytes are asked for. */
#define NOP_PREFETCH_AHEAD 16

/*
 * The listed addresses as candidate sites, read with the symbols in
 * place.  1, with nothing reported, at an entry scan_pads() would
 * refuse or a symbol that needs decoding, so that it says why; -1
 * after an error line it would give the same way.
 */
static int patchable_candidates(struct image *im, struct site **out,
				size_t *n, struct scan_stats *st)
{
	struct section *list = image_find_section(im, PATCHABLE_SECTION);
	struct section *sec = NULL, *last = NULL;
	const struct site *s;
	struct relocs rel;
	struct reloc r;
	uint64_t addr;
	size_t i;
	int ret;

	*out = NULL;
	*n = 0;
	if (!patchable_candidates_ok(im))
		return 1;
	if (image_relocs(im, image_relocs_of(im, list), &rel) < 0)
		return -1;
	if (!reloc_has_addend(rel.layout) && !image_section_bytes(im, list))
		return -1;
	*out = xmalloc((rel.count ? rel.count : 1) * sizeof(**out));
	for (i = 0; i < rel.count; i++) {
		reloc_get(rel.layout, rel.base, i, &r);
		ret = fast_target(im, list, rel.layout, &r, &last, &sec, &addr);
		if (ret)
			goto out_free;
		listed_site(&(*out)[(*n)++], sec, addr);
	}
	/*
	 * Then the bytes at each, a cache miss apiece (one function each):
	 * asked for ahead.  In list order, so that the first entry whose
	 * bytes cannot be read is the one entry_target() reports; a
	 * silent 1 above decides nothing, in whatever order.
	 */
	for (i = 0; i < *n; i++) {
		if (i + NOP_PREFETCH_AHEAD < *n) {
			s = &(*out)[i + NOP_PREFETCH_AHEAD];
			sec = &im->secs[s->shndx];
			if (sec->loaded)
				__builtin_prefetch(sec->bytes +
						   (s->addr - sec->sh.sh_addr));
		}
		ret = fast_nop(im, &(*out)[i]);
		if (ret)
			goto out_free;
	}
	patchable_stats(st, *n);
	return 0;
out_free:
	free(*out);
	*out = NULL;
	*n = 0;
	return ret;
}

/*
 * --patchable-entries: the verdict patchable.c's judge_entry() gives
 * the listed address @s, from the entry set and its covered bytes: a
 * live function's entry (at_entry()), or the start of a run of nops in
 * no function that ends at one (before_entry(): M nops before the
 * function).  FAST_NO_START: dropped, in no function.  FAST_UNSURE
 * where a function covers a byte of the run without starting there:
 * then only the sorted index can tell, as it looks a few starts back.
 * *@start as at_entry(); *@nops: the nops from @s to it (0 at an entry).
 */
static enum fast_verdict pad_at(const struct image *im,
				const struct entry_set *e,
				const struct site *s, uint64_t *start,
				unsigned int *nops)
{
	const struct section *sec = &im->secs[s->shndx];
	uint64_t base = e->map[s->shndx].base, end = base + sec->sh.sh_size;
	enum fast_verdict v = at_entry(im, e, s, start);
	uint64_t pos;
	unsigned int n;
	bool wide;

	*nops = 0;
	if (v != FAST_NO_START)
		return v;
	if (entries_covered(e, s->shndx, s->addr))
		return FAST_UNSURE;
	for (pos = s->addr; pos < end && pos - s->addr <= PAD_PRE_ENTRY_MAX;
	     pos += n, ++*nops) {
		if (pos != s->addr &&
		    entries_has(e, s->shndx, pos, &wide)) {
			*start = pos;
			return FAST_KEEP;
		}
		if (pos != s->addr && entries_covered(e, s->shndx, pos))
			return FAST_UNSURE;
		n = im->arch->pad_nop_len(sec->bytes + (pos - base), end - pos);
		if (!n)
			break;
	}
	return FAST_NO_START;
}

int pad_sites(struct image *im, const struct scan_opts *o,
	      const uint8_t *traced, const struct entry_set *e,
	      struct scan_result *r)
{
	const struct site *prev = NULL;
	size_t n, i, nkept = 0, nofunc = 0;
	enum fast_verdict v;
	struct site *cand, s;
	unsigned int nops;
	struct func fn = { 0 };
	uint64_t t0 = now_ns();
	int ret;

	ret = patchable_candidates(im, &cand, &n, &r->stats);
	if (ret)
		return ret;
	r->stats.ns_relocs = now_ns() - t0;
	t0 = now_ns();
	sort_sites(cand, n, im->nsecs, true, false);
	/* kept sites are compacted in place */
	for (i = 0; i < n; i++) {
		s = cand[i];
		if ((prev && prev->addr == s.addr && prev->shndx == s.shndx) ||
		    !traced[s.shndx])
			continue;
		fn.shndx = s.shndx;
		v = pad_at(im, e, &s, &fn.start, &nops);
		if (v == FAST_KEEP && o->pad_n &&
		    !pad_fits_after(im, o, &im->secs[s.shndx], &fn, s.addr,
				    nops))
			v = FAST_UNSURE;
		if (v == FAST_UNSURE)
			goto out_unsure;
		nofunc += v == FAST_NO_START;
		if (v == FAST_KEEP) {
			cand[nkept++] = s;
			prev = &cand[nkept - 1];
		}
	}
	if (!im->nlocal_funcs && nofunc)
		goto out_unsure;
	r->kept = cand;
	r->nkept = nkept;
	r->stats.verdicts[SITE_KEPT] = nkept;
	r->stats.ns_filter = now_ns() - t0;
	return 0;
out_unsure:
	free(cand);
	return 1;
}
