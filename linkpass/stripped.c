// SPDX-License-Identifier: GPL-2.0
/*
 * The stripped-objects check: is a function entry without a symbol
 * reached?
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
 *    displacement whose destination is its entry.  A static function
 *    has no name outside its object, so such a relocation names a
 *    local symbol (a section symbol, as the assembler and strip leave
 *    it): relocations naming a global symbol (the symbol table's
 *    sh_info and above) are not looked at.  Most code relocations are
 *    calls to global functions, so this skips most of them.
 *
 * Relocations count from code sections (every type that names an
 * address) and from allocated data (absolute ones: function pointers),
 * but not from the tables that list every function or call site whether
 * live or dead: the mcount tables and PC-relative metadata (.eh_frame,
 * and a kernel's ORC, IBT and other objtool tables).  The byte scan
 * looks at every position of the candidate's own object's code (its
 * window: find_windows()) without decoding instructions: a position
 * that is not really a branch hits one given entry with probability
 * 2^-32, so a false "reached" needs about 2^32 bytes of code per dead
 * body.
 *
 * The entry is the call itself, or the endbr64 just before it.  The
 * body runs to the next candidate entry, the next function symbol or
 * the section's end, whichever comes first.
 */
#include "stripped.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch-refs.h"
#include "compiler.h"
#include "mcount-table.h"
#include "relocs.h"
#include "util.h"

/*
 * A piece of find_refs(): relocations [from, to) of @rs, or the bytes
 * [from, to) of code section @sec (whose branches may end past @to).
 */
struct work_item {
	const struct relocs *rs;	/* NULL: bytes of @sec */
	const struct section *sec;
	uint64_t from, to;
};

#define KIND_CACHE 64	/* relocation types below this: kinds looked up once */

/* The size of a piece: a few hundred microseconds of work. */
#define ITEM_RELOCS	((uint64_t)1 << 16)
#define ITEM_BYTES	((uint64_t)1 << 20)

struct cand {
	uint64_t entry;		/* address of the entry */
	uint64_t end;		/* the next candidate's entry or the
				 * section's end
				 */
	uint64_t far_self;	/* the farthest reference from inside
				 * [entry, end); 0: none
				 */
	uint64_t lo, hi;	/* where its byte search looks: find_windows() */
	uint32_t shndx;
	bool reached;
};

/*
 * Most references point elsewhere: a bit per 16-byte bucket of the
 * candidates' address range answers "not a candidate" for most of
 * them without a search.
 */
#define BUCKET_SHIFT	4
#define BUCKETS_MAX	((uint64_t)1 << 28)	/* 32 MiB of bits at most */

struct stripped_check {
	struct image *im;
	const struct arch_refs *arch;	/* arch-refs.h: the image's */
	/*
	 * The decoded symbols when find_refs() started, or NULL: read in
	 * place then.  A copy, not im->syms_decoded, because the caller
	 * may decode the symbols while find_refs() runs on its thread.
	 */
	const struct symbol *syms;
	size_t first_global;	/* the symbol table's sh_info */
	/* the relocation sections to read, loaded (load_refs()) */
	struct relocs *refs;
	size_t nrefs;
	/*
	 * find_refs()'s work in pieces that the check's thread and the
	 * caller, once it waits, take in turn (next_item, atomic).
	 */
	struct work_item *items;
	size_t nitems, next_item;
	uint8_t kinds[KIND_CACHE];	/* reloc_ref() of the small types */
	struct cand *v;
	size_t n;
	/*
	 * The candidates' range and buckets, to rule out most addresses;
	 * filter.bucket (ours, freed) is NULL when the range is too wide:
	 * then every address in it is searched.
	 */
	struct branch_filter filter;
	/*
	 * A table bracketed by bound symbols inside another section (the
	 * kernel's __start_mcount_loc..__stop_mcount_loc in .init.data):
	 * its entries name every call site, dead ones included, so they
	 * reach nothing.  Empty when there is none.
	 */
	uint64_t table_lo, table_hi;
	/* find_refs() on a thread of its own (stripped_start()) */
	bool threaded;
	pthread_t tid;
	uint64_t ns_start;	/* stripped_start()'s own time */
	uint64_t ns_find;	/* find_refs()'s, on whichever thread */
};

