// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - CLOCK_MONOTONIC timings and the TSC calibration of the trace
 * files: events carry TSC values (cheap to read in the hot path); the
 * writer maps them to CLOCK_MONOTONIC by the two points taken at init
 * and at writing time.
 */
#include <errno.h>
#include <time.h>

#include "clock.h"

/* Shortest span used to relate TSC ticks to nanoseconds. */
#define LPT_CALIBRATE_NS	20000000ull
#define LPT_NS_PER_SEC		1000000000ull

static struct lpt_clock lpt_base;

uint64_t lpt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * LPT_NS_PER_SEC + ts.tv_nsec;
}

/* The first calibration point, taken at init. */
void lpt_clock_start(void)
{
	lpt_base.ns0 = lpt_now_ns();
	lpt_base.tsc0 = lpt_rdtsc();
}

/* The second point, at least LPT_CALIBRATE_NS after the first. */
void lpt_clock_finish(struct lpt_clock *clk)
{
	struct timespec ts;
	uint64_t left;

	if (!lpt_base.ns0)		/* written without init */
		lpt_clock_start();
	*clk = lpt_base;
	left = lpt_now_ns() - clk->ns0;
	if (left < LPT_CALIBRATE_NS) {
		left = LPT_CALIBRATE_NS - left;
		ts.tv_sec = left / LPT_NS_PER_SEC;
		ts.tv_nsec = left % LPT_NS_PER_SEC;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	clk->ns1 = lpt_now_ns();
	clk->tsc1 = lpt_rdtsc();
}

/* CLOCK_MONOTONIC nanoseconds of a TSC value, by linear interpolation. */
uint64_t lpt_tsc_ns(const struct lpt_clock *clk, uint64_t tsc)
{
	unsigned __int128 span = clk->ns1 - clk->ns0;
	uint64_t ticks = clk->tsc1 - clk->tsc0;

	if (!ticks)
		return clk->ns0;
	if (tsc >= clk->tsc0)
		return clk->ns0 + (uint64_t)(span * (tsc - clk->tsc0) / ticks);
	return clk->ns0 - (uint64_t)(span * (clk->tsc0 - tsc) / ticks);
}
