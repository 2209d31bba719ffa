// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - ftrace-like text and Chrome trace-event JSON (Perfetto,
 * chrome://tracing) from events (render.h).
 *
 *   text, entry-only   ftrace's `function` layout, all threads merged in
 *                      time order: TASK-PID [CPU] TIME: func <-caller
 *   text, graph        ftrace's `function_graph` layout with the absolute
 *                      time and task columns: a call with no recorded
 *                      callee is one line `func();` with its duration,
 *                      others open `func() {` and close `}` with theirs
 *   JSON, entry-only   instant events ("ph":"i")
 *   JSON, graph        complete events ("ph":"X", ts + dur) from each
 *                      exit (which carries its entry time); an entry with
 *                      no exit (still running, or its exit lost) is a
 *                      begin event ("ph":"B") that Perfetto shows unended
 *
 * Used by the runtime at exit and by the lptrace tool; it reads only
 * what it is given.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define NS_PER_SEC	1000000000ull

uint64_t lpt_render_ns(const struct lpt_render *r, uint64_t tsc)
{
	unsigned __int128 span = r->ns1 - r->ns0;
	uint64_t ticks = r->tsc1 - r->tsc0;

	if (!ticks)
		return r->ns0;
	if (tsc >= r->tsc0)
		return r->ns0 + (uint64_t)(span * (tsc - r->tsc0) / ticks);
	return r->ns0 - (uint64_t)(span * (r->tsc0 - tsc) / ticks);
}

/* One thread's position in the time-ordered merge. */
struct cursor {
	const struct lpt_rthread *t;
	size_t i;
};

static uint64_t key(const struct cursor *c)
{
	return c->t->ev[c->i].tsc;
}

