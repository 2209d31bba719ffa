/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one writer of ELF output.  A struct elfw owns the output file
 * (written atomically through struct outfile), its sections and its
 * section-name table.  Three ways in:
 *
 *   elfw_new()      a fresh relocatable object; elfw lays it out itself
 *                   (each section at its alignment, the section headers
 *                   last, as libelf would) and writes it in order, from
 *                   the sections' own buffers or, for a filled section,
 *                   from pieces made as they are written;
 *   elfw_rewrite()  a copy of an existing object with sections appended
 *                   through libelf, which lays the copy out again;
 *   elfw_patch()    a copy of an existing file whose bytes elfw_put()
 *                   changes in place: nothing moves, every byte not put
 *                   stays as it was (linkpass nop).
 *
 * Then elfw_add_section() (or, new objects only, elfw_add_filled_section())
 * for each new section, or elfw_put() for each patch, and elfw_commit()
 * (or elfw_abort()).  The table
 * both paths write is an array of addresses with one relocation each:
 * addr_reloc_put() and addr_value_put() encode an entry, struct
 * addr_table holds a whole table (linkpass obj), table_write.c fills
 * the image's table piece by piece.
 */
#ifndef LINKPASS_ELFWRITE_H
#define LINKPASS_ELFWRITE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arch.h"
#include "compiler.h"
#include "image.h"
#include "relocs.h"
#include "util.h"

/* A growable string table; offset 0 is the empty name. */
struct strbuf {
	char *p;
	size_t len, cap;
};

size_t strbuf_add(struct strbuf *b, const char *s);
void strbuf_free(struct strbuf *b);

/*
 * Make entries [@first, @first + @n) of a filled section at @out
 * (@n times its sh_entsize bytes).
 */
typedef void elfw_fill_fn(void *ctx, size_t first, size_t n, void *out);

struct elfw_sec {
	GElf_Shdr sh;
	const void *buf;	/* not owned */
	elfw_fill_fn *fill;	/* non-NULL: a filled section (no buf) */
	void *ctx;
};

struct elfw {
	const char *path;	/* the target, for messages */
	struct outfile of;
	const struct arch *arch;
	/* elfw_new() */
	struct elfw_sec *secs;	/* [0] is the null section */
	size_t nsecs, cap;
	struct strbuf shstrtab;
	uint8_t osabi;
	uint32_t e_flags;	/* 0 unless set after elfw_new() (riscv: the
				 * image's float ABI, which ld checks)
				 */
	/* elfw_rewrite() */
	Elf *elf;
	char *names;		/* the grown section-name table */
	/* elfw_patch(): the copy's size, which elfw_put() stays inside */
	bool patching;
	uint64_t size;
};

int elfw_new(struct elfw *w, const char *path, const struct arch *arch,
	     uint8_t osabi);
/* A copy of @im's file, to replace it on commit. */
int elfw_rewrite(struct elfw *w, struct image *im);
/* The same, to be changed by elfw_put() alone. */
int elfw_patch(struct elfw *w, struct image *im);
/* Write @n bytes at file offset @off of a copy made by elfw_patch(). */
int elfw_put(struct elfw *w, uint64_t off, const void *bytes, size_t n);
/*
 * Append a section named @name with header @tmpl (name, offset, size
 * and alignment filled in) and the bytes @buf, which must stay valid
 * until commit.  Returns its index, or 0 on error.
 */
size_t elfw_add_section(struct elfw *w, const char *name,
			const GElf_Shdr *tmpl, const void *buf, size_t size,
			size_t align);
/*
 * A section of a new object (elfw_new()) of @n entries of
 * @tmpl->sh_entsize bytes, made by @fill(@ctx, ...) piece by piece
 * while the object is written: the whole section is never held in
 * memory.  @fill runs during elfw_commit(); what it reads must stay
 * valid until then.  Returns its index, or 0 on error.
 */
size_t elfw_add_filled_section(struct elfw *w, const char *name,
			       const GElf_Shdr *tmpl, size_t n, size_t align,
			       elfw_fill_fn *fill, void *ctx);
/* The header of section @idx of a new object, to set links later. */
GElf_Shdr *elfw_shdr(struct elfw *w, size_t idx);
int elfw_commit(struct elfw *w);
void elfw_abort(struct elfw *w);

/* A symbol table under construction: [0] is the null symbol. */
struct elfw_syms {
	uint8_t elfclass;
	void *buf;
	size_t n, cap;
	struct strbuf str;
};

void elfw_syms_init(struct elfw_syms *s, uint8_t elfclass);
/* A symbol of value 0: @info as st_info, @other as st_other. */
size_t elfw_sym_add(struct elfw_syms *s, const char *name, uint8_t info,
		    uint8_t other, uint16_t shndx);
void elfw_syms_free(struct elfw_syms *s);
/* Add .symtab and .strtab; returns the .symtab index or 0. */
size_t elfw_add_symtab(struct elfw *w, struct elfw_syms *s,
		       size_t first_global);

/*
 * @n addresses, entry i = symbol + addend through one absolute
 * relocation at offset i * width.  The layout (Rel/Rela, 32/64) is the
 * architecture's, chosen once; Rel keeps the addend in the entry bytes,
 * Rela in the relocation and the bytes stay zero.
 */
struct addr_table {
	enum reloc_layout layout;
	unsigned int width;	/* bytes per entry */
	uint32_t type;		/* the absolute relocation */
	uint8_t *bytes;
	size_t bytes_size;
	void *relocs;
	size_t relocs_size;
};

/* Fails, naming @path, for a layout or width it cannot write. */
int addr_widths_ok(const struct arch *arch, const char *path);
/* The same check, then the table's two buffers. */
int addr_table_init(struct addr_table *t, const struct arch *arch, size_t n,
		    const char *path);
void addr_table_put(struct addr_table *t, size_t i, uint64_t sym,
		    int64_t addend);

/*
 * The two halves of entry @i of an address table, stored in slot @at of
 * a buffer (@at == @i for a whole table, @i - first for a piece of one):
 * its relocation, at offset @i * @width of the table...
 */
static __always_inline void
addr_reloc_put(enum reloc_layout l, unsigned int width, uint32_t type,
	       void *relocs, size_t at, size_t i, uint64_t sym, int64_t addend)
{
	struct reloc r = {
		.offset = i * width,
		.sym = sym,
		.type = type,
		.addend = addend,
	};

	reloc_put(l, relocs, at, &r);
}

/* ...and its bytes: zero for Rela, the addend itself for Rel. */
static __always_inline void
addr_value_put(enum reloc_layout l, unsigned int width, uint8_t *bytes,
	       size_t at, int64_t addend)
{
	if (l == RELA64 || l == RELA32)
		return;
	if (width == 8) {
		memcpy(bytes + at * 8, &addend, 8);
	} else {
		int32_t v = (int32_t)addend;

		memcpy(bytes + at * 4, &v, 4);
	}
}

/*
 * The same with the layout a constant, for loops that choose the
 * layout once; addr_table_put() switches per call.
 */
static __always_inline void
addr_table_put_l(enum reloc_layout l, struct addr_table *t, size_t i,
		 uint64_t sym, int64_t addend)
{
	addr_reloc_put(l, t->width, t->type, t->relocs, i, i, sym, addend);
	addr_value_put(l, t->width, t->bytes, i, addend);
}

void addr_table_free(struct addr_table *t);

#endif
