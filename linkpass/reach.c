// SPDX-License-Identifier: GPL-2.0
/*
 * Is a function entry without a symbol reached?
 *
 * The scan drops a call to the mcount symbol that lies in no function
 * symbol: in a linked image that is an overridden weak function's dead
 * body.  A static function whose local symbol was stripped from its
 * object before the link (strip -x) has no symbol either, and its call
 * would be dropped the same way, silently.  What tells them apart:
 *
 *  - a dead weak body is unreachable.  Every call and address reference
 *    to a weak function names its symbol (it can be interposed), and the
 *    linker resolved those names to the strong definition.  The one
 *    exception seen is gcc's self-recursion through a local alias
 *    ("call walk.localalias", resolved by the assembler): it comes from
 *    inside the body, so references from the body itself do not count.
 *  - a live static function is reached: a relocation kept by -q whose
 *    target (S + A, usually a section symbol plus an addend) is its
 *    entry, or, for a call within its own input section that the
 *    assembler resolved, a direct call or jump with a 32-bit
 *    displacement whose destination is its entry.
 *
 * Relocations count from code sections (every type that names an
 * address) and from allocated data (absolute ones: function pointers),
 * but not from the tables that list every function or call site whether
 * live or dead: the mcount tables and PC-relative metadata (.eh_frame,
 * and a kernel's ORC, IBT and other objtool tables).  The byte scan
 * looks at every position of the candidate's section without decoding
 * instructions: a position that is not really a branch hits one given
 * entry with probability 2^-32, so a false "reached" needs about 2^32
 * bytes of code per dead body.
 *
 * The entry is the call itself, or the endbr64 just before it.  The
 * body runs to the next candidate entry, the next function symbol or
 * the section's end, whichever comes first.
 */
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "relocs.h"
#include "util.h"

struct cand {
	uint64_t entry;		/* address of the entry */
	uint64_t end;		/* end of its body, for self-references */
	uint32_t shndx;
	bool covered;		/* a function symbol covers the call */
	bool reached;
};

struct reach {
	struct image *im;
	struct cand *v;
	size_t n;
};