static void heap_down(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cursor *t;

		if (l < n && key(h[l]) < key(h[m]))
			m = l;
		if (l + 1 < n && key(h[l + 1]) < key(h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static const char *comm_of(const struct lpt_rthread *t,
			   const struct lpt_event *e)
{
	/* The buffer's name is its owner's: older events get ftrace's "<...>". */
	return e->tid == t->tid ? t->comm : "<...>";
}

static void time_str(const struct lpt_render *r, uint64_t tsc, char *buf,
		     size_t size)
{
	uint64_t ns = lpt_render_ns(r, tsc);

	snprintf(buf, size, "%6llu.%06llu",
		 (unsigned long long)(ns / NS_PER_SEC),
		 (unsigned long long)(ns / 1000 % 1000000ull));
}

static void line_function(FILE *f, const struct lpt_render *r,
			  const struct cursor *c)
{
	const struct lpt_event *e = &c->t->ev[c->i];
	char fbuf[32], cbuf[32], cpu[12], ts[32];

	if (e->cpu == LPT_EV_CPU_UNKNOWN)
		strcpy(cpu, "???");
	else
		snprintf(cpu, sizeof(cpu), "%03u", e->cpu);
	time_str(r, e->tsc, ts, sizeof(ts));
	fprintf(f, "%16.16s-%-7d [%s] %s: %s <-%s\n", comm_of(c->t, e),
		e->tid, cpu, ts, r->func_name(r->ctx, e->func, fbuf, sizeof(fbuf)),
		r->caller_name(r->ctx, e->arg, cbuf, sizeof(cbuf)));
}

/* ftrace's duration column: a mark for long calls, then microseconds. */
static void duration_str(uint64_t ns, char *buf, size_t size)
{
	static const struct { uint64_t ns; char mark; } marks[] = {
		{ NS_PER_SEC, '$' }, { 100000000, '@' }, { 10000000, '*' },
		{ 1000000, '#' }, { 100000, '!' }, { 10000, '+' },
	};
	char mark = ' ';
	size_t i;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns >= marks[i].ns) {
			mark = marks[i].mark;
			break;
		}
	snprintf(buf, size, "%c%7llu.%03llu us", mark,
		 (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
}

/* The graph layout; consumes the exit too when the call is a leaf. */
static void line_graph(FILE *f, const struct lpt_render *r, struct cursor *c)
{
	const struct lpt_event *e = &c->t->ev[c->i];
	const struct lpt_event *next = c->i + 1 < c->t->n ? e + 1 : NULL;
	char fbuf[32], ts[32], task[40], dur[40] = "";
	const char *name = r->func_name(r->ctx, e->func, fbuf, sizeof(fbuf));
	int indent = 2 * e->depth + 2;

	time_str(r, e->tsc, ts, sizeof(ts));
	snprintf(task, sizeof(task), "%s-%d", comm_of(c->t, e), e->tid);
	if (e->kind == LPT_EV_EXIT) {
		duration_str(lpt_render_ns(r, e->tsc) - lpt_render_ns(r, e->arg),
			     dur, sizeof(dur));
		fprintf(f, "%s | %20.20s | %s | %*s}  /* %s */\n", ts, task,
			dur, indent, "", name);
		return;
	}
	if (next && next->kind == LPT_EV_EXIT && next->func == e->func &&
	    next->depth == e->depth) {
		duration_str(lpt_render_ns(r, next->tsc) -
			     lpt_render_ns(r, next->arg), dur, sizeof(dur));
		fprintf(f, "%s | %20.20s | %s | %*s%s();\n", ts, task, dur,
			indent, "", name);
		c->i++;
		return;
	}
	fprintf(f, "%s | %20.20s | %15s | %*s%s() {\n", ts, task, "", indent,
		"", name);
}

int lpt_render_text(FILE *f, const struct lpt_render *r)
{
	struct cursor *c, **h;
	size_t i, n = 0;

	c = calloc(r->nthreads ? r->nthreads : 1, sizeof(*c));
	h = malloc((r->nthreads ? r->nthreads : 1) * sizeof(*h));
	if (!c || !h) {
		free(c);
		free(h);
		return -ENOMEM;
	}
	for (i = 0; i < r->nthreads; i++) {
		c[i].t = &r->t[i];
		if (r->t[i].n)
			h[n++] = &c[i];
	}
	fprintf(f, "# tracer: %s (lptrace)\n#\n",
		r->graph ? "function_graph" : "function");
	fprintf(f, "# entries-in-buffer/entries-written: %llu/%llu   #P:%ld\n#\n",
		(unsigned long long)r->total,
		(unsigned long long)(r->total + r->lost), r->ncpus);
	if (r->graph) {
		fprintf(f, "#     TIME    |       TASK-PID       |    DURATION     |   FUNCTION CALLS\n");
		fprintf(f, "#      |      |         |            |     |   |       |   |   |   |\n");
	} else {
		fprintf(f, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
		fprintf(f, "#              | |         |         |         |\n");
	}
	for (i = n / 2; i-- > 0;)
		heap_down(h, n, i);
	while (n) {
		if (h[0]->t->ev[h[0]->i].kind == LPT_EV_CALL)
			line_function(f, r, h[0]);
		else
			line_graph(f, r, h[0]);
		if (++h[0]->i == h[0]->t->n)
			h[0] = h[--n];
		heap_down(h, n, 0);
	}
	free(h);
	free(c);
	return 0;
}

static void json_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			putc(ch, f);
	}
	putc('"', f);
}

static void json_meta(FILE *f, const char *what, int pid, int tid,
		      const char *name)
{
	fprintf(f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		what, pid, tid);
	json_string(f, name);
	fputs("}},\n", f);
}

/* "ts" and "dur" are in microseconds, with the nanoseconds as a fraction. */
static void json_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

static void json_event(FILE *f, const struct lpt_render *r,
		       const struct lpt_event *e, const char *ph)
{
	char fbuf[32], cbuf[32];
	uint64_t start = e->kind == LPT_EV_EXIT ? e->arg : e->tsc;

	fprintf(f, "{\"ph\":\"%s\",%s\"cat\":\"function\",\"name\":", ph,
		*ph == 'i' ? "\"s\":\"t\"," : "");
	json_string(f, r->func_name(r->ctx, e->func, fbuf, sizeof(fbuf)));
	json_us(f, "ts", lpt_render_ns(r, start));
	if (*ph == 'X')
		json_us(f, "dur", lpt_render_ns(r, e->tsc) -
				  lpt_render_ns(r, e->arg));
	fprintf(f, ",\"pid\":%d,\"tid\":%d,\"args\":{", r->pid, e->tid);
	if (e->kind != LPT_EV_EXIT) {
		fputs("\"caller\":", f);
		json_string(f, r->caller_name(r->ctx, e->arg, cbuf, sizeof(cbuf)));
	} else {
		fprintf(f, "\"depth\":%u", e->depth);
	}
	if (e->cpu != LPT_EV_CPU_UNKNOWN)
		fprintf(f, ",\"cpu\":%u", e->cpu);
	fputs("}},\n", f);
}

/*
 * One thread's graph events: an exit closes the latest open entry of
 * its depth (deeper open entries lost their exit: they stay open).
 */
static int json_graph_thread(FILE *f, const struct lpt_render *r,
			     const struct lpt_rthread *t)
{
	size_t *open, nopen = 0, i;

	open = malloc((t->n ? t->n : 1) * sizeof(*open));
	if (!open)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		const struct lpt_event *e = &t->ev[i];

		if (e->kind == LPT_EV_ENTRY) {
			open[nopen++] = i;
			continue;
		}
		if (e->kind == LPT_EV_CALL) {
			json_event(f, r, e, "i");
			continue;
		}
		while (nopen && t->ev[open[nopen - 1]].depth > e->depth)
			json_event(f, r, &t->ev[open[--nopen]], "B");
		if (nopen && t->ev[open[nopen - 1]].depth == e->depth &&
		    t->ev[open[nopen - 1]].func == e->func)
			nopen--;
		json_event(f, r, e, "X");
	}
	while (nopen)
		json_event(f, r, &t->ev[open[--nopen]], "B");
	free(open);
	return 0;
}

int lpt_render_json(FILE *f, const struct lpt_render *r)
{
	size_t t, i;
	int err = 0;

	fputs("{\"traceEvents\":[\n", f);
	json_meta(f, "process_name", r->pid, r->pid, r->comm);
	for (t = 0; t < r->nthreads && !err; t++) {
		const struct lpt_rthread *th = &r->t[t];

		json_meta(f, "thread_name", r->pid, th->tid, th->comm);
		if (r->graph) {
			err = json_graph_thread(f, r, th);
			continue;
		}
		for (i = 0; i < th->n; i++)
			json_event(f, r, &th->ev[i], "i");
	}
	/* A last metadata event, so that every event above ends in a comma. */
	fprintf(f, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%d,\"tid\":%d,\"args\":{\"labels\":\"lptrace\"}}\n",
		r->pid, r->pid);
	fputs("],\"displayTimeUnit\":\"ns\"}\n", f);
	return err;
}
