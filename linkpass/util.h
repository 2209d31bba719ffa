/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small shared helpers: error reporting in the one house format,
 * allocation that cannot return NULL, timers for --stats, and atomic
 * output files (temp file next to the target, then rename).
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

/*
 * Print "linkpass: <file>: <place>: <cause>" on stderr.  @place may be
 * NULL when the problem concerns the whole file.  Returns -1 so callers
 * can write "return lp_error(...)".
 */
int lp_error(const char *file, const char *place, const char *fmt, ...)
	__printf(3, 4);

/* Same, for libelf failures: appends elf_errmsg(-1). */
int lp_elf_error(const char *file, const char *place, const char *what);

/*
 * Set the heap up for an input of @bytes (once per process; a no-op for
 * small inputs): see util.c.
 */
void heap_for_input(uint64_t bytes);
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/* Monotonic clock in nanoseconds, for --stats. */
uint64_t now_ns(void);

/*
 * An output file that appears complete or not at all: data goes to a
 * temp file in the target's directory; out_commit() renames it over the
 * target, out_abort() removes it.  A crash leaves at most a stray temp
 * file, never a partial or stale target.  A device or pipe target is
 * written directly (struct outfile, direct).
 */
struct out_gate;

struct outfile {
	char *target;
	char *tmp;		/* NULL when closed; == target when direct */
	int fd;
	/*
	 * The target is a device or a pipe (/dev/null, /dev/stdout): it
	 * is written in place.  Renaming a file over it would replace the
	 * device node itself (for root, /dev/null), and it holds no old
	 * contents to keep.
	 */
	bool direct;
	/* asked before the rename, or NULL (out_open() sets NULL) */
	const struct out_gate *gate;
	/*
	 * Skip the fsync before the rename (the default, out_fsync false).
	 * The rename alone keeps a killed run from leaving a partial file:
	 * the target is the old file or the new one, complete.  fsync adds
	 * only safety against power loss, at 3 to 40 ms a table on a busy
	 * build machine (measured: \"time: write table\" of --stats), for a
	 * build intermediate the next build makes again; the compiler and
	 * the linker do not fsync their outputs either.  --fsync asks for it.
	 */
	bool no_sync;
};

/*
 * A last word before an output takes the target's place: out_commit()
 * calls fn(arg) once the file is complete, and a non-zero return
 * (fn has printed why) abandons the file, leaving the target as it
 * was.  The scan's table waits so for the stripped-objects check, which
 * runs while the table is written.
 */
struct out_gate {
	int (*fn)(void *arg);
	void *arg;
};

/* --fsync: fsync every output before its rename. */
extern bool out_fsync;

int out_open(struct outfile *o, const char *target);
int out_commit(struct outfile *o);
void out_abort(struct outfile *o);

/*
 * Replace control bytes in @s with '?': names in messages come from the
 * input file and may hold any byte, but one message stays one line.
 */
void one_line(char *s);

/* Simple shell-style glob match (fnmatch). */
bool glob_match(const char *pattern, const char *s);

/*
 * Run @fn on each of the @n jobs at @jobs, @size bytes apart: all but
 * the first on threads of their own, the first (and any whose thread
 * cannot start) on this one, then join them all.  The one way linkpass
 * runs work in parallel; @fn must touch only its own job and what
 * nobody writes while the jobs run, so no lock is needed.
 */
void run_jobs(void *jobs, size_t n, size_t size, void *(*fn)(void *));

#endif
