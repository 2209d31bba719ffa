/*
 * trapemu.c - the SIGTRAP emulation, made deterministic: a rewrite that
 * fails after its int3 step (mprotect made to fail) leaves the site
 * behind int3, and the handler must run it as the state it was becoming:
 * first a call to the tracer, then a NOP.  The next enable and disable
 * complete the site.
 *
 *	trapemu TRACE.txt
 */
#include <stdlib.h>

#include "lptrace.h"
#include "mprotect-fail.h"
#include "progs.h"

NOINLINE int target(int x)
{
	return x + 100;
}

static unsigned long long traps(void)
{
	struct lpt_stats st;

	lpt_stats(&st);
	return st.traps;
}

int main(int argc, char **argv)
{
	unsigned long long t0;
	int errors = 0;

	if (argc < 2 || lpt_init())
		return 2;

	mprotect_ok_left = 2;			/* int3 written, tail fails */
	printf("half-enable=%d\n", lpt_enable("target"));
	mprotect_ok_left = -1;
	print_entry("call-int3", (void *)target);
	t0 = traps();
	errors += target(1) != 101;
	printf("traps after call emulation=%llu\n", traps() - t0);

	mprotect_ok_left = 2;
	printf("half-disable=%d\n", lpt_disable("target"));
	mprotect_ok_left = -1;
	print_entry("nop-int3", (void *)target);
	t0 = traps();
	errors += target(2) != 102;
	printf("traps after nop emulation=%llu\n", traps() - t0);

	printf("enable=%d\n", lpt_enable("target"));
	print_entry("enabled", (void *)target);
	errors += target(3) != 103;

	printf("disable=%d\n", lpt_disable("target"));
	print_entry("disabled", (void *)target);
	errors += target(4) != 104;

	if (lpt_write_text(argv[1]))
		errors++;
	printf("errors=%d\n", errors);
	return errors ? 1 : 0;
}
