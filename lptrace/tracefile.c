// SPDX-License-Identifier: GPL-2.0
/*
 * tracefile.c - read a trace file: map it, walk its records checking every
 * length against what is left, copy the symbols and events out, group
 * the events by thread, demangle C++ names.  A file that is not ours, cut short, or made
 * by another version is refused with one line naming the file, the
 * byte offset and the cause.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefile.h"

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

static int read_syms(struct lpt_data *d, const char *p, size_t len,
		     size_t at)
{
	struct data_sym *ns;
	size_t off = 0, n = 0;

	while (off + sizeof(struct lpt_rec_sym) <= len) {
		struct lpt_rec_sym s;

		memcpy(&s, p + off, sizeof(s));
		off += sizeof(s);
		if (s.namelen > len - off) {
			cli_error("%s: corrupt SYMS record at byte %zu: a name runs past its end",
				  d->path, at);
			return -1;
		}
		off += padded(s.namelen);
		n++;
	}
	/* More than one SYMS: the program's, then its shared libraries'. */
	ns = realloc(d->syms, (d->nsyms + n ? d->nsyms + n : 1) * sizeof(*ns));
	if (!ns)
		goto out_nomem;
	d->syms = ns;
	n += d->nsyms;
	for (off = 0; d->nsyms < n; d->nsyms++) {
		struct lpt_rec_sym s;
		struct data_sym *ds = &d->syms[d->nsyms];

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
	cli_error("%s: %s", d->path, strerror(ENOMEM));
	return -1;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct data_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Group the events by thread, each thread's in recording order (the
 * order of the file: qsort is not stable, so sort (tid, index) pairs).
 */
