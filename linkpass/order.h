/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sorting by (section, address) in linear time: for a kernel-sized
 * image qsort() was 45% of the scan's instructions (callgrind).
 */
#ifndef LINKPASS_ORDER_H
#define LINKPASS_ORDER_H

#include <stddef.h>
#include <stdint.h>

/*
 * The permutation (to free) that sorts entries 0..n-1 stably by
 * (@sec[i] < @nsecs, @addr[i]); @sec may be NULL (one section).
 */
uint32_t *order_by_section_addr(const uint32_t *sec, const uint64_t *addr,
				size_t n, size_t nsecs);

#endif
