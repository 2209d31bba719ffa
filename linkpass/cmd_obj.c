// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass obj: the per-object mode, as recordmcount does it, and the
 * mode for modules (a .ko is one relocatable object).  Each object gets
 * its own __mcount_loc, section-relative, with relocations against a
 * symbol that survives linking: the section's symbol, else a non-weak
 * one defined in it.  The object is rewritten atomically; one that has
 * __mcount_loc already is left alone.
 */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "elfwrite.h"
#include "mcount-table.h"
#include "scan.h"
#include "util.h"

static bool survives_link(const struct symbol *s, size_t shndx)
{
	if (s->shndx != shndx || s->bind == STB_WEAK)
		return false;
	return s->type == STT_SECTION || s->type == STT_FUNC ||
	       s->type == STT_NOTYPE || s->type == STT_OBJECT;
}

/* The symbol index entries of section @shndx are relocated against. */
static long reloc_symbol(const struct image *im, size_t shndx)
{
	long best = -1;
	size_t i;

	for (i = 1; i < im->nsyms; i++) {
		const struct symbol *s = &im->syms[i];

		if (!survives_link(s, shndx))
			continue;
		if (s->type == STT_SECTION)
			return (long)i;
		if (best < 0 || s->value < im->syms[best].value)
			best = (long)i;
	}
	return best;
}

/* Code that calls through the GOT is position-independent. */
static bool pic_code(const struct scan_result *r)
{
	size_t i;

	for (i = 0; i < r->nkept; i++)
		if (r->kept[i].form == CALL_GOT || r->kept[i].form == CALL_ADDR32)
			return true;
	return false;
}

/* Add __mcount_loc and its relocations to a copy of the object. */
static int write_table(struct image *im, const struct scan_result *r)
{
	const struct arch *arch = im->arch;
	GElf_Shdr table = {
		.sh_type = SHT_PROGBITS,
		/* a PIC object's entries become dynamic relocations */
		.sh_flags = SHF_ALLOC | (pic_code(r) ? SHF_WRITE : 0),
		.sh_entsize = arch->addr_size,
	};
	GElf_Shdr rel = {
		.sh_flags = SHF_INFO_LINK,
		.sh_link = (uint32_t)im->symtab->idx,
	};
	long *sym_of = xcalloc(im->nsecs, sizeof(*sym_of));
	struct addr_table t;
	struct elfw w;
	size_t i, tidx;
	uint32_t sh;
	int ret = -1;

	addr_table_init(&t, arch, r->nkept);
	for (i = 0; i < im->nsecs; i++)
		sym_of[i] = -2;	/* not looked up yet */
	for (i = 0; i < r->nkept; i++) {
		sh = r->kept[i].shndx;
		if (sym_of[sh] == -2)
			sym_of[sh] = reloc_symbol(im, sh);
		if (sym_of[sh] < 0) {
			lp_error(im->path, im->secs[sh].name,
				 "no section symbol or non-weak symbol to relocate table entries against");
			goto out_free;
		}
		addr_table_put(&t, i, (uint64_t)sym_of[sh],
			       (int64_t)(r->kept[i].addr -
					 im->syms[sym_of[sh]].value));
	}
	rel.sh_type = reloc_has_addend(t.layout) ? SHT_RELA : SHT_REL;
	rel.sh_entsize = reloc_entsize(t.layout);
	if (elfw_rewrite(&w, im) < 0)
		goto out_free;
	tidx = elfw_add_section(&w, MCOUNT_SECTION, &table, t.bytes,
				t.bytes_size, arch->addr_size);
	rel.sh_info = (uint32_t)tidx;
	if (!tidx || !elfw_add_section(&w, arch->rela ? ".rela" MCOUNT_SECTION :
				       ".rel" MCOUNT_SECTION, &rel, t.relocs,
				       t.relocs_size, arch->addr_size)) {
		elfw_abort(&w);
		goto out_free;
	}
	ret = elfw_commit(&w);
out_free:
	addr_table_free(&t);
	free(sym_of);
	return ret;
}

/*
 * libelf pads each section of the rewritten object to its alignment: a
 * corrupt sh_addralign of 2^36 would write 64 GiB of zeros.  The
 * kernel's largest is 2 MiB.
 */
#define MAX_REWRITE_ALIGN (16u << 20)

static int check_alignments(const struct image *im)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		uint64_t a = im->secs[i].sh.sh_addralign;

		if ((a & (a - 1)) || a > MAX_REWRITE_ALIGN)
			return lp_error(im->path, im->secs[i].name,
					"sh_addralign 0x%llx is not a power of two up to 0x%x, so the object cannot be rewritten",
					(unsigned long long)a, MAX_REWRITE_ALIGN);
	}
	return 0;
}

/* The table of object @o->image, as the comment at the top says. */
static int obj_table(struct options *o)
{
	const char *path = o->image;
	struct scan_result r;
	struct image im;
	int ret = -1;

	if (image_open(&im, path, IMAGE_OBJECT) < 0)
		goto out_close;
	if (image_find_section(&im, MCOUNT_SECTION)) {
		/* a second run, or a compiler's table: not an error */
		printf("linkpass: %s: %s: already present; object left unchanged\n",
		       path, MCOUNT_SECTION);
		ret = 0;
		goto out_close;
	}
	if (check_alignments(&im) < 0)
		goto out_close;
	if (!im.symtab) {
		lp_error(path, ".symtab", "the object has no symbol table");
		goto out_close;
	}
	if (find_sites(&im, &o->scan, &scan_explained, &r) < 0)
		goto out_close;
	/* nothing traced: leave the object as it is */
	ret = r.nkept ? write_table(&im, &r) : 0;
	if (r.nkept && !ret && o->stats)
		printf("linkpass obj %s: %zu entries (%zu references, %zu dropped)\n",
		       path, r.nkept, r.stats.refs, r.ndropped);
	scan_result_free(&r);
out_close:
	image_close(&im);
	return ret ? EXIT_ERROR : EXIT_OK;
}

/*
 * With --check and --nop, one process does what a module's .ko rule
 * needs: the table, its check, then the NOPs (each process start costs
 * about as much as the check of a small module).
 */
int cmd_obj(struct options *o)
{
	int ret = obj_table(o);

	if (ret == EXIT_OK && o->then_check)
		ret = cmd_check(o);
	if (ret == EXIT_OK && o->then_nop)
		ret = cmd_nop(o);
	return ret;
}
