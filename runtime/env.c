// SPDX-License-Identifier: GPL-2.0
/*
 * env.c - the runtime's environment, in one table: each LPTRACE*
 * variable with its kind, range, default and one line of help.  Each is
 * read once, at start, into lpt_env; nothing else in runtime/ calls
 * getenv.  A number is checked against its range and a word against its
 * list: a bad one is named in a message and replaced by the default; the
 * program runs on either way.  docs/runtime.md lists the same table,
 * and tests/test_runtime_env.py holds the two together.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "msg.h"

static const char *const lpt_start_words[] = { "on", "off", NULL };
static const char *const lpt_keep_words[] = { "last", "first", NULL };
static const char *const lpt_sync_words[] = { "sync_core", "none", NULL };
static const char *const lpt_full_words[] = { "wait", "drop", NULL };

#define LPT_NUMBER(var, f, lo, hi, d, h) \
	{ var, LPT_ENV_NUMBER, NULL, lo, hi, d, \
	  offsetof(struct lpt_env, f), h }
#define LPT_WORD(var, f, w, d, h) \
	{ var, LPT_ENV_WORD, w, 0, 0, d, offsetof(struct lpt_env, f), h }
#define LPT_TEXT(var, kind, f, h) \
	{ var, kind, NULL, 0, 0, 0, offsetof(struct lpt_env, f), h }

/* In the order they are read (and bad values reported). */
const struct lpt_env_var lpt_env_vars[] = {
	LPT_WORD("LPTRACE", start, lpt_start_words, LPT_START_ON,
		 "off: do nothing at start; the API still works"),
	LPT_NUMBER("LPTRACE_VERBOSE", verbose, 0, 1, 0,
		   "1: counts and timings of init, each enable/disable, and exit on stderr"),
	LPT_NUMBER("LPTRACE_BUFSIZE", bufsize, 1, LPT_BUFSIZE_MAX,
		   LPT_BUFSIZE_DEFAULT, "events per thread ring"),
	LPT_WORD("LPTRACE_KEEP", keep, lpt_keep_words, LPT_KEEP_LAST,
		 "ring mode: a full ring overwrites its oldest event (last) or keeps its first ones (first)"),
	LPT_NUMBER("LPTRACE_GRAPH", graph, 0, 1, 0,
		   "1: function-graph mode, entry and exit with durations"),
	LPT_NUMBER("LPTRACE_DEPTH", depth, 0, LPT_DEPTH_MAX, 0,
		   "graph mode: record calls with fewer than n frames below them (0: all)"),
	LPT_NUMBER("LPTRACE_MIN_NS", min_ns, 0, LPT_MIN_NS_MAX, 0,
		   "graph mode: drop calls shorter than n ns that have no recorded callee"),
	LPT_WORD("LPTRACE_SYNC", sync, lpt_sync_words, LPT_SYNC_CORE,
		 "none: behave as without membarrier SYNC_CORE, rewrite code only while one thread runs (testing)"),
	LPT_TEXT("LPTRACE_DATA", LPT_ENV_PATH, data,
		 "stream mode: the binary trace file, written while the program runs"),
	LPT_WORD("LPTRACE_FULL", full, lpt_full_words, LPT_FULL_WAIT,
		 "stream mode: a thread whose ring is full waits for the writer (bounded) or drops the event (counted)"),
	LPT_TEXT("LPTRACE_CRASH", LPT_ENV_PATH, crash,
		 "ring mode: where a fatal signal writes the rings"),
	LPT_TEXT("LPTRACE_FILTER", LPT_ENV_GLOB, filter,
		 "enable the matching functions (a glob, or a comma list of them) at start and in every library loaded later"),
	LPT_TEXT("LPTRACE_OUT", LPT_ENV_PATH, out,
		 "write the text trace (ftrace layout) at exit"),
	LPT_TEXT("LPTRACE_JSON", LPT_ENV_PATH, json,
		 "write the Chrome JSON trace at exit"),
};

const size_t lpt_env_nvars = sizeof(lpt_env_vars) / sizeof(lpt_env_vars[0]);

/* lpt_env_read has a bit for each; lpt_env_off reads the first. */
_Static_assert(sizeof(lpt_env_vars) / sizeof(lpt_env_vars[0]) <=
	       8 * sizeof(unsigned long), "one bit per variable");

struct lpt_env lpt_env = {
	.start = LPT_START_ON,
	.bufsize = LPT_BUFSIZE_DEFAULT,
	.keep = LPT_KEEP_LAST,
	.sync = LPT_SYNC_CORE,
	.full = LPT_FULL_WAIT,
};

/* The variables read so far: bit i for lpt_env_vars[i]. */
static unsigned long lpt_env_read;

/* NAME=n, decimal digits only, within [min, max]; else the default. */
static unsigned long read_number(const struct lpt_env_var *e, const char *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || v[0] == '-' || v[0] == '+' || errno ||
	    n < e->min || n > e->max) {
		lpt_msg("%s=%.40s: not a number from %lu to %lu; using %lu",
			e->name, v, e->min, e->max, e->def);
		return e->def;
	}
	return n;
}

/* NAME=word, the index of one of the words; else the default's. */
static int read_word(const struct lpt_env_var *e, const char *v)
{
	char list[128] = "";
	int i;

	if (!*v)
		return e->def;
	for (i = 0; e->words[i]; i++)
		if (!strcmp(v, e->words[i]))
			return i;
	for (i = 0; e->words[i]; i++) {
		strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
		strncat(list, e->words[i], sizeof(list) - strlen(list) - 1);
	}
	lpt_msg("%s=%.40s: not one of %s; using %s", e->name, v, list,
		e->words[e->def]);
	return e->def;
}

static void read_var(size_t i)
{
	const struct lpt_env_var *e = &lpt_env_vars[i];
	char *field = (char *)&lpt_env + e->field;
	const char *v;

	if (lpt_env_read & (1ul << i))
		return;
	lpt_env_read |= 1ul << i;
	v = getenv(e->name);
	if (!v)
		return;		/* the default, set in lpt_env */
	switch (e->kind) {
	case LPT_ENV_NUMBER:
		*(unsigned long *)field = read_number(e, v);
		break;
	case LPT_ENV_WORD:
		*(int *)field = read_word(e, v);
		break;
	case LPT_ENV_PATH:
	case LPT_ENV_GLOB:
		/* a copy: the program may change its environment later */
		*(const char **)field = *v ? strdup(v) : NULL;
		break;
	}
}

int lpt_env_off(void)
{
	read_var(0);		/* LPTRACE: first in the table */
	return lpt_env.start == LPT_START_OFF;
}

void lpt_env_load(void)
{
	size_t i;

	for (i = 0; i < lpt_env_nvars; i++)
		read_var(i);
}
