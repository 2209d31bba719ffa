// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64's next_branch() (arch-refs.c) against a byte-by-byte
 * reference.  The arch entry scans 64 bytes at a time, then 16, then one by one; every
 * branch it reports, and every one it skips, must be the reference's.
 * The buffers are random bytes rich in e8/e9/0f 8x, of every size up
 * to 300 (each loop's end and the tails past it), scanned from every
 * start, with a filter that keeps about half of the targets, none, or
 * all.  Prints "ok N" (the branches compared); exit 1 on a difference.
 *
 *   next_branch [SEED]
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch-refs.h"

#define MAX 300

static bool branch_at(const uint8_t *c, uint64_t size, uint64_t p,
		      uint64_t addr, uint64_t *target)
{
	unsigned int n;
	int32_t rel;

	if (c[p] == 0xe8 || c[p] == 0xe9)
		n = 1;
	else if (c[p] == 0x0f && p + 6 <= size && c[p + 1] >= 0x80 &&
		 c[p + 1] <= 0x8f)
		n = 2;
	else
		return false;
	if (p + n + 4 > size)
		return false;
	memcpy(&rel, c + p + n, sizeof(rel));
	*target = addr + p + n + 4 + (uint64_t)(int64_t)rel;
	return true;
}

static uint64_t reference(const uint8_t *c, uint64_t size, uint64_t from,
			  uint64_t addr, const struct branch_filter *f,
			  uint64_t *target)
{
	uint64_t p;

	for (p = from; p < size; p++)
		if (branch_at(c, size, p, addr, target) &&
		    branch_wanted(f, *target))
			return p;
	return size;
}

static uint64_t rnd(void)
{
	return (uint64_t)rand() << 31 ^ (uint64_t)rand();
}

int main(int argc, char **argv)
{
	static const uint8_t common[] = { 0xe8, 0xe9, 0x0f, 0x85, 0x80,
					  0x8f, 0x90, 0x00, 0xff };
	uint8_t code[MAX];
	uint64_t bucket[4], addr = 0x401000, size, from, p, q, t1, t2;
	struct branch_filter f;
	unsigned long compared = 0;
	int round, i, kind;

	srand(argc > 1 ? (unsigned int)atoi(argv[1]) : 1);
	for (round = 0; round < 40; round++) {
		for (i = 0; i < MAX; i++)
			code[i] = rand() % 3 ? common[rand() % 9] :
					       (uint8_t)rand();
		/* some displacements that land inside the buffer */
		for (i = 0; i + 5 <= MAX; i += 1 + rand() % 7)
			if (code[i] == 0xe8 || code[i] == 0xe9) {
				int32_t rel = (int32_t)(rnd() % MAX) - i - 5;

				memcpy(code + i + 1, &rel, sizeof(rel));
			}
		for (kind = 0; kind < 3; kind++) {
			for (i = 0; i < 4; i++)
				bucket[i] = kind == 0 ? rnd() :
					    kind == 1 ? 0 : ~(uint64_t)0;
			f = (struct branch_filter){
				.lo = addr, .hi = addr + MAX - 1,
				.bucket = bucket, .shift = 1,
			};
			for (size = 0; size <= MAX; size++)
				for (from = 0; from <= size; from++) {
					p = arch_refs_find(EM_X86_64)->next_branch(
						code, size, from, addr, &f, &t1);
					q = reference(code, size, from, addr,
						      &f, &t2);
					if (p != q || (p < size && t1 != t2)) {
						printf("round %d filter %d size %lu from %lu: %lu (target %#lx), reference %lu (target %#lx)\n",
						       round, kind,
						       (unsigned long)size,
						       (unsigned long)from,
						       (unsigned long)p,
						       (unsigned long)t1,
						       (unsigned long)q,
						       (unsigned long)t2);
						return 1;
					}
					compared++;
				}
		}
	}
	printf("ok %lu\n", compared);
	return 0;
}
