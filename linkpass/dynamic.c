// SPDX-License-Identifier: GPL-2.0
/*
 * The full tool's part of reading back a PIE's or a shared library's
 * table (the dynsym_value hook of hooks.h): entries that the linker
 * left as absolute dynamic relocations against a symbol.  A kernel
 * links -shared -Bsymbolic, which leaves only RELATIVE ones.
 */
#include "extras.h"
#include "image.h"
#include "util.h"

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
