// SPDX-License-Identifier: GPL-2.0
/*
 * sites.c - the __mcount_loc tables of the loaded objects: find the
 * program's, sort each, check what every site holds, and look sites up
 * by address.
 *
 * Each object's array is published once (at load, or when a change
 * first needs the records of sites that were all our NOP at load) and
 * never freed or moved, and the list of objects only grows, so the
 * SIGTRAP handler can search them at any moment without a lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch-x86_64.h"
#include "compiler.h"
#include "entry.h"
#include "lock.h"
#include "maps.h"
#include "mcount-table.h"
#include "msg.h"
#include "sites.h"
#include "symtab.h"

/*
 * The table's bounds, by the names of include/mcount-table.h (the
 * linker's pair for a section named like a C identifier, or the
 * kernel's).  Weak, so a program without a table (or with the other
 * pair) still links.
 */
#define LPT_WEAK_SYM(sym, name) \
	extern const char sym[] __asm__(name) __attribute__((weak))
LPT_WEAK_SYM(lpt_linker_start, MCOUNT_LINKER_START);
LPT_WEAK_SYM(lpt_linker_stop, MCOUNT_LINKER_STOP);
LPT_WEAK_SYM(lpt_kernel_start, MCOUNT_KERNEL_START);
LPT_WEAK_SYM(lpt_kernel_stop, MCOUNT_KERNEL_STOP);

/* Entries are 8-byte addresses, relocated by ld.so in a PIE. */
#define LPT_ENTRY_SIZE	8

/* Refusals beyond this many are counted, not listed. */
#define LPT_REFUSE_REPORT_MAX	20

struct lpt_obj *lpt_objs;

/* The program: its sites call __fentry__ and reach the trampolines. */
static struct lpt_obj lpt_main_obj = { .path = "" };

