// SPDX-License-Identifier: GPL-2.0
/*
 * tracefile.c - read a trace file.  trace_open() walks the records,
 * checking every length against what is left, and keeps all but the
 * events: it reads an EVENTS record's two headers and, for a thread's
 * first record, its first event, then skips the payload.  Cursors
 * decode the events later, record by record, through a window of the
 * file.  A file that is not ours, cut short, or made by another version
 * is refused with one line naming the file, the byte offset and the
 * cause, before any command prints anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefile.h"

#define RD_SEEK_READ	4096		/* a read away from the window */
#define TRACE_WINDOW	(128 * 1024)

static const char *const rec_names[] = {
	[LPT_REC_INFO] = "INFO", [LPT_REC_SYMS] = "SYMS",
	[LPT_REC_EVENTS] = "EVENTS", [LPT_REC_THREAD] = "THREAD",
	[LPT_REC_CLOCK] = "CLOCK", [LPT_REC_END] = "END",
};

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("lptrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static size_t padded(size_t len)
{
	return (len + LPT_REC_ALIGN - 1) & ~(size_t)(LPT_REC_ALIGN - 1);
}

static int rd_init(struct rd *r, int fd, size_t cap)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cap = cap;
	r->buf = malloc(cap);
	return r->buf ? 0 : -ENOMEM;
}

/*
 * @len bytes at file offset @off (8-aligned), which the caller knows to
 * lie within the file; NULL with errno on a read error.  A read that
 * goes on from the window fills a whole window; one elsewhere (a
 * record skipped) reads a page.
 */
static const char *rd_get(struct rd *r, uint64_t off, size_t len)
{
	size_t want, got = 0;

	if (off >= r->pos && off + len <= r->pos + r->len)
		return r->buf + (off - r->pos);
	if (len > r->cap) {
		char *nb = realloc(r->buf, len);

		if (!nb)
			return NULL;
		r->buf = nb;
		r->cap = len;
	}
	want = off >= r->pos && off <= r->pos + r->len + r->cap ? r->cap :
	       RD_SEEK_READ;
	if (want < len)
		want = len;
	if (want > r->cap)
		want = r->cap;
	while (got < len) {
		ssize_t n = pread(r->fd, r->buf + got, want - got, off + got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			r->len = 0;
			return NULL;
		}
		got += n;
	}
	r->pos = off;
	r->len = got;
	return r->buf;
}

/* The toolchain's own demangler (libstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);

/* A C++ name as people read it; others as they are.  Takes @name. */
static char *demangle(char *name)
{
	char *plain;
	int status = -1;

	if (!name || strncmp(name, "_Z", 2))
		return name;
	plain = __cxa_demangle(name, NULL, NULL, &status);
	if (status || !plain)
		return name;
	free(name);
	return plain;
}

