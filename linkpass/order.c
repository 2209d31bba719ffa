// SPDX-License-Identifier: GPL-2.0
/* Linear-time ordering by (section, address): LSD radix + counting sort. */
#include "order.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "util.h"

/* 11-bit digits: the counts (16 KiB) stay in the L1 cache */
#define DIGIT_BITS	11
#define NDIGITS		BIT(DIGIT_BITS)

/* One stable counting pass of @idx into @out by the digit of @key. */
static bool radix_pass(const uint64_t *key, unsigned int shift,
		       const uint32_t *idx, uint32_t *out, size_t n,
		       size_t *count)
{
	size_t i, sum = 0;

	memset(count, 0, NDIGITS * sizeof(*count));
	for (i = 0; i < n; i++)
		count[(key[idx[i]] >> shift) & (NDIGITS - 1)]++;
	/* a digit every entry shares orders nothing: skip the pass */
	if (count[(key[idx[0]] >> shift) & (NDIGITS - 1)] == n)
		return false;
	for (i = 0; i < NDIGITS; i++) {
		size_t c = count[i];

		count[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		out[count[(key[idx[i]] >> shift) & (NDIGITS - 1)]++] = idx[i];
	return true;
}

uint32_t *order_by_section_addr(const uint32_t *sec, const uint64_t *addr,
				size_t n, size_t nsecs)
{
	uint32_t *idx = xmalloc((n ? n : 1) * sizeof(*idx));
	uint32_t *tmp = xmalloc((n ? n : 1) * sizeof(*tmp)), *swap;
	size_t *count = xmalloc((nsecs + 1 < NDIGITS ? NDIGITS : nsecs + 1) *
				sizeof(*count));
	unsigned int shift;
	size_t i, sum = 0;

	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	if (n < 2)
		goto out;
	for (shift = 0; shift < 64; shift += DIGIT_BITS) {
		if (!radix_pass(addr, shift, idx, tmp, n, count))
			continue;
		swap = idx;
		idx = tmp;
		tmp = swap;
	}
	if (!sec || nsecs < 2)
		goto out;
	/* stable counting sort by section keeps the address order inside */
	memset(count, 0, (nsecs + 1) * sizeof(*count));
	for (i = 0; i < n; i++)
		count[sec[idx[i]]]++;
	for (i = 0; i < nsecs; i++) {
		size_t c = count[i];

		count[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		tmp[count[sec[idx[i]]]++] = idx[i];
	swap = idx;
	idx = tmp;
	tmp = swap;
out:
	free(tmp);
	free(count);
	return idx;
}
