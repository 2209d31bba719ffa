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

struct anchor_cands;
struct anchor_store;
struct anchors;
struct elf32_writer;
struct elfw;
struct entry_set;
struct relocs;
struct scan_opts;
struct scan_stats;
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

/* heap.c: huge pages for a big block, the heap for a big input */
void huge_hint(void *p, size_t size);
void heap_for_input(uint64_t bytes);

/*
 * table_dyn.c: the value of symbol @sym of the dynamic symbol table of
 * relocation section @rs, for a PIE's table
 */
int dynsym_value(struct image *im, const struct section *rs, uint64_t sym,
		 uint64_t *value);

/* release.c: image_release_globals() */
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

/* The scan without drop reasons (hooks.h): fastfilter.c, fastsyms.c */
struct entry_set *fast_entry_set(const struct image *im, const uint8_t *traced,
				 bool pads);
void fast_entry_set_free(struct entry_set *e);
int fast_filter(struct image *im, const uint8_t *traced,
		const struct entry_set *e, struct site *cand, size_t n,
		int threads, struct scan_result *r, bool *kept_unsorted);
bool sort_by_runs(struct site *v, size_t n);
int fast_symbol_pass(struct image *im, const struct scan_opts *o,
		     struct sym_pass *p);
const struct symbol *anchor_sym_in_place(struct anchor_cands *c,
					 const struct image *im, uint32_t idx);
void anchor_store_free(struct anchor_store *st);
int fast_find_symbols(struct image *im, const char *const *names, size_t n,
		      struct symbol *out, bool *found);

/* relocscan_mt.c: relocscan_sites() on several threads */
int relocscan_threads(struct image *im, const struct scan_opts *o,
		      const uint8_t *is_mcount, const struct relocs *rels,
		      size_t nrels, struct scan_stats *st, struct site **cand,
		      size_t *n, bool *sorted);
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
