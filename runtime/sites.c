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

/*
 * The table's bounds.  The linker defines __start_/__stop_ for a section
 * named like a C identifier; a kernel-style linker script defines the
 * kernel's names instead.  Weak, so a program without a table (or with
 * the other pair) still links.
 */
extern const char __start___mcount_loc[] __attribute__((weak));
extern const char __stop___mcount_loc[] __attribute__((weak));
extern const char __start_mcount_loc[] __attribute__((weak));
extern const char __stop_mcount_loc[] __attribute__((weak));

/* Entries are 8-byte addresses, relocated by ld.so in a PIE. */
#define LP_ENTRY_SIZE	8

/* Refusals beyond this many are counted, not listed. */
#define LP_REFUSE_REPORT_MAX	20

struct lp_site *lp_sites;
size_t lp_nsites;

static int table_bounds(const char **start, const char **stop)
{
	if (__start___mcount_loc && __stop___mcount_loc) {
		*start = __start___mcount_loc;
		*stop = __stop___mcount_loc;
	} else if (__start_mcount_loc && __stop_mcount_loc) {
		*start = __start_mcount_loc;
		*stop = __stop_mcount_loc;
	} else {
		*start = *stop = NULL;
		return 0;
	}
	if (*stop < *start || (*stop - *start) % LP_ENTRY_SIZE) {
		fprintf(stderr, LP_PREFIX "%s: __mcount_loc: size %td is not a multiple of %d\n",
			program_invocation_short_name, *stop - *start,
			LP_ENTRY_SIZE);
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
	size_t i, j, n = (stop - start) / LP_ENTRY_SIZE;
	uintptr_t *v;

	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		memcpy(&v[i], start + i * LP_ENTRY_SIZE, sizeof(v[i]));
	qsort(v, n, sizeof(*v), cmp_addr);
	for (i = j = 0; i < n; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	*np = j;
	return v;
}

static void report_refused(const struct lp_site *s, const uint8_t *bytes,
			   size_t avail, const char *why)
{
	uintptr_t off = 0;
	const char *name;
	char hex[3 * LP_SITE_MAX + 1] = "";
	size_t i, show;

	lp_symtab_load();
	name = lp_symtab_lookup(s->addr, &off);
	/* The length of a refused site is unknown: show all that was read. */
	show = avail < LP_SITE_MAX ? avail : LP_SITE_MAX;
	for (i = 0; i < show; i++)
		sprintf(hex + 3 * i, "%02x ", bytes[i]);
	if (show)
		hex[3 * show - 1] = '\0';
	fprintf(stderr, LP_PREFIX "%s: site %#lx (%s+0x%lx): %s%s%s; not patched\n",
		program_invocation_short_name, (unsigned long)s->addr,
		name ? name : "?", (unsigned long)off, why,
		show ? ": " : "", hex);
}

/*
 * Decide what one site holds.  Only mapped code is read; only a call
 * to our __fentry__ (or our own NOP, left by an earlier run or by
 * -mnop-mcount) is accepted.  Everything else is refused.
 */
static void check_site(struct lp_site *s, const struct lp_maps *maps,
		       struct lp_stats *st)
{
	uint8_t bytes[LP_SITE_MAX] = { 0 };
	const struct lp_map *m = lp_maps_find(maps, s->addr);
	const char *why;
	size_t avail = 0;
	unsigned int len;

	s->state = LP_REFUSED;
	if (!m) {
		why = "not in an executable mapping";
		goto refuse;
	}
	if (!(m->prot & PROT_READ)) {
		why = "mapping is execute-only, cannot check";
		goto refuse;
	}
	avail = m->end - s->addr < LP_SITE_MAX ? m->end - s->addr : LP_SITE_MAX;
	memcpy(bytes, (const void *)s->addr, avail);
	s->prot = m->prot;

	len = lp_match_call(bytes, s->addr, (uintptr_t)__fentry__);
	if (len && len <= avail) {
		s->len = len;
		s->state = LP_FENTRY;
		return;
	}
	len = lp_match_nop(bytes);
	if (len && len <= avail) {
		s->len = len;
		s->state = LP_NOP;
		st->already++;
		return;
	}
	why = "unexpected bytes, expected call __fentry__";
refuse:
	if (st->refused < LP_REFUSE_REPORT_MAX)
		report_refused(s, bytes, avail, why);
	st->refused++;
}

/* Load and check the table; publishes lp_sites for the trap handler. */
int lp_sites_load(struct lp_stats *st)
{
	const char *start, *stop;
	struct lp_site *sites;
	struct lp_maps maps;
	uintptr_t *addrs;
	size_t i, n;
	int err;

	err = table_bounds(&start, &stop);
	if (err)
		return err;
	if (!start) {
		if (lp_verbose)
			fprintf(stderr, LP_PREFIX "%s: no __mcount_loc table\n",
				program_invocation_short_name);
		return 0;
	}
	addrs = table_read(start, stop, &n);
	if (!addrs)
		return -ENOMEM;
	err = lp_maps_load(&maps);
	if (err) {
		fprintf(stderr, LP_PREFIX "%s: /proc/self/maps: %s\n",
			program_invocation_short_name, strerror(-err));
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
	if (st->refused > LP_REFUSE_REPORT_MAX)
		fprintf(stderr, LP_PREFIX "%s: ... and %llu more sites refused\n",
			program_invocation_short_name,
			(unsigned long long)(st->refused - LP_REFUSE_REPORT_MAX));
	st->sites = n;
	lp_nsites = n;
	__atomic_store_n(&lp_sites, sites, __ATOMIC_RELEASE);

out_free_maps:
	lp_maps_free(&maps);
out_free_addrs:
	free(addrs);
	return err;
}

/* Attach function names; needs the symbol table, so done on demand. */
void lp_sites_name(void)
{
	static int named;
	uintptr_t off;
	size_t i;

	if (named || lp_symtab_load())
		return;
	for (i = 0; i < lp_nsites; i++)
		lp_sites[i].name = lp_symtab_lookup(lp_sites[i].addr, &off);
	named = 1;
}

/* Binary search; async-signal-safe (reads only, no allocation). */
notrace struct lp_site *lp_site_find(uintptr_t addr)
{
	struct lp_site *v = __atomic_load_n(&lp_sites, __ATOMIC_ACQUIRE);
	size_t lo = 0, hi = v ? lp_nsites : 0;

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
void lp_site_fill(const struct lp_site *s, enum lp_state to, uint8_t *buf)
{
	uintptr_t target;

	switch (to) {
	case LP_NOP:
		memcpy(buf, lp_nop_bytes(s->len), s->len);
		return;
	case LP_CALL:
		target = (uintptr_t)(s->len == 6 ? lp_tramp6 : lp_tramp5);
		break;
	default:
		target = (uintptr_t)__fentry__;
		break;
	}
	/* In range: checked when the site was accepted, same image. */
	lp_make_call(buf, s->len, s->addr, target);
}
