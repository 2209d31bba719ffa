/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing the table: a relocatable ELF object with a sorted
 * __mcount_loc section and one relocation per entry, or the same as
 * assembler text.  Both are written atomically.
 */
#ifndef LINKPASS_TABLE_WRITE_H
#define LINKPASS_TABLE_WRITE_H

#include "anchor.h"
#include "compiler.h"
#include "mcount-table.h"
#include "image.h"
#include "site.h"
#include "util.h"

/*
 * SHF_GNU_RETAIN: keep the section under --gc-sections (GNU ld 2.36+,
 * lld 13+).  Nothing refers to the table except __start_/__stop_
 * symbols, which do not keep sections alive under -z start-stop-gc.
 */
#ifndef SHF_GNU_RETAIN
#define SHF_GNU_RETAIN BIT(21)
#endif

/*
 * Write the table of @sites to @out, as an object or as assembly; @gate
 * (or NULL) has the last word before the file replaces @out (util.h).
 */
int table_write_elf(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out,
		    const struct out_gate *gate);
/* the full tool's (table_asm.c) */
int table_write_asm(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out,
		    const struct out_gate *gate);
/*
 * Both writers: does the table go in a writable section (a PIE's
 * entries get dynamic relocations), and the visibility of the
 * reference to anchor @s.
 */
bool table_writable(const struct image *im);
uint8_t anchor_ref_vis(const struct symbol *s);

#endif
