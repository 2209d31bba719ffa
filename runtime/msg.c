// SPDX-License-Identifier: GPL-2.0
/*
 * msg.c - the one way the runtime speaks: "lptrace: PROGRAM: text\n" on
 * stderr.  The line is formatted first and written with one write(2),
 * so messages of threads do not interleave within a line, and stdio's
 * stderr lock is never taken (a forked child may inherit it held).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"

#define LPT_MSG_MAX	1024

void lpt_msg(const char *fmt, ...)
{
	char line[LPT_MSG_MAX];
	int saved_errno = errno;
	size_t len;
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "lptrace: %s: ",
		     program_invocation_short_name);
	len = n < 0 ? 0 : (size_t)n;
	va_start(ap, fmt);
	if (len < sizeof(line))
		vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	len = strnlen(line, sizeof(line) - 2);
	line[len++] = '\n';
	/* A failed write has nowhere left to be reported. */
	(void)!write(STDERR_FILENO, line, len);
	errno = saved_errno;
}