static int cmp_entry(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The first candidate whose entry is >= @addr (n when none). */
static size_t lower_bound(const struct stripped_check *sc, uint64_t addr)
{
	size_t lo = 0, hi = sc->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sc->v[mid].entry < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* *@p = max(*@p, @v), with another thread perhaps doing the same. */
static void store_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, true,
						       __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

/* @place refers to @addr: mark the candidate entered there, if any. */
static inline void reaches(struct stripped_check *sc, uint64_t place, uint64_t addr)
{
	size_t i;

	if (!branch_wanted(&sc->filter, addr))
		return;
	i = lower_bound(sc, addr);
	if (i >= sc->n || sc->v[i].entry != addr)
		return;
	if (place >= sc->table_lo && place < sc->table_hi)
		return;		/* a table entry, not a reference */
	/* rare, and both threads may get here: atomic stores */
	if (place < addr || place >= sc->v[i].end)
		__atomic_store_n(&sc->v[i].reached, true, __ATOMIC_RELAXED);
	else	/* from inside its body: resolve_symbols() decides */
		store_max(&sc->v[i].far_self, place);
}

/* The sites to look at: entry-style calls in no function symbol. */
static void add_site(struct stripped_check *sc, const struct site *s)
{
	struct image *im = sc->im;
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
	c = &sc->v[sc->n++];
	memset(c, 0, sizeof(*c));
	c->shndx = s->shndx;
	c->entry = s->addr;
	if (off >= ARCH_ENTRY_PREFIX_MAX &&
	    im->arch->entry_prefix(sec->bytes + off - ARCH_ENTRY_PREFIX_MAX,
				   ARCH_ENTRY_PREFIX_MAX) == ARCH_ENTRY_PREFIX_MAX)
		c->entry -= ARCH_ENTRY_PREFIX_MAX;
	c->end = sec->sh.sh_addr + sec->sh.sh_size;
	c->lo = sec->sh.sh_addr;
	c->hi = c->end;
}

static void gather(struct stripped_check *sc, const struct scan_result *r)
{
	const struct site *v = r->explained ? r->dropped : r->unentered;
	size_t n = r->explained ? r->ndropped : r->nunentered, i, k;

	sc->v = xmalloc((n ? n : 1) * sizeof(*sc->v));
	for (i = 0; i < n; i++)
		if (!r->explained || v[i].verdict == DROP_DEAD_BODY ||
		    v[i].verdict == DROP_NO_FUNC)
			add_site(sc, &v[i]);
	/* the scan hands them over in address order, as a rule */
	for (i = 1; i < sc->n; i++)
		if (sc->v[i - 1].entry > sc->v[i].entry)
			break;
	if (i < sc->n)
		qsort(sc->v, sc->n, sizeof(*sc->v), cmp_entry);
	/* one per entry; a body ends where the next one starts */
	for (i = k = 0; i < sc->n; i++) {
		if (k && sc->v[k - 1].entry == sc->v[i].entry)
			continue;
		if (k && sc->v[k - 1].shndx == sc->v[i].shndx)
			sc->v[k - 1].end = sc->v[i].entry;
		sc->v[k++] = sc->v[i];
	}
	sc->n = k;
}

/*
 * One pass over the function symbols, only when a candidate was reached
 * or referenced from after its entry (rare: a stripped static function,
 * or gcc's self-recursion).  A reference from inside [entry, end) counts
 * when a function symbol starts between the entry and it: the body ends
 * there.  A call that a function symbol covers is not a candidate
 * (without reasons the scan could not tell; a call inside a live
 * function).  Coverage is counted over index ranges, so a malformed
 * image with many huge symbols costs n log n, not n * m.
 */
static void resolve_symbols(struct stripped_check *sc)
{
	const struct symbol *sym;
	long *cover = xcalloc(sc->n + 1, sizeof(*cover));
	uint64_t last;
	size_t i, a, b;
	long depth = 0;
	struct cand *c;

	for (i = 0; i < sc->im->nsyms; i++) {
		sym = &sc->im->syms[i];
		if ((sym->type != STT_FUNC && sym->type != STT_GNU_IFUNC) ||
		    sym->shndx == SHN_UNDEF || sym->shndx >= sc->im->nsecs)
			continue;
		a = lower_bound(sc, sym->value);
		if (a > 0) {
			c = &sc->v[a - 1];
			if (c->shndx == sym->shndx && sym->value > c->entry &&
			    c->far_self >= sym->value)
				c->reached = true;
		}
		if (!sym->size)
			continue;
		last = sym->size - 1 > UINT64_MAX - sym->value ?
		       UINT64_MAX : sym->value + (sym->size - 1);
		b = last == UINT64_MAX ? sc->n : lower_bound(sc, last + 1);
		cover[a]++;
		cover[b]--;
	}
	for (i = 0; i < sc->n; i++) {
		depth += cover[i];
		if (depth > 0)
			sc->v[i].reached = false;	/* not a candidate */
	}
	free(cover);
}

/*
 * The nearest two local function symbols on one side of a point that
 * come from different STT_FILE groups: where one object's code ends at
 * the latest (see find_windows()).
 */
#define INFO_LOCAL_FUNC ((STB_LOCAL << 4) | STT_FUNC)

struct witnesses {
	uint64_t addr[2];	/* the nearest, then the nearest of a group
				 * other than addr[0]'s
				 */
	uint32_t group[2];
	unsigned int n;		/* how many of the two there are */
};

/* Is @a nearer to the point than @b: higher @below it, lower above it? */
static inline bool nearer(uint64_t a, uint64_t b, bool below)
{
	return below ? a > b : a < b;
}

/* Take the local at @addr, of STT_FILE group @group, into @w. */
static __always_inline void witness(struct witnesses *w, uint64_t addr,
				    uint32_t group, bool below)
{
	if (!w->n || nearer(addr, w->addr[0], below)) {
		/* the old nearest stays second when its group differs */
		if (w->n && w->group[0] != group) {
			w->addr[1] = w->addr[0];
			w->group[1] = w->group[0];
			w->n = 2;
		}
		w->addr[0] = addr;
		w->group[0] = group;
		w->n = w->n ? w->n : 1;
	} else if (group != w->group[0] &&
		   (w->n < 2 || nearer(addr, w->addr[1], below))) {
		w->addr[1] = addr;
		w->group[1] = group;
		w->n = 2;
	}
}

/* The pair of the union of @w's and @from's locals, into @w. */
static void witness_merge(struct witnesses *w, const struct witnesses *from,
			  bool below)
{
	unsigned int i;

	for (i = 0; i < from->n; i++)
		witness(w, from->addr[i], from->group[i], below);
}

/*
 * What find_windows() reads of symbol @i: its st_info, and when that is
 * a local function's, its visibility, section and value.  From the
 * decoded copy when there is one, else in place (the scan has read
 * every symbol once, and checked it).
 */
static __always_inline uint8_t local_func(const struct stripped_check *sc,
					  size_t i, uint8_t *vis,
					  uint32_t *shndx, uint64_t *value)
{
	const struct sym_input *in = &sc->im->symin;
	const struct symbol *d;
	const uint8_t *p;
	uint8_t info;
	uint16_t x;
	uint32_t v;

	if (sc->syms) {
		d = &sc->syms[i];
		info = (uint8_t)(d->bind << 4 | d->type);
		*vis = d->vis;
		*shndx = d->shndx;
		*value = d->value;
		return info;
	}
	if (in->is64) {
		p = in->syms + i * sizeof(Elf64_Sym);
		info = p[offsetof(Elf64_Sym, st_info)];
		if (info != INFO_LOCAL_FUNC)
			return info;
		*vis = ELF64_ST_VISIBILITY(p[offsetof(Elf64_Sym, st_other)]);
		memcpy(&x, p + offsetof(Elf64_Sym, st_shndx), sizeof(x));
		memcpy(value, p + offsetof(Elf64_Sym, st_value), sizeof(*value));
		*shndx = x;
		return info;
	}
	p = in->syms + i * sizeof(Elf32_Sym);
	info = p[offsetof(Elf32_Sym, st_info)];
	if (info != INFO_LOCAL_FUNC)
		return info;
	*vis = ELF32_ST_VISIBILITY(p[offsetof(Elf32_Sym, st_other)]);
	memcpy(&x, p + offsetof(Elf32_Sym, st_shndx), sizeof(x));
	memcpy(&v, p + offsetof(Elf32_Sym, st_value), sizeof(v));
	*shndx = x;
	*value = v;
	return info;
}

/*
 * Which gap between candidates an address falls in (gap k: after
 * candidate k - 1, up to candidate k's entry), found through a table of
 * pages of the candidates' range: the first candidate of each.
 */
#define GAP_WALK 8	/* steps from a page's first candidate, then search */

struct gaps {
	uint64_t lo, span;	/* the first candidate's entry, to the last */
	unsigned int shift;	/* page size */
	size_t *first;		/* by page: the first candidate at or after */
};

static void gaps_init(struct gaps *g, const struct stripped_check *sc)
{
	size_t npages, p, k = 0;

	g->lo = sc->v[0].entry;
	g->span = sc->v[sc->n - 1].entry - g->lo;
	/* 4 KiB pages, larger when that makes more than 4 per candidate */
	for (g->shift = 12; (g->span >> g->shift) > 4 * sc->n + 1024;)
		g->shift++;
	npages = (size_t)(g->span >> g->shift) + 1;
	g->first = xmalloc(npages * sizeof(*g->first));
	for (p = 0; p < npages; p++) {
		while (k < sc->n &&
		       sc->v[k].entry - g->lo < (uint64_t)p << g->shift)
			k++;
		g->first[p] = k;
	}
}

/* lower_bound(@sc, @addr), mostly in a step or two. */
static size_t gap_of(const struct gaps *g, const struct stripped_check *sc,
		     uint64_t addr)
{
	size_t k, steps;

	if (addr <= g->lo)
		return 0;
	if (addr - g->lo > g->span)
		return sc->n;
	k = g->first[(addr - g->lo) >> g->shift];
	for (steps = 0; k < sc->n && sc->v[k].entry < addr; steps++, k++)
		if (steps == GAP_WALK)
			return lower_bound(sc, addr);
	return k;
}

/*
 * The window of each candidate's byte search: the code of the object
 * it came from, bounded by local function symbols of other objects.
 * The assembler resolves a branch only inside one section of one
 * object; any other reference to a static function is a relocation,
 * read in full by find_refs().  The linked image does not record where
 * an object's code starts or ends, but a static function's symbol lies
 * in its own object's code, and the linkers write each object's local
 * symbols together, after its STT_FILE symbol.  So of the two nearest
 * local function symbols below a candidate from two different STT_FILE
 * groups, one is from another object than the candidate's, and that
 * object's code lies wholly below the candidate's object: the window
 * starts there.  Likewise above.  A stripped object (strip -x) has no
 * local function symbol at all, so every one is another object's.
 * Only genuine locals count: STB_LOCAL, STT_FUNC, default visibility
 * (lld makes hidden globals local, listed with another file's group),
 * inside their section.  Without two such groups on a side, the window
 * runs to the section's end on that side.
 */
static void find_windows(struct stripped_check *sc)
{
	struct witnesses *below = xcalloc(sc->n + 1, sizeof(*below));
	struct witnesses *above = xcalloc(sc->n + 1, sizeof(*above));
	const struct cand *v = sc->v;
	const struct section *sec;
	size_t n = sc->n, i, k = 0;
	uint64_t value = 0;
	uint32_t group = 0, shndx = 0;
	uint8_t info, vis = 0;
	struct gaps g;

	gaps_init(&g, sc);
	for (i = 1; i < sc->first_global; i++) {
		info = local_func(sc, i, &vis, &shndx, &value);
		if ((info & 0xf) == STT_FILE) {
			group = (uint32_t)i;
			continue;
		}
		if (info != INFO_LOCAL_FUNC || vis != STV_DEFAULT ||
		    shndx == SHN_UNDEF || shndx >= sc->im->nsecs)
			continue;
		sec = &sc->im->secs[shndx];
		if (value < sec->sh.sh_addr ||
		    value - sec->sh.sh_addr >= sec->sh.sh_size)
			continue;
		/*
		 * Gap k (after candidate k - 1, up to candidate k): the
		 * symbols of one object come in address order, so mostly
		 * the gap of the symbol before.
		 */
		if ((k && value <= v[k - 1].entry) ||
		    (k < n && value > v[k].entry))
			k = gap_of(&g, sc, value);
		if (k < n && v[k].entry == value)
			continue;
		if (k < n && v[k].shndx == shndx)
			witness(&below[k], value, group, true);
		if (k > 0 && v[k - 1].shndx == shndx)
			witness(&above[k], value, group, false);
	}
	/* below candidate k: gaps 0..k of its section; above: k+1.. */
	for (k = 1; k < n; k++)
		if (v[k].shndx == v[k - 1].shndx)
			witness_merge(&below[k], &below[k - 1], true);
	for (k = n; k-- > 1;)
		if (v[k].shndx == v[k - 1].shndx)
			witness_merge(&above[k], &above[k + 1], false);
	for (k = 0; k < n; k++) {
		if (below[k].n == 2)
			sc->v[k].lo = below[k].addr[1];
		if (above[k + 1].n == 2)
			sc->v[k].hi = above[k + 1].addr[1];
	}
	free(g.first);
	free(below);
	free(above);
}

/*
 * Are the windows worth working out?  Not when the candidates lie
 * closer than this on average in their sections: the windows, an
 * object or more to each side, would cover the code anyway (the bench
 * samples: a dead weak body every 1.4 KB).
 */
#define WINDOW_MIN_SPACING ((uint64_t)16 << 10)

static bool windows_pay(const struct stripped_check *sc)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = 0; i < sc->n; i++)
		if (!i || sc->v[i - 1].shndx != sc->v[i].shndx)
			bytes += sc->im->secs[sc->v[i].shndx].sh.sh_size;
	return bytes / sc->n >= WINDOW_MIN_SPACING;
}

