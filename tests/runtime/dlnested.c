/*
 * dlnested.c - a program linked against a traced library (dlloader.c)
 * that dlopen()s a second traced library (dllib.c) by itself.  The
 * runtime must see the second library's table when the library's
 * dlopen returns, not only at the program's next enable or disable:
 * the program's dlopen() wrapper interposes on the library's call too.
 *
 * usage: dlnested LIB TRACE.txt [crash]
 * Prints `key=value` lines that test_runtime_dso.py checks.  With
 * "crash" it dies of SIGSEGV once LIB's functions have run, LIB still
 * loaded: the trace file must name them all the same.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lptrace.h"
#include "progs.h"

int loader_call(const char *path, int x);
int loader_close(void);

static void stats(const char *when)
{
	struct lpt_stats st;

	lpt_stats(&st);
	printf("%s sites=%llu enabled=%llu\n", when,
	       (unsigned long long)st.sites, (unsigned long long)st.enabled);
}

int main(int argc, char **argv)
{
	int sum = 0, errors = 0;

	if (argc != 3 && argc != 4)
		return 2;
	stats("start");
	/* everything loaded so far, and (LPTRACE_FILTER) what comes later */
	printf("enable=%d\n", lpt_enable("*"));
	sum += loader_call(argv[1], 0);		/* loads LIB, calls into it */
	stats("loaded");
	sum += loader_call(argv[1], 1);
	stats("called");
	if (argc == 4 && !strcmp(argv[3], "crash")) {
		fflush(stdout);
		raise(SIGSEGV);
	}
	if (loader_close()) {
		printf("dlclose failed\n");
		errors++;
	}
	stats("closed");
	printf("sum=%d errors=%d\n", sum, errors);
	if (lpt_write_text(argv[2]))
		errors++;
	return errors;
}
