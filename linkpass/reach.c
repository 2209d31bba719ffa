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
 * looks at every position of the candidate's section without decoding
 * instructions: a position that is not really a branch hits one given
 * entry with probability 2^-32, so a false "reached" needs about 2^32
 * bytes of code per dead body.
 *
 * The entry is the call itself, or the endbr64 just before it.  The
 * body runs to the next candidate entry, the next function symbol or
 * the section's end, whichever comes first.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reach.h"
#include "mcount-table.h"
#include "relocs.h"
#include "util.h"

/*
 * A piece of find_refs(): relocations [from, to) of @rs, or the bytes
 * [from, to) of code section @sec (whose branches may end past @to).
 */
struct reach_item {
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
				 * section's end */
	uint64_t far_self;	/* the farthest reference from inside
				 * [entry, end); 0: none */
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

struct reach {
	struct image *im;
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
	struct reach_item *items;
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
	/* find_refs() on a thread of its own (reach_start()) */
	bool threaded;
	pthread_t tid;
	uint64_t ns_start;	/* reach_start()'s own time */
	uint64_t ns_find;	/* find_refs()'s, on whichever thread */
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
static inline void reaches(struct reach *rc, uint64_t place, uint64_t addr)
{
	size_t i;

	if (!branch_wanted(&rc->filter, addr))
		return;
	i = lower_bound(rc, addr);
	if (i >= rc->n || rc->v[i].entry != addr)
		return;
	if (place >= rc->table_lo && place < rc->table_hi)
		return;		/* a table entry, not a reference */
	/* rare, and both threads may get here: atomic stores */
	if (place < addr || place >= rc->v[i].end)
		__atomic_store_n(&rc->v[i].reached, true, __ATOMIC_RELAXED);
	else
		store_max(&rc->v[i].far_self, place);	/* resolve_symbols()
							 * decides */
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
	/* the scan hands them over in address order, as a rule */
	for (i = 1; i < rc->n; i++)
		if (rc->v[i - 1].entry > rc->v[i].entry)
			break;
	if (i < rc->n)
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
 * One pass over the function symbols, only when a candidate was reached
 * or referenced from after its entry (rare: a stripped static function,
 * or gcc's self-recursion).  A reference from inside [entry, end) counts
 * when a function symbol starts between the entry and it: the body ends
 * there.  A call that a function symbol covers is not a candidate
 * (without reasons the scan could not tell; a call inside a live
 * function).  Coverage is counted over index ranges, so a malformed
 * image with many huge symbols costs n log n, not n * m.
 */
static void resolve_symbols(struct reach *rc)
{
	const struct symbol *sym;
	long *cover = xcalloc(rc->n + 1, sizeof(*cover));
	uint64_t last;
	size_t i, a, b;
	long depth = 0;
	struct cand *c;

	for (i = 0; i < rc->im->nsyms; i++) {
		sym = &rc->im->syms[i];
		if ((sym->type != STT_FUNC && sym->type != STT_GNU_IFUNC) ||
		    sym->shndx == SHN_UNDEF || sym->shndx >= rc->im->nsecs)
			continue;
		a = lower_bound(rc, sym->value);
		if (a > 0) {
			c = &rc->v[a - 1];
			if (c->shndx == sym->shndx && sym->value > c->entry &&
			    c->far_self >= sym->value)
				c->reached = true;
		}
		if (!sym->size)
			continue;
		last = sym->size - 1 > UINT64_MAX - sym->value ?
		       UINT64_MAX : sym->value + (sym->size - 1);
		b = last == UINT64_MAX ? rc->n : lower_bound(rc, last + 1);
		cover[a]++;
		cover[b]--;
	}
	for (i = 0; i < rc->n; i++) {
		depth += cover[i];
		if (depth > 0)
			rc->v[i].reached = false;	/* not a candidate */
	}
	free(cover);
}

/* The filter of candidate entries; rc->n > 0, rc->v sorted. */
static void make_filter(struct reach *rc)
{
	uint64_t n, b, *bucket;
	size_t i;

	rc->filter.lo = rc->v[0].entry;
	rc->filter.hi = rc->v[rc->n - 1].entry;
	rc->filter.shift = BUCKET_SHIFT;
	n = ((rc->filter.hi - rc->filter.lo) >> BUCKET_SHIFT) + 1;
	if (n > BUCKETS_MAX)
		return;
	bucket = xcalloc((size_t)(n + 63) / 64, sizeof(*bucket));
	for (i = 0; i < rc->n; i++) {
		b = (rc->v[i].entry - rc->filter.lo) >> BUCKET_SHIFT;
		bucket[b / 64] |= 1ULL << (b % 64);
	}
	rc->filter.bucket = bucket;
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

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
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
static inline uint64_t sym_value(const struct reach *rc, size_t i)
{
	const struct sym_input *in = &rc->im->symin;
	Elf64_Addr v64;
	Elf32_Addr v32;

	if (rc->syms)
		return rc->syms[i].value;
	if (in->is64) {
		memcpy(&v64, in->syms + i * sizeof(Elf64_Sym) +
		       offsetof(Elf64_Sym, st_value), sizeof(v64));
		return v64;
	}
	memcpy(&v32, in->syms + i * sizeof(Elf32_Sym) +
	       offsetof(Elf32_Sym, st_value), sizeof(v32));
	return v32;
}

/* The address relocation @rel refers to, or false. */
static inline __attribute__((always_inline)) bool
ref_target(const struct reach *rc, enum reloc_layout l,
	   const struct section *t, const uint8_t *kinds,
	   const struct reloc *rel, uint64_t *addr)
{
	const struct image *im = rc->im;
	enum ref_kind kind = rel->type < KIND_CACHE ? kinds[rel->type] :
			     im->arch->reloc_ref(rel->type);
	bool code = t->sh.sh_flags & SHF_EXECINSTR;
	uint64_t off = rel->offset - t->sh.sh_addr;
	int32_t field;

	if (kind == REF_NONE || (!code && kind != REF_ABS))
		return false;
	if (reloc_has_addend(l)) {
		if (rel->sym >= im->nsyms)
			return false;
		*addr = sym_value(rc, rel->sym) + (uint64_t)rel->addend;
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

/* One loop per layout (see relocs.h); @l is a constant in each copy. */
static inline __attribute__((always_inline)) void
refs_in(enum reloc_layout l, struct reach *rc, const struct relocs *rs,
	uint64_t from, uint64_t to)
{
	struct reloc rel;
	uint64_t addr;
	size_t j;

	for (j = from; j < to; j++) {
		reloc_get(l, rs->base, j, &rel);
		if (rel.sym >= rc->first_global)
			continue;	/* names a global: see the top */
		if (ref_target(rc, l, rs->target, rc->kinds, &rel, &addr))
			reaches(rc, rel.offset, addr);
	}
}

/*
 * Load the relocation sections find_refs() reads, and the bytes it
 * needs, here on the caller's thread: image_relocs() and
 * image_section_bytes() fill the image's caches and call libelf, which
 * is not for two threads at once.  find_refs() then only reads.
 */
static int load_refs(struct reach *rc)
{
	struct image *im = rc->im;
	struct relocs *rs;
	size_t i;

	rc->refs = xcalloc(im->nsecs ? im->nsecs : 1, sizeof(*rc->refs));
	for (i = 1; i < im->nsecs; i++) {
		if (!refs_section(im, &im->secs[i]))
			continue;
		rs = &rc->refs[rc->nrefs];
		if (image_relocs(im, &im->secs[i], rs) < 0)
			return -1;
		/* Rel: the addends are in the bytes; a section of size 0
		 * has none, and its relocations reach nothing (ref_target) */
		if (!reloc_has_addend(rs->layout) &&
		    !image_section_bytes(im, rs->target))
			return -1;
		rc->nrefs += rs->count > 0;
	}
	return 0;
}

/* Relocations [@from, @to) of @rs. */
static void scan_relocs(struct reach *rc, const struct relocs *rs,
			uint64_t from, uint64_t to)
{
	RELOC_DISPATCH(rs->layout, refs_in, rc, rs, from, to);
}

/*
 * Direct branches that start at bytes [@from, @to) of @sec; the last
 * ones may end past @to, so the scan sees a few bytes more.
 */
static void scan_branches(struct reach *rc, const struct section *sec,
			  uint64_t from, uint64_t to)
{
	const struct arch *a = rc->im->arch;
	uint64_t p, target, size = sec->sh.sh_size;

	if (size - to > ARCH_BRANCH_MAX)
		size = to + ARCH_BRANCH_MAX;
	for (p = from; (p = a->next_branch(sec->bytes, size, p, sec->sh.sh_addr,
					   &rc->filter, &target)) < to; p++)
		reaches(rc, sec->sh.sh_addr + p, target);
}

static void add_item(struct reach *rc, const struct relocs *rs,
		     const struct section *sec, uint64_t n, uint64_t piece)
{
	uint64_t from;

	for (from = 0; from < n; from += piece)
		rc->items[rc->nitems++] = (struct reach_item){
			rs, sec, from, n - from > piece ? from + piece : n,
		};
}

/*
 * Cut the work into pieces: the relocation sections, then the code of
 * the sections that hold candidates (one at a time: they are sorted).
 */
static void make_items(struct reach *rc)
{
	const struct section *sec;
	size_t n = 0, i;

	for (i = 0; i < rc->nrefs; i++)
		n += rc->refs[i].count / ITEM_RELOCS + 1;
	for (i = 0; i < rc->n; i++)
		if (!i || rc->v[i - 1].shndx != rc->v[i].shndx)
			n += rc->im->secs[rc->v[i].shndx].sh.sh_size /
			     ITEM_BYTES + 1;
	rc->items = xmalloc((n ? n : 1) * sizeof(*rc->items));
	for (i = 0; i < rc->nrefs; i++)
		add_item(rc, &rc->refs[i], NULL, rc->refs[i].count,
			 ITEM_RELOCS);
	for (i = 0; i < rc->n; i++) {
		if (i && rc->v[i - 1].shndx == rc->v[i].shndx)
			continue;
		sec = &rc->im->secs[rc->v[i].shndx];
		add_item(rc, NULL, sec, sec->sh.sh_size, ITEM_BYTES);
	}
}

static int refuse(struct reach *rc)
{
	struct section *sec = NULL;
	const struct cand *first = NULL;
	char place[160];
	size_t i, n = 0;

	for (i = 0; i < rc->n && !n; i++)
		n = rc->v[i].reached || rc->v[i].far_self;
	if (!n)
		return 0;
	resolve_symbols(rc);
	n = 0;
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

/* The bracketed table's range, kernel bounds first (see mcount-table.h). */
static void table_bounds(struct reach *rc)
{
	static const char *const pairs[][2] = {
		{ MCOUNT_KERNEL_START, MCOUNT_KERNEL_STOP },
		{ MCOUNT_LINKER_START, MCOUNT_LINKER_STOP },
	};
	const struct symbol *lo, *hi;
	size_t j;

	for (j = 0; j < sizeof(pairs) / sizeof(pairs[0]); j++) {
		lo = image_find_symbol(rc->im, pairs[j][0]);
		hi = image_find_symbol(rc->im, pairs[j][1]);
		if (lo && hi && lo->value < hi->value) {
			rc->table_lo = lo->value;
			rc->table_hi = hi->value;
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
static void find_refs(struct reach *rc)
{
	const struct reach_item *it;
	size_t i;

	while ((i = __atomic_fetch_add(&rc->next_item, 1, __ATOMIC_RELAXED)) <
	       rc->nitems) {
		it = &rc->items[i];
		if (it->rs)
			scan_relocs(rc, it->rs, it->from, it->to);
		else
			scan_branches(rc, it->sec, it->from, it->to);
	}
}

static bool any_hit(const struct reach *rc)
{
	size_t i;

	for (i = 0; i < rc->n; i++)
		if (rc->v[i].reached || rc->v[i].far_self)
			return true;
	return false;
}

/* Forget what find_refs() found, to run it again. */
static void forget(struct reach *rc)
{
	size_t i;

	for (i = 0; i < rc->n; i++) {
		rc->v[i].reached = false;
		rc->v[i].far_self = 0;
	}
}

/*
 * Below this many bytes to read (the candidates' code and the
 * relocations) the check costs less than starting a thread for it.
 */
#define THREAD_MIN_BYTES (1u << 20)

/* Is the check worth a thread of its own?  @threads as in scan_opts. */
static bool worth_a_thread(const struct reach *rc, int threads)
{
	size_t bytes = 0, i;

	if (threads == 1)
		return false;
	if (threads > 1)
		return true;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return false;
	for (i = 0; i < rc->nrefs; i++)
		bytes += rc->refs[i].rsec->sh.sh_size;
	for (i = 0; i < rc->n; i++)
		if (!i || rc->v[i - 1].shndx != rc->v[i].shndx)
			bytes += rc->im->secs[rc->v[i].shndx].sh.sh_size;
	return bytes >= THREAD_MIN_BYTES;
}

static void *find_refs_thread(void *arg)
{
	struct reach *rc = arg;
	uint64_t t0 = now_ns();

	find_refs(rc);
	rc->ns_find = now_ns() - t0;
	return NULL;
}

static void reach_free(struct reach *rc)
{
	free((void *)rc->filter.bucket);
	free(rc->items);
	free(rc->refs);
	free(rc->v);
	free(rc);
}

int reach_start(struct image *im, const struct scan_result *r, int threads,
		struct reach **job)
{
	struct reach *rc;
	uint64_t t0 = now_ns();
	size_t i;

	*job = NULL;
	if (im->ehdr.e_type == ET_REL || !im->arch->reloc_ref ||
	    !im->arch->next_branch)
		return 0;
	if (!(r->explained ? r->stats.verdicts[DROP_DEAD_BODY] +
			     r->stats.verdicts[DROP_NO_FUNC] :
			     r->nunentered))
		return 0;
	rc = xcalloc(1, sizeof(*rc));
	rc->im = im;
	gather(rc, r);
	if (!rc->n) {
		reach_free(rc);
		return 0;
	}
	rc->first_global = im->symtab->sh.sh_info;
	if (rc->first_global < 1 || rc->first_global > im->nsyms)
		rc->first_global = im->nsyms;	/* malformed: all */
	rc->syms = im->syms_decoded ? im->syms : NULL;
	make_filter(rc);
	if (load_refs(rc) < 0) {
		reach_free(rc);
		return -1;
	}
	for (i = 0; i < KIND_CACHE; i++)
		rc->kinds[i] = (uint8_t)im->arch->reloc_ref((uint32_t)i);
	make_items(rc);
	/*
	 * No lock is needed: the thread writes only rc's candidates, and
	 * reads the image's bytes, which nothing changes, and the fields
	 * load_refs() filled, which only it wrote.
	 */
	rc->ns_start = now_ns() - t0;
	rc->threaded = worth_a_thread(rc, threads) &&
		       !pthread_create(&rc->tid, NULL, find_refs_thread, rc);
	if (!rc->threaded)
		find_refs_thread(rc);
	*job = rc;
	return 0;
}

int reach_finish(struct reach *rc, struct scan_stats *st)
{
	int ret = 0;

	if (!rc)
		return 0;
	if (rc->threaded) {
		find_refs(rc);	/* take the pieces still left */
		pthread_join(rc->tid, NULL);
	}
	/*
	 * Rare from here: something refers to a candidate's entry.  Only
	 * now are the symbols decoded and a bracketed table looked for;
	 * its own entries are no references, so with one the passes run
	 * again without them.
	 */
	if (any_hit(rc)) {
		ret = image_symbols(rc->im);
		if (!ret) {
			rc->syms = rc->im->syms;
			table_bounds(rc);
			if (rc->table_lo < rc->table_hi) {
				forget(rc);
				rc->next_item = 0;
				find_refs(rc);
			}
			ret = refuse(rc);
		}
	}
	st->ns_reach = rc->ns_start + rc->ns_find;
	st->reach_threaded = rc->threaded;
	reach_free(rc);
	return ret;
}

void reach_cancel(struct reach *rc)
{
	if (!rc)
		return;
	if (rc->threaded)
		pthread_join(rc->tid, NULL);
	reach_free(rc);
}
