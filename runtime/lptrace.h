/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lptrace.h - run-time side of linkpass: patch the program's own
 * __mcount_loc sites and trace function entries (or entries and exits).
 *
 * Link a program built with `-pg -mfentry` against liblptrace.a (link
 * without -pg, which would add gprof's start files).  At start-up the
 * library turns every `call __fentry__` listed in __mcount_loc into a
 * NOP, unless LPTRACE=off.  The environment (LPTRACE_FILTER,
 * LPTRACE_OUT, LPTRACE_DATA, LPTRACE_GRAPH, ...) is one table,
 * runtime/env.c: docs/runtime.md lists every variable with its range,
 * default and meaning.  A bad value is named on stderr and the default
 * used.
 *
 * All functions may be called from any thread while other threads run
 * the functions being patched; they are serialised against each other
 * and against fork().  None of them may be called from a signal handler.
 *
 * The library also defines sigprocmask, pthread_sigmask, sigsuspend and
 * sigaction, which keep SIGTRAP deliverable (see sigmask.c and trap.c),
 * and dlopen and dlclose, which settle the sites of the libraries they
 * load and unload (control.c).
 */
#ifndef LPTRACE_H
#define LPTRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lpt_stats {
	uint64_t sites;		/* distinct addresses in __mcount_loc */
	uint64_t nopped;	/* call __fentry__ replaced by a NOP at init */
	uint64_t already;	/* site already held our NOP (e.g. -mnop-mcount) */
	uint64_t refused;	/* unexpected bytes or not in code: never written */
	uint64_t enabled;	/* sites currently calling the tracer */
	uint64_t init_ns;	/* time lpt_init() took, table walk included */
	uint64_t last_patch_ns;	/* time the last enable/disable took */
	uint64_t last_patched;	/* sites the last enable/disable rewrote */
	uint64_t traps;		/* int3 hits emulated by the SIGTRAP handler */
	uint64_t events;	/* trace events recorded, all threads */
	uint64_t dropped;	/* events lost: stream mode, a thread buffer
				   full before the writer drained it; or no
				   buffer could be mapped */
	const char *sync;	/* core-sync method in use */
	uint64_t recursed;	/* events lost: traced call inside the tracer */
	uint64_t skipped;	/* sites left alone by the last enable/disable:
				   bytes not ours (a debugger's breakpoint) */
	uint64_t buffers;	/* per-thread event buffers mapped (reused
				   after their thread exits) */
	uint64_t overwritten;	/* ring mode: older events replaced by newer
				   ones in a full thread buffer */
	uint64_t waits;		/* stream mode: times a thread with a full
				   buffer waited for the writer to drain it */
};

/*
 * Walk the table, check every site and NOP it.  Idempotent; returns 0,
 * or a negative errno when the process cannot patch itself (no
 * membarrier, text not writable).  Refused sites are reported on stderr
 * and do not make lpt_init() fail.
 */
int lpt_init(void);

/*
 * Trace (enable) or stop tracing (disable) the functions whose name
 * matches @glob (fnmatch(3); a comma list "a*,b*" matches either, as a
 * C name has no comma); NULL or "*" means every site, including
 * sites in code that has no symbol.  Returns the number of matching
 * sites now in the requested state, or a negative errno.  A site whose
 * bytes are not what the runtime last wrote (a debugger's breakpoint) is
 * left alone, reported once and not counted; later calls retry it.
 */
int lpt_enable(const char *glob);
int lpt_disable(const char *glob);

void lpt_stats(struct lpt_stats *st);

/*
 * Number of trace events in the buffers, all threads together (in
 * stream mode: not yet written to the file).
 */
uint64_t lpt_trace_count(void);

/*
 * Write the events in the buffers (ring mode: the last LPTRACE_BUFSIZE
 * of each thread; stream mode: those not yet in the file): ftrace-like
 * text or Chrome
 * trace-event JSON (opens in Perfetto / chrome://tracing).  The file is
 * written next to @path and renamed into place.  0 or a negative errno.
 */
int lpt_write_text(const char *path);
int lpt_write_json(const char *path);

/*
 * Deprecated: the names before the runtime took its own prefix (lp_ is
 * linkpass's).  Kept so that existing callers build and run unchanged,
 * but each use warns (gcc and clang: a #pragma GCC warning); define
 * LPT_QUIET_DEPRECATED before including this header to silence them.
 * New code uses lpt_.
 */
#ifdef LPT_QUIET_DEPRECATED
#define LPT_OLD_NAME(warning, name)	name
#else
#define LPT_OLD_NAME(warning, name)	_Pragma(warning) name
#endif
#define lp_stats	LPT_OLD_NAME("GCC warning \"lp_stats is deprecated: use lpt_stats\"", lpt_stats)
#define lp_init		LPT_OLD_NAME("GCC warning \"lp_init is deprecated: use lpt_init\"", lpt_init)
#define lp_enable	LPT_OLD_NAME("GCC warning \"lp_enable is deprecated: use lpt_enable\"", lpt_enable)
#define lp_disable	LPT_OLD_NAME("GCC warning \"lp_disable is deprecated: use lpt_disable\"", lpt_disable)
#define lp_trace_count	LPT_OLD_NAME("GCC warning \"lp_trace_count is deprecated: use lpt_trace_count\"", lpt_trace_count)
#define lp_write_text	LPT_OLD_NAME("GCC warning \"lp_write_text is deprecated: use lpt_write_text\"", lpt_write_text)
#define lp_write_json	LPT_OLD_NAME("GCC warning \"lp_write_json is deprecated: use lpt_write_json\"", lpt_write_json)

#ifdef __cplusplus
}
#endif

#endif /* LPTRACE_H */
