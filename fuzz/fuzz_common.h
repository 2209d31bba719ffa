/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both libFuzzer harnesses share: the work directory, the check
 * that nothing stray is left in it, running one command with stderr
 * captured, and the error contract every command keeps (status 2 prints
 * exactly one line "linkpass: <file>: <place>: <cause>").  A breach
 * calls fuzz_fail(), which aborts, and libFuzzer reports it like a crash.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <limits.h>
#include <stddef.h>

#include "commands.h"

/* The work directory and the harness's name, set by fuzz_setup(). */
extern char fuzz_dir[PATH_MAX];

__attribute__((noreturn)) void fuzz_fail(const char *what, const char *detail);

/*
 * Use $LINKPASS_FUZZ_OUT (fuzz/run.sh makes and removes it) or a fresh
 * directory in /dev/shm, removed at exit with the file @keep in it;
 * stdout goes to /dev/null.  Exits when that fails.
 */
void fuzz_setup(const char *harness, const char *keep);

/* Names in fuzz_dir other than "." and ".." (and @keep, if not NULL). */
int fuzz_stray_files(const char *keep);

/*
 * Run @cmd on @o with stderr captured in *@err (the caller frees it);
 * check that a status 2 printed one "linkpass: @file: place: cause"
 * line.  Returns the status; *@len is the length of *@err.
 */
int fuzz_run(const char *name, int (*cmd)(struct options *),
	     struct options *o, const char *file, char **err, size_t *len);

#endif