static int read_syms(struct trace *t, const char *p, size_t len, size_t at)
{
	struct data_sym *ns;
	size_t off = 0, n = 0;

	while (off + sizeof(struct lpt_rec_sym) <= len) {
		struct lpt_rec_sym s;

		memcpy(&s, p + off, sizeof(s));
		off += sizeof(s);
		if (s.namelen > len - off) {
			cli_error("%s: corrupt SYMS record at byte %zu: a name runs past its end",
				  t->path, at);
			return -1;
		}
		off += padded(s.namelen);
		n++;
	}
	/* More than one SYMS: the program's, then its shared libraries'. */
	ns = realloc(t->syms, (t->nsyms + n ? t->nsyms + n : 1) * sizeof(*ns));
	if (!ns)
		goto out_nomem;
	t->syms = ns;
	n += t->nsyms;
	for (off = 0; t->nsyms < n; t->nsyms++) {
		struct lpt_rec_sym s;
		struct data_sym *ds = &t->syms[t->nsyms];

		memcpy(&s, p + off, sizeof(s));
		off += sizeof(s);
		ds->addr = s.addr;
		ds->size = s.size;
		ds->name = demangle(strndup(p + off, s.namelen));
		if (!ds->name)
			goto out_nomem;
		off += padded(s.namelen);
	}
	return 0;

out_nomem:
	cli_error("%s: %s", t->path, strerror(ENOMEM));
	return -1;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct data_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct trace_thread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static size_t tid_slot(const struct trace *t, int32_t tid)
{
	size_t i = ((uint32_t)tid * 0x9e3779b9u) & (t->tidx_cap - 1);

	while (t->tidx[i] && t->threads[t->tidx[i] - 1].tid != tid)
		i = (i + 1) & (t->tidx_cap - 1);
	return i;
}

/* The hash over threads[], rebuilt at twice its size when half full. */
static int tidx_rebuild(struct trace *t, size_t cap)
{
	size_t i;

	free(t->tidx);
	t->tidx_cap = cap;
	t->tidx = calloc(cap, sizeof(*t->tidx));
	if (!t->tidx)
		return -ENOMEM;
	for (i = 0; i < t->nthreads; i++)
		t->tidx[tid_slot(t, t->threads[i].tid)] = i + 1;
	return 0;
}

struct trace_thread *trace_thread(const struct trace *t, int32_t tid)
{
	size_t i;

	if (!t->tidx_cap)
		return NULL;
	i = tid_slot(t, tid);
	return t->tidx[i] ? &t->threads[t->tidx[i] - 1] : NULL;
}

/* The thread @tid, added on its first record; NULL on ENOMEM. */
static struct trace_thread *thread_add(struct trace *t, int32_t tid)
{
	struct trace_thread *th = trace_thread(t, tid), *nv;

	if (th)
		return th;
	/* threads[] holds half as many as the hash has slots. */
	if (2 * (t->nthreads + 1) > t->tidx_cap) {
		size_t cap = t->tidx_cap ? 2 * t->tidx_cap : 64;

		nv = realloc(t->threads, cap / 2 * sizeof(*nv));
		if (!nv)
			return NULL;
		t->threads = nv;
		if (tidx_rebuild(t, cap))
			return NULL;
	}
	th = &t->threads[t->nthreads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	strcpy(th->comm, "<...>");
	t->tidx[tid_slot(t, tid)] = t->nthreads;
	return th;
}

/*
 * An EVENTS record at byte @at: its headers checked against its length,
 * counted to its thread; a thread's first record gives its first event's
 * time (the only event decoded here).
 */
static int scan_events(struct trace *t, uint64_t at, uint32_t len)
{
	struct lpt_rec_events re;
	struct trace_thread *th;
	const char *p;

	if (len < sizeof(re) || len % 8) {
		cli_error("%s: corrupt EVENTS record at byte %llu: %u bytes, not a header and whole words",
			  t->path, (unsigned long long)at, len);
		return -1;
	}
	p = rd_get(&t->rd, at + sizeof(struct lpt_rec), sizeof(re));
	if (!p)
		goto out_errno;
	memcpy(&re, p, sizeof(re));
	/* Every event takes one word at least: this bounds the count. */
	if (re.count > (len - sizeof(re)) / 8) {
		cli_error("%s: corrupt EVENTS record at byte %llu: %u events cannot fit in %u bytes",
			  t->path, (unsigned long long)at, re.count, len);
		return -1;
	}
	th = thread_add(t, re.tid);
	if (!th) {
		errno = ENOMEM;
		goto out_errno;
	}
	if (!th->events && re.count) {
		size_t n = len - sizeof(re) < 8 * LPT_PK_MAX_WORDS ?
			   len - sizeof(re) : 8 * LPT_PK_MAX_WORDS;
		struct lpt_pk_state st;
		struct lpt_event e;

		p = rd_get(&t->rd, at + sizeof(struct lpt_rec) + sizeof(re), n);
		if (!p)
			goto out_errno;
		lpt_pk_start(&st);
		if (!lpt_pk_decode(&st, (const uint64_t *)p, n / 8, re.tid,
				   &e)) {
			cli_error("%s: corrupt EVENTS record at byte %llu: event 0 of %u is not a packed event",
				  t->path, (unsigned long long)at, re.count);
			return -1;
		}
		th->first_off = at;
		th->first_tsc = e.tsc;
		if (!t->nevents || e.tsc < t->first_tsc)
			t->first_tsc = e.tsc;
	}
	if (re.count)
		th->last_off = at;
	th->events += re.count;
	t->nevents += re.count;
	t->nrecords++;
	return 0;

out_errno:
	cli_error("%s: %s", t->path, strerror(errno));
	return -1;
}

/* A record other than EVENTS: its payload, whole. */
static int read_record(struct trace *t, uint64_t at, const struct lpt_rec *h,
		       unsigned int flags, struct lpt_rec_thread **names,
		       size_t *nnames)
{
	const char *p;

	if (h->type == LPT_REC_SYMS && (flags & TRACE_NO_SYMS))
		return 0;
	p = rd_get(&t->rd, at + sizeof(*h), h->len);
	if (!p) {
		cli_error("%s: %s", t->path, strerror(errno));
		return -1;
	}
	switch (h->type) {
	case LPT_REC_INFO:
		if (h->len < sizeof(t->info)) {
			cli_error("%s: corrupt at byte %llu: INFO record of %u bytes",
				  t->path, (unsigned long long)at, h->len);
			return -1;
		}
		memcpy(&t->info, p, sizeof(t->info));
		if (t->info.version != LPT_DATA_VERSION ||
		    t->info.event_size != LPT_PK_EVENT_SIZE) {
			cli_error("%s: version %u with %u-byte events; this lptrace reads version %u with %u-byte events",
				  t->path, t->info.version, t->info.event_size,
				  LPT_DATA_VERSION, LPT_PK_EVENT_SIZE);
			return -1;
		}
		if (t->info.pathlen > h->len - sizeof(t->info))
			t->info.pathlen = h->len - sizeof(t->info);
		t->exe = strndup(p + sizeof(t->info), t->info.pathlen);
		return 0;
	case LPT_REC_SYMS:
		return read_syms(t, p, h->len, at);
	case LPT_REC_THREAD: {
		struct lpt_rec_thread *nn;

		nn = realloc(*names, (*nnames + 1) * sizeof(**names));
		if (!nn) {
			cli_error("%s: %s", t->path, strerror(ENOMEM));
			return -1;
		}
		*names = nn;
		memset(&nn[*nnames], 0, sizeof(*nn));
		memcpy(&nn[(*nnames)++], p,
		       h->len < sizeof(*nn) ? h->len : sizeof(*nn));
		return 0;
	}
	case LPT_REC_CLOCK:
		memcpy(&t->clk, p, h->len < sizeof(t->clk) ? h->len :
		       sizeof(t->clk));
		return 0;
	case LPT_REC_END:
		memcpy(&t->end, p, h->len < sizeof(t->end) ? h->len :
		       sizeof(t->end));
		return 0;
	}
	return 0;
}

/* Walk the records; every length is checked against what is left. */
static int walk_records(struct trace *t, unsigned int flags,
			struct lpt_rec_thread **names, size_t *nnames)
{
	uint64_t off = LPT_DATA_MAGIC_LEN, size = t->size;
	int seen_info = 0, seen_end = 0;

	while (off < size && !seen_end) {
		struct lpt_rec h;
		const char *p;

		if (size - off < sizeof(h)) {
			cli_error("%s: truncated at byte %llu: a record header needs %zu bytes, %llu left",
				  t->path, (unsigned long long)off, sizeof(h),
				  (unsigned long long)(size - off));
			return -1;
		}
		p = rd_get(&t->rd, off, sizeof(h));
		if (!p) {
			cli_error("%s: %s", t->path, strerror(errno));
			return -1;
		}
		memcpy(&h, p, sizeof(h));
		if (h.type < LPT_REC_INFO || h.type > LPT_REC_END) {
			cli_error("%s: corrupt at byte %llu: unknown record type %u",
				  t->path, (unsigned long long)off, h.type);
			return -1;
		}
		if (padded(h.len) > size - off - sizeof(h)) {
			cli_error("%s: truncated at byte %llu: %s record of %u bytes, %llu left",
				  t->path, (unsigned long long)off,
				  rec_names[h.type], h.len,
				  (unsigned long long)(size - off - sizeof(h)));
			return -1;
		}
		if (!seen_info && h.type != LPT_REC_INFO) {
			cli_error("%s: corrupt at byte %llu: %s record before INFO",
				  t->path, (unsigned long long)off,
				  rec_names[h.type]);
			return -1;
		}
		if (h.type == LPT_REC_EVENTS) {
			if (scan_events(t, off, h.len))
				return -1;
		} else if (read_record(t, off, &h, flags, names, nnames)) {
			return -1;
		}
		seen_info = 1;
		if (h.type == LPT_REC_END) {
			seen_end = 1;
			t->end_off = off;
		}
		off += sizeof(h) + padded(h.len);
	}
	if (!seen_end) {
		cli_error("%s: truncated: %llu bytes and no END record (the program was killed before it finished the file)",
			  t->path, (unsigned long long)size);
		return -1;
	}
	return 0;
}

/* Threads sorted by tid, named by their THREAD records. */
static int name_threads(struct trace *t, struct lpt_rec_thread *names,
			size_t nnames)
{
	size_t i;

	qsort(t->threads, t->nthreads, sizeof(*t->threads), cmp_thread);
	if (t->nthreads && tidx_rebuild(t, t->tidx_cap))
		return -ENOMEM;
	for (i = 0; i < nnames; i++) {
		struct trace_thread *th = trace_thread(t, names[i].tid);

		if (th)
			snprintf(th->comm, sizeof(th->comm), "%.16s",
				 names[i].comm);
	}
	return 0;
}

static void fill_render(struct trace *t)
{
	const char *slash = t->exe ? strrchr(t->exe, '/') : NULL;
	struct lpt_render *r = &t->r;

	memset(r, 0, sizeof(*r));
	r->tsc0 = t->clk.tsc0;
	r->ns0 = t->clk.ns0;
	r->tsc1 = t->clk.tsc1;
	r->ns1 = t->clk.ns1;
	r->func_name = trace_func_name;
	r->caller_name = trace_caller_name;
	r->ctx = t;
	r->pid = t->info.pid;
	r->comm = slash ? slash + 1 : t->exe ? t->exe : "?";
	r->graph = !!(t->info.flags & LPT_INFO_GRAPH);
	r->total = t->nevents;
	r->lost = t->end.dropped + t->end.overwritten;
	r->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
}

int trace_open(struct trace *t, const char *path, unsigned int flags)
{
	struct lpt_rec_thread *names = NULL;
	size_t nnames = 0;
	struct stat st;
	const char *p;
	int err = -1;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0 || fstat(t->fd, &st)) {
		cli_error("%s: %s", path, strerror(errno));
		goto out_close;
	}
	t->size = st.st_size;
	if (t->size < LPT_DATA_MAGIC_LEN) {
		cli_error("%s: not an lptrace data file (%llu bytes, no %s magic)",
			  path, (unsigned long long)t->size, LPT_DATA_MAGIC);
		goto out_close;
	}
	if (rd_init(&t->rd, t->fd, TRACE_WINDOW)) {
		cli_error("%s: %s", path, strerror(ENOMEM));
		goto out_close;
	}
	p = rd_get(&t->rd, 0, LPT_DATA_MAGIC_LEN);
	if (!p) {
		cli_error("%s: %s", path, strerror(errno));
		goto out_close;
	}
	if (memcmp(p, LPT_DATA_MAGIC, LPT_DATA_MAGIC_LEN)) {
		cli_error("%s: not an lptrace data file (no %s magic)", path,
			  LPT_DATA_MAGIC);
		goto out_close;
	}
	if (walk_records(t, flags, &names, &nnames))
		goto out_close;
	if (name_threads(t, names, nnames)) {
		cli_error("%s: %s", path, strerror(ENOMEM));
		goto out_close;
	}
	qsort(t->syms, t->nsyms, sizeof(*t->syms), cmp_sym);
	fill_render(t);
	err = 0;
out_close:
	free(names);
	if (err)
		trace_close(t);
	return err;
}

void trace_close(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nsyms; i++)
		free(t->syms[i].name);
	free(t->syms);
	free(t->threads);
	free(t->tidx);
	free(t->exe);
	free(t->rd.buf);
	if (t->path && t->fd >= 0)
		close(t->fd);
	memset(t, 0, sizeof(*t));
}

