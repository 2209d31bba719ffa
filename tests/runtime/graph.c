/*
 * graph.c - function-graph mode against what breaks return hijacking:
 * recursion, tail calls, longjmp, siglongjmp out of a handler on an
 * alternate signal stack, a handler run mid-call, a function disabled
 * while it is on the stack, floating-point return values.  Every
 * result is checked: a wrong return address or a clobbered return
 * register shows as a wrong sum or a crash.
 *
 *   graph [crash]    prints "sum=N expect=N" and, with "crash", then
 *                    dies of SIGSEGV inside a traced call
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lptrace.h"
#include "progs.h"

#define LOOPS	5

static jmp_buf jb;
static sigjmp_buf sjb;
static volatile int crash;

NOINLINE int g_leaf(int x) { return x * 3; }
NOINLINE int g_rec(int n) { return n <= 0 ? g_leaf(1) : 1 + g_rec(n - 1) + 0 * g_leaf(n); }
NOINLINE void g_jump(int d) { if (d == 0) longjmp(jb, 1); g_jump(d - 1); g_leaf(d); }
NOINLINE int g_tail2(int x) { return g_leaf(x) + 1; }
NOINLINE int g_tail1(int x) { return g_tail2(x + 1); }	/* a sibling call at -O2 */
NOINLINE void g_on_usr1(int s) { (void)s; g_leaf(7); }
NOINLINE void g_on_usr2(int s) { (void)s; g_leaf(8); siglongjmp(sjb, 1); }
NOINLINE void g_deep(int d) { if (!d) raise(SIGUSR2); else g_deep(d - 1); g_leaf(d); }
NOINLINE double g_float(double x) { return x * 1.5; }
NOINLINE long double g_ldouble(long double x) { return x * 2; }

/* Disables itself and its caller while both are on the stack. */
NOINLINE int g_disabler(int x)
{
	if (lpt_disable("g_dis*") < 0)
		return -1000;
	return g_leaf(x);
}

NOINLINE int g_dis_outer(int x) { return g_disabler(x) + 1; }

/* At least 300 ms: longer than test_graph_min_duration_filter's 200 ms. */
NOINLINE int g_slow(void)
{
	struct timespec ts = { 0, 300000000 };

	while (nanosleep(&ts, &ts))
		;
	return 1;
}

NOINLINE void g_crash(void)
{
	volatile int *volatile p = NULL;	/* not provably NULL: a real store */

	*p = 1;
}

int main(int argc, char **argv)
{
	static char altstack[65536];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	long sum = 0, expect = 0;
	int i;

	crash = argc > 1 && !strcmp(argv[1], "crash");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = g_on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigaltstack(&ss, NULL);
	sa.sa_handler = g_on_usr2;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);

	for (i = 0; i < LOOPS; i++) {
		sum += g_rec(6);		expect += 6 + 3;
		if (!setjmp(jb))
			g_jump(4);
		sum += g_tail1(2);		expect += 10;
		raise(SIGUSR1);
		if (!sigsetjmp(sjb, 1))
			g_deep(3);
		sum += (long)g_float(4.0);	expect += 6;
		sum += (long)g_ldouble(5.0L);	expect += 10;
	}
	/* Enabled again for this call only, disabled from inside it. */
	if (lpt_enable("g_dis*") < 0)
		return 2;
	sum += g_dis_outer(2);			expect += 7;
	sum += g_dis_outer(2);			expect += 7;
	sum += g_slow();			expect += 1;
	printf("sum=%ld expect=%ld\n", sum, expect);
	fflush(stdout);
	if (crash)
		g_crash();
	return sum != expect;
}
