// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_info.c - `lptrace info`: what the file says about the recording,
 * from its records' headers and the non-event records (no event is
 * decoded but each thread's first).  The file does not hold the
 * command line, the wall-clock start time, nor how many call sites the
 * program had or enabled: only the functions it names (SYMS).
 */
#include <stdio.h>

#include "commands.h"
#include "tracefile.h"

int cmd_info(const struct options *o)
{
	const struct lpt_rec_end *end;
	struct trace t;
	uint64_t ns;
	size_t i;

	if (trace_open(&t, o->input, 0))
		return EXIT_ERROR;
	end = &t.end;
	ns = trace_ns(&t, t.first_tsc);
	printf("# lptrace info: %s\n", o->input);
	printf("file:        %llu bytes, version %u, %llu EVENTS records\n",
	       (unsigned long long)t.size, t.info.version,
	       (unsigned long long)t.nrecords);
	printf("program:     %s\n", t.exe ? t.exe : "?");
	printf("pid:         %d\n", t.info.pid);
	printf("mode:        %s\n", t.r.graph ?
	       "function graph (entries and exits)" : "entry only");
	printf("filters:     depth %u, minimum %llu ns (0: none)\n",
	       t.info.max_depth, (unsigned long long)t.info.min_ns);
	printf("functions:   %zu named (SYMS)\n", t.nsyms);
	if (t.nevents)
		printf("first event: %llu.%06llu s (CLOCK_MONOTONIC)\n",
		       (unsigned long long)(ns / 1000000000ull),
		       (unsigned long long)(ns / 1000 % 1000000ull));
	printf("events:      %llu (END record: %llu)\n",
	       (unsigned long long)t.nevents,
	       (unsigned long long)end->events);
	printf("losses:      dropped %llu, overwritten %llu, recursed %llu; %u waits for the writer\n",
	       (unsigned long long)end->dropped,
	       (unsigned long long)end->overwritten,
	       (unsigned long long)end->recursed, end->waits);
	if (end->signo)
		printf("ended:       by signal %d\n", end->signo);
	else
		printf("ended:       normally\n");
	printf("threads:     %zu\n", t.nthreads);
	for (i = 0; i < t.nthreads; i++)
		printf("  %8d  %-16s %10llu events\n", t.threads[i].tid,
		       t.threads[i].comm,
		       (unsigned long long)t.threads[i].events);
	printf("not held:    the command line, the wall-clock start time, the call sites' count\n");
	trace_close(&t);
	return EXIT_OK;
}
