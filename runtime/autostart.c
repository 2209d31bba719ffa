// SPDX-License-Identifier: GPL-2.0
/*
 * autostart.c - where a program enters the library: the top layer,
 * which may use every other and which none uses.
 *
 *   __fentry__, mcount  what a site calls as linked (and a refused site
 *                       keeps calling): a plain return.  A program pulls
 *                       this object out of the archive because it calls
 *                       __fentry__, and with it the rest of the library.
 *                       mcount is the same for -pg without -mfentry, so
 *                       such programs link too (their sites are refused:
 *                       the call is not at the entry);
 *   lpt_autostart       what a linked program does with no code of its
 *                       own, before main: read the LPTRACE* environment,
 *                       NOP the sites, enable the filter, and write the
 *                       trace files at exit.  A constructor: kept in
 *                       the link with this object, which __fentry__
 *                       keeps (alone in a file of its own it would be
 *                       dropped, as nothing refers to it);
 *   lpt_init, lpt_enable, lpt_disable
 *                       the API's entry points.  They give control.c
 *                       the address of __fentry__, which it may not name:
 *                       this file uses control.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "control.h"
#include "env.h"
#include "lock.h"
#include "msg.h"
#include "output.h"
#include "sites.h"
#include "stream.h"

/* The process that started: a forked child writes files of its own. */
static pid_t lpt_auto_pid;

/* What sites call as linked: a plain return (see the top of the file). */
__asm__(".pushsection .text\n"
	"	.globl	__fentry__\n"
	"	.type	__fentry__, @function\n"
	"	.p2align 4\n"
	"__fentry__:\n"
	"	ret\n"
	"	.size	__fentry__, . - __fentry__\n"
	"	.globl	mcount\n"
	"	.type	mcount, @function\n"
	"	.p2align 4\n"
	"mcount:\n"
	"	ret\n"
	"	.size	mcount, . - mcount\n"
	".popsection");
void __fentry__(void);

int lpt_init(void)
{
	return lpt_control_init((uintptr_t)__fentry__);
}

int lpt_enable(const char *glob)
{
	int err = lpt_init();

	return err ? err : lpt_control_set(LPT_CALL, glob);
}

int lpt_disable(const char *glob)
{
	int err = lpt_init();

	return err ? err : lpt_control_set(LPT_NOP, glob);
}

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
	if (getpid() != lpt_auto_pid &&
	    asprintf(&p, "%s.%d", path, (int)getpid()) < 0)
		return;
	fn(p ? p : path);
	free(p);
}

static void lpt_autostop(void)
{
	struct lpt_stats st;

	lpt_stream_finish();
	write_at_exit(lpt_env.out, lpt_write_text);
	write_at_exit(lpt_env.json, lpt_write_json);
	if (!lpt_verbose)
		return;
	lpt_stats(&st);
	lpt_msg("%llu events in the buffers, %llu dropped, %llu overwritten, %llu lost to recursion, %llu int3 traps, %llu sites enabled at exit",
		(unsigned long long)st.events, (unsigned long long)st.dropped,
		(unsigned long long)st.overwritten,
		(unsigned long long)st.recursed,
		(unsigned long long)st.traps, (unsigned long long)st.enabled);
}

static void __attribute__((constructor)) lpt_autostart(void)
{
	const char *filter;
	int n;

	if (lpt_env_off())
		return;
	if (lpt_init())		/* reads the rest of the environment */
		return;

	filter = lpt_env.filter;
	if (filter) {
		lpt_control_filter(filter);
		n = lpt_enable(filter);
		if (n == 0)
			lpt_msg("LPTRACE_FILTER=%s matches no function", filter);
	}

	lpt_auto_pid = getpid();
	if (lpt_env.out || lpt_env.json || lpt_verbose || lpt_stream_active())
		atexit(lpt_autostop);
}
