/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which of a few wanted names (the mcount symbols, anchors, table
 * bounds) could symbol name @name be?  In a kernel most names start
 * with '_', so the first four bytes are hashed: one load and one
 * multiply rule out nearly all, and strcmp() runs for the few left.
 * The answer is the groups the caller gave the names: a wrong "maybe"
 * costs a strcmp(), a wrong "no" never happens.  A slot of one name
 * is checked against its four bytes (riscv64's 90,000 ".L<n>" labels).
 */
#ifndef LINKPASS_NAMEFILTER_H
#define LINKPASS_NAMEFILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define NAMEFILTER_BITS 8	/* 256 slots for about ten names */

struct namefilter {
	const char *strs;	/* the string table names point into */
	uint64_t nstrs;
	uint8_t first[256];	/* by first byte: for names near the end */
	uint8_t shortn[256];	/* by first byte: wanted names of 0-2 bytes */
	uint8_t slot[1u << NAMEFILTER_BITS];	/* by hashed first 4 bytes */
	/* the first 4 bytes of the one name of a slot, unless shared */
	uint32_t key[1u << NAMEFILTER_BITS];
	bool shared[1u << NAMEFILTER_BITS];
};

static inline uint32_t namefilter_hash(uint32_t key)
{
	return (key * 2654435761u) >> (32 - NAMEFILTER_BITS);
}

/* An empty filter for names in the string table [@strs, @strs + @nstrs). */
static inline void namefilter_init(struct namefilter *f, const char *strs,
				   uint64_t nstrs)
{
	memset(f, 0, sizeof(*f));
	f->strs = strs;
	f->nstrs = nstrs;
}

/*
 * Want @name in group(s) @bits: by its first four bytes (NUL included),
 * or its first byte alone when shorter than three.
 */
static inline void namefilter_add(struct namefilter *f, const char *name,
				  uint8_t bits)
{
	uint32_t key, h;

	f->first[(uint8_t)name[0]] |= bits;
	if (strnlen(name, 3) < 3) {
		f->shortn[(uint8_t)name[0]] |= bits;
		return;
	}
	memcpy(&key, name, sizeof(key));
	h = namefilter_hash(key);
	if (!f->slot[h])
		f->key[h] = key;
	else if (f->key[h] != key)
		f->shared[h] = true;
	f->slot[h] |= bits;
}

/* The groups @name may be in (0: none of the wanted names). */
static inline uint8_t namefilter_test(const struct namefilter *f,
				      const char *name)
{
	uint64_t off = (uint64_t)(uintptr_t)name - (uint64_t)(uintptr_t)f->strs;
	uint32_t key, h;
	uint8_t bits;

	/* outside the table, or fewer than 4 bytes left: the first byte */
	if (f->nstrs < sizeof(key) || off > f->nstrs - sizeof(key) ||
	    !f->first[(uint8_t)name[0]])
		return f->first[(uint8_t)name[0]];
	memcpy(&key, name, sizeof(key));
	h = namefilter_hash(key);
	bits = f->slot[h];
	if (bits && !f->shared[h] && f->key[h] != key)
		bits = 0;
	return f->shortn[(uint8_t)name[0]] | bits;
}

#endif