static int table_extent(const char **start, const char **stop)
{
	if (lpt_linker_start && lpt_linker_stop) {
		*start = lpt_linker_start;
		*stop = lpt_linker_stop;
	} else if (lpt_kernel_start && lpt_kernel_stop) {
		*start = lpt_kernel_start;
		*stop = lpt_kernel_stop;
	} else {
		*start = *stop = NULL;
		return 0;
	}
	if (*stop < *start || (*stop - *start) % LPT_ENTRY_SIZE) {
		lpt_msg(MCOUNT_SECTION ": size %td is not a multiple of %d",
			*stop - *start, LPT_ENTRY_SIZE);
		return -EINVAL;
	}
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The table's entries, sorted and distinct.  linkpass writes them sorted
 * and 8-byte aligned: then they are used where they lie, with no copy.
 * Otherwise (gcc aligns its per-object tables to 1 byte and leaves them
 * unsorted) they are copied out with memcpy, sorted and deduplicated:
 * a table must never list a site twice.  *@copy is the copy to free, or
 * NULL; returns NULL when it cannot be made.
 */
const uintptr_t *lpt_table_read(const char *start, const char *stop,
				size_t *np, uintptr_t **copy)
{
	size_t i, j, n = (stop - start) / LPT_ENTRY_SIZE;
	const uintptr_t *in = (const uintptr_t *)(const void *)start;
	uintptr_t *v;

	*copy = NULL;
	*np = n;
	if (!((uintptr_t)start % sizeof(uintptr_t))) {
		for (i = 1; i < n; i++)
			if (in[i - 1] >= in[i])
				break;
		if (i >= n)
			return in;
	}
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, start, n * LPT_ENTRY_SIZE);
	qsort(v, n, sizeof(*v), cmp_addr);
	for (i = j = 0; i < n; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	*np = j;
	*copy = v;
	return v;
}

static void report_refused(const struct lpt_site *s, const uint8_t *bytes,
			   size_t avail, const char *why)
{
	uintptr_t off = 0;
	const char *name;
	char hex[3 * LPT_SITE_MAX + 1] = "";
	size_t i, show;

	lpt_symtab_load();
	name = lpt_objs_symbol(s->addr, &off);
	/* The length of a refused site is unknown: show all that was read. */
	show = avail < LPT_SITE_MAX ? avail : LPT_SITE_MAX;
	for (i = 0; i < show; i++)
		sprintf(hex + 3 * i, "%02x ", bytes[i]);
	if (show)
		hex[3 * show - 1] = '\0';
	lpt_msg("site %#lx (%s+0x%lx): %s%s%s; not patched",
		(unsigned long)s->addr, name ? name : "?", (unsigned long)off,
		why, show ? ": " : "", hex);
}

/*
 * What check_site() could not settle with one load: the byte-wise
 * checks, and the reasons for a refusal.
 */
static __attribute__((noinline)) void
check_site_bytes(struct lpt_site *s, const struct lpt_map *m,
		 struct lpt_stats *st)
{
	uint8_t bytes[LPT_SITE_MAX] = { 0 };
	const char *why;
	size_t avail = 0;
	unsigned int len;

	if (!m) {
		why = "not in an executable mapping";
		goto refuse;
	}
	if (!(m->prot & PROT_READ)) {
		why = "mapping is execute-only, cannot check";
		goto refuse;
	}
	avail = m->end - s->addr < LPT_SITE_MAX ? m->end - s->addr : LPT_SITE_MAX;
	memcpy(bytes, (const void *)s->addr, avail);
	s->prot = m->prot;

	len = lpt_match_call(bytes, s->addr, s->obj->fentry);
	if (len && len <= avail) {
		s->len = len;
		s->state = LPT_FENTRY;
		return;
	}
	len = lpt_match_nop(bytes);
	if (len && len <= avail) {
		s->len = len;
		s->state = LPT_NOP;
		st->already++;
		return;
	}
	why = s->obj->fentry ? "unexpected bytes, expected call __fentry__" :
			       "the object defines no __fentry__ of its own";
refuse:
	if (st->refused < LPT_REFUSE_REPORT_MAX)
		report_refused(s, bytes, avail, why);
	st->refused++;
}

/*
 * Decide what one site holds.  Only mapped code is read; only a call
 * to our __fentry__ (or our own NOP, left by an earlier run or by
 * -mnop-mcount or --nop-sites) is accepted.  Everything else is refused.
 */
static inline void check_site(struct lpt_site *s, const struct lpt_maps *maps,
			      const struct lpt_map **last,
			      struct lpt_stats *st)
{
	const struct lpt_map *m = *last;
	unsigned int len;
	uint64_t w;
	int word;

	s->state = LPT_REFUSED;
	/* Sites come sorted: most lie in the mapping of the one before. */
	if (!m || s->addr < m->start || s->addr >= m->end)
		m = *last = lpt_maps_find(maps, s->addr);
	/* the common case: one load, our NOP or our call */
	if (m && (m->prot & PROT_READ) && m->end - s->addr >= sizeof(w)) {
		memcpy(&w, (const void *)s->addr, sizeof(w));
		word = lpt_match_word(w, s->addr, s->obj->fentry, &len);
		if (word == LPT_WORD_NOP ||
		    (word == LPT_WORD_CALL && s->obj->fentry)) {
			s->len = len;
			s->prot = m->prot;
			s->state = word == LPT_WORD_NOP ? LPT_NOP : LPT_FENTRY;
			st->already += word == LPT_WORD_NOP;
			return;
		}
	}
	check_site_bytes(s, m, st);
}

static int load_maps(struct lpt_maps *maps)
{
	int err = lpt_maps_load(maps);

	if (err)
		lpt_msg("/proc/self/maps: %s", strerror(-err));
	return err;
}

/* The first of @addrs[i..n) (sorted) above @last, by binary search. */
static size_t run_end(const uintptr_t *addrs, size_t i, size_t n,
		      uintptr_t last)
{
	while (i < n) {
		size_t mid = i + (n - i) / 2;

		if (addrs[mid] <= last)
			i = mid + 1;
		else
			n = mid;
	}
	return i;
}

/*
 * How many of the sites at @addrs (sorted), from the first, hold our
 * NOP: the check of an image linked with --nop-sites, storing nothing.
 * The sites are taken by runs, one per mapping: a range compare per
 * mapping, not a lookup per site.  The count stops at the first site
 * that is anything else, or not readable code, or within 8 bytes of its
 * mapping's end; check_site() then decides about it.
 */
static size_t count_nops(const uintptr_t *addrs, size_t n,
			 const struct lpt_maps *maps)
{
	size_t i = 0, end;
	uint64_t w;

	while (i < n) {
		const struct lpt_map *m = lpt_maps_find(maps, addrs[i]);

		if (!m || !(m->prot & PROT_READ) ||
		    m->end - addrs[i] < sizeof(w))
			break;
		end = run_end(addrs, i, n, m->end - sizeof(w));
		for (; i < end; i++) {
			memcpy(&w, (const void *)addrs[i], sizeof(w));
			if (!lpt_nop_word_len(w))
				return i;
		}
	}
	return i;
}

/*
 * The checked records of the sites at @addrs (sorted, distinct) of
 * object @o, or NULL when out of memory.  Never freed (lock-free
 * readers).  Populated in one go: on a big table, page faults one by
 * one cost more than checking the sites.
 */
static struct lpt_site *build_records(struct lpt_obj *o,
				      const uintptr_t *addrs, size_t n,
				      const struct lpt_maps *maps,
				      struct lpt_stats *st)
{
	const struct lpt_map *last = NULL;
	struct lpt_site *sites;
	uint64_t refused = st->refused;
	size_t i;

	sites = mmap(NULL, (n ? n : 1) * sizeof(*sites), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (sites == MAP_FAILED)
		return NULL;
	for (i = 0; i < n; i++) {
		sites[i].addr = addrs[i];
		sites[i].obj = o;
		check_site(&sites[i], maps, &last, st);
		sites[i].want = sites[i].state;
	}
	if (st->refused - refused > LPT_REFUSE_REPORT_MAX)
		lpt_msg("... and %llu more sites refused",
			(unsigned long long)(st->refused - refused -
					     LPT_REFUSE_REPORT_MAX));
	return sites;
}

/*
 * Check the sites at @addrs (sorted, distinct) of object @o, which
 * becomes their owner; the object is not yet published.  @copy is
 * @addrs when lpt_table_read() copied them, else NULL; it is ours.
 *
 * When every site holds our NOP (an image linked with --nop-sites)
 * there is nothing to write, and no record is built: the object keeps
 * the table, and lpt_sites_build() makes the records when a change
 * first needs them.  Start-up then costs a load and a compare per site.
 */
int lpt_sites_check(struct lpt_obj *o, const uintptr_t *addrs, size_t n,
		    uintptr_t *copy, struct lpt_stats *st)
{
	struct lpt_maps maps;
	int err;

	err = load_maps(&maps);
	if (err)
		goto out_free_copy;
	if (count_nops(addrs, n, &maps) == n) {
		o->table = addrs;
		o->table_copy = copy;
		copy = NULL;
		st->already += n;
	} else {
		o->sites = build_records(o, addrs, n, &maps, st);
		if (!o->sites)
			err = -ENOMEM;
	}
	lpt_maps_free(&maps);
	if (!err) {
		st->sites += n;
		o->nsites = n;
	}
out_free_copy:
	free(copy);
	return err;
}

/*
 * The records of an object whose sites were all our NOP at load (see
 * lpt_sites_check), made when a change first needs them.  Caller holds
 * the lock and runs inside lpt_objects_pinned(), so the object (and a
 * table read in place) is still mapped.  The sites are checked again:
 * bytes changed since start are refused as they would have been then.
 * The trap handler may search the object meanwhile: it sees no records
 * or all of them (published with release), and none of these sites
 * holds an int3 of ours before they exist.
 */
int lpt_sites_build(struct lpt_obj *o, struct lpt_stats *st)
{
	struct lpt_stats again = { 0 };
	struct lpt_site *sites;
	struct lpt_maps maps;
	int err;

	if (o->sites || !o->table)
		return 0;
	err = load_maps(&maps);
	if (err)
		return err;
	sites = build_records(o, o->table, o->nsites, &maps, &again);
	lpt_maps_free(&maps);
	if (!sites)
		return -ENOMEM;
	st->refused += again.refused;	/* `already` was counted at load */
	__atomic_store_n(&o->sites, sites, __ATOMIC_RELEASE);
	free(o->table_copy);
	o->table = o->table_copy = NULL;
	return 0;
}

/* Append @o to the list the trap handler reads; caller holds the lock. */
void lpt_obj_publish(struct lpt_obj *o)
{
	struct lpt_obj **pp = &lpt_objs;

	while (*pp)
		pp = &(*pp)->next;
	__atomic_store_n(pp, o, __ATOMIC_RELEASE);
}

/*
 * Load and check the program's table; publishes it for the trap handler.
 * @fentry is the program's __fentry__, the call its sites hold as linked
 * (autostart.c defines it, above every layer: control.c passes it down).
 */
int lpt_sites_load(struct lpt_stats *st, uintptr_t fentry)
{
	struct lpt_obj *o = &lpt_main_obj;
	const char *start, *stop;
	const uintptr_t *addrs;
	uintptr_t *copy;
	size_t n;
	int err;

	/* Loaded by an earlier, failed init: its sites may hold int3 now. */
	if (lpt_objs)
		return 0;
	o->fentry = fentry;
	o->tramp[0] = (uintptr_t)lpt_tramp5;
	o->tramp[1] = (uintptr_t)lpt_tramp6;
	err = table_extent(&start, &stop);
	if (err)
		return err;
	if (!start) {
		if (lpt_verbose)
			lpt_msg("no " MCOUNT_SECTION " table");
		lpt_obj_publish(o);
		return 0;
	}
	addrs = lpt_table_read(start, stop, &n, &copy);
	if (!addrs)
		return -ENOMEM;
	err = lpt_sites_check(o, addrs, n, copy, st);
	if (!err)
		lpt_obj_publish(o);
	return err;
}

/*
 * The function covering @addr in the program, else in the library with
 * a table whose extent holds it (a gone one too: events recorded before
 * the unload still name their functions).  Here, beside the list of
 * objects it walks, so that symtab.c knows nothing of objects.
 */
const char *lpt_objs_symbol(uintptr_t addr, uintptr_t *off)
{
	const struct lpt_obj *o;
	const char *name;

	name = lpt_symtab_find(NULL, addr, off);
	if (name)
		return name;
	for (o = __atomic_load_n(&lpt_objs, __ATOMIC_ACQUIRE); o;
	     o = __atomic_load_n(&o->next, __ATOMIC_ACQUIRE)) {
		if (*o->path && addr >= o->start && addr < o->end) {
			name = lpt_symtab_find(&o->syms, addr, off);
			if (name)
				return name;
		}
	}
	return NULL;
}

/* Attach function names; needs the symbol tables, so done on demand. */
void lpt_sites_name(void)
{
	struct lpt_obj *o;
	uintptr_t off;
	size_t i;

	for (o = lpt_objs; o; o = o->next) {
		/* no records yet (lpt_sites_build): named when they are made */
		if (o->named || o->gone || !o->sites)
			continue;
		if (o == &lpt_main_obj && lpt_symtab_load())
			continue;
		for (i = 0; i < o->nsites; i++)
			o->sites[i].name = o == &lpt_main_obj ?
				lpt_objs_symbol(o->sites[i].addr, &off) :
				lpt_symtab_find(&o->syms, o->sites[i].addr, &off);
		o->named = 1;
	}
}

/*
 * Binary search in the object whose sites span @addr; async-signal-safe
 * (reads only, no allocation).  Unloaded objects are skipped: their
 * addresses may hold someone else's code now.
 */
notrace struct lpt_site *lpt_site_find(uintptr_t addr)
{
	const struct lpt_obj *o;

	for (o = __atomic_load_n(&lpt_objs, __ATOMIC_ACQUIRE); o;
	     o = __atomic_load_n(&o->next, __ATOMIC_ACQUIRE)) {
		struct lpt_site *v = __atomic_load_n(&o->sites,
						     __ATOMIC_ACQUIRE);
		size_t lo = 0, hi = o->nsites;

		if (!v || !hi || addr < v[0].addr || addr > v[hi - 1].addr ||
		    __atomic_load_n(&o->gone, __ATOMIC_ACQUIRE))
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (addr < v[mid].addr)
				hi = mid;
			else if (addr > v[mid].addr)
				lo = mid + 1;
			else
				return &v[mid];
		}
	}
	return NULL;
}

/* The bytes that put site @s into state @to. */
void lpt_site_fill(const struct lpt_site *s, enum lpt_state to, uint8_t *buf)
{
	if (to == LPT_NOP) {
		memcpy(buf, lpt_nop_bytes(s->len), s->len);
		return;
	}
	/* In range: checked when the site (or its object) was accepted. */
	lpt_make_call(buf, s->len, s->addr,
		      lpt_site_target(s, to == LPT_CALL ? LPT_CALL : LPT_FENTRY));
}

notrace uintptr_t lpt_site_target(const struct lpt_site *s, enum lpt_state to)
{
	if (to == LPT_CALL)
		return s->obj->tramp[s->len == X86_CALL_ADDR32_LEN];
	return s->obj->fentry;
}
