// SPDX-License-Identifier: GPL-2.0
/*
 * Memory tuning for big inputs: huge pages for the big blocks (the
 * entry maps, the kept sites) and a reused heap for a big input file,
 * as the quick scan starts (fastscan.c).
 */
#include <limits.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "heap.h"

/*
 * A big block (the table being written, the entry bitmaps, the sites of
 * a kernel-sized image) is backed by its own mapping, and faulting it in
 * 4 KiB at a time cost the scan more than a tenth of its time.  Ask for
 * transparent huge pages on the 2 MiB-aligned part of it, before its
 * pages are first touched; where THP is off this changes nothing.
 */
#define HUGE_MIN (4u << 20)
#define HUGE_ALIGN ((uintptr_t)2 << 20)

static void madvise_huge(void *p, size_t size)
{
	uintptr_t from, to;

	from = ((uintptr_t)p + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1);
	to = ((uintptr_t)p + size) & ~(HUGE_ALIGN - 1);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}

void huge_hint(void *p, size_t size)
{
	if (size >= HUGE_MIN)
		madvise_huge(p, size);
}

/*
 * The heap for a big input.  The scan of the 2,000-unit sample took
 * 3,900 page faults, most of them in its few big arrays (the sites, the
 * entry maps, the kept sites), one 4 KiB page at a time, and half its
 * time in the kernel.  For an input of HEAP_BIG_INPUT bytes or more,
 * every allocation comes from the main heap (one arena, no block
 * mmapped below 32 MiB, nothing trimmed), and a quarter of the input's
 * size of that heap is reserved up front and marked for transparent
 * huge pages before any of it is touched.  Freed blocks are then reused
 * without a new fault, and a 2 MiB page is one fault.  Measured
 * (docs/benchmarks.md, section 5.4h): the 2,000-unit scan in 0.85-0.87
 * of the time, peak RSS +1-5%; a 19 MB kernel image neither gains nor
 * loses, and below 8 MB there is nothing to gain.  Where THP is off,
 * the reuse alone stays.
 */
#define HEAP_BIG_INPUT ((uint64_t)8 << 20)
#define HEAP_RESERVE_MAX ((size_t)31 << 20)	/* below the mmap threshold */

void heap_for_input(uint64_t bytes)
{
	static bool done;
	size_t reserve;
	void *p;

	if (done || bytes < HEAP_BIG_INPUT)
		return;
	done = true;
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	reserve = bytes / 4 < HEAP_RESERVE_MAX ? (size_t)(bytes / 4) :
		  HEAP_RESERVE_MAX;
	p = malloc(reserve);
	if (!p)
		return;
	madvise_huge(p, reserve);
	free(p);	/* stays in the heap: nothing is trimmed */
}
