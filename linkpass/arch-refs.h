/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the stripped-objects check (stripped.c) needs of an architecture:
 * how a relocation refers to an address, and where code may branch to
 * one.  One table per architecture (arch-refs.c).
 */
#ifndef LINKPASS_ARCH_REFS_H
#define LINKPASS_ARCH_REFS_H

#include <stdbool.h>
#include <stdint.h>

/* What a code or data relocation says about the address it refers to. */
enum ref_kind {
	REF_NONE,	/* not an address (GOT slot, TLS, size, ...) */
	REF_ABS,	/* the field holds S + A: the address itself */
	REF_PCREL,	/* a 4-byte field of S + A - P at the end of an
			 * instruction: the address is S + A + 4
			 */
};

/*
 * The branch destinations next_branch() reports: those in [lo, hi]
 * whose 2^shift-byte bucket (counted from lo) has its bit set in
 * @bucket, or every one in [lo, hi] when @bucket is NULL.
 */
struct branch_filter {
	uint64_t lo, hi;		/* lo <= hi */
	const uint64_t *bucket;
	unsigned int shift;
};

/* Called for every branch the search finds: [lo, hi] is one compare. */
static inline bool branch_wanted(const struct branch_filter *f, uint64_t t)
{
	uint64_t b;

	if (t - f->lo > f->hi - f->lo)
		return false;
	b = (t - f->lo) >> f->shift;
	return !f->bucket || (f->bucket[b / 64] >> (b % 64) & 1);
}

/*
 * The longest branch next_branch() reports, in bytes (x86's jcc rel32,
 * 0f 8x and four bytes of displacement): a scan of part of a section
 * reads this many bytes past its part.
 */
#define ARCH_BRANCH_MAX 6

struct arch_refs {
	uint16_t machine;	/* EM_* */
	/*
	 * reloc_ref: how relocation @type refers to an address.
	 * next_branch: the first offset at or after @from where @code
	 * (loaded at @addr, @size bytes) may hold a direct call or jump
	 * with a 32-bit displacement to a destination @f wants, that
	 * destination in *@target; @size when none.  Bytes are not
	 * decoded, so any position matches (see stripped.c); the filter
	 * is applied in the scan's own loop because most positions lead
	 * elsewhere.
	 */
	enum ref_kind (*reloc_ref)(uint32_t type);
	uint64_t (*next_branch)(const uint8_t *code, uint64_t size,
				uint64_t from, uint64_t addr,
				const struct branch_filter *f,
				uint64_t *target);
};

/* The table of ELF machine @machine, or NULL: that evidence is left out. */
const struct arch_refs *arch_refs_find(uint16_t machine);

#endif
