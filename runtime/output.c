// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - write the recorded events: ftrace-like text, merged across
 * threads in time order, and Chrome trace-event JSON (Perfetto,
 * chrome://tracing).
 *
 * Other threads may go on recording while we write: each buffer is read
 * up to the count loaded (acquire) at the start; later events are left
 * for the next write.  Files are written through file.c: whole or not
 * at all.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "internal.h"

/* One thread's events as seen by this write. */
struct lpt_cursor {
	const struct lpt_tbuf *b;
	size_t i, n;
	char comm[17];
};

struct lpt_snapshot {
	struct lpt_cursor *c;
	size_t nthreads;
	struct lpt_clock clk;
};

static void thread_comm(struct lpt_cursor *c)
{
	char path[64];
	ssize_t r;
	int fd;

	/* The name may have changed since the first event: ask again. */
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", c->b->owner);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? -1 : read(fd, c->comm, sizeof(c->comm) - 1);
	if (fd >= 0)
		close(fd);
	if (r > 0) {
		c->comm[r] = '\0';
		c->comm[strcspn(c->comm, "\n")] = '\0';
	} else {
		memcpy(c->comm, c->b->comm, sizeof(c->b->comm));
		c->comm[sizeof(c->comm) - 1] = '\0';
	}
	if (!c->comm[0])
		strcpy(c->comm, "<...>");
}

static int snapshot_take(struct lpt_snapshot *s)
{
	const struct lpt_tbuf *b, *head = lpt_tbuf_list();
	size_t i = 0;

	s->nthreads = 0;
	for (b = head; b; b = b->next)
		s->nthreads++;
	s->c = calloc(s->nthreads ? s->nthreads : 1, sizeof(*s->c));
	if (!s->c)
		return -ENOMEM;
	for (b = head; b && i < s->nthreads; b = b->next, i++) {
		s->c[i].b = b;
		s->c[i].n = __atomic_load_n(&b->count, __ATOMIC_ACQUIRE);
		thread_comm(&s->c[i]);
	}
	s->nthreads = i;
	lpt_clock_finish(&s->clk);
	lpt_sites_name();
	return 0;
}

uint64_t lpt_trace_count(void)
{
	const struct lpt_tbuf *b;
	uint64_t n = 0;

	for (b = lpt_tbuf_list(); b; b = b->next)
		n += __atomic_load_n(&b->count, __ATOMIC_ACQUIRE);
	return n;
}

/* Name of a traced function: its site's name. */
static const char *func_name(uintptr_t site, char *buf, size_t size)
{
	const struct lpt_site *s = lpt_site_find(site);

	if (s && s->name)
		return s->name;
	snprintf(buf, size, "0x%lx", (unsigned long)site);
	return buf;
}

/*
 * Name of the function a return address is in.  Look up ret - 1: a
 * call that ends a function returns just past its end.  Addresses
 * outside the program (libc's thread start) are asked of ld.so.
 */
static const char *caller_name(uintptr_t ret, char *buf, size_t size)
{
	const char *name;
	uintptr_t off;
	Dl_info info;

	name = lpt_symtab_lookup(ret - 1, &off);
	if (name)
		return name;
	if (dladdr((void *)(ret - 1), &info) && info.dli_sname)
		return info.dli_sname;
	snprintf(buf, size, "0x%lx", (unsigned long)ret);
	return buf;
}

/* Min-heap of cursors keyed by their next event's TSC. */
static uint64_t key(const struct lpt_cursor *c)
{
	return c->b->ev[c->i].tsc;
}

static void heap_down(struct lpt_cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct lpt_cursor *t;

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

static void text_event(FILE *f, const struct lpt_cursor *c,
		       const struct lpt_clock *clk)
{
	const struct lpt_event *e = &c->b->ev[c->i];
	char fbuf[32], cbuf[32], cpu[12];
	uint64_t ns = lpt_tsc_ns(clk, e->tsc);
	/* The buffer's name is its owner's: older events get ftrace's "<...>". */
	const char *comm = e->tid == c->b->owner ? c->comm : "<...>";

	if (e->cpu == LPT_CPU_UNKNOWN)
		strcpy(cpu, "???");
	else
		snprintf(cpu, sizeof(cpu), "%03u", e->cpu);
	fprintf(f, "%16.16s-%-7d [%s] %6llu.%06llu: %s <-%s\n",
		comm, e->tid, cpu,
		(unsigned long long)(ns / 1000000000ull),
		(unsigned long long)(ns / 1000 % 1000000ull),
		func_name(e->func, fbuf, sizeof(fbuf)),
		caller_name(e->caller, cbuf, sizeof(cbuf)));
}

static int write_text(FILE *f, struct lpt_snapshot *s)
{
	struct lpt_cursor **h;
	size_t i, n = 0;
	uint64_t total = 0;

	h = malloc((s->nthreads ? s->nthreads : 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < s->nthreads; i++) {
		total += s->c[i].n;
		if (s->c[i].n)
			h[n++] = &s->c[i];
	}
	fprintf(f, "# tracer: function (lptrace)\n#\n");
	fprintf(f, "# entries-in-buffer/entries-written: %llu/%llu   #P:%ld\n#\n",
		(unsigned long long)total,
		(unsigned long long)(total + lpt_events_dropped()),
		sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(f, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
	fprintf(f, "#              | |         |         |         |\n");
	for (i = n / 2; i-- > 0;)
		heap_down(h, n, i);
	while (n) {
		text_event(f, h[0], &s->clk);
		if (++h[0]->i == h[0]->n)
			h[0] = h[--n];
		heap_down(h, n, 0);
	}
	free(h);
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

/*
 * Instant events ("ph":"i", thread scope): the tracer sees function
 * entries only, so there is no duration to draw.  "ts" is in
 * microseconds, with the nanoseconds as a fraction.
 */
static int write_json(FILE *f, struct lpt_snapshot *s)
{
	char fbuf[32], cbuf[32];
	int pid = getpid();
	size_t t, i;

	fputs("{\"traceEvents\":[\n", f);
	json_meta(f, "process_name", pid, pid, program_invocation_short_name);
	for (t = 0; t < s->nthreads; t++) {
		const struct lpt_cursor *c = &s->c[t];

		json_meta(f, "thread_name", pid, c->b->owner, c->comm);
		for (i = 0; i < c->n; i++) {
			const struct lpt_event *e = &c->b->ev[i];
			uint64_t ns = lpt_tsc_ns(&s->clk, e->tsc);

			fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"function\",\"name\":", f);
			json_string(f, func_name(e->func, fbuf, sizeof(fbuf)));
			fprintf(f, ",\"ts\":%llu.%03llu,\"pid\":%d,\"tid\":%d,\"args\":{\"caller\":",
				(unsigned long long)(ns / 1000),
				(unsigned long long)(ns % 1000), pid, e->tid);
			json_string(f, caller_name(e->caller, cbuf, sizeof(cbuf)));
			if (e->cpu != LPT_CPU_UNKNOWN)
				fprintf(f, ",\"cpu\":%u", e->cpu);
			fputs("}},\n", f);
		}
	}
	/* A last metadata event, so that every event above ends in a comma. */
	fprintf(f, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%d,\"tid\":%d,\"args\":{\"labels\":\"lptrace\"}}\n",
		pid, pid);
	fputs("],\"displayTimeUnit\":\"ns\"}\n", f);
	return 0;
}

static int write_file(const char *path,
		      int (*fn)(FILE *f, struct lpt_snapshot *s))
{
	struct lpt_snapshot snap;
	struct lpt_file out;
	int err;

	if (!path)
		return -EINVAL;
	lpt_lock();
	err = snapshot_take(&snap);
	if (err)
		goto out_unlock;
	err = lpt_file_open(&out, path);
	if (err)
		goto out_free_snap;
	err = lpt_file_commit(&out, fn(out.f, &snap));

out_free_snap:
	free(snap.c);
out_unlock:
	lpt_unlock();
	return err;
}

int lpt_write_text(const char *path)
{
	return write_file(path, write_text);
}

int lpt_write_json(const char *path)
{
	return write_file(path, write_json);
}
