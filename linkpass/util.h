/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small shared helpers: error reporting in the one house format,
 * allocation that cannot return NULL, the clock, atomic output files.
 */
#ifndef LINKPASS_UTIL_H
#define LINKPASS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

/* Exit codes shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_DIFF = 1,		/* check: table and image disagree */
	EXIT_ERROR = 2,		/* bad input, usage, I/O */
};

/* "linkpass: <file>: <place>: <cause>" on stderr; returns -1. */
int lp_error(const char *file, const char *place, const char *fmt, ...)
	__printf(3, 4);
/* Same, for libelf failures: appends elf_errmsg(-1). */
int lp_elf_error(const char *file, const char *place, const char *what);

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/* Monotonic clock in nanoseconds, for --stats. */
uint64_t now_ns(void);

/*
 * An output file that appears complete or not at all: a temp file
 * beside the target, renamed over it by out_commit().  A device or
 * pipe (/dev/null) is written in place (direct).
 */
struct out_gate;

struct outfile {
	char *target;
	char *tmp;		/* NULL when closed; == target when direct */
	int fd;
	bool direct;
	const struct out_gate *gate;	/* out_open() sets NULL */
};

/* The last word before the rename: non-zero fn(arg) abandons the file. */
struct out_gate {
	int (*fn)(void *arg);
	void *arg;
};

/* --fsync: fsync every output before its rename. */
extern bool out_fsync;

int out_open(struct outfile *o, const char *target);
int out_commit(struct outfile *o);
void out_abort(struct outfile *o);

/* Replace control bytes with '?': one message stays one line. */
void one_line(char *s);

/* Shell-style glob match (fnmatch). */
bool glob_match(const char *pattern, const char *s);

#endif
