// SPDX-License-Identifier: GPL-2.0
/*
 * lptrace - record and read traces of programs linked with liblptrace.a.
 *
 *   lptrace record [-o FILE] [-F GLOB] [--graph [-D DEPTH] [-t MIN]]
 *                  [-b EVENTS] -- PROG ARGS...
 *   lptrace report [-i FILE] [-s calls|total|self|name]
 *   lptrace graph  [-i FILE] FUNC
 *   lptrace dump   [-i FILE] --text|--chrome
 *
 * Exit status: the program's for record; else 0, or 1 on an error
 * (one line on stderr), 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "record", cmd_record },
	{ "report", cmd_report },
	{ "graph", cmd_graph },
	{ "dump", cmd_dump },
};

static int usage(FILE *f)
{
	fputs("usage: lptrace record [-o FILE] [-F GLOB] [--graph [-D DEPTH] [-t MIN]] [-b EVENTS] -- PROG ARGS...\n"
	      "       lptrace report [-i FILE] [-s calls|total|self|name]\n"
	      "       lptrace graph [-i FILE] FUNC\n"
	      "       lptrace dump [-i FILE] --text|--chrome\n"
	      "FILE defaults to " LPT_DEFAULT_DATA "; MIN is a duration (500ns, 10us, 2ms).\n",
	      f);
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "lptrace: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}

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
