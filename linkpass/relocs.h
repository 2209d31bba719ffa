/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding one relocation from a section read in place.  The layout
 * (Rel or Rela, 32- or 64-bit) is chosen once per image; callers pass it
 * as a constant to an always-inline loop so the compiler makes one copy
 * of the loop per layout instead of testing the layout per entry.
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

static inline size_t reloc_entsize(enum reloc_layout l)
{
	switch (l) {
	case RELA64:
		return sizeof(Elf64_Rela);
	case REL64:
		return sizeof(Elf64_Rel);
	case RELA32:
		return sizeof(Elf32_Rela);
	default:
		return sizeof(Elf32_Rel);
	}
}

/*
 * The one switch over relocation layouts: call @fn(layout, ...) with
 * the layout a compile-time constant in each case, so that an
 * always-inline @fn compiles into one loop per layout instead of
 * testing the layout at each entry.
 */
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

/*
 * The mapped data may be unaligned for the struct type, so copy each
 * entry out with memcpy (the compiler turns it into plain loads).
 */
static __always_inline void
reloc_get(enum reloc_layout l, const void *base, size_t i, struct reloc *r)
{
	const char *p = (const char *)base + i * reloc_entsize(l);

	switch (l) {
	case RELA64: {
		Elf64_Rela e;

		memcpy(&e, p, sizeof(e));
		r->offset = e.r_offset;
		r->sym = ELF64_R_SYM(e.r_info);
		r->type = ELF64_R_TYPE(e.r_info);
		r->addend = e.r_addend;
		break;
	}
	case REL64: {
		Elf64_Rel e;

		memcpy(&e, p, sizeof(e));
		r->offset = e.r_offset;
		r->sym = ELF64_R_SYM(e.r_info);
		r->type = ELF64_R_TYPE(e.r_info);
		r->addend = 0;
		break;
	}
	case RELA32: {
		Elf32_Rela e;

		memcpy(&e, p, sizeof(e));
		r->offset = e.r_offset;
		r->sym = ELF32_R_SYM(e.r_info);
		r->type = ELF32_R_TYPE(e.r_info);
		r->addend = e.r_addend;
		break;
	}
	case REL32:
	default: {
		Elf32_Rel e;

		memcpy(&e, p, sizeof(e));
		r->offset = e.r_offset;
		r->sym = ELF32_R_SYM(e.r_info);
		r->type = ELF32_R_TYPE(e.r_info);
		r->addend = 0;
		break;
	}
	}
}

/*
 * Only the offset, or only the symbol index, of entry @i: the scan's
 * hot loop reads these two for every entry and the rest for few.
 */
static __always_inline uint64_t
reloc_offset(enum reloc_layout l, const void *base, size_t i)
{
	const char *p = (const char *)base + i * reloc_entsize(l);
	uint64_t v64;
	uint32_t v32;

	if (l == RELA64 || l == REL64) {
		memcpy(&v64, p, sizeof(v64));
		return v64;
	}
	memcpy(&v32, p, sizeof(v32));
	return v32;
}

static __always_inline uint64_t
reloc_sym(enum reloc_layout l, const void *base, size_t i)
{
	const char *p = (const char *)base + i * reloc_entsize(l);
	uint64_t info64;
	uint32_t info32;

	if (l == RELA64 || l == REL64) {
		memcpy(&info64, p + 8, sizeof(info64));
		return ELF64_R_SYM(info64);
	}
	memcpy(&info32, p + 4, sizeof(info32));
	return ELF32_R_SYM(info32);
}

static __always_inline uint32_t
reloc_type(enum reloc_layout l, const void *base, size_t i)
{
	const char *p = (const char *)base + i * reloc_entsize(l);
	uint64_t info64;
	uint32_t info32;

	if (l == RELA64 || l == REL64) {
		memcpy(&info64, p + 8, sizeof(info64));
		return (uint32_t)ELF64_R_TYPE(info64);
	}
	memcpy(&info32, p + 4, sizeof(info32));
	return ELF32_R_TYPE(info32);
}

/*
 * Encode @r as entry @i of a relocation array in layout @l.  Rel
 * layouts have no addend field: the caller puts r->addend in the
 * relocated bytes (see table_entry_put()).
 */
static inline void reloc_put(enum reloc_layout l, void *base, size_t i,
			     const struct reloc *r)
{
	char *p = (char *)base + i * reloc_entsize(l);

	switch (l) {
	case RELA64: {
		Elf64_Rela e = {
			.r_offset = r->offset,
			.r_info = ELF64_R_INFO(r->sym, r->type),
			.r_addend = r->addend,
		};

		memcpy(p, &e, sizeof(e));
		break;
	}
	case REL64: {
		Elf64_Rel e = {
			.r_offset = r->offset,
			.r_info = ELF64_R_INFO(r->sym, r->type),
		};

		memcpy(p, &e, sizeof(e));
		break;
	}
	case RELA32: {
		Elf32_Rela e = {
			.r_offset = (Elf32_Addr)r->offset,
			.r_info = ELF32_R_INFO((Elf32_Word)r->sym, r->type),
			.r_addend = (Elf32_Sword)r->addend,
		};

		memcpy(p, &e, sizeof(e));
		break;
	}
	case REL32: {
		Elf32_Rel e = {
			.r_offset = (Elf32_Addr)r->offset,
			.r_info = ELF32_R_INFO((Elf32_Word)r->sym, r->type),
		};

		memcpy(p, &e, sizeof(e));
		break;
	}
	}
}

#endif
