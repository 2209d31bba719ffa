// SPDX-License-Identifier: GPL-2.0
/*
 * The full tool's anchors: a shared library's (is the image
 * interposable? then __ehdr_start), and the one --anchor names.
 */
#include "extras.h"

#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "image.h"
#include "util.h"

#define ANCHOR_PREEMPTIBLE \
	"anchor symbol is exported from a shared library, so the dynamic linker may bind it in another object; leave out --anchor (the entries are then relative to __ehdr_start)"
#define ANCHOR_UNREACHABLE \
	"anchor symbol is local, hidden, an IFUNC or not in an allocated section, so the table object cannot refer to it; choose another with --anchor"

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
 * The address of the ELF header in memory, as the linkers define
 * __ehdr_start: the start of the PT_LOAD segment at file offset 0, when
 * it holds the whole header.  1 and *@addr set, 0 when no segment loads
 * the header, -1 (reported) when the program headers cannot be read.
 */
static int image_ehdr_addr(struct image *im, uint64_t *addr)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(im->elf, &n) < 0)
		return lp_elf_error(im->path, "program headers", "cannot read");
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(im->elf, (int)i, &ph))
			return lp_elf_error(im->path, "program headers",
					    "cannot read");
		if (ph.p_type == PT_LOAD && ph.p_offset == 0 &&
		    ph.p_filesz >= im->ehdr.e_ehsize) {
			*addr = ph.p_vaddr;
			return 1;
		}
	}
	return 0;
}

/*
 * A shared library's image-wide anchor into a->ehdr, when a segment
 * loads the ELF header.  Once the table refers to it, the image defines
 * __ehdr_start itself; then both values must agree.
 */
int ehdr_anchor(struct image *im, struct anchors *a)
{
	static const char *const name[] = { ANCHOR_EHDR };
	struct symbol def;
	uint64_t addr = 0;
	bool found;
	int ret;

	ret = image_ehdr_addr(im, &addr);
	if (ret <= 0)
		return ret;
	if (fast_find_symbols(im, name, 1, &def, &found) < 0)
		return -1;
	if (found && def.value != addr)
		return lp_error(im->path, ANCHOR_EHDR,
				"value 0x%llx is not the address of the ELF header (0x%llx, from the PT_LOAD at file offset 0)",
				(unsigned long long)def.value,
				(unsigned long long)addr);
	a->ehdr = (struct symbol){
		.name = ANCHOR_EHDR, .value = addr, .shndx = SHN_ABS,
		.type = STT_NOTYPE, .bind = STB_LOCAL, .vis = STV_HIDDEN,
	};
	return 0;
}

int forced_anchor(struct image *im, const char *forced, size_t nsites,
		  struct anchors *a)
{
	const struct symbol *s;
	size_t i;

	if (image_symbols(im) < 0)
		return -1;
	s = image_find_symbol(im, forced);
	if (!s)
		return lp_error(im->path, forced,
				"anchor symbol is not defined in the image; choose another with --anchor");
	if (!anchor_eligible(im, s))
		return lp_error(im->path, forced, "%s",
				im->interposable && anchor_exported(s) ?
				ANCHOR_PREEMPTIBLE : ANCHOR_UNREACHABLE);
	for (i = 0; i < im->nsecs; i++)
		a->by_shndx[i] = s;
	if (nsites)
		a->list[a->n++] = s;
	return 0;
}
