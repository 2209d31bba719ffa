/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Relocations read in place.  The layout (Rel or Rela, 32 or 64 bits)
 * is chosen once; loops take it as a constant (RELOC_DISPATCH), one
 * copy per layout.
 */
#ifndef LINKPASS_RELOCS_H
#define LINKPASS_RELOCS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "compiler.h"

enum reloc_layout {
	RELA64,
	REL64,
	RELA32,
	REL32,
};

/* One relocation, decoded; see reloc_get(). */
struct reloc {
	uint64_t offset;
	uint64_t sym;
	uint32_t type;
	int64_t addend;
};

struct section;

/* A relocation section's entries, in place in the mapped file. */
struct relocs {
	struct section *rsec;	/* the SHT_REL/SHT_RELA section */
	struct section *target;	/* the section it applies to (sh_info) */
	enum reloc_layout layout;
	const void *base;
	size_t count;
};

static inline enum reloc_layout reloc_layout_pick(uint8_t elfclass, bool rela)
{
	if (elfclass == ELFCLASS64)
		return rela ? RELA64 : REL64;
	return rela ? RELA32 : REL32;
}

static inline bool reloc_has_addend(enum reloc_layout l)
{
	return l == RELA64 || l == RELA32;
}

static inline bool reloc_is64(enum reloc_layout l)
{
	return l == RELA64 || l == REL64;
}

/* Every layout is two or three words (offset, info, addend) of a class. */
static inline size_t reloc_entsize(enum reloc_layout l)
{
	return (reloc_is64(l) ? 8 : 4) * (reloc_has_addend(l) ? 3 : 2);
}

/* The one switch over layouts: @fn(layout, ...), the layout a constant. */
#define RELOC_DISPATCH(l, fn, ...)				\
	do {							\
		switch (l) {					\
		case RELA64:					\
			fn(RELA64, __VA_ARGS__);		\
			break;					\
		case REL64:					\
			fn(REL64, __VA_ARGS__);			\
			break;					\
		case RELA32:					\
			fn(RELA32, __VA_ARGS__);		\
			break;					\
		case REL32:					\
			fn(REL32, __VA_ARGS__);			\
			break;					\
		}						\
	} while (0)

/* Word @k (r_offset, r_info, r_addend) of entry @i; may be unaligned. */
static __always_inline uint64_t
reloc_word(enum reloc_layout l, const void *base, size_t i, unsigned int k)
{
	const char *p = (const char *)base + i * reloc_entsize(l);
	uint64_t v64;
	uint32_t v32;

	if (reloc_is64(l)) {
		memcpy(&v64, p + k * 8, sizeof(v64));
		return v64;
	}
	memcpy(&v32, p + k * 4, sizeof(v32));
	return v32;
}

/* The scan's hot loop reads only these two for most entries. */
static __always_inline uint64_t
reloc_offset(enum reloc_layout l, const void *base, size_t i)
{
	return reloc_word(l, base, i, 0);
}

static __always_inline uint64_t
reloc_sym(enum reloc_layout l, const void *base, size_t i)
{
	uint64_t info = reloc_word(l, base, i, 1);

	return reloc_is64(l) ? ELF64_R_SYM(info) : ELF32_R_SYM(info);
}

static __always_inline uint32_t
reloc_type(enum reloc_layout l, const void *base, size_t i)
{
	uint64_t info = reloc_word(l, base, i, 1);

	return reloc_is64(l) ? (uint32_t)ELF64_R_TYPE(info) :
			       ELF32_R_TYPE(info);
}

static __always_inline void
reloc_get(enum reloc_layout l, const void *base, size_t i, struct reloc *r)
{
	uint64_t addend = reloc_has_addend(l) ? reloc_word(l, base, i, 2) : 0;

	r->offset = reloc_offset(l, base, i);
	r->sym = reloc_sym(l, base, i);
	r->type = reloc_type(l, base, i);
	r->addend = reloc_is64(l) ? (int64_t)addend : (int32_t)addend;
}

/* Encode @r as entry @i; Rel's addend is the caller's to place. */
static inline void reloc_put(enum reloc_layout l, void *base, size_t i,
			     const struct reloc *r)
{
	char *p = (char *)base + i * reloc_entsize(l);

	if (reloc_is64(l)) {
		uint64_t w[3] = { r->offset, ELF64_R_INFO(r->sym, r->type),
				  (uint64_t)r->addend };

		memcpy(p, w, reloc_entsize(l));
	} else {
		uint32_t w[3] = { (uint32_t)r->offset,
				  ELF32_R_INFO((uint32_t)r->sym, r->type),
				  (uint32_t)r->addend };

		memcpy(p, w, reloc_entsize(l));
	}
}

#endif