/* The filter of candidate entries; sc->n > 0, sc->v sorted. */
static void make_filter(struct stripped_check *sc)
{
	uint64_t n, b, *bucket;
	size_t i;

	sc->filter.lo = sc->v[0].entry;
	sc->filter.hi = sc->v[sc->n - 1].entry;
	sc->filter.shift = BUCKET_SHIFT;
	n = ((sc->filter.hi - sc->filter.lo) >> BUCKET_SHIFT) + 1;
	if (n > BUCKETS_MAX)
		return;
	bucket = xcalloc((size_t)(n + 63) / 64, sizeof(*bucket));
	for (i = 0; i < sc->n; i++) {
		b = (sc->v[i].entry - sc->filter.lo) >> BUCKET_SHIFT;
		bucket[b / 64] |= 1ULL << (b % 64);
	}
	sc->filter.bucket = bucket;
}

/*
 * Tables whose entries are PC-relative by their format: their
 * relocations never count (a data reference counts only when absolute),
 * so they are not read at all.  .eh_frame FDEs (pcrel in every FDE the
 * x86 compilers write), and objtool's tables of a kernel: each lists a
 * site per call, return, endbr or ORC entry, as 32-bit offsets.  On the
 * 6.12 test kernel they hold about 67,000 of the relocations.
 */
