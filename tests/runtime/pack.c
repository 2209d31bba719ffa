// SPDX-License-Identifier: GPL-2.0
/*
 * pack.c - the packed events of a trace file (runtime/lptrace-data.h)
 * give back exactly the events packed: every field, for the common case,
 * for each field that needs an extension word and for the one-word EXIT
 * of an ENTRY earlier in the record.  Prints "ok N" (the events
 * checked), the words they took, how many events used each extension
 * word and how many were one-word EXITs, or the first event that came
 * back different.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lptrace-data.h"

#define N	100000

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/*
 * Events of one thread: mostly near each other, sometimes far off.  Half
 * the EXITs close the latest ENTRY at their depth, as in graph mode
 * (those below depth 255 may be one word), some with a different cpu
 * (they may not).
 */
static void make(struct lpt_event *ev, size_t n)
{
	static struct lpt_event open[256];
	uint64_t tsc = 1ull << 40, func = 0x401000;
	size_t i;

	for (i = 0; i < n; i++) {
		struct lpt_event *e = &ev[i];
		unsigned int r = rnd() % 16;

		memset(e, 0, sizeof(*e));
		tsc += rnd() % 1000;
		if (r == 0)
			tsc += 1ull << 33;		/* a long gap */
		if (r == 1)
			tsc -= 5000;			/* another CPU's clock */
		func = r == 2 ? 1ull << 52 | rnd() : 0x401000 + rnd() % 65536;
		e->tsc = tsc;
		e->func = func;
		e->kind = rnd() % 3;
		e->depth = rnd();
		e->cpu = r == 3 ? LPT_EV_CPU_UNKNOWN : r < 6 ? rnd() : 1;
		e->tid = 4242;
		if (e->kind == LPT_EV_EXIT)
			e->arg = r == 4 ? tsc + 7 : r == 5 ? 3 : tsc - rnd() % 100000;
		else
			e->arg = r == 4 ? 0x7f0000001234ull : r == 5 ?
				 func - (1ull << 31) : func + rnd() % 4096 - 2048;
		if (e->kind == LPT_EV_ENTRY)
			open[e->depth] = *e;
		if (e->kind == LPT_EV_EXIT && rnd() % 2 &&
		    open[e->depth].func) {
			e->func = open[e->depth].func;
			e->arg = open[e->depth].tsc;
		}
	}
	/* The extremes of what fits in the two words. */
	ev[1].kind = LPT_EV_ENTRY;
	ev[1].arg = ev[1].func + 0x7fffffff;
	ev[2].kind = LPT_EV_CALL;
	ev[2].arg = ev[2].func - 0x80000000ull;
	ev[3].kind = LPT_EV_EXIT;
	ev[3].arg = ev[3].tsc - 0xffffffffull;
	ev[4].tsc = ev[3].tsc + 0xffffffffull;
	ev[5].func = (1ull << 48) - 1;
}

int main(void)
{
	struct lpt_event *ev = calloc(N, sizeof(*ev)), back;
	uint64_t *w = calloc(N, LPT_PK_MAX_WORDS * 8);
	struct lpt_pk_state st;
	size_t i, nw = 0, at = 0, ext[4] = { 0 }, k, one = 0;

	if (!ev || !w)
		return 2;
	make(ev, N);
	lpt_pk_start(&st);
	for (i = 0; i < N; i++) {
		unsigned int used = lpt_pk_encode(&st, &ev[i], w + nw);

		for (k = 0; k < 4; k++)
			ext[k] += !(w[nw] & LPT_PK_F_SHORT) &&
				  (w[nw] & LPT_PK_F_FUNC << k);
		one += used == 1;
		nw += used;
	}
	lpt_pk_start(&st);
	for (i = 0; i < N; i++) {
		unsigned int used;

		memset(&back, 0, sizeof(back));
		used = lpt_pk_decode(&st, w + at, nw - at, 4242, &back);

		if (!used || back.tsc != ev[i].tsc || back.func != ev[i].func ||
		    back.arg != ev[i].arg || back.tid != ev[i].tid ||
		    back.cpu != ev[i].cpu || back.kind != ev[i].kind ||
		    back.depth != ev[i].depth) {
			printf("event %zu: used %u, tsc %" PRIx64 "/%" PRIx64
			       " func %" PRIx64 "/%" PRIx64 " arg %" PRIx64
			       "/%" PRIx64 " cpu %u/%u kind %u/%u depth %u/%u\n",
			       i, used, back.tsc, ev[i].tsc, back.func,
			       ev[i].func, back.arg, ev[i].arg, back.cpu,
			       ev[i].cpu, back.kind, ev[i].kind, back.depth,
			       ev[i].depth);
			return 1;
		}
		at += used;
	}
	if (at != nw) {
		printf("%zu words left over\n", nw - at);
		return 1;
	}
	printf("ok %d events in %zu words; extension words: func %zu tsc %zu arg %zu cpu %zu; one-word exits %zu\n",
	       N, nw, ext[0], ext[1], ext[2], ext[3], one);
	return 0;
}
