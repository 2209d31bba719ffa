// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_replay.c - `lptrace replay`: every thread's calls merged in time
 * order (merge.c), nested, as `uftrace replay` prints them:
 *
 *   # DURATION     TID     FUNCTION
 *               [  1234] | main() {
 *      1.234 us [  1234] |   leaf();
 *     10.500 us [  1234] | } // main
 *
 * A call whose exit is its thread's next event is one line.  An
 * entry-only recording prints each call with its caller.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "merge.h"
#include "units.h"
#include "walk.h"

struct replay {
	struct trace *t;
	struct merge m;
	bool quiet_exit;	/* the exit just printed with its leaf */
};

static void line(int32_t tid, const char *dur, unsigned int depth,
		 const char *fmt, const char *a, const char *b)
{
	printf("%10s [%6d] | %*s", dur, tid, 2 * depth, "");
	printf(fmt, a, b);
	putchar('\n');
}

static int on_enter(struct walk *w, struct wthread *t, struct frame *f,
		    const struct lpt_event *e)
{
	struct replay *rp = w->priv;
	const struct lpt_event *h = merge_peek(&rp->m, e->tid);
	char buf[32], dur[32];
	const char *name = trace_func_name(rp->t, f->func, buf, sizeof(buf));
	struct lpt_event x;
	int err;

	(void)t;
	if (!h || h->kind != LPT_EV_EXIT || h->func != e->func ||
	    h->depth != e->depth) {
		line(e->tid, "", f->sdepth, "%s() {", name, "");
		return 0;
	}
	fmt_ns(dur, sizeof(dur), trace_ns(rp->t, h->tsc) -
		   trace_ns(rp->t, h->arg));
	line(e->tid, dur, f->sdepth, "%s();", name, "");
	if (merge_take(&rp->m, e->tid, &x) < 0)
		return -1;
	rp->quiet_exit = true;
	err = walk_event(w, &x);
	rp->quiet_exit = false;
	return err;
}

static int on_return(struct walk *w, struct wthread *t, struct frame *f,
		   uint64_t ns, const struct lpt_event *e)
{
	struct replay *rp = w->priv;
	char buf[32], dur[32];

	(void)t;
	if (rp->quiet_exit)
		return 0;
	fmt_ns(dur, sizeof(dur), ns);
	line(e->tid, dur, f->sdepth, "} // %s%s",
	     trace_func_name(rp->t, f->func, buf, sizeof(buf)),
	     f->entered ? "" : " (entry not recorded)");
	return 0;
}

static int on_call(struct walk *w, struct wthread *t,
		   const struct lpt_event *e)
{
	struct replay *rp = w->priv;
	char fbuf[32], cbuf[32];

	(void)t;
	line(e->tid, "", 0, "%s() <- %s",
	     trace_func_name(rp->t, e->func, fbuf, sizeof(fbuf)),
	     trace_caller_name(rp->t, e->arg, cbuf, sizeof(cbuf)));
	return 0;
}

static const struct walk_ops replay_ops = {
	.entry = on_enter, .exit = on_return, .call = on_call,
};

int cmd_replay(const struct options *o)
{
	struct replay rp = { 0 };
	struct lpt_event e;
	struct trace t;
	struct walk w = { 0 };
	int ret = EXIT_ERROR, r = 0, err = 0;

	if (trace_open(&t, o->input, 0))
		return EXIT_ERROR;
	rp.t = &t;
	if (walk_error(&t, walk_init(&w, &t, o, &replay_ops, &rp)))
		goto out_close;
	if (merge_init(&rp.m, &t))
		goto out_walk;
	printf("# DURATION     TID     FUNCTION\n");
	while (!err && (r = merge_next(&rp.m, &e)) > 0)
		err = walk_error(&t, walk_event(&w, &e));
	if (err || r < 0)
		goto out_merge;
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("stdout: write failed");
		goto out_merge;
	}
	ret = EXIT_OK;
out_merge:
	merge_free(&rp.m);
out_walk:
	walk_free(&w);
out_close:
	trace_close(&t);
	return ret;
}
