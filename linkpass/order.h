/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sorting by (section, address) in linear time.  Function symbols and
 * call sites are sorted once per scan, and for a kernel-sized image a
 * comparison sort through qsort() was the largest single cost of the
 * scan (callgrind: 45% of all instructions); a radix sort on the
 * address followed by a stable counting sort on the section is a few
 * passes over the data.
 */
#ifndef LINKPASS_ORDER_H
#define LINKPASS_ORDER_H

#include <stddef.h>
#include <stdint.h>

/*
 * The permutation that sorts entries 0..n-1 by (@sec[i], @addr[i]),
 * stable for equal keys.  @sec may be NULL (all in one section); section
 * numbers are below @nsecs.  The caller frees the returned array.
 */
uint32_t *order_by_section_addr(const uint32_t *sec, const uint64_t *addr,
				size_t n, size_t nsecs);

#endif
