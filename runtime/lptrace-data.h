/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lptrace-data.h - the binary trace file (LPTRACE_DATA), written by the
 * runtime while the program runs (stream.c) and read by the lptrace
 * tool (lptrace/tracefile.c).  The one definition of the format.
 *
 * The file is the 8-byte magic, then records: a struct lpt_rec header
 * and `len` bytes of payload, padded to 8 bytes.  Little-endian, the
 * writer's own layout (x86_64 only).  A reader stops at the END record;
 * a file without one was cut short (the program was killed with
 * SIGKILL, or the disk filled).
 *
 *   INFO     once, first: struct lpt_rec_info + the program's path
 *   SYMS     the program's functions: struct lpt_rec_sym entries, each
 *            followed by its name (namelen bytes, no NUL) padded to 8;
 *            later, one such record per shared library with a table
 *   EVENTS   one thread's events, in the order it recorded them:
 *            struct lpt_rec_events (the thread id, once), then the
 *            events packed (below): 16 bytes each in the common case,
 *            8 for the EXIT of an ENTRY in the same record
 *   THREAD   struct lpt_rec_thread: a thread id's name
 *   CLOCK    struct lpt_rec_clock: two (TSC, CLOCK_MONOTONIC ns) points
 *   END      struct lpt_rec_end: totals and why the file ended
 */
#ifndef LPTRACE_DATA_H
#define LPTRACE_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LPT_DATA_MAGIC		"LPTDATA1"	/* 8 bytes, no NUL */
#define LPT_DATA_VERSION	3		/* INFO's version */
#define LPT_DATA_MAGIC_LEN	8
#define LPT_REC_ALIGN		8

enum lpt_rec_type {
	LPT_REC_INFO = 1,
	LPT_REC_SYMS,
	LPT_REC_EVENTS,
	LPT_REC_THREAD,
	LPT_REC_CLOCK,
	LPT_REC_END,
};

struct lpt_rec {
	uint32_t type;		/* enum lpt_rec_type */
	uint32_t len;		/* payload bytes, padding excluded */
};

/* What an event records. */
enum lpt_event_kind {
	LPT_EV_CALL,		/* entry-only mode: a call, no exit seen */
	LPT_EV_ENTRY,		/* graph mode: a function entered */
	LPT_EV_EXIT,		/* graph mode: it returned (or was unwound) */
};

/* The CPU of an event when the CPU has neither RDPID nor RDTSCP. */
#define LPT_EV_CPU_UNKNOWN	0xffff

struct lpt_event {
	uint64_t tsc;
	uint64_t func;		/* site address of the traced function */
	uint64_t arg;		/* CALL, ENTRY: return address into the caller;
				   EXIT: the TSC of its entry */
	int32_t tid;		/* the thread, whichever owned the buffer */
	uint16_t cpu;		/* LPT_EV_CPU_UNKNOWN without RDPID, RDTSCP */
	uint8_t kind;		/* enum lpt_event_kind */
	uint8_t depth;		/* graph mode: calls below it on the shadow
				   stack (0 = outermost traced) */
};

#define LPT_INFO_GRAPH		1u	/* function-graph mode */

struct lpt_rec_info {
	uint32_t version;	/* LPT_DATA_VERSION */
	uint32_t flags;		/* LPT_INFO_* */
	int32_t pid;
	uint32_t event_size;	/* LPT_PK_EVENT_SIZE: a packed event's two
				   words (version 1: 32, struct lpt_event;
				   version 2: 16, no one-word EXIT) */
	uint64_t load_bias;	/* added to the file's symbol addresses */
	uint64_t min_ns;	/* minimum-duration filter, 0 = none */
	uint32_t max_depth;	/* depth filter, 0 = none */
	uint32_t pathlen;	/* the program's path follows, no NUL */
};

