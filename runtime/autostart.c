// SPDX-License-Identifier: GPL-2.0
/*
 * autostart.c - what a linked program does with no code of its own:
 * read the LPTRACE* environment before main, NOP the sites, enable the
 * filter, and write the trace files at exit.
 *
 * Run from .init_array (entry.S), not from a constructor attribute:
 * see there why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static struct {
	char *text;		/* LPTRACE_OUT */
	char *json;		/* LPTRACE_JSON */
	pid_t pid;		/* the process that read them */
} lp_auto;

/* Listed in .init_array by entry.S. */
void lp_autostart(void) __attribute__((visibility("hidden")));

/*
 * A forked child inherits the atexit handler and the events recorded so
 * far; it writes to PATH.<pid> so that it does not clobber the parent's
 * file.
 */
static void write_at_exit(const char *path, int (*fn)(const char *))
{
	char *p = NULL;

	if (!path)
		return;
	if (getpid() != lp_auto.pid &&
	    asprintf(&p, "%s.%d", path, (int)getpid()) < 0)
		return;
	fn(p ? p : path);
	free(p);
}

static void lp_autostop(void)
{
	struct lp_stats st;

	write_at_exit(lp_auto.text, lp_write_text);
	write_at_exit(lp_auto.json, lp_write_json);
	if (!lp_verbose)
		return;
	lp_stats(&st);
	fprintf(stderr, LP_PREFIX "%s: %llu events, %llu dropped, %llu int3 traps, %llu sites enabled at exit\n",
		program_invocation_short_name,
		(unsigned long long)st.events, (unsigned long long)st.dropped,
		(unsigned long long)st.traps, (unsigned long long)st.enabled);
}

static char *env_copy(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? strdup(v) : NULL;
}

void lp_autostart(void)
{
	const char *mode = getenv("LPTRACE");
	const char *filter;
	int n;

	if (mode && !strcmp(mode, "off"))
		return;
	if (lp_init())
		return;

	filter = getenv("LPTRACE_FILTER");
	if (filter && *filter) {
		n = lp_enable(filter);
		if (n == 0)
			fprintf(stderr, LP_PREFIX "%s: LPTRACE_FILTER=%s matches no function\n",
				program_invocation_short_name, filter);
	}

	lp_auto.text = env_copy("LPTRACE_OUT");
	lp_auto.json = env_copy("LPTRACE_JSON");
	lp_auto.pid = getpid();
	if (lp_auto.text || lp_auto.json || lp_verbose)
		atexit(lp_autostop);
}
