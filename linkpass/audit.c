// SPDX-License-Identifier: GPL-2.0
/* The byte-level audit: sites from function entries, not relocations. */
#include "audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch-audit.h"
#include "audit_pads.h"
#include "audit_patched.h"
#include "findings.h"
#include "prologue.h"
#include "mcount.h"
#include "options.h"
#include "patchable.h"
#include "table_read.h"
#include "util.h"

/* The first line of a byte-level audit, saying what a site is. */
#define AUDIT_PADS \
	"check: %s: byte-level audit: no relocations used; a site is a function of .symtab with a pad of %u nops%s, %u before its start and %u after an optional landing pad (-fpatchable-function-entry=%u,%u%s), none of them recorded in __jump_table or the alternatives; the entry is the pad's first nop\n"
#define AUDIT_CALLS \
	"check: %s: byte-level audit: no relocations used; a site is a function of .symtab whose first instruction (after an optional endbr64) calls %s\n"
#define AUDIT_NOPS \
	"check: %s: byte-level audit: no relocations used; a site is a function of .symtab whose first instruction (after an optional endbr64) is the NOP linkpass nop writes over a call to %s, not recorded in __jump_table or the alternatives\n"
#define AUDIT_EITHER \
	"check: %s: byte-level audit: no relocations used; a site is a function of .symtab whose first instruction (after an optional endbr64) calls %s, or is the NOP linkpass nop or objtool --mnop writes over that call, not recorded in __jump_table or the alternatives\n"

