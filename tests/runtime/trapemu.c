/*
 * trapemu.c - the SIGTRAP emulation, made deterministic: put int3 on a
 * site by hand (as step 1 of the protocol does) and call the function,
 * first with the site NOP'd, then enabled; then let lp_enable() and
 * lp_disable() complete a site that starts with int3.
 *
 *	trapemu TRACE.txt
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lptrace.h"
#include "progs.h"

NOINLINE int target(int x)
{
	return x + 100;
}

static void poke_int3(void *fn)
{
	long page = sysconf(_SC_PAGESIZE);
	void *start = (void *)((uintptr_t)fn & ~(page - 1));

	mprotect(start, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC);
	*(volatile uint8_t *)fn = 0xcc;
	mprotect(start, 2 * page, PROT_READ | PROT_EXEC);
}

static unsigned long long traps(void)
{
	struct lp_stats st;

	lp_stats(&st);
	return st.traps;
}

int main(int argc, char **argv)
{
	int errors = 0;

	if (argc < 2 || lp_init())
		return 2;

	poke_int3((void *)target);		/* NOP'd site behind int3 */
	print_entry("nop-int3", (void *)target);
	errors += target(1) != 101;
	printf("traps after nop emulation=%llu\n", traps());

	printf("enable=%d\n", lp_enable("target"));
	print_entry("enabled", (void *)target);
	errors += target(2) != 102;

	poke_int3((void *)target);		/* enabled site behind int3 */
	print_entry("call-int3", (void *)target);
	errors += target(3) != 103;
	printf("traps after call emulation=%llu\n", traps());

	printf("disable=%d\n", lp_disable("target"));
	print_entry("disabled", (void *)target);
	errors += target(4) != 104;

	if (lp_write_text(argv[1]))
		errors++;
	printf("errors=%d\n", errors);
	return errors ? 1 : 0;
}
