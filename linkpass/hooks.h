/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one plug of the full tool.  The kernel takes a subset of
 * linkpass's files (listed in kernel-files): the commands scan, obj,
 * check and nop, and only what they need there.  The other files add
 * commands, options, architectures and passes through the table below,
 * which extras.c defines.  A build without extras.c (the kernel's) has
 * no such symbol: the weak reference is NULL, extras() gives an empty
 * table, and every hook reads as "none".  No #ifdef: the same sources,
 * a shorter list of files.
 */
#ifndef LINKPASS_HOOKS_H
#define LINKPASS_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

struct anchors;
struct arch;
struct command;
struct func;
struct image;
struct opt;
struct options;
struct out_gate;
struct place;
struct scan_result;
struct scan_stats;
struct section;
struct site;
struct stripped_check;

struct extras {
	/* more commands (main.c) and options (options.c), after the kernel's */
	const struct command *commands;
	size_t ncommands;
	const struct opt *opts;
	size_t nopts;
	const char *usage_note;	/* a line after the options, or NULL */
	/* more architectures, after the kernel's (arch.c) */
	const struct arch *const *arches;
	size_t narches;
	/*
	 * An mcount call that is not at a function's entry (-pg without
	 * -mfentry: after the prologue), in function @fn; @last: the
	 * function of the site kept before it.  The kernel's set drops
	 * it: the kernel calls __fentry__ or has patchable entries.
	 */
	int (*mcount_verdict)(const struct image *im, const struct section *sec,
			      const struct func *fn, const struct site *s,
			      const struct func *last);
	/*
	 * The checks for discarded local symbols (locals.c, stripped.h),
	 * which scan_image() starts and scan_finish() waits for.
	 */
	int (*stripped_start)(struct image *im, struct scan_result *r,
			      int threads, struct stripped_check **job);
	int (*stripped_finish)(struct stripped_check *sc,
			       struct scan_stats *st);
	void (*stripped_cancel)(struct stripped_check *sc);
	/* check --byte-audit: the sites from function entries (audit.h) */
	int (*audit_sites)(const struct options *o, struct image *im,
			   struct scan_result *r);
	/*
	 * check's error for an image whose code kept no relocations,
	 * @code its first code section (audit.c: it names --byte-audit)
	 */
	int (*no_code_relocs)(struct image *im, const struct options *o,
			      const struct section *code);
	/*
	 * A shared library's anchor (anchor.c): im->interposable from
	 * its dynamic section, and __ehdr_start as the one anchor.
	 */
	int (*read_dynamic)(struct image *im);
	int (*ehdr_anchor)(struct image *im, struct anchors *a);
	/* --anchor SYM: every entry relative to that symbol (anchor_dso.c) */
	int (*forced_anchor)(struct image *im, const char *name, size_t nsites,
			     struct anchors *a);
	/* scan --format=asm (table_asm.c) */
	int (*table_write_asm)(struct image *im, const struct site *sites,
			       size_t n, const struct anchors *a,
			       const char *out, const struct out_gate *gate);
	/* scan --stats: the counts and times, after the table is written */
	void (*scan_stats)(struct image *im, const struct options *o,
			   struct scan_result *r, const struct anchors *a,
			   const uint64_t *ns);
	/*
	 * scan's error for an image that names an mcount symbol and has
	 * no site (scan_empty.c: it names --allow-empty); 0 when the
	 * empty table may be written
	 */
	int (*empty_table)(struct image *im, const struct options *o,
			   const struct scan_result *r);
	/*
	 * The function and bytes of a place, for check's finding @kind
	 * (enum finding) and nop's refused site (describe.c); the kernel's
	 * set prints the address, or section + offset
	 */
	void (*describe_finding)(struct image *im, struct scan_result *r,
				 int kind, const struct place *p, char *buf,
				 size_t len);
	void (*describe_nop_site)(struct image *im, const struct place *p,
				  struct section *sec, uint64_t off, char *buf,
				  size_t len);
};

extern const struct extras extras_table __weak;

/* The full tool's table, or an empty one in the kernel's build. */
static inline const struct extras *extras(void)
{
	static const struct extras none;

	return &extras_table ? &extras_table : &none;
}

#endif
