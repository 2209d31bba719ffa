// SPDX-License-Identifier: GPL-2.0
/*
 * sites.c - the __mcount_loc table of this program: find it, sort it,
 * check what every site holds, and look sites up by address.
 *
 * The array built here is published once and never freed or moved, so
 * the SIGTRAP handler can search it at any moment without a lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch-x86_64.h"
#include "internal.h"
#include "maps.h"
#include "mcount-table.h"

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

struct lpt_site *lpt_sites;
size_t lpt_nsites;

static int table_bounds(const char **start, const char **stop)
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
 * Copy the entries out (gcc aligns the section to 1 byte, so read them
 * with memcpy), sort them and drop duplicates: gcc's per-object tables
 * are unsorted, and a table must never list a site twice.
 */
static uintptr_t *table_read(const char *start, const char *stop, size_t *np)
{
	size_t i, j, n = (stop - start) / LPT_ENTRY_SIZE;
	uintptr_t *v;

	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		memcpy(&v[i], start + i * LPT_ENTRY_SIZE, sizeof(v[i]));
	qsort(v, n, sizeof(*v), cmp_addr);
	for (i = j = 0; i < n; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	*np = j;
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
	name = lpt_symtab_lookup(s->addr, &off);
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
 * Decide what one site holds.  Only mapped code is read; only a call
 * to our __fentry__ (or our own NOP, left by an earlier run or by
 * -mnop-mcount) is accepted.  Everything else is refused.
 */
static void check_site(struct lpt_site *s, const struct lpt_maps *maps,
		       struct lpt_stats *st)
{
	uint8_t bytes[LPT_SITE_MAX] = { 0 };
	const struct lpt_map *m = lpt_maps_find(maps, s->addr);
	const char *why;
	size_t avail = 0;
	unsigned int len;

	s->state = LPT_REFUSED;
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

	len = lpt_match_call(bytes, s->addr, (uintptr_t)__fentry__);
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
	why = "unexpected bytes, expected call __fentry__";
refuse:
	if (st->refused < LPT_REFUSE_REPORT_MAX)
		report_refused(s, bytes, avail, why);
	st->refused++;
}

/* Load and check the table; publishes lpt_sites for the trap handler. */
int lpt_sites_load(struct lpt_stats *st)
{
	const char *start, *stop;
	struct lpt_site *sites;
	struct lpt_maps maps;
	uintptr_t *addrs;
	size_t i, n;
	int err;

	/* Loaded by an earlier, failed init: its sites may hold int3 now. */
	if (lpt_sites)
		return 0;
	err = table_bounds(&start, &stop);
	if (err)
		return err;
	if (!start) {
		if (lpt_verbose)
			lpt_msg("no " MCOUNT_SECTION " table");
		return 0;
	}
	addrs = table_read(start, stop, &n);
	if (!addrs)
		return -ENOMEM;
	err = lpt_maps_load(&maps);
	if (err) {
		lpt_msg("/proc/self/maps: %s", strerror(-err));
		goto out_free_addrs;
	}
	sites = calloc(n ? n : 1, sizeof(*sites));
	if (!sites) {
		err = -ENOMEM;
		goto out_free_maps;
	}
	for (i = 0; i < n; i++) {
		sites[i].addr = addrs[i];
		check_site(&sites[i], &maps, st);
		sites[i].want = sites[i].state;
	}
	if (st->refused > LPT_REFUSE_REPORT_MAX)
		lpt_msg("... and %llu more sites refused",
			(unsigned long long)(st->refused - LPT_REFUSE_REPORT_MAX));
	st->sites = n;
	lpt_nsites = n;
	__atomic_store_n(&lpt_sites, sites, __ATOMIC_RELEASE);

out_free_maps:
	lpt_maps_free(&maps);
out_free_addrs:
	free(addrs);
	return err;
}

/* Attach function names; needs the symbol table, so done on demand. */
void lpt_sites_name(void)
{
	static int named;
	uintptr_t off;
	size_t i;

	if (named || lpt_symtab_load())
		return;
	for (i = 0; i < lpt_nsites; i++)
		lpt_sites[i].name = lpt_symtab_lookup(lpt_sites[i].addr, &off);
	named = 1;
}

/* Binary search; async-signal-safe (reads only, no allocation). */
notrace struct lpt_site *lpt_site_find(uintptr_t addr)
{
	struct lpt_site *v = __atomic_load_n(&lpt_sites, __ATOMIC_ACQUIRE);
	size_t lo = 0, hi = v ? lpt_nsites : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < v[mid].addr)
			hi = mid;
		else if (addr > v[mid].addr)
			lo = mid + 1;
		else
			return &v[mid];
	}
	return NULL;
}

/* The bytes that put site @s into state @to. */
void lpt_site_fill(const struct lpt_site *s, enum lpt_state to, uint8_t *buf)
{
	uintptr_t target;

	switch (to) {
	case LPT_NOP:
		memcpy(buf, lpt_nop_bytes(s->len), s->len);
		return;
	case LPT_CALL:
		target = lpt_tramp_for(s->len);
		break;
	default:
		target = (uintptr_t)__fentry__;
		break;
	}
	/* In range: checked when the site was accepted, same image. */
	lpt_make_call(buf, s->len, s->addr, target);
}

notrace uintptr_t lpt_tramp_for(unsigned int len)
{
	return (uintptr_t)(len == X86_CALL_ADDR32_LEN ? lpt_tramp6 : lpt_tramp5);
}
