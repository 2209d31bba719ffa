// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - write the events still in the buffers as ftrace-like text
 * or Chrome trace-event JSON, through render.c (the formats' one
 * writer).
 *
 * Other threads may go on recording while we write: each buffer's
 * window is copied (snapshot_take) and later events are left for the
 * next write.  Files are written through file.c: whole or not at all.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "file.h"
#include "graph.h"
#include "lock.h"
#include "output.h"
#include "record.h"
#include "render.h"
#include "sites.h"

/*
 * The events as seen by this write: each buffer's window copied, so
 * that the owner may go on (and, in ring mode, overwrite) meanwhile.
 */
struct lpt_snapshot {
	struct lpt_rthread *t;
	struct lpt_event **copy;
	size_t nthreads;
	struct lpt_clock clk;
	uint64_t total;
};

static void thread_comm(struct lpt_rthread *t, const struct lpt_tbuf *b)
{
	char path[64];
	ssize_t r;
	int fd;

	/* The name may have changed since the first event: ask again. */
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", b->owner);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? -1 : read(fd, t->comm, sizeof(t->comm) - 1);
	if (fd >= 0)
		close(fd);
	if (r > 0) {
		t->comm[r] = '\0';
		t->comm[strcspn(t->comm, "\n")] = '\0';
	} else {
		memcpy(t->comm, b->comm, sizeof(b->comm));
		t->comm[sizeof(t->comm) - 1] = '\0';
	}
	if (!t->comm[0])
		strcpy(t->comm, "<...>");
}

/* May thread @tid be writing its buffer now?  Not if it is us or gone. */
static int owner_runs(pid_t tid)
{
	return tid != gettid() &&
	       !(syscall(SYS_tgkill, getpid(), tid, 0) && errno == ESRCH);
}

/*
 * Copy the events of @b past its tail (stream mode: not yet drained;
 * ring mode: the last cap), then drop those the owner may have
 * overwritten while we copied (a seqlock-like read): below the
 * reloaded head + held + 1 - cap (held entries and the slot being
 * written lie past head), unless the owner has exited or is us.  In stream and keep-first modes the owner
 * never writes a slot not yet drained, so nothing is dropped there.
 */
static int copy_window(struct lpt_rthread *t, struct lpt_event **copy,
		       const struct lpt_tbuf *b)
{
	uint64_t head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	uint64_t from = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE), i, keep;
	struct lpt_event *v;

	if (head - from > b->cap)
		from = head - b->cap;
	v = malloc((head - from ? head - from : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = from; i < head; i++)
		v[i - from] = b->ev[i % b->cap];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	keep = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	keep += __atomic_load_n(&b->held, __ATOMIC_ACQUIRE) + 1;
	keep = keep > b->cap ? keep - b->cap : 0;
	if (lpt_record_overwrites() && keep > from && owner_runs(b->owner)) {
		if (keep > head)
			keep = head;
		memmove(v, v + (keep - from), (head - keep) * sizeof(*v));
		from = keep;
	}
	*copy = v;
	t->ev = v;
	t->n = head - from;
	t->tid = b->owner;
	thread_comm(t, b);
	return 0;
}

static void snapshot_free(struct lpt_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		free(s->copy[i]);
	free(s->copy);
	free(s->t);
}

static int snapshot_take(struct lpt_snapshot *s)
{
	const struct lpt_tbuf *b, *head = lpt_tbuf_list();
	size_t i = 0, n = 0;
	int err = 0;

	memset(s, 0, sizeof(*s));
	for (b = head; b; b = b->next)
		n++;
	s->t = calloc(n ? n : 1, sizeof(*s->t));
	s->copy = calloc(n ? n : 1, sizeof(*s->copy));
	if (!s->t || !s->copy) {
		snapshot_free(s);
		return -ENOMEM;
	}
	for (b = head; b && i < n && !err; b = b->next, i++) {
		err = copy_window(&s->t[i], &s->copy[i], b);
		s->total += s->t[i].n;
	}
	s->nthreads = i;
	if (err) {
		snapshot_free(s);
		return err;
	}
	lpt_clock_finish(&s->clk);
	lpt_sites_name();
	return 0;
}

/* Events still in the buffers (stream mode: not yet written to the file). */
uint64_t lpt_trace_count(void)
{
	const struct lpt_tbuf *b;
	uint64_t n = 0, h, t;

	for (b = lpt_tbuf_list(); b; b = b->next) {
		h = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
		t = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);
		n += h - t < b->cap ? h - t : b->cap;
	}
	return n;
}

/*
 * Name of a traced function: its site's name, else (a library unloaded
 * since) the symbol at that address in that library's own table.
 */
static const char *func_name(void *ctx, uint64_t site, char *buf,
			     size_t size)
{
	const struct lpt_site *s = lpt_site_find(site);
	const char *name;
	uintptr_t off;

	(void)ctx;
	if (s && s->name)
		return s->name;
	name = lpt_objs_symbol(site, &off);
	if (name && !off)
		return name;
	snprintf(buf, size, "0x%lx", (unsigned long)site);
	return buf;
}

/*
 * Name of the function a return address is in.  Look up ret - 1: a
 * call that ends a function returns just past its end.  Addresses
 * outside the program (libc's thread start) are asked of ld.so.
 */
static const char *caller_name(void *ctx, uint64_t ret, char *buf,
			       size_t size)
{
	const char *name;
	uintptr_t off;
	Dl_info info;

	(void)ctx;
	name = lpt_objs_symbol(ret - 1, &off);
	if (name)
		return name;
	if (dladdr((void *)(uintptr_t)(ret - 1), &info) && info.dli_sname)
		return info.dli_sname;
	snprintf(buf, size, "0x%lx", (unsigned long)ret);
	return buf;
}

static void render_init(struct lpt_render *r, const struct lpt_snapshot *s)
{
	memset(r, 0, sizeof(*r));
	r->t = s->t;
	r->nthreads = s->nthreads;
	r->tsc0 = s->clk.tsc0;
	r->ns0 = s->clk.ns0;
	r->tsc1 = s->clk.tsc1;
	r->ns1 = s->clk.ns1;
	r->func_name = func_name;
	r->caller_name = caller_name;
	r->pid = getpid();
	r->comm = program_invocation_short_name;
	r->graph = lpt_graph_on;
	r->total = s->total;
	r->lost = lpt_events_dropped() + lpt_events_overwritten();
	r->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
}

static int write_text(FILE *f, struct lpt_snapshot *s)
{
	struct lpt_render r;

	render_init(&r, s);
	return lpt_render_text(f, &r);
}

static int write_json(FILE *f, struct lpt_snapshot *s)
{
	struct lpt_render r;

	render_init(&r, s);
	return lpt_render_json(f, &r);
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
	snapshot_free(&snap);
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
