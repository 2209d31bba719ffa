/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which of a few wanted names could symbol name @name be?  A pass over
 * every symbol looks for a handful of names (the mcount symbols, the
 * anchor fallbacks, the table bounds).  The first byte alone rules out
 * little in a kernel, where most names start with '_' ("__pfx_",
 * "__x64_sys_", "__ksymtab_"...); the first four bytes, hashed, rule out
 * nearly all of them with one load and one multiply, so that strcmp()
 * runs only for the few that remain.
 *
 * A filter answers a bit set (the groups the caller gave each name); a
 * wrong "maybe" costs a strcmp(), a wrong "no" never happens.  A slot
 * that one wanted name takes is checked against its four bytes, so a
 * common prefix that hashes there (riscv64's 90,000 ".L<n>" labels) is
 * no "maybe" either.
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
 * Want @name in group(s) @bits.  A name of three bytes or more is its
 * first four bytes, its NUL included when it has three; a shorter one
 * has bytes of the next string after its NUL, so only its first byte
 * can be looked at.
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
