// SPDX-License-Identifier: GPL-2.0
/*
 * table_write_elf() in every relocation layout: Rela and Rel, 32- and
 * 64-bit.  x86_64 and i386 use only RELA64 and REL32, so the other two
 * are made by flipping the rela flag of a copy of their arch entry.
 * Each table object written is read back with linkpass's own reader and
 * each entry checked: offset, symbol, type and value (the addend, or
 * for Rel the entry's bytes).  Each layout is written twice: with four
 * sites, and with BIG_N sites, more than one piece of every filled
 * section (elfwrite.c writes them FILL_PIECE bytes at a time), so that
 * entries either side of each piece boundary are checked too.  Prints
 * one line per layout; exit 1 on any difference.
 *
 *   layouts OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "image.h"
#include "mcount-table.h"
#include "relocs.h"
#include "scan.h"
#include "table_write.h"

static const struct symbol anchors_v[] = {
	{ .name = "anchor_a", .value = 0x1000, .shndx = 1, .bind = STB_GLOBAL },
	{ .name = "anchor_b", .value = 0x5000, .shndx = 2, .bind = STB_GLOBAL },
};
static const struct site few[] = {
	{ .addr = 0x1010, .shndx = 1 },
	{ .addr = 0x1040, .shndx = 1 },
	{ .addr = 0x0ff0, .shndx = 1 },	/* before its anchor */
	{ .addr = 0x5008, .shndx = 2 },
};

/* 4-byte entries of 128 KiB pieces: 32,768 a piece; this is more */
#define BIG_N 40003

static const struct site *sites;
static size_t NSITES;

static int check(const char *path, const struct arch *a)
{
	struct image im;
	struct section *rsec, *tsec;
	struct relocs rel;
	const uint8_t *bytes;
	enum reloc_layout l;
	size_t i;
	int bad = 0;

	if (image_open(&im, path, IMAGE_OBJECT) < 0)
		return 1;
	rsec = image_find_section(&im, a->rela ? ".rela" MCOUNT_SECTION :
				  ".rel" MCOUNT_SECTION);
	tsec = image_find_section(&im, MCOUNT_SECTION);
	if (!rsec || !tsec || image_relocs(&im, rsec, &rel) < 0 ||
	    rel.count != NSITES || tsec->sh.sh_size != NSITES * a->addr_size) {
		printf("  %s: missing or wrongly sized sections\n", path);
		image_close(&im);
		return 1;
	}
	l = rel.layout;
	bytes = image_section_bytes(&im, tsec);
	for (i = 0; i < NSITES; i++) {
		const struct symbol *want = &anchors_v[sites[i].shndx - 1];
		struct reloc r;
		int64_t value;

		reloc_get(l, rel.base, i, &r);
		if (l == RELA64 || l == RELA32) {
			value = r.addend;
		} else if (a->addr_size == 8) {
			memcpy(&value, bytes + i * 8, 8);
		} else {
			int32_t v;

			memcpy(&v, bytes + i * 4, 4);
			value = v;
		}
		if (r.offset != i * a->addr_size || r.type != a->abs_reloc ||
		    r.sym >= im.nsyms || strcmp(im.syms[r.sym].name, want->name) ||
		    value != (int64_t)(sites[i].addr - want->value)) {
			printf("  entry %zu: offset 0x%llx sym %llu type %u value %lld\n",
			       i, (unsigned long long)r.offset,
			       (unsigned long long)r.sym, r.type, (long long)value);
			bad = 1;
		}
	}
	image_close(&im);
	return bad;
}

static int one(const char *dir, uint16_t machine, uint8_t cls, bool rela,
	       const char *name)
{
	const struct symbol *by_shndx[3] = { NULL, &anchors_v[0], &anchors_v[1] };
	const struct symbol *list[2] = { &anchors_v[0], &anchors_v[1] };
	struct anchors an = { .by_shndx = by_shndx, .list = list, .n = 2 };
	struct arch a = *arch_find(machine, cls);
	struct image im;
	char path[4096];
	int bad;

	a.rela = rela;
	memset(&im, 0, sizeof(im));
	im.path = "fake-image";
	im.arch = &a;
	im.nsecs = 3;
	im.ehdr.e_type = ET_EXEC;
	snprintf(path, sizeof(path), "%s/%s.o", dir, name);
	bad = table_write_elf(&im, sites, NSITES, &an, path, NULL) < 0 ||
	      check(path, &a);
	printf("%s %s\n", name, bad ? "FAIL" : "ok");
	return bad;
}

/* Every layout with the sites @v[0..@n). */
static int all(const char *dir, const struct site *v, size_t n,
	       const char *suffix)
{
	char name[64];
	int bad = 0;

	sites = v;
	NSITES = n;
	snprintf(name, sizeof(name), "rela64%s", suffix);
	bad |= one(dir, EM_X86_64, ELFCLASS64, true, name);
	snprintf(name, sizeof(name), "rel64%s", suffix);
	bad |= one(dir, EM_X86_64, ELFCLASS64, false, name);
	snprintf(name, sizeof(name), "rela32%s", suffix);
	bad |= one(dir, EM_386, ELFCLASS32, true, name);
	snprintf(name, sizeof(name), "rel32%s", suffix);
	bad |= one(dir, EM_386, ELFCLASS32, false, name);
	return bad;
}

int main(int argc, char **argv)
{
	struct site *big;
	size_t i;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: layouts OUTDIR\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	bad |= all(argv[1], few, sizeof(few) / sizeof(few[0]), "");
	/* both sections, each site at its own address, some before the
	 * anchor */
	big = calloc(BIG_N, sizeof(*big));
	if (!big)
		return 2;
	for (i = 0; i < BIG_N; i++) {
		big[i].shndx = 1 + i % 2;
		big[i].addr = anchors_v[i % 2].value - 0x100 + 4 * i;
	}
	bad |= all(argv[1], big, BIG_N, "-big");
	free(big);
	return bad;
}
