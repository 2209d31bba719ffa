// SPDX-License-Identifier: GPL-2.0
/* Shared helpers: errors, allocation, time, atomic output files. */
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libelf.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void *oom(size_t size)
{
	fprintf(stderr, "linkpass: out of memory allocating %zu bytes\n", size);
	exit(EXIT_ERROR);
}

int lp_error(const char *file, const char *place, const char *fmt, ...)
{
	char *cause, *line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&cause, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	if (asprintf(&line, "linkpass: %s%s%s%s%s", file ? file : "",
		     file ? ": " : "", place ? place : "", place ? ": " : "",
		     cause) < 0)
		oom(strlen(cause));
	one_line(line);
	fprintf(stderr, "%s\n", line);
	free(line);
	free(cause);
	return -1;
}

int lp_elf_error(const char *file, const char *place, const char *what)
{
	return lp_error(file, place, "%s: %s", what, elf_errmsg(-1));
}

/*
 * A big block (the table being written, the entry bitmaps, the sites of
 * a kernel-sized image) is backed by its own mapping, and faulting it in
 * 4 KiB at a time cost the scan more than a tenth of its time.  Ask for
 * transparent huge pages on the 2 MiB-aligned part of it, before its
 * pages are first touched; where THP is off this changes nothing.
 */
#define HUGE_MIN (4u << 20)
#define HUGE_ALIGN ((uintptr_t)2 << 20)

static void *huge_hint(void *p, size_t size)
{
	uintptr_t from, to;

	if (!p || size < HUGE_MIN)
		return p;
	from = ((uintptr_t)p + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1);
	to = ((uintptr_t)p + size) & ~(HUGE_ALIGN - 1);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
	return p;
}

/*
 * The heap for a big input.  The scan of the 2,000-unit sample took
 * 3,900 page faults, most of them in its few big arrays (the sites, the
 * entry maps, the kept sites), one 4 KiB page at a time, and half its
 * time in the kernel.  For an input of HEAP_BIG_INPUT bytes or more,
 * every allocation comes from the main heap (one arena, no block
 * mmapped below 32 MiB, nothing trimmed), and a quarter of the input's
 * size of that heap is reserved up front and marked for transparent
 * huge pages before any of it is touched.  Freed blocks are then reused
 * without a new fault, and a 2 MiB page is one fault.  Measured
 * (docs/benchmarks.md, section 5.4h): the 2,000-unit scan in 0.85-0.87
 * of the time, peak RSS +1-5%; a 19 MB kernel image neither gains nor
 * loses, and below 8 MB there is nothing to gain.  Where THP is off,
 * the reuse alone stays.
 */
#define HEAP_BIG_INPUT ((uint64_t)8 << 20)
#define HEAP_RESERVE_MAX ((size_t)31 << 20)	/* below the mmap threshold */

void heap_for_input(uint64_t bytes)
{
	static bool done;
	uintptr_t from, to;
	size_t reserve;
	void *p;

	if (done || bytes < HEAP_BIG_INPUT)
		return;
	done = true;
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	reserve = bytes / 4 < HEAP_RESERVE_MAX ? (size_t)(bytes / 4) :
		  HEAP_RESERVE_MAX;
	p = malloc(reserve);
	if (!p)
		return;
	from = ((uintptr_t)p + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1);
	to = ((uintptr_t)p + reserve) & ~(HUGE_ALIGN - 1);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
	free(p);	/* stays in the heap: nothing is trimmed */
}

void *xmalloc(size_t size)
{
	void *p = huge_hint(malloc(size ? size : 1), size);

	return p ? p : oom(size);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	/* calloc fails on overflow, so n * size is exact here */
	return p ? huge_hint(p, n * size) : oom(n * size);
}

