// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_record.c - `lptrace record`: run a program linked with liblptrace.a
 * with the environment that makes the runtime stream its trace to FILE
 * (LPTRACE_DATA, LPTRACE_FILTER, LPTRACE_GRAPH, LPTRACE_DEPTH,
 * LPTRACE_MIN_NS, LPTRACE_BUFSIZE), wait for it, check the file and
 * say what it holds.  Exits with the program's status (128 + signal
 * when killed, like a shell).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "tracefile.h"

/* "500ns", "10us", "2ms", "1s" or plain nanoseconds; -1 if not one. */
static long long parse_duration(const char *s)
{
	static const struct { const char *unit; long long ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!errno && !strcmp(end, units[i].unit) &&
		    v <= 1000000000000ull / units[i].ns)
			return v * units[i].ns;
	return -1;
}

static int usage(void)
{
	fputs("usage: lptrace record [-o FILE] [-F GLOB] [--graph [-D DEPTH] [-t MIN]] [-b EVENTS] -- PROG ARGS...\n",
	      stderr);
	return 2;
}

static int run(char **argv)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		cli_error("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		execvp(argv[0], argv);
		cli_error("%s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			return -1;
		}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "graph", no_argument, NULL, 'g' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = LPT_DEFAULT_DATA, *glob = "*", *depth = NULL;
	const char *bufsize = NULL, *min = NULL;
	long long min_ns = 0;
	struct lpt_data d;
	int c, graph = 0, status;
	char num[32];

	while ((c = getopt_long(argc, argv, "+o:F:D:t:b:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'F':
			glob = optarg;
			break;
		case 'D':
			depth = optarg;
			break;
		case 't':
			min = optarg;
			min_ns = parse_duration(optarg);
			if (min_ns < 0) {
				cli_error("-t %s: not a duration (500ns, 10us, 2ms, 1s)",
					  optarg);
				return 2;
			}
			break;
		case 'b':
			bufsize = optarg;
			break;
		case 'g':
			graph = 1;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc)
		return usage();
	if ((depth || min) && !graph) {
		cli_error("-D and -t filter function-graph recordings: add --graph");
		return 2;
	}

	/* The runtime checks every value and names a bad one. */
	setenv("LPTRACE_DATA", out, 1);
	setenv("LPTRACE_FILTER", glob, 1);
	setenv("LPTRACE_GRAPH", graph ? "1" : "0", 1);
	if (depth)
		setenv("LPTRACE_DEPTH", depth, 1);
	if (min) {
		snprintf(num, sizeof(num), "%lld", min_ns);
		setenv("LPTRACE_MIN_NS", num, 1);
	}
	if (bufsize)
		setenv("LPTRACE_BUFSIZE", bufsize, 1);
	/* A program without the runtime must not leave an old file behind. */
	if (unlink(out) && errno != ENOENT) {
		cli_error("%s: %s", out, strerror(errno));
		return 1;
	}

	status = run(argv + optind);
	if (status < 0)
		return 1;
	if (access(out, F_OK)) {
		cli_error("%s wrote no %s: is it linked with liblptrace.a (and not run with LPTRACE=off)?",
			  argv[optind], out);
		return status ? status : 1;
	}
	if (data_open(&d, out))
		return status ? status : 1;
	fprintf(stderr, "lptrace: %s: %zu events from %zu threads, %llu dropped%s\n",
		out, d.nev, d.nthreads, (unsigned long long)d.end.dropped,
		d.end.signo ? " (the program died of a signal)" : "");
	data_close(&d);
	return status;
}
