/*
 * trapchain.c - SIGTRAPs that are not ours.
 *
 *	trapchain chain      (LPTRACE=off) our handler chains to the program's
 *	trapchain default    an int3 that is no site kills as without us
 *	trapchain replaced   the program installs its handler after ours, by
 *	                     sigaction() and by signal(): chained, patching goes on
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "lptrace.h"
#include "progs.h"

static volatile int seen;

NOINLINE int work(int x)
{
	return x * 2;
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	(void)ctx;
	seen++;
}

static volatile int plain;

static void on_trap_plain(int sig)
{
	(void)sig;
	plain++;
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
}

int main(int argc, char **argv)
{
	int errors = 0;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "chain")) {
		install();
		printf("init=%d\n", lpt_init());
		raise(SIGTRAP);
		__asm__ volatile("int3");
		printf("enable=%d\n", lpt_enable(NULL) > 0);
		errors += work(21) != 42;
		printf("chained=%d\n", seen);
	} else if (!strcmp(argv[1], "default")) {
		printf("before int3\n");
		fflush(stdout);
		__asm__ volatile("int3");
		printf("survived int3\n");
	} else {
		lpt_init();
		install();
		printf("enable=%d", lpt_enable(NULL) > 0);
		errors += work(21) != 42;
		raise(SIGTRAP);
		printf(" chained=%d\n", seen);
		signal(SIGTRAP, on_trap_plain);
		printf("again=%d", lpt_disable(NULL) > 0);
		errors += work(21) != 42;
		raise(SIGTRAP);
		printf(" plain=%d\n", plain);
	}
	printf("errors=%d\n", errors);
	return errors ? 1 : 0;
}
