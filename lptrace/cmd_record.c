// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_record.c - `lptrace record`: run a program linked with liblptrace.a
 * with the environment that makes the runtime stream its trace to FILE
 * (LPTRACE_DATA, LPTRACE_FILTER, LPTRACE_GRAPH, LPTRACE_DEPTH,
 * LPTRACE_MIN_NS, LPTRACE_BUFSIZE), wait for it, and say what the file
 * holds.  Exits with the program's status (128 + signal when killed,
 * like a shell).
 *
 * The summary costs what the file's records number, not its events:
 * trace_open reads the record headers (one page per EVENTS record of up
 * to 256 KiB, skipped otherwise), which give each record's thread and
 * event count, and the END record's totals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "tracefile.h"

/* PROG's exit status as a shell gives it, or -1 (said). */
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

/* The LPTRACE_* variables that ask the runtime for what @o asks. */
/* -F, repeated or comma lists, as the runtime's one comma list. */
static char *filter_list(const struct options *o)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < o->filter.n; i++)
		len += strlen(o->filter.v[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	*s = 0;
	for (i = 0; i < o->filter.n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, o->filter.v[i]);
	}
	return s;
}

static int set_env(const struct options *o)
{
	char num[32], *filter = o->filter.n ? filter_list(o) : NULL;

	if (o->filter.n && !filter) {
		cli_error("-F: out of memory");
		return -1;
	}

	/* The runtime checks every value and names a bad one. */
	setenv("LPTRACE_DATA", o->output, 1);
	setenv("LPTRACE_FILTER", filter ? filter : "*", 1);
	free(filter);
	setenv("LPTRACE_GRAPH", o->graph ? "1" : "0", 1);
	if (o->depth_arg)
		setenv("LPTRACE_DEPTH", o->depth_arg, 1);
	if (o->min_arg) {
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)o->min_ns);
		setenv("LPTRACE_MIN_NS", num, 1);
	}
	if (o->bufsize)
		setenv("LPTRACE_BUFSIZE", o->bufsize, 1);
	return 0;
}

int cmd_record(const struct options *o)
{
	const char *out = o->output;
	struct trace t;
	int status;

	if (set_env(o) < 0)
		return EXIT_ERROR;
	/* A program without the runtime must not leave an old file behind. */
	if (unlink(out) && errno != ENOENT) {
		cli_error("%s: %s", out, strerror(errno));
		return EXIT_ERROR;
	}

	status = run(o->operands);
	if (status < 0)
		return EXIT_ERROR;
	if (access(out, F_OK)) {
		cli_error("%s: %s wrote none: is it linked with liblptrace.a (and not run with LPTRACE=off)?",
			  out, o->operands[0]);
		return status ? status : EXIT_ERROR;
	}
	if (trace_open(&t, out, TRACE_NO_SYMS))
		return status ? status : EXIT_ERROR;
	if (t.nevents != t.end.events)
		cli_error("%s: the END record counts %llu events, the EVENTS records %llu",
			  out, (unsigned long long)t.end.events,
			  (unsigned long long)t.nevents);
	fprintf(stderr, "lptrace: %s: %llu events from %zu threads, %llu dropped%s\n",
		out, (unsigned long long)t.nevents, t.nthreads,
		(unsigned long long)t.end.dropped,
		t.end.signo ? " (the program died of a signal)" : "");
	trace_close(&t);
	return status;
}
