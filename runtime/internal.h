/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the files of liblptrace share.  Nothing here is
 * visible to the program: every symbol is hidden.
 */
#ifndef LPT_INTERNAL_H
#define LPT_INTERNAL_H

#include <elf.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "lptrace.h"
#include "lptrace-data.h"
#include "lock.h"

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
 * elfread.c: the one reader of ELF files.  lpt_elf_open() maps the file
 * read-only and checks its header and section header table; 0 or
 * -errno.  Sections are then found by name (allocated ones) and the
 * symbol table (.symtab, else .dynsym), NULL when absent.
 */
struct lpt_elf {
	const char *base;	/* the file, mapped read-only */
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;	/* e_shnum headers, inside the file */
};
int lpt_elf_open(struct lpt_elf *f, const char *path);
void lpt_elf_close(struct lpt_elf *f);
const Elf64_Shdr *lpt_elf_section(const struct lpt_elf *f, const char *name);
const Elf64_Shdr *lpt_elf_symtab(const struct lpt_elf *f);

/* Are the @len bytes at file offset @off inside the file? */
static inline int lpt_elf_in(const struct lpt_elf *f, uint64_t off,
			     uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/*
 * symtab.c: the function symbols of one loaded object, read from its
 * file (.symtab, else .dynsym, by elfread.c), at run-time addresses.
 */
struct lpt_func;
struct lpt_symtab {
	int loaded;
	int err;
	struct lpt_func *v;	/* sorted by address, one name per address */
	size_t n;
};
int lpt_symtab_open(struct lpt_symtab *t, const char *path, uintptr_t bias);
/* NULL @t: the program's (lpt_symtab_load first). */
const char *lpt_symtab_find(const struct lpt_symtab *t, uintptr_t addr,
			    uintptr_t *off);
int lpt_symtab_addr(const struct lpt_symtab *t, const char *name,
		    uintptr_t *addr);
/* The program's own (/proc/self/exe), loaded on first use. */
int lpt_symtab_load(void);
/* The functions of @t, NULL for the program's (loaded first). */
size_t lpt_symtab_count(const struct lpt_symtab *t);
const char *lpt_symtab_get(const struct lpt_symtab *t, size_t i,
			   uintptr_t *addr, uint64_t *size);

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

/* sites.c: the tables, sorted, checked; lookups are signal-safe. */
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

/*
 * objects.c: the shared libraries with a table.  lpt_objects_pinned()
 * runs @fn while the dynamic loader can neither load nor unload an
 * object; lpt_objects_refresh() (called inside) adds the tables of
 * objects loaded since the last call and marks the unloaded ones gone.
 */
int lpt_objects_pinned(int (*fn)(void *), void *arg);
int lpt_objects_refresh(struct lpt_stats *st);

/* control.c: what the API does (entry points: autostart.c). */
int lpt_control_init(uintptr_t fentry);
int lpt_control_set(enum lpt_state to, const char *glob);
void lpt_control_filter(const char *glob);

/* textpoke.c: rewrite live code safely (int3 protocol). */
int lpt_sync_init(void);
const char *lpt_sync_name(void);
int lpt_poke_sites(struct lpt_site **v, size_t n, enum lpt_state to,
		   size_t *skipped);

/* trap.c: the SIGTRAP handler that covers sites while an int3 sits there. */
int lpt_trap_install(void);
int lpt_trap_check(void);
uint64_t lpt_trap_count(void);

/*
 * sigmask.c: the real sigaction, below the program's view of it; a
 * signal set without SIGTRAP (@copy, or NULL when @set is).
 */
int lpt_real_sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);
const sigset_t *lpt_unblockable(const sigset_t *set, sigset_t *copy);

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
	uint64_t limit;		/* head < limit: ev[pos] is free (owner) */
	uint64_t tail;		/* stream mode: events drained (writer, release) */
	uint64_t dropped;
	uint64_t waits;		/* stream mode: times the owner waited for room */
	uint32_t drained;	/* futex: bumped by the writer after each drain */
	uint32_t waiting;	/* the owner sleeps on `drained` (atomic) */
	uint32_t gave_up;	/* the owner's last wait timed out (owner) */
	uint32_t gave_up_at;	/* `drained` then (owner) */
	struct lpt_event ev[];
};

