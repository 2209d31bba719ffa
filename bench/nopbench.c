// SPDX-License-Identifier: GPL-2.0
/*
 * nopbench - what each 5-byte entry sequence costs on this CPU.
 *
 * For every variant, a tiny function (`lea 1(%rdi),%eax; ret`) is
 * assembled at run time with the variant's bytes at its entry, each in
 * its own 64-byte-aligned slot, and called in a loop (an indirect call
 * through a register, the same for all).  TSC ticks per call are the
 * median over many short runs: short, so that most runs are never
 * preempted on a busy machine; interleaved across variants, so that
 * drifting noise hits all alike.  The minimum is printed beside it to
 * show how noisy the run was.  The ratio is to the function with nothing
 * at its entry; the loop and the call are in every figure, so the
 * ratios are what a call-heavy program would see.
 *
 *	nopbench [-n calls-per-run] [-r runs]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "x86-insn.h"

#define NB_SLOT		64	/* bytes per function, one cache line */
#define NB_ENTRY_MAX	X86_CALL_LEN

/* lea 0x1(%rdi),%eax; ret */
static const uint8_t nb_body[] = { 0x8d, 0x47, 0x01, 0xc3 };
static const uint8_t nb_ret[] = { 0xc3 };
/* int3 fills the bytes a variant jumps over: never run. */

struct variant {
	const char *name;
	uint8_t entry[NB_ENTRY_MAX];
	unsigned int len;
	int calls_mcount;	/* entry[1..4] = rel32 to an empty mcount */
	int (*fn)(int);
	uint64_t *ticks;	/* one per run */
};

static struct variant variants[] = {
	{ "empty",		{ 0 }, 0, 0, NULL, NULL },
	{ "jmp +3 (2 bytes)",	{ 0xeb, 0x03, X86_OP_INT3, X86_OP_INT3,
				  X86_OP_INT3 }, 5, 0, NULL, NULL },
	{ "jmp +0 (5 bytes)",	{ 0xe9, 0x00, 0x00, 0x00, 0x00 },
				  5, 0, NULL, NULL },
	{ "3+2 NOPs",		{ 0x66, 0x66, 0x90, 0x66, 0x90 },
				  5, 0, NULL, NULL },
	{ "66 66 66 66 90",	{ 0x66, 0x66, 0x66, 0x66, 0x90 },
				  5, 0, NULL, NULL },
	{ "0f 1f 44 00 00",	X86_NOP5_BYTES, X86_CALL_LEN, 0, NULL, NULL },
	{ "call mcount (ret)",	{ X86_OP_CALL }, X86_CALL_LEN, 1, NULL, NULL },
};

#define NB_NVARIANTS (sizeof(variants) / sizeof(variants[0]))

/* Lay out every variant and the empty mcount in one executable page. */
static int build_code(void)
{
	size_t size = (NB_NVARIANTS + 1) * NB_SLOT, i;
	uint8_t *code, *mcount;

	code = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return -errno;
	memset(code, X86_OP_INT3, size);
	mcount = code + NB_NVARIANTS * NB_SLOT;
	memcpy(mcount, nb_ret, sizeof(nb_ret));
	for (i = 0; i < NB_NVARIANTS; i++) {
		struct variant *v = &variants[i];
		uint8_t *p = code + i * NB_SLOT;

		memcpy(p, v->entry, v->len);
		if (v->calls_mcount) {
			int32_t rel = (int32_t)(mcount - (p + v->len));

			memcpy(p + 1, &rel, sizeof(rel));
		}
		memcpy(p + v->len, nb_body, sizeof(nb_body));
		v->fn = (int (*)(int))(void *)p;
	}
	if (mprotect(code, size, PROT_READ | PROT_EXEC))
		return -errno;
	return 0;
}

static inline uint64_t tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t tsc_end(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi), "=c"(aux) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static volatile int nb_sink;

static __attribute__((noinline)) uint64_t run(int (*fn)(int), long n)
{
	uint64_t t0, t1;
	int acc = 0;
	long i;

	t0 = tsc_begin();
	for (i = 0; i < n; i++)
		acc += fn((int)i);
	t1 = tsc_end();
	nb_sink = acc;
	return t1 - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v; the median is the figure, the minimum shows the noise. */
static uint64_t median(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void cpu_model(char *buf, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, size, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		snprintf(buf, size, "%s", colon + 2);
		buf[strcspn(buf, "\n")] = '\0';
		break;
	}
	fclose(f);
}

/* Stay on one CPU: a migration mid-run would mix two cores' figures. */
static void pin_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void print_bytes(const struct variant *v)
{
	unsigned int i;

	if (!v->len) {
		printf("(none)");
		return;
	}
	if (v->calls_mcount) {
		printf("e8 rel32");
		return;
	}
	for (i = 0; i < v->len; i++)
		printf("%s%02x", i ? " " : "", v->entry[i]);
}

int main(int argc, char **argv)
{
	long calls = 200000;	/* ~1 ms: most runs escape preemption */
	int runs = 101, opt, r, err;
	char model[256];
	double base;
	size_t i;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		switch (opt) {
		case 'n':
			calls = strtol(optarg, NULL, 0);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n calls-per-run] [-r runs]\n",
				argv[0]);
			return 2;
		}
	}
	if (calls < 1 || runs < 1) {
		fprintf(stderr, "nopbench: -n and -r must be positive\n");
		return 2;
	}
	err = build_code();
	if (err) {
		fprintf(stderr, "nopbench: cannot map code: %s\n", strerror(-err));
		return 1;
	}
	for (i = 0; i < NB_NVARIANTS; i++) {
		variants[i].ticks = calloc(runs, sizeof(uint64_t));
		if (!variants[i].ticks) {
			fprintf(stderr, "nopbench: out of memory\n");
			return 1;
		}
	}
	pin_cpu();
	cpu_model(model, sizeof(model));

	/* One warm-up pass, then the runs, variants interleaved. */
	for (i = 0; i < NB_NVARIANTS; i++)
		run(variants[i].fn, calls);
	for (r = 0; r < runs; r++)
		for (i = 0; i < NB_NVARIANTS; i++)
			variants[i].ticks[r] = run(variants[i].fn, calls);

	printf("CPU: %s\n", model);
	printf("%ld calls per run, median of %d runs, TSC ticks per call (loop and call included)\n\n",
	       calls, runs);
	printf("| entry | bytes | ticks/call | min | ratio to empty |\n");
	printf("|---|---|---:|---:|---:|\n");
	base = (double)median(variants[0].ticks, runs) / calls;
	for (i = 0; i < NB_NVARIANTS; i++) {
		struct variant *v = &variants[i];
		double t = (double)median(v->ticks, runs) / calls;

		printf("| %s | ", v->name);
		print_bytes(v);
		printf(" | %.2f | %.2f | %.2f |\n", t,
		       (double)v->ticks[0] / calls, t / base);
	}
	return 0;
}
