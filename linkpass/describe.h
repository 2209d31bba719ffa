/* SPDX-License-Identifier: GPL-2.0 */
/* Naming an address for humans: "<function>+0x<off> <section>". */
#ifndef LINKPASS_DESCRIBE_H
#define LINKPASS_DESCRIBE_H

#include "funcs.h"
#include "image.h"
#include "options.h"
#include "site.h"

/* For check's findings and the sites command. */
extern const char *const verdict_name[NR_VERDICTS];
/* A dropped record at @addr, for explaining stale table entries. */
const struct site *scan_find_dropped(const struct scan_result *r,
				     uint64_t addr);

/*
 * "func+0x4 .text", "<none> .text" or "<none> <none>"; "func-0x8 .text"
 * for an address in no function from which nops run into func's entry
 * (a pad of -fpatchable-function-entry=N,M with M nops before it).
 */
const char *describe_addr(struct image *im, const struct funcs *f,
			  uint64_t addr, char *buf, size_t len);
/* Up to 6 bytes at @addr as hex, or "<no bytes>". */
const char *describe_bytes(struct image *im, uint64_t addr, char *buf,
			   size_t len);
/* The same at offset @off of section @sec. */
const char *describe_section_bytes(struct image *im, struct section *sec,
				   uint64_t off, char *buf, size_t len);
/*
 * A place of a relocatable object: ".text+0x4 (func+0x4)", or
 * ".text+0x4 (<none>)" where no function covers it, or
 * ".text+0x0 (func-0x8)" before func's entry as describe_addr() says.
 */
const char *describe_place(struct image *im, const struct funcs *f,
			   const struct place *p, char *buf, size_t len);

/*
 * The live function whose pad (M nops before its entry) holds @addr,
 * in no function, or NULL.  @hint as for funcs_lookup().
 */
const struct func *describe_pad_of(struct image *im, const struct funcs *f,
				   struct section *sec, uint64_t addr,
				   long *hint);

/*
 * check's words for a finding @kind (enum finding) at @p, with @r's
 * functions and drop reasons: "0x<addr> <describe_addr>[: bytes ..[;
 * call <verdict>]]", or an object's describe_place()[: bytes ..].
 */
void describe_finding(struct image *im, struct scan_result *r, int kind,
		      const struct place *p, char *buf, size_t len);
/*
 * check's linked image: unless the table's @n live entries @v are
 * exactly @r's sites (or --byte-audit gave them), scan again with the
 * drop reasons, for describe_finding() to explain what differs.
 */
int explain_sites(struct image *im, const struct options *o,
		  struct scan_result *r, const struct place *v, size_t n);
/* nop's words for a refused site @p, at @off of @sec (or NULL) */
void describe_nop_site(struct image *im, const struct place *p,
		       struct section *sec, uint64_t off, char *buf,
		       size_t len);

/*
 * print_entry.c: the lines of dump and sites.  Where the previous entry
 * was: lines of a sorted table then cost a few steps each instead of a
 * search.  Start with DESCRIBE_CURSOR_INIT.
 */
struct describe_cursor {
	struct section *sec;
	long hint;
};

#define DESCRIBE_CURSOR_INIT { NULL, -1 }

/*
 * One line of dump and sites output, "0x<addr> <describe_addr>", the
 * same bytes as printf would make, formatted by hand: a kernel's table
 * has hundreds of thousands of lines and the driver dumps it twice.
 */
void describe_print_entry(struct image *im, const struct funcs *f,
			  uint64_t addr, struct describe_cursor *c);

#endif
