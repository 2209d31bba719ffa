/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one plug of the full tool: its files (those not in kernel-files)
 * add commands, options, architectures and passes through this table,
 * which extras.c defines.  In the kernel's build the weak reference is
 * NULL and every hook reads as "none".  No #ifdef.
 */
#ifndef LINKPASS_HOOKS_H
#define LINKPASS_HOOKS_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

struct anchors;
struct arch;
struct command;
struct elfw;
struct findings;
struct func;
struct funcs;
struct image;
struct opt;
struct options;
struct out_gate;
struct place;
struct scan_opts;
struct scan_result;
struct scan_stats;
struct scan_want;
struct section;
struct site;
struct stripped_check;
struct table_parts;

/* ELF32 objects (elf32.c): a 64-bit header or symbol narrowed into @out */
struct elf32_writer {
	void (*ehdr)(void *out, const Elf64_Ehdr *e);
	void (*shdr)(void *out, const Elf64_Shdr *s);
	void (*sym)(void *out, const Elf64_Sym *s);
};

struct extras {
	/* more commands (main.c) and options (options.c), after the kernel's */
	const struct command *commands;
	size_t ncommands;
	const struct opt *opts;
	size_t nopts;
	const char *usage_note;	/* a line after the options, or NULL */
	/* hints naming the full tool's options: check's, scan's */
	const char *more_note, *zeroed_note, *anchor_note;
	/*
	 * more architectures, after the kernel's, or replacing one of the
	 * same machine and class (arch.c); and i386's ELF32
	 */
	const struct arch *const *arches;
	size_t narches;
	const struct elf32_writer *elf32;
	/*
	 * An mcount call after @fn's prologue (-pg without -mfentry);
	 * @last: the function of the site kept before it.  The kernel
	 * calls __fentry__ or has patchable entries.
	 */
	int (*mcount_verdict)(const struct image *im, const struct section *sec,
			      const struct func *fn, const struct site *s,
			      const struct func *last);
	/* is @s, in no function, an overridden weak body's (dead_body.c)? */
	bool (*dead_body)(const struct image *im, const struct funcs *f,
			  const struct site *s);
	/* the checks for discarded local symbols (locals.c, stripped.h) */
	int (*stripped_start)(struct image *im, struct scan_result *r,
			      int threads, struct stripped_check **job);
	int (*stripped_finish)(struct stripped_check *sc,
			       struct scan_stats *st);
	void (*stripped_cancel)(struct stripped_check *sc);
	/* check --byte-audit: the sites from function entries (audit.h) */
	int (*audit_sites)(const struct options *o, struct image *im,
			   struct scan_result *r);
	/* check's error, naming --byte-audit, for code without -q (audit.c) */
	int (*code_relocs)(struct image *im, const struct options *o);
	/*
	 * The end of check's failed summary for @fd among @entries
	 * non-zero entries (audit.c: a wrong pad geometry), or NULL
	 */
	const char *(*verdict_note)(const struct options *o, size_t entries,
				    const struct findings *fd);
	/* a shared library: im->interposable, __ehdr_start (anchor_dso.c) */
	int (*read_dynamic)(struct image *im);
	int (*ehdr_anchor)(struct image *im, struct anchors *a);
	/* a PIE's table entry against dynamic symbol @sym (table_dyn.c) */
	int (*dynsym_value)(struct image *im, const struct section *rs,
			    uint64_t sym, uint64_t *value);
	/* --anchor SYM: every entry relative to that symbol (anchor_dso.c) */
	int (*forced_anchor)(struct image *im, const char *name, size_t nsites,
			     struct anchors *a);
	/* scan --format=asm (table_asm.c) */
	int (*table_write_asm)(struct image *im, const struct site *sites,
			       size_t n, const struct anchors *a,
			       const char *out, const struct out_gate *gate);
	/* table_write_elf()'s two big sections, streamed (table_fill.c) */
	size_t (*table_sections)(struct elfw *w, struct table_parts *t);
	/*
	 * find_sites() without drop reasons, the quick way (fastscan.c):
	 * the symbols read in place, the entries of the functions as
	 * bitmaps (entries.h) in place of the sorted index, threads for a
	 * big image.  0 or -1 as find_sites(); 1, with @r empty, where it
	 * cannot tell and scan.c's exact scan must.
	 */
	int (*fast_scan)(struct image *im, const struct scan_opts *o,
			 const struct scan_want *want, struct scan_result *r);
	/* scan --stats: the counts and times, after the table is written */
	void (*scan_stats)(struct image *im, const struct options *o,
			   struct scan_result *r, const struct anchors *a,
			   const uint64_t *ns);
	/* scan's error naming --allow-empty for no site, or 0 (scan_empty.c) */
	int (*empty_table)(struct image *im, const struct options *o,
			   const struct scan_result *r);
	/* a place's function and bytes, for check and nop (describe.c) */
	void (*describe_finding)(struct image *im, struct scan_result *r,
				 int kind, const struct place *p, char *buf,
				 size_t len);
	void (*describe_nop_site)(struct image *im, const struct place *p,
				  struct section *sec, uint64_t off, char *buf,
				  size_t len);
	/* check: @r again, with drop reasons, unless it is the table @v */
	int (*explain_sites)(struct image *im, const struct options *o,
			     struct scan_result *r, const struct place *v,
			     size_t n);
};

extern const struct extras extras_table __weak;

/* The full tool's table, or an empty one in the kernel's build. */
static inline const struct extras *extras(void)
{
	static const struct extras none;

	return &extras_table ? &extras_table : &none;
}

#endif