/*
 * An EVENTS record: the thread that recorded them (the ring's owner at
 * the time: a ring taken over from an exited thread starts a new
 * record), the number of events, then the events packed.  A packed
 * event is two little-endian 64-bit words and, when a field does not
 * fit them, extension words:
 *
 *   word 0   bits  0-47  func (the site address)
 *            bits 48-55  depth
 *            bits 56-57  kind (enum lpt_event_kind)
 *            bits 58-61  LPT_PK_F_*: which extension words follow
 *            bit  62     LPT_PK_F_SHORT: a one-word EXIT (below)
 *            bit  63     zero
 *   word 1   bits  0-31  tsc minus the previous event's in the record
 *            bits 32-63  CALL, ENTRY: arg - func as a signed number
 *                        (the return address lies near the function);
 *                        EXIT: tsc - arg, the call's duration
 *   then, in this order, one word each for the flags set: the full
 *   func, tsc, arg, and the cpu (when it is not the previous event's).
 *
 * A one-word EXIT (LPT_PK_F_SHORT) is bits 0-31 the tsc minus the
 * previous event's, bits 48-55 the depth, bits 56-57 LPT_EV_EXIT, bit
 * 62 set, the rest zero.  Its func and arg (the entry's tsc) are those
 * of the record's latest ENTRY at the same depth, and its cpu the
 * previous event's.  The writer uses it only when that is exactly so,
 * for depths below 255 (the depth saturates there); a graph-mode
 * call's EXIT is then 8 bytes, half of the calls' bytes.
 *
 * At a record's start the previous tsc is 0, the previous cpu is
 * LPT_EV_CPU_UNKNOWN and no ENTRY is known, so a record decodes alone.
 * lpt_pk_encode and lpt_pk_decode below are the format's only writer
 * and reader.
 */
struct lpt_rec_events {
	int32_t tid;
	uint32_t count;		/* events packed in the record */
};

#define LPT_PK_EVENT_SIZE	16	/* the two words */
#define LPT_PK_MAX_WORDS	6	/* with every extension word */
#define LPT_PK_FUNC_BITS	48
#define LPT_PK_DEPTH_SHIFT	48
#define LPT_PK_KIND_SHIFT	56
#define LPT_PK_F_FUNC		(1ull << 58)
#define LPT_PK_F_TSC		(1ull << 59)
#define LPT_PK_F_ARG		(1ull << 60)
#define LPT_PK_F_CPU		(1ull << 61)
#define LPT_PK_F_SHORT		(1ull << 62)
#define LPT_PK_RESERVED		(1ull << 63)
#define LPT_PK_DEPTH_OPEN	255	/* depths with a one-word EXIT: below */

/*
 * What a record's previous events leave to the next: the last tsc and
 * cpu, and the latest ENTRY at each depth (func 0: none; a site is
 * never at address 0).  open[LPT_PK_DEPTH_OPEN] is also where the
 * encoder stores what is not an ENTRY, so that it needs no branch.
 */
struct lpt_pk_state {
	uint64_t tsc;
	uint32_t cpu;
	struct lpt_pk_open {
		uint64_t func, tsc;
	} open[LPT_PK_DEPTH_OPEN + 1];
};

static inline void lpt_pk_start(struct lpt_pk_state *st)
{
	memset(st, 0, sizeof(*st));
	st->cpu = LPT_EV_CPU_UNKNOWN;
}

/*
 * Pack @e after @st's events into @w; returns the words used (1 to 6).
 * Writes w[0] and w[1] even when it uses one.
 */
static inline unsigned int lpt_pk_encode(struct lpt_pk_state *st,
					 const struct lpt_event *e,
					 uint64_t *w)
{
	/*
	 * ENTRY and EXIT alternate unpredictably: their arguments are
	 * both computed and one selected, and the one-word EXIT chosen,
	 * without a branch (as masks: GCC makes branches of the
	 * conditional expressions).  The CALL and ENTRY offset is biased
	 * into 0..2^32 to test its range.  One test for all four
	 * extension words: they are rare (and then no one-word EXIT).
	 */
	uint64_t tsc = e->tsc, arg = e->arg, func = e->func;
	unsigned int kind = e->kind, depth = e->depth;
	uint64_t exit = -(uint64_t)(kind == LPT_EV_EXIT);	/* all ones */
	uint64_t bias = 0x80000000ull & ~exit;
	uint64_t da = (((tsc - arg) & exit) | ((arg - func) & ~exit)) + bias;
	uint64_t dt = tsc - st->tsc, wf = func;	/* word 0's func */
	uint64_t w0 = (uint64_t)depth << LPT_PK_DEPTH_SHIFT |
		      (uint64_t)kind << LPT_PK_KIND_SHIFT;
	struct lpt_pk_open *o = &st->open[depth];
	uint64_t one = exit & -(uint64_t)((depth != LPT_PK_DEPTH_OPEN) &
					  (o->func == func) & (o->tsc == arg));
	unsigned int n = 2;

	if (__builtin_expect(((dt | da) >> 32 | func >> LPT_PK_FUNC_BITS |
			      (uint64_t)(e->cpu ^ st->cpu)) != 0, 0)) {
		if (func >> LPT_PK_FUNC_BITS) {
			w0 |= LPT_PK_F_FUNC;
			w[n++] = func;
			wf = 0;
		}
		if (dt >> 32) {		/* also a tsc below the last */
			w0 |= LPT_PK_F_TSC;
			w[n++] = tsc;
			dt = 0;
		}
		if (da >> 32) {		/* also an entry after its exit */
			w0 |= LPT_PK_F_ARG;
			w[n++] = arg;
			da = bias;
		}
		if (e->cpu != st->cpu) {
			w0 |= LPT_PK_F_CPU;
			w[n++] = e->cpu;
			st->cpu = e->cpu;
		}
		one = 0;
	}
	w[0] = w0 | (wf & ~one) | ((LPT_PK_F_SHORT | dt) & one);
	w[1] = dt | (da - bias) << 32;
	st->tsc = tsc;
	o = &st->open[kind == LPT_EV_ENTRY ? depth : LPT_PK_DEPTH_OPEN];
	o->func = func;
	o->tsc = tsc;
	return n + (unsigned int)one;	/* one: 0 or all ones */
}

