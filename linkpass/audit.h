/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The byte-level audit: call sites derived without relocations, for
 * images that kept none (a distribution's debug vmlinux).  A site is
 * the first instruction of a function of the symbol table, after an
 * optional endbr64/endbr32, when it is a direct call to the mcount
 * symbol.  That is the -mfentry rule; it cannot see a call an earlier
 * tool turned into a NOP, nor an mcount call after a prologue.
 */
#ifndef LINKPASS_AUDIT_H
#define LINKPASS_AUDIT_H

#include "site.h"

struct findings;
struct options;

/*
 * The length of the NOP linkpass nop writes over a site that starts at
 * @p (@avail bytes readable): the NOP of a direct call's length, or of
 * a PIE's 6-byte addr32 call.  0 when @p holds neither.
 */
unsigned int audit_nop_len(const struct image *im, const uint8_t *p,
			   uint64_t avail);

/*
 * check --byte-audit: fill @r as find_sites()
 * would (kept sites sorted by address, the function index built) from
 * the symbols and bytes of @im alone, after one line saying what a
 * site is; stats.calls counts the functions looked at.  With
 * --sites=nop a site is a function opened by the NOP linkpass nop
 * writes; with --patchable-entries, by a pad (audit_pads.h), whose
 * geometry without N,M is read from the table.  A refusal is one error
 * line and nothing else: -1.
 */
int audit_check_sites(const struct options *o, struct image *im,
		      struct scan_result *r);

/*
 * The end of check's summary for the findings @fd among @entries
 * non-zero entries: a hint that the pad geometry is wrong
 * when most entries are both stale and missing; else NULL.
 */
const char *audit_verdict_note(const struct options *o, size_t entries,
			       const struct findings *fd);

/*
 * check's one line for an image without code relocations,
 * naming the byte-audit command that checks it: -1, else 0.
 */
int audit_code_relocs(struct image *im, const struct options *o);

#endif
