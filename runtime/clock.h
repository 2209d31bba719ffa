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

/* CPUID 0x80000001, EDX bit 27: RDTSCP. */
#define LPT_CPUID_EXT		0x80000001u
#define LPT_CPUID_RDTSCP	(1u << 27)

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

static inline int lpt_have_rdtscp(void)
{
	unsigned int a, b, c, d;

	__asm__ volatile("cpuid"
			 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			 : "a"(LPT_CPUID_EXT), "c"(0));
	return !!(d & LPT_CPUID_RDTSCP);
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
