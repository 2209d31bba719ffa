/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The passes only the full tool has, one file each, which extras.c
 * puts into the table of hooks.h (the kernel's set has none of them).
 */
#ifndef LINKPASS_EXTRAS_H
#define LINKPASS_EXTRAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"

struct anchors;
struct elf32_writer;
struct elfw;
struct entry_set;
struct scan_opts;
struct scan_stats;
struct scan_want;
struct sym_pass;
struct funcs;
struct image;
struct options;
struct scan_result;
struct section;
struct site;
struct stripped_check;
struct table_parts;
struct symbol;

/* arch-i386.c: i386, which the kernel's set leaves out */
extern const struct arch arch_i386;

/*
 * arch-x86-pie.c: x86_64 with a PIE's GOT calls, which replaces the
 * kernel's; and the call lengths and direct calls that i386 shares
 */
extern const struct arch arch_x86_64_pie;
unsigned int x86_pie_call_len(enum call_form f);
unsigned int x86_pie_direct_call(const uint8_t *p, uint64_t avail,
				 uint64_t addr, uint64_t *target);

/* elf32.c: i386's objects */
extern const struct elf32_writer elf32_writer;

/*
 * locals.c: refuse an image without local symbols that needs them,
 * then start the stripped-objects check (the hook of hooks.h)
 */
int stripped_begin(struct image *im, struct scan_result *r, int threads,
		   struct stripped_check **job);

/* dead_body.c: does a call in no function start a dead weak body? */
bool dead_body(const struct image *im, const struct funcs *f,
	       const struct site *s);

/*
 * table_dyn.c: the value of symbol @sym of the dynamic symbol table of
 * relocation section @rs, for a PIE's table
 */
int dynsym_value(struct image *im, const struct section *rs, uint64_t sym,
		 uint64_t *value);

/* release.c: after the symbol pass, the global symbols' pages go back */
void image_release_globals_pages(const struct image *im);

/*
 * jobs.c: run @fn on each of the @n jobs at @jobs, @size bytes apart,
 * on threads, and return when all are done.  @fn must touch only its
 * own job and what nobody writes while the jobs run.
 */
void run_jobs(void *jobs, size_t n, size_t size, void *(*fn)(void *));

/* anchor_dso.c: a shared library's anchors, and --anchor SYM */
#define ANCHOR_EHDR "__ehdr_start"
int image_read_dynamic(struct image *im);
int ehdr_anchor(struct image *im, struct anchors *a);
int forced_anchor(struct image *im, const char *forced, size_t nsites,
		  struct anchors *a);

/*
 * scan_stats.c: scan --stats; @ns: the times of its start, the image
 * opened, the write's start and the end
 */
void scan_print_stats(struct image *im, const struct options *o,
		      struct scan_result *r, const struct anchors *a,
		      const uint64_t *ns);

/* fastscan.c: find_sites() without drop reasons (the hook of hooks.h) */
int fast_scan(struct image *im, const struct scan_opts *o,
	      const struct scan_want *want, struct scan_result *r);

/*
 * fastfilter.c: the entry set of the traced code sections (of every
 * one with @pads), and the kept sites by it: -1, with nothing changed,
 * where a site needs filter.c's judgement
 */
struct entry_set *fast_entry_set(const struct image *im, const uint8_t *traced,
				 bool pads);
void fast_entry_set_free(struct entry_set *e);
int fast_filter(struct image *im, const uint8_t *traced,
		const struct entry_set *e, struct site *cand, size_t n,
		int threads, struct scan_result *r, bool *kept_unsorted);
bool sort_by_runs(struct site *v, size_t n);

/*
 * fastsyms.c: the symbol pass (symbols.c's) over the symbols in place,
 * filling @e too; image_find_symbols() the same way
 */
int fast_symbol_pass(struct image *im, const struct scan_opts *o,
		     struct sym_pass *p, struct entry_set *e);
int fast_find_symbols(struct image *im, const char *const *names, size_t n,
		      struct symbol *out, bool *found);

/* relocscan_mt.c: relocscan_sites() on several threads */
int relocscan_threads(struct image *im, const struct scan_opts *o,
		      const uint8_t *is_mcount, struct scan_stats *st,
		      struct site **cand, size_t *n, bool *sorted);
/* cmd_dump.c, cmd_sites.c: the full tool's commands */
int cmd_dump(struct options *o);
int cmd_sites(struct options *o);

/* table_fill.c: the table's sections, made as they are written */
size_t table_fill_sections(struct elfw *w, struct table_parts *t);

/* table_asm.c: scan --format=asm */
struct out_gate;
int table_write_asm(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out,
		    const struct out_gate *gate);

/* scan_empty.c: no silent empty table (the hook of hooks.h) */
int scan_empty_table(struct image *im, const struct options *o,
		     const struct scan_result *r);

/*
 * print_entry.c.  Where the previous entry was: lines of a sorted
 * table then cost a few steps each instead of a search.  Start with
 * DESCRIBE_CURSOR_INIT.
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
