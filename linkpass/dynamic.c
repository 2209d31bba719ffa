// SPDX-License-Identifier: GPL-2.0
/*
 * An image's dynamic linking: can another object preempt its symbols
 * (a shared library's anchors, anchor.c), and the value of a dynamic
 * symbol, for reading back a PIE's or a shared library's table
 * (table_read.c): entries that the linker left as absolute dynamic
 * relocations against a symbol.  A kernel links -shared -Bsymbolic,
 * which leaves only RELATIVE ones.
 */
#include "image.h"

#include <string.h>

#include "util.h"

/* The tag and value of dynamic entry @i of @b, either class. */
static void dyn_get(bool is64, const uint8_t *b, size_t i, int64_t *tag,
		    uint64_t *val)
{
	if (is64) {
		Elf64_Dyn d;

		memcpy(&d, b + i * sizeof(d), sizeof(d));
		*tag = d.d_tag;
		*val = d.d_un.d_val;
	} else {
		Elf32_Dyn d;

		memcpy(&d, b + i * sizeof(d), sizeof(d));
		*tag = d.d_tag;
		*val = d.d_un.d_val;
	}
}

/*
 * Set im->interposable from the dynamic section: true for an ET_DYN
 * image with one that is neither a PIE (DF_1_PIE) nor linked
 * -Bsymbolic (DT_SYMBOLIC, DF_SYMBOLIC).  -1 (reported) when the
 * section cannot be read.
 *
 * A PIE comes first in every lookup scope, so nothing preempts its
 * symbols; -Bsymbolic binds every reference inside the image (arm64
 * and riscv kernels with CONFIG_RELOCATABLE are linked -shared
 * -Bsymbolic).  An ET_DYN image
 * without a dynamic section is not loaded by ld.so at all.
 * -Bsymbolic-functions leaves no mark in the image, so a library
 * linked with it still counts as interposable.
 */
int image_read_dynamic(struct image *im)
{
	bool is64 = im->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	size_t esz = is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	bool pie = false, symbolic = false;
	struct section *ds = NULL;
	const uint8_t *b;
	uint64_t val;
	int64_t tag;
	size_t i;

	im->interposable = false;
	if (im->ehdr.e_type != ET_DYN)
		return 0;
	for (i = 1; i < im->nsecs && !ds; i++)
		if (im->secs[i].sh.sh_type == SHT_DYNAMIC)
			ds = &im->secs[i];
	if (!ds || !ds->sh.sh_size)
		return 0;
	if (ds->sh.sh_size % esz)
		return lp_error(im->path, ds->name,
				"size %llu is not a multiple of the dynamic entry size %zu",
				(unsigned long long)ds->sh.sh_size, esz);
	b = image_section_bytes(im, ds);
	if (!b)
		return -1;
	for (i = 0; i < ds->sh.sh_size / esz; i++) {
		dyn_get(is64, b, i, &tag, &val);
		if (tag == DT_NULL)
			break;
		if (tag == DT_FLAGS_1 && (val & DF_1_PIE))
			pie = true;
		if (tag == DT_SYMBOLIC ||
		    (tag == DT_FLAGS && (val & DF_SYMBOLIC)))
			symbolic = true;
	}
	im->interposable = !pie && !symbolic;
	return 0;
}

/*
 * The value of symbol @sym of the dynamic symbol table of relocation
 * section @rs: riscv's GNU ld leaves a PIE's entries as R_RISCV_64
 * against their (global) anchor, with zeros in the bytes.
 */
int dynsym_value(struct image *im, const struct section *rs, uint64_t sym,
		 uint64_t *value)
{
	bool is64 = im->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	size_t esz = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	struct section *ds;
	struct symbol s;
	const uint8_t *b;

	if (rs->sh.sh_link == 0 || rs->sh.sh_link >= im->nsecs)
		return lp_error(im->path, rs->name,
				"sh_link %u names no symbol table", rs->sh.sh_link);
	ds = &im->secs[rs->sh.sh_link];
	if (ds->sh.sh_type == SHT_NOBITS || sym >= ds->sh.sh_size / esz)
		return lp_error(im->path, rs->name,
				"symbol index %llu out of range of %s",
				(unsigned long long)sym, ds->name);
	b = image_section_bytes(im, ds);
	if (!b)
		return -1;
	sym_decode_raw(is64, b, sym, &s);
	*value = s.value;
	return 0;
}
