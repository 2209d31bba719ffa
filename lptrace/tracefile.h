/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefile.h - a trace file read back (format: runtime/lptrace-data.h).
 *
 * trace_open() walks the record headers once, skipping the events'
 * payload, and keeps what is not an event: INFO, the symbols, the
 * threads (their ids, names, event counts, first and last records),
 * CLOCK and END.  A cursor then streams the events, in file order
 * (every thread) or one thread's, through a fixed window of the file:
 * memory does not grow with the number of events.
 */
#ifndef LPTRACE_TRACEFILE_H
#define LPTRACE_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "lptrace-data.h"
#include "render.h"

struct data_sym {
	uint64_t addr;
	uint64_t size;
	char *name;
};

struct trace_thread {
	int32_t tid;
	char comm[17];			/* its THREAD record's, or "<...>" */
	uint64_t events;
	uint64_t first_off, last_off;	/* its first and last EVENTS records */
	uint64_t first_tsc;		/* its first event's */
};

/* Reads of a file through a window: one pread per window, not per read. */
struct rd {
	int fd;
	char *buf;
	size_t cap, len;
	uint64_t pos;			/* the file offset of buf[0] */
};

struct trace {
	const char *path;
	int fd;
	uint64_t size;
	uint64_t end_off;		/* the END record's offset */
	struct rd rd;
	struct lpt_rec_info info;
	char *exe;
	struct data_sym *syms;		/* sorted by address */
	size_t nsyms;
	struct trace_thread *threads;	/* sorted by tid */
	size_t nthreads;
	int32_t *tidx;			/* hash: tid -> threads[] index + 1 */
	size_t tidx_cap;
	uint64_t nevents;		/* the EVENTS records' counts */
	uint64_t nrecords;		/* EVENTS records */
	uint64_t first_tsc;		/* the earliest thread's first event */
	struct lpt_rec_clock clk;
	struct lpt_rec_end end;
	struct lpt_render r;		/* the clock and names, for render.c */
};

/* trace_open: the record headers only, no symbols (lptrace record). */
#define TRACE_NO_SYMS	1u

/* 0, or -1 after one line on stderr saying what is wrong with the file. */
int trace_open(struct trace *t, const char *path, unsigned int flags);
void trace_close(struct trace *t);

/* The thread @tid (NULL if it recorded nothing); its index in threads[]. */
struct trace_thread *trace_thread(const struct trace *t, int32_t tid);

/* The function covering @addr, or NULL; a site's name; a caller's name. */
const struct data_sym *trace_sym_find(const struct trace *t, uint64_t addr);
const char *trace_func_name(void *ctx, uint64_t site, char *buf, size_t n);
const char *trace_caller_name(void *ctx, uint64_t ret, char *buf, size_t n);
/* Nanoseconds (CLOCK_MONOTONIC) of a TSC. */
uint64_t trace_ns(const struct trace *t, uint64_t tsc);

/* The events of every thread in file order, or of one thread in its order. */
struct cursor {
	struct trace *t;
	struct rd rd;
	int32_t tid;			/* -1: every thread's records */
	uint64_t off, stop;		/* the next record; stop before it */
	uint64_t rec_off, pos, rec_end;	/* the record being read */
	int32_t rec_tid;
	uint32_t count, left;
	struct lpt_pk_state st;
};

/* 0 or -1 (said); @window: bytes read at a time. */
int cursor_init(struct cursor *c, struct trace *t, int32_t tid,
		size_t window);
void cursor_free(struct cursor *c);
/* 1 with the next event in *e, 0 at the end, -1 on a corrupt record (said). */
int cursor_next(struct cursor *c, struct lpt_event *e);

/* Error output: "lptrace: " + message + newline. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
