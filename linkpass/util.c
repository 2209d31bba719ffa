// SPDX-License-Identifier: GPL-2.0
/* Shared helpers: errors, allocation, the clock, atomic output files. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

/* A new block, or exit. */
static void *got(void *p, size_t size)
{
	if (!p)
		oom(size);
	return p;
}

void *xmalloc(size_t size)
{
	return got(malloc(size ? size : 1), size);
}

/* calloc fails on overflow, so n * size is exact when it matters */
void *xcalloc(size_t n, size_t size)
{
	return got(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *xrealloc(void *p, size_t size)
{
	return got(realloc(p, size ? size : 1), size);
}

char *xstrdup(const char *s)
{
	return got(strdup(s), strlen(s) + 1);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool out_fsync;

/*
 * Put the finished temp file in the target's place.  Over a regular
 * file, swap the two names and unlink the old file: ext4 makes a plain
 * rename() over a file write the new one out first (auto_da_alloc),
 * 6-7 ms for a 5.8 MB table against about 1 ms (docs/benchmarks.md,
 * 5.4f).  Either way the target is the old file or the new one.
 */
static int replace_target(const char *tmp, const char *target)
{
	struct stat st;

	if (lstat(target, &st) == 0 && S_ISREG(st.st_mode) &&
	    renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
		unlink(tmp);	/* the old file, now under the temp name */
		return 0;
	}
	return rename(tmp, target);
}

/* Forget a closed output's names. */
static void out_free(struct outfile *o)
{
	if (o->tmp != o->target)
		free(o->tmp);
	free(o->target);
	o->tmp = NULL;
	o->target = NULL;
	o->fd = -1;
}

int out_open(struct outfile *o, const char *target)
{
	struct stat st;
	mode_t mask;

	o->target = xstrdup(target);
	o->gate = NULL;
	o->direct = stat(target, &st) == 0 && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode);
	if (o->direct) {
		o->tmp = o->target;
		o->fd = open(target, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0)
			lp_error(target, "open", "%s", strerror(errno));
	} else {
		o->tmp = xmalloc(strlen(target) + sizeof(".tmpXXXXXX"));
		sprintf(o->tmp, "%s.tmpXXXXXX", target);
		o->fd = mkstemp(o->tmp);
		if (o->fd < 0)
			lp_error(target, o->tmp, "cannot create the temp file: %s",
				 strerror(errno));
	}
	if (o->fd < 0) {
		out_free(o);
		return -1;
	}
	if (o->direct)
		return 0;
	/* mkstemp makes 0600; give the file the mode a plain create would */
	mask = umask(0);
	umask(mask);
	fchmod(o->fd, 0666 & ~mask);
	return 0;
}

int out_commit(struct outfile *o)
{
	int ret = o->gate ? o->gate->fn(o->gate->arg) : 0;

	if (!ret && out_fsync && fsync(o->fd) < 0 && errno != EINVAL)
		ret = lp_error(o->target, o->tmp, "fsync: %s", strerror(errno));
	if (close(o->fd) < 0 && !ret)
		ret = lp_error(o->target, o->tmp, "close: %s", strerror(errno));
	if (!o->direct && !ret && replace_target(o->tmp, o->target) < 0)
		ret = lp_error(o->target, o->tmp, "cannot rename over the target: %s",
			       strerror(errno));
	if (!o->direct && ret)
		unlink(o->tmp);
	out_free(o);
	return ret;
}

void out_abort(struct outfile *o)
{
	if (!o->tmp)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (!o->direct)
		unlink(o->tmp);
	out_free(o);
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
