/*
 * dlmain.c - a program that dlopen()s a traced shared library (built
 * from dllib.c through scripts/link-vmlinux.sh -shared), traces it,
 * dlclose()s it, and goes on tracing its own function.
 *
 * usage: dlmain LIB TRACE.txt
 * Prints `key=value` lines that test_runtime_dso.py checks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lptrace.h"
#include "progs.h"

NOINLINE int main_work(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

static void stats(const char *when)
{
	struct lpt_stats st;

	lpt_stats(&st);
	printf("%s sites=%llu enabled=%llu refused=%llu\n", when,
	       (unsigned long long)st.sites, (unsigned long long)st.enabled,
	       (unsigned long long)st.refused);
}

int main(int argc, char **argv)
{
	int (*lib_mid)(int), (*lib_leaf)(int);
	uint8_t before[8], *page, *leaf;
	long pagesz = sysconf(_SC_PAGESIZE);
	int sum = 0, errors = 0, i;
	void *h;

	if (argc != 3)
		return 2;
	stats("start");
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	lib_mid = (int (*)(int))dlsym(h, "lib_mid");
	lib_leaf = (int (*)(int))dlsym(h, "lib_leaf");
	leaf = (uint8_t *)lib_leaf;
	print_entry("lib_leaf", leaf);
	stats("loaded");

	printf("enable lib=%d\n", lpt_enable("lib_*"));
	print_entry("lib_leaf", leaf);
	for (i = 0; i < 2; i++)
		sum += lib_mid(i);
	printf("enable main=%d\n", lpt_enable("main_work"));
	sum += main_work(1);
	stats("traced");

	if (dlclose(h)) {
		printf("dlclose: %s\n", dlerror());
		return 1;
	}
	stats("closed");

	/*
	 * Map a page where the library's code was and fill it with a
	 * pattern: no later enable or disable may write into it.
	 */
	page = mmap((void *)((uintptr_t)leaf & ~(uintptr_t)(pagesz - 1)),
		    pagesz, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	printf("remapped=%d\n", page != MAP_FAILED);
	if (page != MAP_FAILED) {
		memset(page, 0xcc, pagesz);
		memcpy(before, leaf, sizeof(before));
	}
	printf("after enable lib=%d\n", lpt_enable("lib_*"));
	printf("after disable all=%d\n", lpt_disable("*"));
	printf("after enable main=%d\n", lpt_enable("main_work"));
	if (page != MAP_FAILED && memcmp(before, leaf, sizeof(before))) {
		printf("FAIL: stale site written\n");
		errors++;
	}
	for (i = 0; i < 2; i++)
		sum += main_work(i);
	stats("end");
	printf("sum=%d errors=%d\n", sum, errors);
	if (lpt_write_text(argv[2]))
		errors++;
	return errors;
}
