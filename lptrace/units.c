// SPDX-License-Identifier: GPL-2.0
/*
 * units.c - durations as the readers print them: one formatter for
 * report, graph and replay, in a file of its own so that the commands
 * use it without using lptrace.c, which calls them.
 */
#include "units.h"

#include <stdio.h>

void fmt_ns(char *buf, size_t size, double ns)
{
	if (ns < 1e3)
		snprintf(buf, size, "%7.3f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%7.3f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%7.3f ms", ns / 1e6);
	else
		snprintf(buf, size, "%7.3f  s", ns / 1e9);
}
