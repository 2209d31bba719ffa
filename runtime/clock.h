/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - every clock of the runtime: the TSC read by the hot path
 * (inline, no libc), CLOCK_MONOTONIC for timings, and the calibration
 * that turns one into the other for the trace files (clock.c).
 */
#ifndef LPT_CLOCK_H
#define LPT_CLOCK_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* TSC_AUX holds the CPU number in its low 12 bits (Linux sets it). */
#define LPT_TSC_AUX_CPU		0xfff

/* CPUID 0x80000001, EDX bit 27: RDTSCP.  CPUID 7, ECX bit 22: RDPID. */
#define LPT_CPUID_EXT		0x80000001u
#define LPT_CPUID_RDTSCP	(1u << 27)
#define LPT_CPUID_FEATURES7	7u
#define LPT_CPUID_RDPID		(1u << 22)

/*
 * How the hot path learns the CPU of an event, chosen once at init.
 * RDPID reads TSC_AUX alone, and with RDTSC costs about half of one
 * RDTSCP (AMD EPYC, this machine: 1.1 + 13.3 ns against 26 ns; RDTSCP
 * also waits for every earlier instruction to execute).  The two are
 * not one atomic read: a thread moved to another CPU between them
 * records the CPU it ran on just before or after the time, which
 * RDTSCP's own CPU number cannot promise either once it returns.
 */
enum lpt_cpu_insn {
	LPT_CPU_NONE,		/* RDTSC only: CPU unknown */
	LPT_CPU_RDTSCP,
	LPT_CPU_RDPID,		/* RDTSC + RDPID */
};

static inline __attribute__((no_instrument_function)) uint64_t lpt_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* TSC and the CPU it was read on. */
static inline __attribute__((no_instrument_function))
uint64_t lpt_rdtscp(uint32_t *cpu)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	*cpu = aux & LPT_TSC_AUX_CPU;
	return (uint64_t)hi << 32 | lo;
}

/* The CPU number (TSC_AUX) alone. */
static inline __attribute__((no_instrument_function)) uint32_t lpt_rdpid(void)
{
	uint64_t aux;

	__asm__ volatile("rdpid %0" : "=r"(aux));
	return aux & LPT_TSC_AUX_CPU;
}

/* CPUID @leaf (subleaf 0): EAX, and ECX and EDX in @c and @d. */
static inline unsigned int lpt_cpuid(unsigned int leaf, unsigned int *c,
				     unsigned int *d)
{
	unsigned int a, b;

	__asm__ volatile("cpuid"
			 : "=a"(a), "=b"(b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(0));
	return a;
}

/* The best enum lpt_cpu_insn this CPU has (valgrind's has no RDPID). */
static inline enum lpt_cpu_insn lpt_cpu_insn_best(void)
{
	unsigned int c, d;

	if (lpt_cpuid(0, &c, &d) >= LPT_CPUID_FEATURES7) {
		lpt_cpuid(LPT_CPUID_FEATURES7, &c, &d);
		if (c & LPT_CPUID_RDPID)
			return LPT_CPU_RDPID;
	}
	lpt_cpuid(LPT_CPUID_EXT, &c, &d);
	return d & LPT_CPUID_RDTSCP ? LPT_CPU_RDTSCP : LPT_CPU_NONE;
}

/* Two points (TSC, CLOCK_MONOTONIC ns) relating the clocks linearly. */
struct lpt_clock {
	uint64_t tsc0, ns0;	/* taken at init */
	uint64_t tsc1, ns1;	/* taken when writing */
};

uint64_t lpt_now_ns(void);
void lpt_clock_start(void);
void lpt_clock_finish(struct lpt_clock *clk);
uint64_t lpt_tsc_ns(const struct lpt_clock *clk, uint64_t tsc);

#pragma GCC visibility pop

#endif /* LPT_CLOCK_H */