static bool pcrel_table(const char *name)
{
	static const char *const names[] = {
		".eh_frame", ".call_sites", ".return_sites",
		".retpoline_sites", ".ibt_endbr_seal", ".orc_unwind_ip",
		".static_call_sites",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
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
	if (!strcmp(t->name, "__mcount_loc") ||
	    !strcmp(t->name, "__patchable_function_entries"))
		return false;
	/* data that holds only PC-relative references: not worth a read */
	return (t->sh.sh_flags & SHF_EXECINSTR) || !pcrel_table(t->name);
}

/*
 * Symbol @i's value: the decoded copy when there is one, else read in
 * place (st_value needs no check; the scan has read every symbol).
 */
static inline uint64_t sym_value(const struct stripped_check *sc, size_t i)
{
	const struct sym_input *in = &sc->im->symin;
	Elf64_Addr v64;
	Elf32_Addr v32;

	if (sc->syms)
		return sc->syms[i].value;
	if (in->is64) {
		memcpy(&v64, in->syms + i * sizeof(Elf64_Sym) +
		       offsetof(Elf64_Sym, st_value), sizeof(v64));
		return v64;
	}
	memcpy(&v32, in->syms + i * sizeof(Elf32_Sym) +
	       offsetof(Elf32_Sym, st_value), sizeof(v32));
	return v32;
}

/* The address relocation @rel, of kind @kind, refers to, or false. */
static __always_inline bool
ref_target(const struct stripped_check *sc, enum reloc_layout l,
	   const struct section *t, enum ref_kind kind,
	   const struct reloc *rel, uint64_t *addr)
{
	uint64_t off = rel->offset - t->sh.sh_addr;
	int32_t field;

	if (reloc_has_addend(l)) {
		if (rel->sym >= sc->im->nsyms)
			return false;
		*addr = sym_value(sc, rel->sym) + (uint64_t)rel->addend;
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

/*
 * One loop per layout (see relocs.h); @l is a constant in each copy.
 * The symbol index, then the type, rule out most relocations before
 * the rest of one is read.
 */
static __always_inline void
refs_in(enum reloc_layout l, struct stripped_check *sc, const struct relocs *rs,
	uint64_t from, uint64_t to)
{
	const struct arch_refs *arch = sc->arch;
	/* in data, only absolute references are function pointers */
	bool code = rs->target->sh.sh_flags & SHF_EXECINSTR;
	size_t first_global = sc->first_global, j;
	enum ref_kind kind;
	struct reloc rel;
	uint64_t addr;
	uint32_t type;

	for (j = from; j < to; j++) {
		if (reloc_sym(l, rs->base, j) >= first_global)
			continue;	/* names a global: see the top */
		type = reloc_type(l, rs->base, j);
		kind = type < KIND_CACHE ? (enum ref_kind)sc->kinds[type] :
		       arch->reloc_ref(type);
		if (kind == REF_NONE || (!code && kind != REF_ABS))
			continue;
		reloc_get(l, rs->base, j, &rel);
		if (ref_target(sc, l, rs->target, kind, &rel, &addr))
			reaches(sc, rel.offset, addr);
	}
}

/*
 * Load the relocation sections find_refs() reads, and the bytes it
 * needs, here on the caller's thread: image_relocs() and
 * image_section_bytes() fill the image's caches and call libelf, which
 * is not for two threads at once.  find_refs() then only reads.
 */
static int load_refs(struct stripped_check *sc)
{
	struct image *im = sc->im;
	struct relocs *rs;
	size_t i;

	sc->refs = xcalloc(im->nsecs ? im->nsecs : 1, sizeof(*sc->refs));
	for (i = 1; i < im->nsecs; i++) {
		if (!refs_section(im, &im->secs[i]))
			continue;
		rs = &sc->refs[sc->nrefs];
		if (image_relocs(im, &im->secs[i], rs) < 0)
			return -1;
		/* Rel: the addends are in the bytes; a section of size 0
		 * has none, and its relocations reach nothing (ref_target)
		 */
		if (!reloc_has_addend(rs->layout) &&
		    !image_section_bytes(im, rs->target))
			return -1;
		sc->nrefs += rs->count > 0;
	}
	return 0;
}

/* Relocations [@from, @to) of @rs. */
static void scan_relocs(struct stripped_check *sc, const struct relocs *rs,
			uint64_t from, uint64_t to)
{
	RELOC_DISPATCH(rs->layout, refs_in, sc, rs, from, to);
}

/*
 * Direct branches that start at bytes [@from, @to) of @sec; the last
 * ones may end past @to, so the scan sees a few bytes more.
 */
static void scan_branches(struct stripped_check *sc, const struct section *sec,
			  uint64_t from, uint64_t to)
{
	const struct arch_refs *a = sc->arch;
	uint64_t p, target, size = sec->sh.sh_size;

	if (size - to > ARCH_BRANCH_MAX)
		size = to + ARCH_BRANCH_MAX;
	for (p = from; (p = a->next_branch(sec->bytes, size, p, sec->sh.sh_addr,
					   &sc->filter, &target)) < to; p++)
		reaches(sc, sec->sh.sh_addr + p, target);
}

/* Pieces of at most @piece of relocations or bytes [@from, @to). */
static void add_item(struct stripped_check *sc, const struct relocs *rs,
		     const struct section *sec, uint64_t from, uint64_t to,
		     uint64_t piece)
{
	for (; from < to; from += piece)
		sc->items[sc->nitems++] = (struct work_item){
			rs, sec, from, to - from > piece ? from + piece : to,
		};
}

/*
 * Cut the work into pieces: the relocation sections, then the code of
 * the candidates' windows, those that overlap as one (they are sorted:
 * find_windows()).  Returns the bytes of code to search.
 */
static uint64_t make_items(struct stripped_check *sc)
{
	const struct section *sec;
	uint64_t bytes = 0, lo, hi;
	size_t n = 0, i, k;

	for (i = 0; i < sc->nrefs; i++)
		n += sc->refs[i].count / ITEM_RELOCS + 1;
	for (i = 0; i < sc->n; i++)
		n += (sc->v[i].hi - sc->v[i].lo) / ITEM_BYTES + 1;
	sc->items = xmalloc((n ? n : 1) * sizeof(*sc->items));
	for (i = 0; i < sc->nrefs; i++)
		add_item(sc, &sc->refs[i], NULL, 0, sc->refs[i].count,
			 ITEM_RELOCS);
	for (i = 0; i < sc->n; i = k) {
		sec = &sc->im->secs[sc->v[i].shndx];
		lo = sc->v[i].lo;
		hi = sc->v[i].hi;
		for (k = i + 1; k < sc->n && sc->v[k].shndx == sc->v[i].shndx &&
		     sc->v[k].lo <= hi; k++)
			hi = sc->v[k].hi > hi ? sc->v[k].hi : hi;
		add_item(sc, NULL, sec, lo - sec->sh.sh_addr,
			 hi - sec->sh.sh_addr, ITEM_BYTES);
		bytes += hi - lo;
	}
	return bytes;
}

static int refuse(struct stripped_check *sc)
{
	struct section *sec = NULL;
	const struct cand *first = NULL;
	char place[160];
	size_t i, n = 0;

	for (i = 0; i < sc->n && !n; i++)
		n = sc->v[i].reached || sc->v[i].far_self;
	if (!n)
		return 0;
	resolve_symbols(sc);
	n = 0;
	for (i = 0; i < sc->n; i++)
		if (sc->v[i].reached && !n++)
			first = &sc->v[i];
	if (!n)
		return 0;
	sec = &sc->im->secs[first->shndx];
	snprintf(place, sizeof(place), "%s+0x%llx (0x%llx)", sec->name,
		 (unsigned long long)(first->entry - sec->sh.sh_addr),
		 (unsigned long long)first->entry);
	return lp_error(sc->im->path, place,
			"%zu function entr%s in no function symbol %s called or referenced, so %s mcount call%s would be dropped as dead code: local symbols were discarded from %s object%s (strip -x?); link objects that keep local symbols",
			n, n == 1 ? "y" : "ies", n == 1 ? "is" : "are",
			n == 1 ? "its" : "their", n == 1 ? "" : "s",
			n == 1 ? "its" : "their", n == 1 ? "" : "s");
}

/* The bracketed table's range, kernel bounds first (see mcount-table.h). */
static void bracketed_table(struct stripped_check *sc)
{
	static const char *const pairs[][2] = {
		{ MCOUNT_KERNEL_START, MCOUNT_KERNEL_STOP },
		{ MCOUNT_LINKER_START, MCOUNT_LINKER_STOP },
	};
	const struct symbol *lo, *hi;
	size_t j;

	for (j = 0; j < ARRAY_SIZE(pairs); j++) {
		lo = image_find_symbol(sc->im, pairs[j][0]);
		hi = image_find_symbol(sc->im, pairs[j][1]);
		if (lo && hi && lo->value < hi->value) {
			sc->table_lo = lo->value;
			sc->table_hi = hi->value;
			return;
		}
	}
}

/*
 * Every reference and branch into a candidate's entry: take pieces
 * until none is left.  Run by the check's thread and, once it waits
 * for it, by the caller: no lock, since each piece is taken once and
 * reaches() stores atomically.
 */
static void find_refs(struct stripped_check *sc)
{
	const struct work_item *it;
	size_t i;

	while ((i = __atomic_fetch_add(&sc->next_item, 1, __ATOMIC_RELAXED)) <
	       sc->nitems) {
		it = &sc->items[i];
		if (it->rs)
			scan_relocs(sc, it->rs, it->from, it->to);
		else
			scan_branches(sc, it->sec, it->from, it->to);
	}
}

static bool any_hit(const struct stripped_check *sc)
{
	size_t i;

	for (i = 0; i < sc->n; i++)
		if (sc->v[i].reached || sc->v[i].far_self)
			return true;
	return false;
}

/* Forget what find_refs() found, to run it again. */
static void forget(struct stripped_check *sc)
{
	size_t i;

	for (i = 0; i < sc->n; i++) {
		sc->v[i].reached = false;
		sc->v[i].far_self = 0;
	}
}

/*
 * Below this many bytes to read (the candidates' code and the
 * relocations) the check costs less than starting a thread for it.
 */
#define THREAD_MIN_BYTES BIT(20)

/*
 * Is the check worth a thread of its own?  @threads as in scan_opts;
 * @bytes of code to search.
 */
static bool worth_a_thread(const struct stripped_check *sc, int threads,
			   uint64_t bytes)
{
	size_t i;

	if (threads == 1)
		return false;
	if (threads > 1)
		return true;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return false;
	for (i = 0; i < sc->nrefs; i++)
		bytes += sc->refs[i].rsec->sh.sh_size;
	return bytes >= THREAD_MIN_BYTES;
}

static void *find_refs_thread(void *arg)
{
	struct stripped_check *sc = arg;
	uint64_t t0 = now_ns();

	find_refs(sc);
	sc->ns_find = now_ns() - t0;
	return NULL;
}

static void stripped_free(struct stripped_check *sc)
{
	free((void *)sc->filter.bucket);
	free(sc->items);
	free(sc->refs);
	free(sc->v);
	free(sc);
}

int stripped_start(struct image *im, const struct scan_result *r, int threads,
		   struct stripped_check **job)
{
	const struct arch_refs *arch = arch_refs_find(im->ehdr.e_machine);
	struct stripped_check *sc;
	uint64_t t0 = now_ns(), bytes;
	size_t i;

	*job = NULL;
	if (im->ehdr.e_type == ET_REL || !arch)
		return 0;
	if (!(r->explained ? r->stats.verdicts[DROP_DEAD_BODY] +
			     r->stats.verdicts[DROP_NO_FUNC] :
			     r->nunentered))
		return 0;
	sc = xcalloc(1, sizeof(*sc));
	sc->im = im;
	sc->arch = arch;
	gather(sc, r);
	if (!sc->n) {
		stripped_free(sc);
		return 0;
	}
	sc->first_global = im->symtab->sh.sh_info;
	if (sc->first_global < 1 || sc->first_global > im->nsyms)
		sc->first_global = im->nsyms;	/* malformed: all */
	sc->syms = im->syms_decoded ? im->syms : NULL;
	make_filter(sc);
	if (windows_pay(sc))
		find_windows(sc);
	if (load_refs(sc) < 0) {
		stripped_free(sc);
		return -1;
	}
	for (i = 0; i < KIND_CACHE; i++)
		sc->kinds[i] = (uint8_t)arch->reloc_ref((uint32_t)i);
	bytes = make_items(sc);
	/*
	 * No lock is needed: the thread writes only sc's candidates, and
	 * reads the image's bytes, which nothing changes, and the fields
	 * load_refs() filled, which only it wrote.
	 */
	sc->ns_start = now_ns() - t0;
	sc->threaded = worth_a_thread(sc, threads, bytes) &&
		       !pthread_create(&sc->tid, NULL, find_refs_thread, sc);
	if (!sc->threaded)
		find_refs_thread(sc);
	*job = sc;
	return 0;
}

int stripped_finish(struct stripped_check *sc, struct scan_stats *st)
{
	int ret = 0;

	if (!sc)
		return 0;
	if (sc->threaded) {
		find_refs(sc);	/* take the pieces still left */
		pthread_join(sc->tid, NULL);
	}
	/*
	 * Rare from here: something refers to a candidate's entry.  Only
	 * now are the symbols decoded and a bracketed table looked for;
	 * its own entries are no references, so with one the passes run
	 * again without them.
	 */
	if (any_hit(sc)) {
		ret = image_symbols(sc->im);
		if (!ret) {
			sc->syms = sc->im->syms;
			bracketed_table(sc);
			if (sc->table_lo < sc->table_hi) {
				forget(sc);
				sc->next_item = 0;
				find_refs(sc);
			}
			ret = refuse(sc);
		}
	}
	st->ns_stripped = sc->ns_start + sc->ns_find;
	st->stripped_threaded = sc->threaded;
	stripped_free(sc);
	return ret;
}

void stripped_cancel(struct stripped_check *sc)
{
	if (!sc)
		return;
	if (sc->threaded)
		pthread_join(sc->tid, NULL);
	stripped_free(sc);
}
