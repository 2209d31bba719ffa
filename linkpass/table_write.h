/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing the table: a relocatable ELF object with a sorted
 * __mcount_loc section and one relocation per entry, atomically.
 */
#ifndef LINKPASS_TABLE_WRITE_H
#define LINKPASS_TABLE_WRITE_H

#include "anchor.h"
#include "mcount-table.h"
#include "image.h"
#include "site.h"
#include "util.h"

/* @gate (or NULL) has the last word before the file replaces @out. */
int table_write_elf(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out,
		    const struct out_gate *gate);
/*
 * For this writer and table_asm.c's: does the table go in a writable
 * section, and the visibility of the reference to anchor @s.
 */
bool table_writable(const struct image *im);
uint8_t anchor_ref_vis(const struct symbol *s);

/* table_asm.c: scan --format=asm */
int table_write_asm(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out,
		    const struct out_gate *gate);

#endif
