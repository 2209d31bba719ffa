/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lptrace.h - run-time side of linkpass: patch the program's own
 * __mcount_loc sites and trace function entries.
 *
 * Link a program built with `-pg -mfentry` against liblptrace.a (link
 * without -pg, which would add gprof's start files).  At start-up the
 * library turns every `call __fentry__` listed in __mcount_loc into a
 * NOP, unless LPTRACE=off.  Environment:
 *
 *   LPTRACE=off          do nothing at start (the API still works)
 *   LPTRACE_FILTER=glob  trace the matching functions from the start
 *   LPTRACE_OUT=path     write the ftrace-style text trace at exit
 *   LPTRACE_JSON=path    write the Chrome trace-event JSON at exit
 *   LPTRACE_VERBOSE=1    print counts and timings on stderr
 *   LPTRACE_BUFSIZE=n    events kept per thread (default 262144)
 *   LPTRACE_SYNC=m       core sync: "sync_core" (default) or "expedited"
 *
 * All functions may be called from any thread while other threads run
 * the functions being patched; they are serialised against each other.
 * None of them may be called from a signal handler.
 */
#ifndef LPTRACE_H
#define LPTRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lp_stats {
	uint64_t sites;		/* distinct addresses in __mcount_loc */
	uint64_t nopped;	/* call __fentry__ replaced by a NOP at init */
	uint64_t already;	/* site already held our NOP (e.g. -mnop-mcount) */
	uint64_t refused;	/* unexpected bytes or not in code: never written */
	uint64_t enabled;	/* sites currently calling the tracer */
	uint64_t init_ns;	/* time lp_init() took, table walk included */
	uint64_t last_patch_ns;	/* time the last enable/disable took */
	uint64_t last_patched;	/* sites the last enable/disable rewrote */
	uint64_t traps;		/* int3 hits emulated by the SIGTRAP handler */
	uint64_t events;	/* trace events recorded, all threads */
	uint64_t dropped;	/* events lost because a thread buffer was full */
	const char *sync;	/* core-sync method in use */
};

/*
 * Walk the table, check every site and NOP it.  Idempotent; returns 0,
 * or a negative errno when the process cannot patch itself (no
 * membarrier, text not writable).  Refused sites are reported on stderr
 * and do not make lp_init() fail.
 */
int lp_init(void);

/*
 * Trace (enable) or stop tracing (disable) the functions whose name
 * matches @glob (fnmatch(3)); NULL or "*" means every site, including
 * sites in code that has no symbol.  Returns the number of matching
 * sites, now all in the requested state, or a negative errno.
 */
int lp_enable(const char *glob);
int lp_disable(const char *glob);

void lp_stats(struct lp_stats *st);

/* Number of trace events recorded so far, all threads together. */
uint64_t lp_trace_count(void);

/*
 * Write the events recorded so far: ftrace-like text or Chrome
 * trace-event JSON (opens in Perfetto / chrome://tracing).  The file is
 * written next to @path and renamed into place.  0 or a negative errno.
 */
int lp_write_text(const char *path);
int lp_write_json(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* LPTRACE_H */
