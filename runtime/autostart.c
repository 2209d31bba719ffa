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
} lpt_auto;

/* Listed in .init_array by entry.S. */
void lpt_autostart(void) __attribute__((visibility("hidden")));

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
	if (getpid() != lpt_auto.pid &&
	    asprintf(&p, "%s.%d", path, (int)getpid()) < 0)
		return;
	fn(p ? p : path);
	free(p);
}

static void lpt_autostop(void)
{
	struct lpt_stats st;

	lpt_stream_finish();
	write_at_exit(lpt_auto.text, lpt_write_text);
	write_at_exit(lpt_auto.json, lpt_write_json);
	if (!lpt_verbose)
		return;
	lpt_stats(&st);
	lpt_msg("%llu events in the buffers, %llu dropped, %llu overwritten, %llu lost to recursion, %llu int3 traps, %llu sites enabled at exit",
		(unsigned long long)st.events, (unsigned long long)st.dropped,
		(unsigned long long)st.overwritten,
		(unsigned long long)st.recursed,
		(unsigned long long)st.traps, (unsigned long long)st.enabled);
}

static char *env_copy(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? strdup(v) : NULL;
}

void lpt_autostart(void)
{
	static const char *const modes[] = { "on", "off", NULL };
	const char *filter;
	int n;

	if (lpt_env_word("LPTRACE", modes, 0) == 1)
		return;
	if (lpt_init())
		return;

	filter = getenv("LPTRACE_FILTER");
	if (filter && *filter) {
		lpt_set_filter(filter);
		n = lpt_enable(filter);
		if (n == 0)
			lpt_msg("LPTRACE_FILTER=%s matches no function", filter);
	}

	lpt_auto.text = env_copy("LPTRACE_OUT");
	lpt_auto.json = env_copy("LPTRACE_JSON");
	lpt_auto.pid = getpid();
	if (lpt_auto.text || lpt_auto.json || lpt_verbose ||
	    lpt_stream_active())
		atexit(lpt_autostop);
}
