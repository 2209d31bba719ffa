/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk.h - the calls of a trace, thread by thread, through the
 * read-time filters (-F, -N, -D, -t, --tid).  Each thread keeps a stack
 * of its open calls, at most one frame per depth: memory is threads x
 * depth, whatever the number of events.  The commands say what a
 * shown call's entry, exit or lost exit does (struct walk_ops); the
 * order the events come in (file order, or merged in time) is theirs.
 */
#ifndef LPTRACE_WALK_H
#define LPTRACE_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "tracefile.h"

#define WALK_NONE	((size_t)-1)

struct frame {
	uint64_t func;
	uint64_t tsc;		/* entry */
	uint64_t arg;		/* the caller's return address */
	uint64_t child_ns;	/* its recorded callees' time */
	size_t node;		/* the command's (a call-tree node), or WALK_NONE */
	uint32_t sdepth;	/* shown calls below it on the stack */
	uint8_t depth;		/* as recorded */
	bool shown;		/* passes -F, -N, -D, --tid */
	bool in_filter;		/* -F: at or under a match (or no -F) */
	bool notrace;		/* -N: at or under a match */
	bool entered;		/* its entry was seen (else from its exit) */
	uint8_t fbase;		/* -F: the depth its filtered subtree starts at */
};

struct wthread {
	const struct trace_thread *th;
	struct frame *stack;
	size_t n;
	bool selected;		/* --tid */
};

struct walk;

/* Each returns 0 or -errno; NULL: nothing to do. */
struct walk_ops {
	/* a shown call entered (graph mode) */
	int (*entry)(struct walk *w, struct wthread *t, struct frame *f,
		     const struct lpt_event *e);
	/* a shown call returned, and took at least -t; f->entered or not */
	int (*exit)(struct walk *w, struct wthread *t, struct frame *f,
		    uint64_t ns, const struct lpt_event *e);
	/* a shown call whose exit was lost (or is not in the file) */
	int (*lost)(struct walk *w, struct wthread *t, struct frame *f);
	/* an entry-only call that passes the filters */
	int (*call)(struct walk *w, struct wthread *t,
		    const struct lpt_event *e);
};

struct fcache;

struct walk {
	struct trace *t;
	const struct options *o;
	const struct walk_ops *ops;
	void *priv;
	struct wthread *threads;	/* as t->threads */
	struct fcache *fc;		/* -F, -N: a function's matches */
	size_t fc_cap, fc_n;
};

int walk_init(struct walk *w, struct trace *t, const struct options *o,
	      const struct walk_ops *ops, void *priv);
void walk_free(struct walk *w);
/* One event, in its thread's order. */
int walk_event(struct walk *w, const struct lpt_event *e);
/* The calls still open at the end: lost. */
int walk_finish(struct walk *w);
/* Every event of the file, in file order, then walk_finish. */
int walk_file(struct walk *w);
/* The thread of an event. */
struct wthread *walk_thread(struct walk *w, int32_t tid);

/* A walk error: the file and the cause. */
int walk_error(const struct trace *t, int err);

#endif