struct order {
	int32_t tid;
	size_t i;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int group_threads(struct lpt_data *d, struct lpt_rec_thread *names,
			 size_t nnames)
{
	struct order *o;
	struct lpt_event *sorted;
	size_t i, j;

	o = malloc((d->nev ? d->nev : 1) * sizeof(*o));
	sorted = malloc((d->nev ? d->nev : 1) * sizeof(*sorted));
	d->threads = calloc(d->nev ? d->nev : 1, sizeof(*d->threads));
	if (!o || !sorted || !d->threads) {
		free(o);
		free(sorted);
		cli_error("%s: %s", d->path, strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < d->nev; i++)
		o[i] = (struct order){ d->ev[i].tid, i };
	qsort(o, d->nev, sizeof(*o), cmp_order);
	for (i = 0; i < d->nev; i++)
		sorted[i] = d->ev[o[i].i];
	free(o);
	free(d->ev);
	d->ev = sorted;
	for (i = 0; i < d->nev; i = j) {
		struct lpt_rthread *t = &d->threads[d->nthreads++];
		size_t k;

		for (j = i; j < d->nev && d->ev[j].tid == d->ev[i].tid; j++)
			;
		t->tid = d->ev[i].tid;
		t->ev = &d->ev[i];
		t->n = j - i;
		snprintf(t->comm, sizeof(t->comm), "<...>");
		for (k = 0; k < nnames; k++)
			if (names[k].tid == t->tid)
				snprintf(t->comm, sizeof(t->comm), "%.16s",
					 names[k].comm);
	}
	return 0;
}

/*
 * An EVENTS record at byte @at: one thread's packed events appended to
 * d->ev (capacity *capp), each checked to lie within the record, their
 * number against the record's count.
 */
static int read_events(struct lpt_data *d, const char *p, size_t len,
		       size_t at, size_t *capp)
{
	struct lpt_rec_events re;
	struct lpt_pk_state st;
	const uint64_t *w = (const uint64_t *)(p + sizeof(re));
	size_t left, n = 0;

	if (len < sizeof(re) || len % 8) {
		cli_error("%s: corrupt EVENTS record at byte %zu: %zu bytes, not a header and whole words",
			  d->path, at, len);
		return -1;
	}
	memcpy(&re, p, sizeof(re));
	left = (len - sizeof(re)) / 8;
	/* Every event takes one word at least: this bounds the count. */
	if (re.count > left) {
		cli_error("%s: corrupt EVENTS record at byte %zu: %u events cannot fit in %zu bytes",
			  d->path, at, re.count, len);
		return -1;
	}
	if (d->nev + re.count > *capp) {
		struct lpt_event *nv;

		*capp = (d->nev + re.count) * 2;
		nv = realloc(d->ev, *capp * sizeof(*nv));
		if (!nv) {
			cli_error("%s: %s", d->path, strerror(ENOMEM));
			return -1;
		}
		d->ev = nv;
	}
	lpt_pk_start(&st);
	for (n = 0; n < re.count; n++) {
		unsigned int used = lpt_pk_decode(&st, w, left, re.tid,
						  &d->ev[d->nev + n]);

		if (!used) {
			cli_error("%s: corrupt EVENTS record at byte %zu: event %zu of %u is not a packed event",
				  d->path, at, n, re.count);
			return -1;
		}
		w += used;
		left -= used;
	}
	if (left) {
		cli_error("%s: corrupt EVENTS record at byte %zu: %zu bytes after its %u events",
			  d->path, at, left * 8, re.count);
		return -1;
	}
	d->nev += re.count;
	return 0;
}

/* Walk the records; every length is checked against what is left. */
static int read_records(struct lpt_data *d, const char *map, size_t size)
{
	struct lpt_rec_thread *names = NULL;
	size_t off = LPT_DATA_MAGIC_LEN, nnames = 0, evcap = 0;
	int seen_info = 0, seen_end = 0, err = -1;

	while (off < size && !seen_end) {
		struct lpt_rec h;
		const char *p;

		if (size - off < sizeof(h)) {
			cli_error("%s: truncated at byte %zu: a record header needs %zu bytes, %zu left",
				  d->path, off, sizeof(h), size - off);
			goto out;
		}
		memcpy(&h, map + off, sizeof(h));
		if (h.type < LPT_REC_INFO || h.type > LPT_REC_END) {
			cli_error("%s: corrupt at byte %zu: unknown record type %u",
				  d->path, off, h.type);
			goto out;
		}
		if (padded(h.len) > size - off - sizeof(h)) {
			cli_error("%s: truncated at byte %zu: %s record of %u bytes, %zu left",
				  d->path, off, rec_names[h.type], h.len,
				  size - off - sizeof(h));
			goto out;
		}
		p = map + off + sizeof(h);
		if (!seen_info && h.type != LPT_REC_INFO) {
			cli_error("%s: corrupt at byte %zu: %s record before INFO",
				  d->path, off, rec_names[h.type]);
			goto out;
		}
		switch (h.type) {
		case LPT_REC_INFO:
			if (h.len < sizeof(d->info)) {
				cli_error("%s: corrupt at byte %zu: INFO record of %u bytes",
					  d->path, off, h.len);
				goto out;
			}
			memcpy(&d->info, p, sizeof(d->info));
			if (d->info.version != LPT_DATA_VERSION ||
			    d->info.event_size != LPT_PK_EVENT_SIZE) {
				cli_error("%s: version %u with %u-byte events; this lptrace reads version %u with %u-byte events",
					  d->path, d->info.version,
					  d->info.event_size, LPT_DATA_VERSION,
					  LPT_PK_EVENT_SIZE);
				goto out;
			}
			if (d->info.pathlen > h.len - sizeof(d->info))
				d->info.pathlen = h.len - sizeof(d->info);
			d->exe = strndup(p + sizeof(d->info), d->info.pathlen);
			seen_info = 1;
			break;
		case LPT_REC_SYMS:
			if (read_syms(d, p, h.len, off))
				goto out;
			break;
		case LPT_REC_EVENTS:
			if (read_events(d, p, h.len, off, &evcap))
				goto out;
			break;
		case LPT_REC_THREAD: {
			struct lpt_rec_thread *nn;

			nn = realloc(names, (nnames + 1) * sizeof(*names));
			if (!nn)
				goto out;
			names = nn;
			memset(&names[nnames], 0, sizeof(*names));
			memcpy(&names[nnames++], p,
			       h.len < sizeof(*names) ? h.len : sizeof(*names));
			break;
		}
		case LPT_REC_CLOCK:
			memcpy(&d->clk, p, h.len < sizeof(d->clk) ? h.len :
			       sizeof(d->clk));
			break;
		case LPT_REC_END:
			memcpy(&d->end, p, h.len < sizeof(d->end) ? h.len :
			       sizeof(d->end));
			seen_end = 1;
			break;
		}
		off += sizeof(h) + padded(h.len);
	}
	if (!seen_end) {
		cli_error("%s: truncated: %zu bytes and no END record (the program was killed before it finished the file)",
			  d->path, size);
		goto out;
	}
	qsort(d->syms, d->nsyms, sizeof(*d->syms), cmp_sym);
	err = group_threads(d, names, nnames);
out:
	free(names);
	return err;
}

int data_open(struct lpt_data *d, const char *path)
{
	struct stat st;
	char *map;
	int fd, err;

	memset(d, 0, sizeof(*d));
	d->path = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		cli_error("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((size_t)st.st_size < LPT_DATA_MAGIC_LEN) {
		cli_error("%s: not an lptrace data file (%lld bytes, no %s magic)",
			  path, (long long)st.st_size, LPT_DATA_MAGIC);
		close(fd);
		return -1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (memcmp(map, LPT_DATA_MAGIC, LPT_DATA_MAGIC_LEN)) {
		cli_error("%s: not an lptrace data file (no %s magic)", path,
			  LPT_DATA_MAGIC);
		err = -1;
	} else {
		err = read_records(d, map, st.st_size);
	}
	munmap(map, st.st_size);
	if (err)
		data_close(d);
	return err;
}

void data_close(struct lpt_data *d)
{
	size_t i;

	for (i = 0; i < d->nsyms; i++)
		free(d->syms[i].name);
	free(d->syms);
	free(d->ev);
	free(d->threads);
	free(d->exe);
	memset(d, 0, sizeof(*d));
}

const struct data_sym *data_sym_find(const struct lpt_data *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nsyms;
	const struct data_sym *s;

	while (lo < hi) {		/* first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &d->syms[lo - 1];
	return addr - s->addr < (s->size ? s->size : 1) ? s : NULL;
}

const char *data_func_name(void *ctx, uint64_t site, char *buf, size_t n)
{
	const struct data_sym *s = data_sym_find(ctx, site);

	if (s)
		return s->name;
	snprintf(buf, n, "0x%llx", (unsigned long long)site);
	return buf;
}

/* A call that ends a function returns just past it: look up ret - 1. */
const char *data_caller_name(void *ctx, uint64_t ret, char *buf, size_t n)
{
	const struct data_sym *s = data_sym_find(ctx, ret - 1);

	if (s)
		return s->name;
	snprintf(buf, n, "0x%llx", (unsigned long long)ret);
	return buf;
}

void data_render(const struct lpt_data *d, struct lpt_render *r)
{
	const char *slash = d->exe ? strrchr(d->exe, '/') : NULL;

	memset(r, 0, sizeof(*r));
	r->t = d->threads;
	r->nthreads = d->nthreads;
	r->tsc0 = d->clk.tsc0;
	r->ns0 = d->clk.ns0;
	r->tsc1 = d->clk.tsc1;
	r->ns1 = d->clk.ns1;
	r->func_name = data_func_name;
	r->caller_name = data_caller_name;
	r->ctx = (void *)d;
	r->pid = d->info.pid;
	r->comm = slash ? slash + 1 : d->exe ? d->exe : "?";
	r->graph = !!(d->info.flags & LPT_INFO_GRAPH);
	r->total = d->nev;
	r->lost = d->end.dropped + d->end.overwritten;
	r->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
}