void *xrealloc(void *p, size_t size)
{
	void *q = huge_hint(realloc(p, size ? size : 1), size);

	return q ? q : oom(size);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	return p ? p : oom(strlen(s) + 1);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool out_fsync;

/*
 * Put the finished temp file in the target's place.  rename() over an
 * existing file makes ext4 allocate and start writing out the new
 * file's blocks first (its auto_da_alloc safeguard for programs that
 * do not fsync): 6-7 ms for a 5.8 MB table, where swapping the two
 * names with RENAME_EXCHANGE and unlinking the old file, now under the
 * temp name, took 0.7-1.1 ms (docs/benchmarks.md, section 5.4f).
 * Either way the target is the old file or the new one at every moment.
 * Only a regular file is swapped (a directory must still refuse); where
 * the file system cannot exchange, plain rename() does it.
 */
static int replace_target(const char *tmp, const char *target)
{
	struct stat st;

	if (lstat(target, &st) == 0 && S_ISREG(st.st_mode) &&
	    renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
		unlink(tmp);	/* the old file; if it stays, it is a stray
				 * temp file as a crash leaves one
				 */
		return 0;
	}
	return rename(tmp, target);
}

int out_open(struct outfile *o, const char *target)
{
	mode_t mask;

	struct stat st;

	o->target = xstrdup(target);
	o->no_sync = !out_fsync;
	o->gate = NULL;
	o->direct = stat(target, &st) == 0 && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode);
	if (o->direct) {
		o->tmp = o->target;
		o->fd = open(target, O_WRONLY | O_CLOEXEC);
		if (o->fd >= 0)
			return 0;
		lp_error(target, "open", "%s", strerror(errno));
		free(o->target);
		o->tmp = NULL;
		o->target = NULL;
		return -1;
	}
	o->tmp = xmalloc(strlen(target) + sizeof(".tmpXXXXXX"));
	sprintf(o->tmp, "%s.tmpXXXXXX", target);
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		lp_error(target, o->tmp, "cannot create the temp file: %s",
			 strerror(errno));
		free(o->tmp);
		free(o->target);
		o->tmp = NULL;
		o->target = NULL;
		return -1;
	}
	/* mkstemp makes 0600; give the file the mode a plain create would. */
	mask = umask(0);
	umask(mask);
	fchmod(o->fd, 0666 & ~mask);
	return 0;
}

int out_commit(struct outfile *o)
{
	int ret = o->gate ? o->gate->fn(o->gate->arg) : 0;

	if (!ret && !o->no_sync && fsync(o->fd) < 0 && errno != EINVAL)
		ret = lp_error(o->target, o->tmp, "fsync: %s", strerror(errno));
	if (close(o->fd) < 0 && !ret)
		ret = lp_error(o->target, o->tmp, "close: %s", strerror(errno));
	o->fd = -1;
	if (o->direct) {
		free(o->target);
		o->tmp = NULL;
		o->target = NULL;
		return ret;
	}
	if (!ret && replace_target(o->tmp, o->target) < 0)
		ret = lp_error(o->target, o->tmp, "cannot rename over the target: %s",
			       strerror(errno));
	if (ret)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->tmp = NULL;
	o->target = NULL;
	return ret;
}

void out_abort(struct outfile *o)
{
	if (!o->tmp)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (!o->direct) {
		unlink(o->tmp);
		free(o->tmp);
	}
	free(o->target);
	o->tmp = NULL;
	o->target = NULL;
	o->fd = -1;
}

void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

bool glob_match(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, 0) == 0;
}

void run_jobs(void *jobs, size_t n, size_t size, void *(*fn)(void *))
{
	pthread_t *tid = xcalloc(n ? n : 1, sizeof(*tid));
	bool *started = xcalloc(n ? n : 1, sizeof(*started));
	char *job = jobs;
	size_t i;

	for (i = 1; i < n; i++)
		started[i] = !pthread_create(&tid[i], NULL, fn, job + i * size);
	for (i = 0; i < n; i++)
		if (!started[i])
			fn(job + i * size);
	for (i = 1; i < n; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	free(started);
	free(tid);
}