const struct data_sym *trace_sym_find(const struct trace *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nsyms;
	const struct data_sym *s;

	while (lo < hi) {		/* first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &t->syms[lo - 1];
	return addr - s->addr < (s->size ? s->size : 1) ? s : NULL;
}

const char *trace_func_name(void *ctx, uint64_t site, char *buf, size_t n)
{
	const struct data_sym *s = trace_sym_find(ctx, site);

	if (s)
		return s->name;
	snprintf(buf, n, "0x%llx", (unsigned long long)site);
	return buf;
}

/* A call that ends a function returns just past it: look up ret - 1. */
const char *trace_caller_name(void *ctx, uint64_t ret, char *buf, size_t n)
{
	const struct data_sym *s = trace_sym_find(ctx, ret - 1);

	if (s)
		return s->name;
	snprintf(buf, n, "0x%llx", (unsigned long long)ret);
	return buf;
}

uint64_t trace_ns(const struct trace *t, uint64_t tsc)
{
	return lpt_render_ns(&t->r, tsc);
}

int cursor_init(struct cursor *c, struct trace *t, int32_t tid,
		size_t window)
{
	const struct trace_thread *th = tid < 0 ? NULL : trace_thread(t, tid);

	memset(c, 0, sizeof(*c));
	c->t = t;
	c->tid = tid;
	c->off = th ? th->first_off : LPT_DATA_MAGIC_LEN;
	c->stop = th ? th->last_off + 1 : t->end_off;
	if (rd_init(&c->rd, t->fd, window)) {
		cli_error("%s: %s", t->path, strerror(ENOMEM));
		return -1;
	}
	return 0;
}

void cursor_free(struct cursor *c)
{
	free(c->rd.buf);
	c->rd.buf = NULL;
}

/* The next EVENTS record of the cursor's thread: 1, 0 at the end, -1. */
static int next_record(struct cursor *c)
{
	while (c->off < c->stop) {
		struct lpt_rec h;
		struct lpt_rec_events re;
		const char *p;

		/* trace_open checked every length: the headers are there. */
		p = rd_get(&c->rd, c->off, sizeof(h) + sizeof(re));
		if (!p) {
			cli_error("%s: %s", c->t->path, strerror(errno));
			return -1;
		}
		memcpy(&h, p, sizeof(h));
		memcpy(&re, p + sizeof(h), sizeof(re));
		c->rec_off = c->off;
		c->off += sizeof(h) + padded(h.len);
		if (h.type != LPT_REC_EVENTS || !re.count ||
		    (c->tid >= 0 && re.tid != c->tid))
			continue;
		c->rec_tid = re.tid;
		c->pos = c->rec_off + sizeof(h) + sizeof(re);
		c->rec_end = c->rec_off + sizeof(h) + h.len;
		c->count = c->left = re.count;
		lpt_pk_start(&c->st);
		return 1;
	}
	return 0;
}

int cursor_next(struct cursor *c, struct lpt_event *e)
{
	size_t avail;
	unsigned int used;
	const char *p;
	int r;

	if (!c->left) {
		r = next_record(c);
		if (r <= 0)
			return r;
	}
	avail = c->rec_end - c->pos;
	if (avail > 8 * LPT_PK_MAX_WORDS)
		avail = 8 * LPT_PK_MAX_WORDS;
	p = rd_get(&c->rd, c->pos, avail);
	if (!p) {
		cli_error("%s: %s", c->t->path, strerror(errno));
		return -1;
	}
	used = lpt_pk_decode(&c->st, (const uint64_t *)p, avail / 8,
			     c->rec_tid, e);
	if (!used) {
		cli_error("%s: corrupt EVENTS record at byte %llu: event %u of %u is not a packed event",
			  c->t->path, (unsigned long long)c->rec_off,
			  c->count - c->left, c->count);
		return -1;
	}
	c->pos += 8 * used;
	if (!--c->left && c->pos != c->rec_end) {
		cli_error("%s: corrupt EVENTS record at byte %llu: %llu bytes after its %u events",
			  c->t->path, (unsigned long long)c->rec_off,
			  (unsigned long long)(c->rec_end - c->pos), c->count);
		return -1;
	}
	return 1;
}
