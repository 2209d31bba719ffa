/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one writer of ELF output, atomically (struct outfile): a new
 * object (elfw_new()), a copy with sections appended through libelf
 * (elfw_rewrite()), or a copy patched in place (elfw_patch()); then
 * elfw_commit() or elfw_abort().
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

struct elfw;

struct elfw_sec {
	GElf_Shdr sh;
	const void *buf;	/* not owned */
	/* non-NULL: writes the bytes instead (table_write.c) */
	int (*write)(struct elfw *w, const struct elfw_sec *s);
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
	uint32_t e_flags;	/* set after elfw_new() (riscv: float ABI) */
	/* elfw_rewrite() */
	Elf *elf;
	char *names;		/* the grown section-name table */
	/* elfw_patch(): the size elfw_put() stays inside */
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
/* Append section @name (@buf valid until commit): its index, or 0. */
size_t elfw_add_section(struct elfw *w, const char *name,
			const GElf_Shdr *tmpl, const void *buf, size_t size,
			size_t align);
int elfw_commit(struct elfw *w);
/* Write @n bytes at @buf to @fd whole, resuming after short writes. */
int write_all(int fd, const void *buf, size_t n, const char *path);
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

/* @n addresses, each symbol + addend by one absolute relocation. */
struct addr_table {
	enum reloc_layout layout;
	unsigned int width;	/* bytes per entry */
	uint32_t type;		/* the absolute relocation */
	uint8_t *bytes;
	size_t bytes_size;
	void *relocs;
	size_t relocs_size;
};

/* The table's two buffers, in @arch's layout and width. */
void addr_table_init(struct addr_table *t, const struct arch *arch, size_t n);
void addr_table_put(struct addr_table *t, size_t i, uint64_t sym,
		    int64_t addend);

/* Entry @i of an address table, in slot @at: its relocation... */
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

void addr_table_free(struct addr_table *t);

#endif
