/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sites.h - the loaded objects with a table (the program first, then
 * shared libraries: objects.c) and their sites (see sites.c).
 */
#ifndef LPT_SITES_H
#define LPT_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "lptrace.h"
#include "symtab.h"

#pragma GCC visibility push(hidden)

/* What the bytes of a site currently hold. */
enum lpt_state {
	LPT_FENTRY,	/* call __fentry__, as linked */
	LPT_NOP,	/* our single NOP instruction */
	LPT_CALL,	/* call to the trampoline: traced */
	LPT_TRAP,	/* int3 + unknown tail: a rewrite failed half-way */
	LPT_REFUSED,	/* unexpected bytes: never touched */
};

/*
 * `want` also says LPT_REFUSED while the bytes of an accepted site are
 * not what we last wrote (a debugger's breakpoint): an int3 there is
 * not ours, and the SIGTRAP handler passes it on.
 */

struct lpt_obj;

struct lpt_site {
	uintptr_t addr;		/* first byte of the call instruction */
	const struct lpt_obj *obj;	/* the loaded object it lies in */
	const char *name;	/* covering function, NULL if none known */
	uint8_t len;		/* 5 or 6 */
	uint8_t state;		/* enum lpt_state */
	uint8_t want;		/* what the SIGTRAP handler emulates (atomic) */
	uint8_t prot;		/* protection of the mapping (PROT_*) */
	uint8_t foreign;	/* bytes not ours at the last check (reported) */
};

/*
 * A loaded object with a table: the program (always first) or a shared
 * library.  Objects are published on a list that only grows; one that
 * is unloaded is marked gone and kept (its names still serve the events
 * recorded before), so lock-free readers never see freed memory.
 */
struct lpt_obj {
	struct lpt_obj *next;	/* published with release */
	const char *path;	/* "" for the program */
	uintptr_t bias;		/* load bias (dlpi_addr) */
	uintptr_t start, end;	/* [start, end): its PT_LOAD extent */
	const uint8_t *phdr;	/* dlpi_phdr: with bias and path, the identity */
	/*
	 * sorted by address; NULL: no table, or not built yet (then
	 * @table lists the sites, all our NOP at load: lpt_sites_build)
	 */
	struct lpt_site *sites;	/* published with release */
	size_t nsites;		/* entries of the table, set before publishing */
	const uintptr_t *table;	/* the sites while @sites is NULL */
	uintptr_t *table_copy;	/* @table, when it is a copy to free */
	uintptr_t fentry;	/* what its sites call as linked */
	uintptr_t tramp[2];	/* what its enabled 5- and 6-byte sites call */
	struct lpt_symtab syms;	/* a library's own (the program: symtab.c) */
	int named;		/* sites[].name filled */
	int fresh;		/* loaded after init, sites not yet settled */
	int gone;		/* unloaded (atomic): never looked at again */
	int seen;		/* found by the current refresh (under the lock) */
	/* stream.c: its SYMS record, built at load; written once (under
	 * the drain lock) by the writer, the exit or a fatal signal */
	char *syms_rec;
	size_t syms_rec_len;
	int syms_rec_out;
};

/* The tables, sorted, checked; lookups are signal-safe. */
extern struct lpt_obj *lpt_objs;	/* the program first; NULL before init */
int lpt_sites_load(struct lpt_stats *st, uintptr_t fentry);
const uintptr_t *lpt_table_read(const char *start, const char *stop,
				size_t *np, uintptr_t **copy);
int lpt_sites_check(struct lpt_obj *o, const uintptr_t *addrs, size_t n,
		    uintptr_t *copy, struct lpt_stats *st);
int lpt_sites_build(struct lpt_obj *o, struct lpt_stats *st);
void lpt_obj_publish(struct lpt_obj *o);
void lpt_sites_name(void);
struct lpt_site *lpt_site_find(uintptr_t addr);
/* Any loaded object's function covering @addr: the program, then libraries. */
const char *lpt_objs_symbol(uintptr_t addr, uintptr_t *off);
void lpt_site_fill(const struct lpt_site *s, enum lpt_state to, uint8_t *buf);
/* What site @s calls in state @to (LPT_FENTRY or LPT_CALL): signal-safe. */
uintptr_t lpt_site_target(const struct lpt_site *s, enum lpt_state to);

#pragma GCC visibility pop

#endif /* LPT_SITES_H */
