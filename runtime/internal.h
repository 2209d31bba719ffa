/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the files of liblptrace share.  Nothing here is
 * visible to the program: every symbol is hidden.
 */
#ifndef LPT_INTERNAL_H
#define LPT_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "lptrace.h"
#include "lptrace-data.h"

#pragma GCC visibility push(hidden)

/*
 * The library is built without -pg; notrace also keeps the hot path out
 * of the table if someone builds it with -pg anyway, which would make
 * the recorder trace itself.
 */
#define notrace __attribute__((no_instrument_function))

/*
 * Every message of the runtime: "lptrace: PROGRAM: " + @fmt + newline,
 * on stderr, in one write.  Not async-signal-safe.
 */
void lpt_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Events kept per thread: LPTRACE_BUFSIZE's default and range. */
#define LPT_BUFSIZE_DEFAULT	(1ul << 18)
#define LPT_BUFSIZE_MAX		(1ul << 28)	/* 8 GiB of address space */
/* Graph mode's filters: LPTRACE_DEPTH and LPTRACE_MIN_NS ranges. */
#define LPT_DEPTH_MAX		4096
#define LPT_MIN_NS_MAX		1000000000000ul	/* 1000 s */

/*
 * env.c: the environment's numbers and words, range-checked; a bad value
 * gets a message naming the variable and the accepted range, and the
 * default is used.
 */
unsigned long lpt_env_ulong(const char *name, unsigned long def,
			    unsigned long min, unsigned long max);
int lpt_env_word(const char *name, const char *const *words, int def);

/* /proc/self/status field @key ("Threads", "Umask") as a number; -errno. */
int lpt_status_field(const char *key, int base, long *val);
char *lpt_read_proc_file(const char *path, size_t *lenp);

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

struct lpt_site {
	uintptr_t addr;		/* first byte of the call instruction */
	const char *name;	/* covering function, NULL if none known */
	uint8_t len;		/* 5 or 6 */
	uint8_t state;		/* enum lpt_state */
	uint8_t want;		/* what the SIGTRAP handler emulates (atomic) */
	uint8_t prot;		/* protection of the mapping (PROT_*) */
	uint8_t foreign;	/* bytes not ours at the last check (reported) */
};

/* sites.c: the table, sorted, checked; lookups are signal-safe. */
extern struct lpt_site *lpt_sites;
extern size_t lpt_nsites;
int lpt_sites_load(struct lpt_stats *st);
void lpt_sites_name(void);
struct lpt_site *lpt_site_find(uintptr_t addr);
void lpt_site_fill(const struct lpt_site *s, enum lpt_state to, uint8_t *buf);
/* What an enabled site of @len bytes calls (entry.S): the one choice. */
uintptr_t lpt_tramp_for(unsigned int len);

/* symtab.c: the program's function symbols, from /proc/self/exe. */
int lpt_symtab_load(void);
const char *lpt_symtab_lookup(uintptr_t addr, uintptr_t *off);
size_t lpt_symtab_count(void);
const char *lpt_symtab_get(size_t i, uintptr_t *addr, uint64_t *size);

/* textpoke.c: rewrite live code safely (int3 protocol). */
int lpt_sync_init(void);
const char *lpt_sync_name(void);
int lpt_poke_sites(struct lpt_site **v, size_t n, enum lpt_state to,
		   size_t *skipped);

/* trap.c: the SIGTRAP handler that covers sites while an int3 sits there. */
int lpt_trap_install(void);
int lpt_trap_check(void);
uint64_t lpt_trap_count(void);
int lpt_trap_is_ours(void);
void lpt_trap_set_chain(const struct sigaction *act, struct sigaction *old);

/* sigmask.c: the real sigaction, below the program's view of it. */
int lpt_real_sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);

/* record.c: per-thread event rings (struct lpt_event: lptrace-data.h). */
#define LPT_TLS __attribute__((tls_model("initial-exec")))

struct lpt_tbuf {
	struct lpt_tbuf *next;	/* global list, pushed atomically */
	pid_t owner;		/* thread writing it; changed by CAS only */
	char comm[16];		/* the owner's name when it took the buffer */
	size_t cap;
	uint64_t head;		/* events published (owner, release) */
	size_t pos;		/* head % cap (owner only) */
	size_t held;		/* unpublished entries from ev[pos] on (owner) */
	uint64_t tail;		/* stream mode: events drained (writer, release) */
	uint64_t dropped;
	struct lpt_event ev[];
};

extern __thread int lpt_busy LPT_TLS;	/* the thread is in the recorder */

void lpt_record_setup(size_t events_per_thread, int no_overwrite);
int lpt_record_overwrites(void);
struct lpt_tbuf *lpt_tbuf_list(void);
struct lpt_tbuf *lpt_tbuf_self(void);
uint64_t lpt_tsc_cpu(uint32_t *cpu);
int lpt_emit(struct lpt_tbuf *b, uint8_t kind, uint64_t tsc, uint32_t cpu,
	     uintptr_t func, uint64_t arg, unsigned int depth, int hold);
void lpt_emit_unhold(struct lpt_tbuf *b);
void lpt_record(uintptr_t func, uintptr_t *slot);
void lpt_record_forked(void);
void lpt_count_recursed(void);
uint64_t lpt_events_dropped(void);
uint64_t lpt_events_overwritten(void);
uint64_t lpt_events_recursed(void);
uint64_t lpt_buffers(void);

/* graph.c: function-graph mode (entry and exit through the return). */
extern int lpt_graph_on;
void lpt_graph_setup(unsigned int max_depth, uint64_t min_ticks);
void lpt_graph_entry(uintptr_t func, uintptr_t *slot);
uintptr_t lpt_graph_exit(uintptr_t *slot);

/*
 * stream.c: the binary trace file (LPTRACE_DATA), its writer thread,
 * and the dump of the buffers on a fatal signal.
 */
int lpt_stream_setup(unsigned int flags, uint64_t min_ns,
		     unsigned int max_depth);
int lpt_stream_active(void);
void lpt_stream_finish(void);

/*
 * file.c: a file that appears whole or not at all (temp file, rename),
 * created with the mode a plain open(O_CREAT, 0666) would give.
 */
struct lpt_file {
	FILE *f;
	char *tmp;
	const char *path;
};
int lpt_file_open(struct lpt_file *o, const char *path);
int lpt_file_commit(struct lpt_file *o, int err);

/* entry.S: what enabled sites call, one per site length. */
void lpt_tramp5(void);
void lpt_tramp6(void);
void lpt_graph_ret(void);

/* control.c: one lock for init, patching and writing */
extern int lpt_verbose;
void lpt_lock(void);
void lpt_unlock(void);

#pragma GCC visibility pop

/* entry.S: what the program's sites call as linked (a plain return). */
void __fentry__(void);

#endif /* LPT_INTERNAL_H */
