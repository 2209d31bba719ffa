/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the files of liblptrace share.  Nothing here is
 * visible to the program: every symbol is hidden.
 */
#ifndef LP_INTERNAL_H
#define LP_INTERNAL_H

#include <errno.h>		/* program_invocation_short_name */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lptrace.h"

#pragma GCC visibility push(hidden)

/*
 * The library is built without -pg; notrace also keeps the hot path out
 * of the table if someone builds it with -pg anyway, which would make
 * the recorder trace itself.
 */
#define notrace __attribute__((no_instrument_function))

#define LP_PREFIX "lptrace: "

/* What the bytes of a site currently hold. */
enum lp_state {
	LP_FENTRY,	/* call __fentry__, as linked */
	LP_NOP,		/* our single NOP instruction */
	LP_CALL,	/* call to the trampoline: traced */
	LP_TRAP,	/* int3 + unknown tail: a rewrite failed half-way */
	LP_REFUSED,	/* unexpected bytes: never touched */
};

struct lp_site {
	uintptr_t addr;		/* first byte of the call instruction */
	const char *name;	/* covering function, NULL if none known */
	uint8_t len;		/* 5 or 6 */
	uint8_t state;		/* enum lp_state */
	uint8_t want;		/* what the SIGTRAP handler emulates (atomic) */
	uint8_t prot;		/* protection of the mapping (PROT_*) */
};

/* sites.c: the table, sorted, checked; lookups are signal-safe. */
extern struct lp_site *lp_sites;
extern size_t lp_nsites;
int lp_sites_load(struct lp_stats *st);
void lp_sites_name(void);
struct lp_site *lp_site_find(uintptr_t addr);
void lp_site_fill(const struct lp_site *s, enum lp_state to, uint8_t *buf);

/* symtab.c: the program's function symbols, from /proc/self/exe. */
int lp_symtab_load(void);
const char *lp_symtab_lookup(uintptr_t addr, uintptr_t *off);

/* textpoke.c: rewrite live code safely (int3 protocol). */
int lp_sync_init(const char *method);
const char *lp_sync_name(void);
int lp_poke_sites(struct lp_site **v, size_t n, enum lp_state to);

/* trap.c: the SIGTRAP handler that covers sites while an int3 sits there. */
int lp_trap_install(void);
int lp_trap_check(void);
uint64_t lp_trap_count(void);

/* record.c: per-thread event buffers. */
struct lp_event {
	uint64_t tsc;
	uintptr_t func;		/* site address of the traced function */
	uintptr_t caller;	/* return address into its caller */
	uint32_t cpu;
	uint32_t pad;
};

struct lp_tbuf {
	struct lp_tbuf *next;	/* global list, pushed atomically */
	pid_t tid;
	char comm[16];
	size_t cap;
	size_t count;		/* written by the owner thread only (release) */
	uint64_t dropped;
	struct lp_event ev[];
};

void lp_record_setup(size_t events_per_thread);
struct lp_tbuf *lp_tbuf_list(void);
void lp_record(uintptr_t func, uintptr_t caller);
uint64_t lp_clock_tsc(void);
uint64_t lp_events_dropped(void);

/* output.c */
void lp_clock_start(void);

/* entry.S: what enabled sites call, one per site length. */
void lp_tramp5(void);
void lp_tramp6(void);

/* control.c: one lock for init, patching and writing */
extern int lp_verbose;
void lp_lock(void);
void lp_unlock(void);
uint64_t lp_now_ns(void);

#pragma GCC visibility pop

/* entry.S: what the program's sites call as linked (a plain return). */
void __fentry__(void);

#endif /* LP_INTERNAL_H */
