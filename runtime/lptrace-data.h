/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lptrace-data.h - the binary trace file (LPTRACE_DATA), written by the
 * runtime while the program runs (stream.c) and read by the lptrace
 * tool (tools/lptrace/).  The one definition of the format.
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
 *   EVENTS   struct lpt_event[len / sizeof(struct lpt_event)], in the
 *            order each thread recorded them
 *   THREAD   struct lpt_rec_thread: a thread id's name
 *   CLOCK    struct lpt_rec_clock: two (TSC, CLOCK_MONOTONIC ns) points
 *   END      struct lpt_rec_end: totals and why the file ended
 */
#ifndef LPTRACE_DATA_H
#define LPTRACE_DATA_H

#include <stdint.h>

#define LPT_DATA_MAGIC		"LPTDATA1"	/* 8 bytes, no NUL */
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

/* The CPU of an event when the CPU has no RDTSCP. */
#define LPT_EV_CPU_UNKNOWN	0xffff

struct lpt_event {
	uint64_t tsc;
	uint64_t func;		/* site address of the traced function */
	uint64_t arg;		/* CALL, ENTRY: return address into the caller;
				   EXIT: the TSC of its entry */
	int32_t tid;		/* the thread, whichever owned the buffer */
	uint16_t cpu;		/* LPT_EV_CPU_UNKNOWN without RDTSCP */
	uint8_t kind;		/* enum lpt_event_kind */
	uint8_t depth;		/* graph mode: calls below it on the shadow
				   stack (0 = outermost traced) */
};

#define LPT_INFO_GRAPH		1u	/* function-graph mode */

struct lpt_rec_info {
	uint32_t version;	/* 1 */
	uint32_t flags;		/* LPT_INFO_* */
	int32_t pid;
	uint32_t event_size;	/* sizeof(struct lpt_event) */
	uint64_t load_bias;	/* added to the file's symbol addresses */
	uint64_t min_ns;	/* minimum-duration filter, 0 = none */
	uint32_t max_depth;	/* depth filter, 0 = none */
	uint32_t pathlen;	/* the program's path follows, no NUL */
};

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