extern __thread int lpt_busy LPT_TLS;	/* the thread is in the recorder */

/*
 * The recursion guard around the recorder's work: take it (0 when the
 * thread already holds it, e.g. a traced signal handler inside the
 * recorder), and drop it.  The signal fences make a signal handler that
 * traces see lpt_busy set before any of the work, and the work done
 * before it is cleared.
 */
static inline __attribute__((always_inline)) int lpt_busy_take(void)
{
	if (lpt_busy)
		return 0;
	lpt_busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

static inline __attribute__((always_inline)) void lpt_busy_drop(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lpt_busy = 0;
}

void lpt_record_setup(size_t events_per_thread, int no_overwrite);
int lpt_record_overwrites(void);
struct lpt_tbuf *lpt_tbuf_list(void);
int lpt_emit(struct lpt_tbuf *b, uint8_t kind, uint64_t tsc, uint32_t cpu,
	     uintptr_t func, uint64_t arg, unsigned int depth, int hold);
void lpt_emit_unhold(struct lpt_tbuf *b);
void lpt_record_call(uintptr_t func, uintptr_t *slot);
void lpt_record_forked(void);
void lpt_count_recursed(void);
uint64_t lpt_events_dropped(void);
uint64_t lpt_events_overwritten(void);
uint64_t lpt_events_recursed(void);
uint64_t lpt_events_waited(void);
uint64_t lpt_buffers(void);

/*
 * Stream mode's back-pressure (record.c waits, stream.c drains): while
 * lpt_stream_waitable is set a writer thread is running and will drain,
 * so an owner whose ring is full waits for it (bounded) rather than
 * dropping.  lpt_writer_kick wakes the writer early; lpt_no_wait marks
 * the writer thread itself, which must never wait for itself.
 */
extern int lpt_stream_waitable;
extern __thread int lpt_no_wait LPT_TLS;
void lpt_writer_kick(void);
int lpt_writer_nap(long ns);
void lpt_drained(struct lpt_tbuf *b);

/*
 * graph.c: function-graph mode (entry and exit through the return).
 * lpt_graph_fast: entry.S does the common entry and exit itself.
 */
extern int lpt_graph_on;
extern uint8_t lpt_graph_fast;
void lpt_graph_setup(unsigned int max_depth, uint64_t min_ticks,
		     uintptr_t ret);
/* entry.S's trampolines call lpt_record, which calls one of these two. */
void lpt_record(uintptr_t func, uintptr_t *slot);
void lpt_graph_entry(uintptr_t func, uintptr_t *slot);
uintptr_t lpt_graph_exit(uintptr_t *slot);
void lpt_graph_unwind_begin(void);
void lpt_graph_catch(uintptr_t cfa);

/*
 * stream.c: the binary trace file (LPTRACE_DATA), its writer thread,
 * and the dump of the buffers on a fatal signal.
 */
int lpt_stream_setup(unsigned int flags, uint64_t min_ns,
		     unsigned int max_depth);
int lpt_stream_active(void);
void lpt_stream_finish(void);
void lpt_stream_object(struct lpt_obj *o);

/*
 * file.c: a file that appears whole or not at all (temp file, rename),
 * created with the mode a plain open(O_CREAT, 0666) would give.
 */
struct lpt_file {
	FILE *f;
	char *tmp;		/* NULL: a device or pipe, written in place */
	const char *path;
};
int lpt_file_open(struct lpt_file *o, const char *path);
int lpt_file_commit(struct lpt_file *o, int err);

/* entry.S: what enabled sites call, one per site length. */
void lpt_tramp5(void);
void lpt_tramp6(void);
void lpt_graph_ret(void);

#pragma GCC visibility pop

#endif /* LPT_INTERNAL_H */
