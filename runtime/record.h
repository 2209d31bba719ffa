/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - the recorder (record.c): per-thread event rings (struct
 * lpt_event: lptrace-data.h), and the inline part of the hot path,
 * shared by record.c and graph.c: the calling thread's buffer, the
 * time, and the store of one event in the common case.  Every other
 * case (a thread's first event, held entries, a stream ring that may be
 * full, no buffer) goes out of line to record.c.  Measured with
 * callgrind, the calls, saves and argument shuffles these replace cost
 * about a third of the instructions of a traced call (docs/runtime.md,
 * "Instructions per traced call").
 */
#ifndef LPT_RECORD_H
#define LPT_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h"
#include "compiler.h"
#include "lptrace-data.h"

#pragma GCC visibility push(hidden)

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
/* Entry-only mode's event; lpt_record (graph.c) tail-calls it. */
void lpt_record_call(uintptr_t func, uintptr_t *slot)
	__attribute__((noinline));
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