static int cmp_site_addr(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

unsigned int audit_nop_len(const struct image *im, const uint8_t *p,
			   uint64_t avail)
{
	static const enum call_form forms[] = { CALL_REL32, CALL_ADDR32 };
	const uint8_t *nop;
	unsigned int len;
	size_t i;

	for (i = 0; im->arch->site_nop && i < ARRAY_SIZE(forms); i++) {
		len = im->arch->call_len(forms[i]);
		nop = im->arch->site_nop(len);
		if (nop && avail >= len && !memcmp(p, nop, len))
			return len;
	}
	return 0;
}

/*
 * The site opening function @fn, as @want (--sites) allows it: the
 * call to the mcount symbol, or the NOP that linkpass nop (and objtool
 * --mnop) writes over such a call, or either.  A build that NOP'd its
 * sites left no call, and a table check must find them all the same.
 */
static bool entry_call(struct image *im, const struct func *fn,
		       const uint64_t *t, size_t nt, enum site_expect want,
		       const struct patched *p, struct site *s)
{
	struct section *sec = &im->secs[fn->shndx];
	uint64_t off = fn->start - sec->sh.sh_addr, avail, target, at;
	enum call_form form = CALL_NONE;
	const uint8_t *b;
	unsigned int pre, len;

	/* no bytes to look at is no call (nothing is reported) */
	if (sec->sh.sh_type == SHT_NOBITS ||
	    (sec->sh.sh_flags & SHF_COMPRESSED) ||
	    fn->start < sec->sh.sh_addr || off >= sec->sh.sh_size)
		return false;
	b = image_section_bytes(im, sec);
	if (!b)
		return false;
	avail = sec->sh.sh_size - off;
	if (avail > fn->end - fn->start)
		avail = fn->end - fn->start;
	pre = im->arch->entry_prefix(b + off, avail);
	at = fn->start + pre;
	if (want != SITES_NOP) {
		len = arch_direct_call(im->arch, b + off + pre, avail - pre, at,
				       &target);
		if (len && mcount_is_target(t, nt, target))
			form = len == 5 ? CALL_REL32 : CALL_ADDR32;
	}
	if (form == CALL_NONE && want != SITES_CALL) {
		/*
		 * The NOP of a direct call's length: x86_nops[5] over e8,
		 * or the one 6-byte NOP over a PIE's addr32 call; not one
		 * the kernel patches for another reason
		 */
		len = audit_nop_len(im, b + off + pre, avail - pre);
		if (len && !patched_covers(p, at, len))
			form = CALL_NOPPED;
	}
	if (form == CALL_NONE)
		return false;
	memset(s, 0, sizeof(*s));
	s->addr = at;
	s->shndx = fn->shndx;
	s->form = (uint8_t)form;
	s->verdict = SITE_KEPT;
	s->entry_style = 1;
	return true;
}

/* The pad of @g opening @fn, if it has one, as the site the table lists. */
static bool entry_pad(struct image *im, const struct pad_geom *g,
		      const struct patched *p, const struct func *fn,
		      struct site *s)
{
	uint64_t first;

	if (!audit_pad_site(im, g, p, fn, &first))
		return false;
	memset(s, 0, sizeof(*s));
	s->addr = first;
	s->shndx = fn->shndx;
	s->form = CALL_NONE;
	s->verdict = SITE_KEPT;
	s->entry_style = 1;
	return true;
}

/*
 * What the audit cannot do on @im as @o asks: one error line, and
 * nothing printed before it.  The mcount symbols' addresses (calls)
 * into @t, *@nt of them.
 */
static int audit_refused(struct image *im, const struct scan_opts *o,
			 uint64_t *t, size_t *nt)
{
	*nt = 0;
	if (!im->symtab)
		return lp_error(im->path, ".symtab",
				"no symbol table: the byte-level audit needs the function symbols (use the unstripped or debug image)");
	if (!o->patchable && prologue_rule(im->ehdr.e_machine))
		return lp_error(im->path, "ELF header",
				"byte-level audit: not available on %s, where the mcount call follows the prologue rather than opening the function (kernels there use --patchable-entries, the geometry read from the table or given as N,M)",
				im->arch->name);
	if (!o->patchable &&
	    mcount_targets(im, o->mcount_syms, "byte-level audit", t, 8, nt) < 0)
		return -1;
	return 0;
}

/*
 * The geometry of the pads: --patchable-entries=N,M, or without N,M
 * the one the table's entries show, named in *@from.  The width of the
 * nops, where the architecture allows two, is the one the entries show.
 */
static int audit_geometry(struct image *im, const struct options *o,
			  const struct funcs *f, struct pad_geom *g,
			  char *from, size_t len)
{
	unsigned int widths = arch_pad_widths(im->arch, im->ehdr.e_flags), w;
	size_t agree, seen, best = 0, best_seen = 0;
	struct pad_geom shown;
	struct table t;

	*from = 0;
	if (table_read(im, o->start_sym, o->stop_sym, &t) < 0)
		return -1;
	/* 0: any nop; else each width allowed, the smaller first */
	g->width = widths & 2 ? 2 : widths & 4 ? 4 : 0;
	for (w = g->width; w <= 4; w = w ? w * 2 : 8) {
		if (w && !(widths & w))
			continue;
		if (audit_pad_geometry(im, f, t.v, t.n, w, &shown, &agree,
				       &seen) && agree > best) {
			best = agree;
			best_seen = seen;
			*g = shown;
		}
	}
	table_free(&t);
	if (o->scan.pad_n) {
		g->n = o->scan.pad_n;
		g->m = o->scan.pad_m;
		return 0;
	}
	if (!best)
		return lp_error(im->path, "options",
				"byte-level audit of patchable entries: no table entry starts a run of nops into a function, so the pad's geometry cannot be read from the table: give it, --patchable-entries=N,M as in -fpatchable-function-entry=N,M");
	snprintf(from, len, ", read from the table: %zu of %zu entries show it",
		 best, best_seen);
	return 0;
}

/* Each function of a traced section whose entry is a site, into @r. */
static void audit_walk(struct image *im, const struct scan_opts *o,
		       const struct pad_geom *g, const uint64_t *targets,
		       size_t nt, enum site_expect want,
		       const struct patched *p, struct scan_result *r)
{
	uint8_t *traced = xcalloc(im->nsecs, 1);
	size_t i;

	for (i = 0; i < im->nsecs; i++)
		traced[i] = (im->secs[i].sh.sh_flags & SHF_EXECINSTR) &&
			    im->secs[i].sh.sh_type == SHT_PROGBITS &&
			    policy_traced(&o->policy, im->secs[i].name);
	r->kept = xcalloc(r->funcs.n ? r->funcs.n : 1, sizeof(*r->kept));
	for (i = 0; i < r->funcs.n; i++) {
		const struct func *fn = &r->funcs.v[i];
		struct site s;

		if (!traced[fn->shndx] || fn->end <= fn->start)
			continue;
		if (i && r->funcs.v[i - 1].shndx == fn->shndx &&
		    r->funcs.v[i - 1].start == fn->start)
			continue;	/* an alias of the function before */
		r->stats.calls++;
		if (g ? entry_pad(im, g, p, fn, &s) :
		    entry_call(im, fn, targets, nt, want, p, &s))
			r->kept[r->nkept++] = s;
	}
	r->stats.verdicts[SITE_KEPT] = r->nkept;
	/* by address, as check wants them: section order need not be */
	qsort(r->kept, r->nkept, sizeof(*r->kept), cmp_site_addr);
	free(traced);
}

int audit_check_sites(const struct options *o, struct image *im,
		      struct scan_result *r)
{
	struct pad_geom g;
	struct patched p;
	uint64_t targets[8];
	char from[96];
	size_t nt;

	memset(r, 0, sizeof(*r));
	if (audit_refused(im, &o->scan, targets, &nt) < 0 ||
	    patched_read(im, &p) < 0)
		return -1;
	funcs_build(im, &r->funcs);
	if (o->scan.patchable &&
	    audit_geometry(im, o, &r->funcs, &g, from, sizeof(from)) < 0) {
		patched_free(&p);
		return -1;
	}
	/* what a site is, once the audit is sure to run */
	if (o->scan.patchable)
		printf(AUDIT_PADS, o->image, g.n,
		       g.width == 2 ? " of 2 bytes" :
		       g.width == 4 ? " of 4 bytes" : "",
		       g.m, g.n - g.m, g.n, g.m, from);
	else
		printf(o->sites == SITES_NOP ? AUDIT_NOPS :
		       o->sites == SITES_ANY && im->arch->site_nop ?
		       AUDIT_EITHER : AUDIT_CALLS, o->image,
		       o->scan.mcount_syms[0]);
	audit_walk(im, &o->scan, o->scan.patchable ? &g : NULL, targets, nt,
		   o->sites, &p, r);
	patched_free(&p);
	return 0;
}

const char *audit_verdict_note(const struct options *o, size_t entries,
			       const struct findings *fd)
{
	/* most entries both: the pads are found, but not where it says */
	if (!o->byte_audit || !o->scan.patchable || !entries ||
	    fd->missing * 2 <= entries || fd->stale * 2 <= entries)
		return NULL;
	return o->scan.pad_n ?
	       "; most entries are both stale and missing: the pad geometry is likely not the one compiled (--patchable-entries without N,M reads it from the table)" :
	       "; most entries are both stale and missing: the pad geometry read from the table is likely wrong (give it as --patchable-entries=N,M)";
}

/*
 * Does the table's first site hold the NOP linkpass nop writes?  1 or
 * 0; -1 when the table cannot be read (its error already reported).
 */
static int first_site_nopped(struct image *im, const struct options *o)
{
	struct section *sec;
	const uint8_t *b;
	struct table t;
	int ret = 0;
	size_t i;

	if (table_read(im, o->start_sym, o->stop_sym, &t) < 0)
		return -1;
	for (i = 0; i < t.n && !t.v[i]; i++)
		;	/* zeroed entries name no site */
	sec = i < t.n ? image_section_at(im, t.v[i]) : NULL;
	/* only a hint for the error line: unreadable bytes say "no" */
	b = sec ? image_section_bytes_quiet(im, sec) : NULL;
	if (b)
		ret = audit_nop_len(im, b + (t.v[i] - sec->sh.sh_addr),
				    sec->sh.sh_size - (t.v[i] - sec->sh.sh_addr)) != 0;
	table_free(&t);
	return ret;
}

/*
 * check on an image without code relocations (cmd_check.c): the
 * comparison needs the relocations of the code (-q).  An image that
 * kept none (a shipped vmlinux) gets one line naming the byte audit
 * that checks it: with --sites=nop when its sites were NOP'd at link
 * time (scripts/link-vmlinux.sh's output with the runtime), with
 * --patchable-entries for pads (asked for, or on aarch64 and riscv64,
 * whose kernels have them); a fresh image can be linked again keeping
 * them.  0 when it has them, or no code (or no symbols: the scan's
 * error comes first).
 */
int audit_code_relocs(struct image *im, const struct options *o)
{
	struct section *code = NULL;
	size_t i;
	char pads[48] = "";
	int nopped = 0;

	for (i = 1; i < im->nsecs; i++) {
		struct section *s = &im->secs[i];

		if (image_is_code_relocs(im, s) && s->sh.sh_size)
			return 0;
		/* pads: the compiler's list and its relocations are enough */
		if (o->scan.patchable && s->sh.sh_size &&
		    !strcmp(s->name, PATCHABLE_SECTION) &&
		    image_relocs_of(im, s))
			return 0;
		/* name .text when there is one */
		if ((!code || !strcmp(s->name, ".text")) &&
		    (s->sh.sh_flags & SHF_EXECINSTR) &&
		    (s->sh.sh_flags & SHF_ALLOC) && s->sh.sh_size)
			code = s;
	}
	if (!code || !im->symtab)
		return 0;
	if (o->scan.patchable && o->scan.pad_n)
		snprintf(pads, sizeof(pads), " --patchable-entries=%u,%u",
			 o->scan.pad_n, o->scan.pad_m);
	else if (o->scan.patchable || prologue_rule(im->ehdr.e_machine))
		snprintf(pads, sizeof(pads), " --patchable-entries");
	else
		nopped = first_site_nopped(im, o);
	/* an unreadable table: its one error line is the answer */
	if (nopped < 0)
		return -1;
	return lp_error(im->path, code->name,
			"no relocations kept for code, which check compares the table with: for a shipped image or scripts/link-vmlinux.sh's output run 'linkpass check --byte-audit%s%s %s'; for a fresh one link with -q (--emit-relocs; link-vmlinux.sh --keep-relocs)",
			pads, nopped ? " --sites=nop" : "", im->path);
}