/* A one-word EXIT's bits that must be zero (lpt_pk_decode). */
#define LPT_PK_SHORT_ZERO	(0xffffull << 32 | 0xfull << 58 | LPT_PK_RESERVED)

/*
 * Unpack one event of thread @tid from @w[0..@left) into @e.  Returns
 * the words used, or 0 if @w is not a packed event (reserved bits or
 * kind set, an extension word past @left, a one-word EXIT that is not
 * one or has no ENTRY before it).
 */
static inline unsigned int lpt_pk_decode(struct lpt_pk_state *st,
					 const uint64_t *w, size_t left,
					 int32_t tid, struct lpt_event *e)
{
	uint64_t w0, w1, arg;
	unsigned int n = 2, kind, depth;

	if (left < 1)
		return 0;
	w0 = w[0];
	kind = w0 >> LPT_PK_KIND_SHIFT & 3;
	depth = w0 >> LPT_PK_DEPTH_SHIFT & 0xff;
	if (w0 & LPT_PK_F_SHORT) {
		if ((w0 & LPT_PK_SHORT_ZERO) || kind != LPT_EV_EXIT ||
		    depth == LPT_PK_DEPTH_OPEN || !st->open[depth].func)
			return 0;
		e->func = st->open[depth].func;
		e->arg = st->open[depth].tsc;
		e->tsc = st->tsc + (uint32_t)w0;
		e->cpu = st->cpu;
		e->tid = tid;
		e->kind = kind;
		e->depth = depth;
		st->tsc = e->tsc;
		return 1;
	}
	if (left < 2)
		return 0;
	w1 = w[1];
	if ((w0 & LPT_PK_RESERVED) || kind > LPT_EV_EXIT ||
	    left < 2 + (unsigned int)__builtin_popcountll(w0 & (0xfull << 58)))
		return 0;
	e->func = w0 & ((1ull << LPT_PK_FUNC_BITS) - 1);
	if (w0 & LPT_PK_F_FUNC)
		e->func = w[n++];
	e->tsc = st->tsc + (uint32_t)w1;
	if (w0 & LPT_PK_F_TSC)
		e->tsc = w[n++];
	if (kind == LPT_EV_EXIT)
		arg = e->tsc - (w1 >> 32);
	else
		arg = e->func + (int64_t)(int32_t)(w1 >> 32);
	if (w0 & LPT_PK_F_ARG)
		arg = w[n++];
	e->arg = arg;
	e->cpu = st->cpu;
	if (w0 & LPT_PK_F_CPU)
		e->cpu = w[n++];
	e->tid = tid;
	e->kind = kind;
	e->depth = depth;
	st->tsc = e->tsc;
	st->cpu = e->cpu;
	if (kind == LPT_EV_ENTRY) {
		st->open[depth].func = e->func;
		st->open[depth].tsc = e->tsc;
	}
	return n;
}

struct lpt_rec_sym {
	uint64_t addr;		/* run-time address */
	uint32_t size;
	uint32_t namelen;
};

struct lpt_rec_thread {
	int32_t tid;
	char comm[16];
	uint32_t pad;
};

struct lpt_rec_clock {
	uint64_t tsc0, ns0, tsc1, ns1;
};

struct lpt_rec_end {
	uint64_t events;	/* events in the file */
	uint64_t dropped;	/* lost: buffer full before the writer drained
				   it, or no buffer */
	uint64_t overwritten;	/* ring mode: older events replaced */
	uint64_t recursed;	/* lost: traced call inside the tracer */
	int32_t signo;		/* 0: normal exit; else the fatal signal */
	uint32_t waits;		/* stream mode: times a thread with a full
				   buffer waited for the writer (saturates) */
};

#endif /* LPTRACE_DATA_H */