void reach_note(struct scan_result *r, const struct site *s)
{
	if (r->nunentered == r->capunentered) {
		r->capunentered = r->capunentered ? 2 * r->capunentered : 16;
		r->unentered = xrealloc(r->unentered, r->capunentered *
					sizeof(*r->unentered));
	}
	r->unentered[r->nunentered++] = *s;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The first candidate whose entry is >= @addr (n when none). */
static size_t lower_bound(const struct reach *rc, uint64_t addr)
{
	size_t lo = 0, hi = rc->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rc->v[mid].entry < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* @place refers to @addr: mark the candidate entered there, if any. */
static inline void reaches(struct reach *rc, uint64_t place, uint64_t addr)
{
	size_t i;

	if (!rc->n || addr < rc->v[0].entry || addr > rc->v[rc->n - 1].entry)
		return;
	i = lower_bound(rc, addr);
	if (i < rc->n && rc->v[i].entry == addr &&
	    (place < rc->v[i].entry || place >= rc->v[i].end))
		rc->v[i].reached = true;
}

/* The sites to look at: entry-style calls in no function symbol. */
static void add_site(struct reach *rc, const struct site *s)
{
	struct image *im = rc->im;
	const struct section *sec;
	struct cand *c;
	uint64_t off;

	if (!s->entry_style || s->shndx == 0 || s->shndx >= im->nsecs)
		return;
	sec = &im->secs[s->shndx];
	if (!sec->bytes || s->addr < sec->sh.sh_addr ||
	    s->addr - sec->sh.sh_addr > sec->sh.sh_size)
		return;
	off = s->addr - sec->sh.sh_addr;
	c = &rc->v[rc->n++];
	memset(c, 0, sizeof(*c));
	c->shndx = s->shndx;
	c->entry = s->addr;
	if (off >= ARCH_ENTRY_PREFIX_MAX &&
	    im->arch->entry_prefix(sec->bytes + off - ARCH_ENTRY_PREFIX_MAX,
				   ARCH_ENTRY_PREFIX_MAX) == ARCH_ENTRY_PREFIX_MAX)
		c->entry -= ARCH_ENTRY_PREFIX_MAX;
	c->end = sec->sh.sh_addr + sec->sh.sh_size;
}

static void gather(struct reach *rc, const struct scan_result *r)
{
	const struct site *v = r->explained ? r->dropped : r->unentered;
	size_t n = r->explained ? r->ndropped : r->nunentered, i, k;

	rc->v = xmalloc((n ? n : 1) * sizeof(*rc->v));
	for (i = 0; i < n; i++)
		if (!r->explained || v[i].verdict == DROP_DEAD_BODY ||
		    v[i].verdict == DROP_NO_FUNC)
			add_site(rc, &v[i]);
	qsort(rc->v, rc->n, sizeof(*rc->v), cmp_entry);
	/* one per entry; a body ends where the next one starts */
	for (i = k = 0; i < rc->n; i++) {
		if (k && rc->v[k - 1].entry == rc->v[i].entry)
			continue;
		if (k && rc->v[k - 1].shndx == rc->v[i].shndx)
			rc->v[k - 1].end = rc->v[i].entry;
		rc->v[k++] = rc->v[i];
	}
	rc->n = k;
}

/*
 * One pass over the function symbols: a body also ends where the next
 * function starts, and a call a function covers is not a candidate
 * (without reasons the scan could not tell; it is a call inside a live
 * function).
 */
static void apply_symbols(struct reach *rc)
{
	const struct symbol *sym;
	struct cand *c;
	size_t i, k;

	for (i = 0; i < rc->im->nsyms; i++) {
		sym = &rc->im->syms[i];
		if ((sym->type != STT_FUNC && sym->type != STT_GNU_IFUNC) ||
		    sym->shndx == SHN_UNDEF || sym->shndx >= rc->im->nsecs)
			continue;
		/* the candidate before the symbol's start: its body ends there */
		k = lower_bound(rc, sym->value);
		if (k > 0) {
			c = &rc->v[k - 1];
			if (c->shndx == sym->shndx && c->end > sym->value)
				c->end = sym->value;
		}
		/* candidates inside the symbol */
		for (; k < rc->n && rc->v[k].entry - sym->value < sym->size;
		     k++)
			if (rc->v[k].shndx == sym->shndx)
				rc->v[k].covered = true;
	}
	for (i = k = 0; i < rc->n; i++)
		if (!rc->v[i].covered)
			rc->v[k++] = rc->v[i];
	rc->n = k;
}

/* Does relocation section @rsec hold references to look at? */
static bool refs_section(const struct image *im, const struct section *rsec)
{
	const struct section *t;

	if ((rsec->sh.sh_type != SHT_RELA && rsec->sh.sh_type != SHT_REL) ||
	    (rsec->sh.sh_flags & SHF_ALLOC) ||	/* dynamic relocations */
	    rsec->sh.sh_info == 0 || rsec->sh.sh_info >= im->nsecs)
		return false;
	t = &im->secs[rsec->sh.sh_info];
	if (!(t->sh.sh_flags & SHF_ALLOC) || t->sh.sh_type == SHT_NOBITS)
		return false;
	/* tables of every call site, dead ones included */
	return strcmp(t->name, "__mcount_loc") &&
	       strcmp(t->name, "__patchable_function_entries");
}

/* The address relocation @rel at @p refers to, or false. */
static bool ref_target(struct image *im, enum reloc_layout l,
		       struct section *t, const struct reloc *rel,
		       uint64_t *addr)
{
	enum ref_kind kind = im->arch->reloc_ref(rel->type);
	bool code = t->sh.sh_flags & SHF_EXECINSTR;
	uint64_t off = rel->offset - t->sh.sh_addr;
	int32_t field;

	if (kind == REF_NONE || (!code && kind != REF_ABS))
		return false;
	if (reloc_has_addend(l)) {
		if (rel->sym >= im->nsyms)
			return false;
		*addr = im->syms[rel->sym].value + (uint64_t)rel->addend;
	} else {
		/* Rel: the addend is gone; the linked field holds the value */
		if (!t->bytes || rel->offset < t->sh.sh_addr ||
		    off > t->sh.sh_size || t->sh.sh_size - off < sizeof(field))
			return false;
		memcpy(&field, t->bytes + off, sizeof(field));
		*addr = kind == REF_ABS ? (uint32_t)field :
			rel->offset + (uint64_t)(int64_t)field;
	}
	if (kind == REF_PCREL)
		*addr += 4;
	return true;
}

static int scan_relocs(struct reach *rc)
{
	struct image *im = rc->im;
	enum reloc_layout l;
	struct relocs rs;
	struct reloc rel;
	uint64_t addr;
	size_t i, j;

	for (i = 1; i < im->nsecs; i++) {
		if (!refs_section(im, &im->secs[i]))
			continue;
		if (image_relocs(im, &im->secs[i], &rs) < 0)
			return -1;
		l = reloc_layout_of(im, rs.rsec);
		if (!reloc_has_addend(l) && !image_section_bytes(im, rs.target))
			return -1;
		for (j = 0; j < rs.count; j++) {
			reloc_get(l, rs.base, j, &rel);
			if (ref_target(im, l, rs.target, &rel, &addr))
				reaches(rc, rel.offset, addr);
		}
	}
	return 0;
}

/* Direct branches in the sections that hold candidates. */
static void scan_branches(struct reach *rc)
{
	const struct arch *a = rc->im->arch;
	const struct section *sec;
	uint64_t p, target;
	size_t i;

	for (i = 0; i < rc->n; i++) {
		if (i && rc->v[i - 1].shndx == rc->v[i].shndx)
			continue;	/* entries are sorted: one section at a time */
		sec = &rc->im->secs[rc->v[i].shndx];
		for (p = 0; (p = a->next_branch(sec->bytes, sec->sh.sh_size, p,
						  sec->sh.sh_addr, &target)) <
			    sec->sh.sh_size; p++)
			reaches(rc, sec->sh.sh_addr + p, target);
	}
}

static int refuse(struct reach *rc)
{
	struct section *sec = NULL;
	const struct cand *first = NULL;
	char place[160];
	size_t i, n = 0;

	for (i = 0; i < rc->n; i++)
		if (rc->v[i].reached && !n++)
			first = &rc->v[i];
	if (!n)
		return 0;
	sec = &rc->im->secs[first->shndx];
	snprintf(place, sizeof(place), "%s+0x%llx (0x%llx)", sec->name,
		 (unsigned long long)(first->entry - sec->sh.sh_addr),
		 (unsigned long long)first->entry);
	return lp_error(rc->im->path, place,
			"%zu function entr%s in no function symbol %s called or referenced, so %s mcount call%s would be dropped as dead code: local symbols were discarded from %s object%s (strip -x?); link objects that keep local symbols",
			n, n == 1 ? "y" : "ies", n == 1 ? "is" : "are",
			n == 1 ? "its" : "their", n == 1 ? "" : "s",
			n == 1 ? "its" : "their", n == 1 ? "" : "s");
}

int reach_check(struct image *im, const struct scan_result *r)
{
	struct reach rc = { .im = im };
	int ret = 0;

	if (im->ehdr.e_type == ET_REL || !im->arch->reloc_ref ||
	    !im->arch->next_branch)
		return 0;
	if (!(r->explained ? r->stats.verdicts[DROP_DEAD_BODY] +
			     r->stats.verdicts[DROP_NO_FUNC] :
			     r->nunentered))
		return 0;
	gather(&rc, r);
	apply_symbols(&rc);
	if (rc.n) {
		ret = scan_relocs(&rc);
		if (!ret) {
			scan_branches(&rc);
			ret = refuse(&rc);
		}
	}
	free(rc.v);
	return ret;
}
