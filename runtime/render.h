/* SPDX-License-Identifier: GPL-2.0 */
/*
 * render.h - the one writer of the text and JSON trace formats, shared
 * by the runtime (output.c, from its buffers) and the lptrace tool
 * (from a trace file): events in, ftrace text or Chrome JSON out.
 */
#ifndef LPT_RENDER_H
#define LPT_RENDER_H

#include <stdio.h>
#include <stdint.h>

#include "lptrace-data.h"

/* One buffer's (or one thread's) events, in recording order. */
struct lpt_rthread {
	int32_t tid;		/* the owner: events of other tids show "<...>" */
	char comm[17];
	const struct lpt_event *ev;
	size_t n;
};

struct lpt_render {
	const struct lpt_rthread *t;
	size_t nthreads;
	uint64_t tsc0, ns0, tsc1, ns1;	/* clock calibration */
	/* Name of a site (exact) and of the function holding a return address. */
	const char *(*func_name)(void *ctx, uint64_t site, char *buf, size_t n);
	const char *(*caller_name)(void *ctx, uint64_t ret, char *buf, size_t n);
	void *ctx;
	int pid;
	const char *comm;		/* the process */
	int graph;			/* events are ENTRY/EXIT */
	uint64_t total, lost;		/* for the text header */
	long ncpus;
};

uint64_t lpt_render_ns(const struct lpt_render *r, uint64_t tsc);
int lpt_render_text(FILE *f, const struct lpt_render *r);
int lpt_render_json(FILE *f, const struct lpt_render *r);

#endif /* LPT_RENDER_H */
