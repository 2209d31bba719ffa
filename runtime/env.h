/* SPDX-License-Identifier: GPL-2.0 */
/*
 * env.h - the LPTRACE* environment: one table (lpt_env_vars, env.c)
 * says every variable's name, kind, range, default and meaning; it is
 * read once at start into lpt_env, which the rest of the runtime uses.
 * No other file reads the environment (tests/test_runtime_env.py).
 */
#ifndef LPT_ENV_H
#define LPT_ENV_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Events kept per thread: LPTRACE_BUFSIZE's default and range. */
#define LPT_BUFSIZE_DEFAULT	(1ul << 18)
#define LPT_BUFSIZE_MAX		(1ul << 28)	/* 8 GiB of address space */
/* Graph mode's filters: LPTRACE_DEPTH and LPTRACE_MIN_NS ranges. */
#define LPT_DEPTH_MAX		4096
#define LPT_MIN_NS_MAX		1000000000000ul	/* 1000 s */

/* The words of the word variables, in their tables' order. */
enum lpt_env_start { LPT_START_ON, LPT_START_OFF };	/* LPTRACE */
enum lpt_env_keep { LPT_KEEP_LAST, LPT_KEEP_FIRST };	/* LPTRACE_KEEP */
enum lpt_env_sync { LPT_SYNC_CORE, LPT_SYNC_NONE };	/* LPTRACE_SYNC */
enum lpt_env_full { LPT_FULL_WAIT, LPT_FULL_DROP };	/* LPTRACE_FULL */

/*
 * The values: numbers as unsigned long, words as the index of the word,
 * paths and globs as a copy of the text (NULL when unset or empty).
 */
struct lpt_env {
	int start;			/* LPTRACE */
	unsigned long verbose;		/* LPTRACE_VERBOSE */
	unsigned long bufsize;		/* LPTRACE_BUFSIZE */
	int keep;			/* LPTRACE_KEEP */
	unsigned long graph;		/* LPTRACE_GRAPH */
	unsigned long depth;		/* LPTRACE_DEPTH */
	unsigned long min_ns;		/* LPTRACE_MIN_NS */
	int sync;			/* LPTRACE_SYNC */
	const char *data;		/* LPTRACE_DATA */
	int full;			/* LPTRACE_FULL */
	const char *crash;		/* LPTRACE_CRASH */
	const char *filter;		/* LPTRACE_FILTER */
	const char *out;		/* LPTRACE_OUT */
	const char *json;		/* LPTRACE_JSON */
};

enum lpt_env_kind {
	LPT_ENV_NUMBER,		/* decimal digits, within [min, max] */
	LPT_ENV_WORD,		/* one of words[] */
	LPT_ENV_PATH,		/* a file to write */
	LPT_ENV_GLOB,		/* fnmatch(3) pattern of function names */
};

/* One variable.  A bad value is named in a message and the default used. */
struct lpt_env_var {
	const char *name;
	enum lpt_env_kind kind;
	const char *const *words;	/* WORD: NULL-terminated */
	unsigned long min, max;		/* NUMBER */
	unsigned long def;		/* NUMBER: the value; WORD: its index */
	size_t field;			/* offsetof(struct lpt_env, ...) */
	const char *help;		/* one line, as docs/runtime.md says it */
};

extern const struct lpt_env_var lpt_env_vars[];
extern const size_t lpt_env_nvars;

/* The values, all defaults until read. */
extern struct lpt_env lpt_env;

/*
 * LPTRACE=off?  Reads LPTRACE alone: before main, so that with it off
 * nothing else is read (a program may call lpt_init later).
 */
int lpt_env_off(void);
/* Every variable not yet read, once each.  Caller holds the lock (init). */
void lpt_env_load(void);

#pragma GCC visibility pop

#endif /* LPT_ENV_H */
