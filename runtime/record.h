/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - the inline part of the hot path, shared by record.c and
 * graph.c: the calling thread's buffer, the time, and the store of one
 * event in the common case.  Every other case (a thread's first event,
 * held entries, a stream ring that may be full, no buffer) goes out of
 * line to record.c.  Measured with callgrind, the calls, saves and
 * argument shuffles these replace cost about a third of the
 * instructions of a traced call (docs/runtime.md, "Instructions per
 * traced call").
 */
#ifndef LPT_RECORD_H
#define LPT_RECORD_H

#include "clock.h"
#include "internal.h"

#pragma GCC visibility push(hidden)

#define lpt_inline	static inline __attribute__((always_inline, no_instrument_function))

extern __thread struct lpt_tbuf *lpt_self LPT_TLS;
extern int lpt_cpu_insn;
struct lpt_tbuf *lpt_tbuf_first(void);

/* The calling thread's buffer (mapped on first use).  Caller is busy. */
lpt_inline struct lpt_tbuf *lpt_tbuf_self(void)
{
	struct lpt_tbuf *b = lpt_self;

	return __builtin_expect(b != NULL, 1) ? b : lpt_tbuf_first();
}

/* The TSC, and the CPU when the CPU has RDPID or RDTSCP (clock.h). */
lpt_inline uint64_t lpt_tsc_cpu(uint32_t *cpu)
{
	if (__builtin_expect(lpt_cpu_insn == LPT_CPU_RDPID, 1)) {
		*cpu = lpt_rdpid();
		return lpt_rdtsc();
	}
	if (lpt_cpu_insn == LPT_CPU_RDTSCP)
		return lpt_rdtscp(cpu);
	*cpu = LPT_EV_CPU_UNKNOWN;
	return lpt_rdtsc();
}

/* The one place an event's fields are written (lpt_emit too). */
lpt_inline void lpt_event_fill(struct lpt_event *e, const struct lpt_tbuf *b,
			       uint8_t kind, uint64_t tsc, uint32_t cpu,
			       uintptr_t func, uint64_t arg, unsigned int depth)
{
	e->tsc = tsc;
	e->func = func;
	e->arg = arg;
	e->tid = b->owner;
	e->cpu = cpu;
	e->kind = kind;
	e->depth = depth > 255 ? 255 : depth;
}

/*
 * May the next event go straight to ev[pos]?  Yes when nothing is held
 * and head is below `limit`, where the owner last saw room (record.c):
 * then ev[pos] is free and no tail needs loading.
 */
lpt_inline int lpt_emit_fast_ok(const struct lpt_tbuf *b)
{
	return !b->held && b->head < b->limit;
}

/* lpt_emit(..., hold = 0) once lpt_emit_fast_ok: the same stores and release. */
lpt_inline void lpt_emit_fast(struct lpt_tbuf *b, uint8_t kind, uint64_t tsc,
			      uint32_t cpu, uintptr_t func, uint64_t arg,
			      unsigned int depth)
{
	lpt_event_fill(&b->ev[b->pos], b, kind, tsc, cpu, func, arg, depth);
	b->pos = b->pos + 1 == b->cap ? 0 : b->pos + 1;
	__atomic_store_n(&b->head, b->head + 1, __ATOMIC_RELEASE);
}

lpt_inline int lpt_emit_now(struct lpt_tbuf *b, uint8_t kind, uint64_t tsc,
			    uint32_t cpu, uintptr_t func, uint64_t arg,
			    unsigned int depth)
{
	if (__builtin_expect(!lpt_emit_fast_ok(b), 0))
		return lpt_emit(b, kind, tsc, cpu, func, arg, depth, 0);
	lpt_emit_fast(b, kind, tsc, cpu, func, arg, depth);
	return 0;
}

#pragma GCC visibility pop

#endif /* LPT_RECORD_H */
