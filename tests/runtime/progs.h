/* progs.h - shared by the test programs of test_runtime.py. */
#ifndef PROGS_H
#define PROGS_H

#include <stdint.h>
#include <stdio.h>

/* A traced function must stay a real, separate function. */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

/* First bytes of a function: its site (after endbr64, if any). */
static inline void print_entry(const char *name, const void *fn)
{
	const uint8_t *p = fn;

	printf("entry %s:", name);
	for (int i = 0; i < 10; i++)
		printf(" %02x", p[i]);
	printf("\n");
}

#endif
