// SPDX-License-Identifier: GPL-2.0
/*
 * What the full tool adds to the kernel's set of files (kernel-files):
 * the table hooks.h declares, with the commands, options and passes
 * that only the full tool has.  The kernel's build leaves this file out.
 */
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "audit.h"
#include "commands.h"
#include "compiler.h"
#include "describe.h"
#include "extras.h"
#include "hooks.h"
#include "mcount.h"
#include "options.h"
#include "pads.h"
#include "prologue.h"
#include "stripped.h"
#include "table_write.h"
#include "util.h"

/* The usage's last word on options: --anchor is scan's and check's. */
#define USAGE_NOTE \
	"check also accepts --anchor, so that one option list serves scan and check.\n"

static bool parse_long(const char *s, long min, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min)
		return false;
	*out = v;
	return true;
}

static const char *set_threads(struct options *o, const char *arg)
{
	long v;

	if (!parse_long(arg, 1, &v))
		return "bad thread count '%s'";
	o->scan.threads = v > 1024 ? 1024 : (int)v;
	return NULL;
}

static const char *set_max_list(struct options *o, const char *arg)
{
	return parse_long(arg, 0, &o->max_list) ? NULL : "bad --max-list '%s'";
}

static const char *set_format(struct options *o, const char *arg)
{
	if (!strcmp(arg, "elf"))
		o->format = FORMAT_ELF;
	else if (!strcmp(arg, "asm"))
		o->format = FORMAT_ASM;
	else
		return "unknown format '%s' (elf or asm)";
	return NULL;
}

/* The first --mcount-sym replaces the default list. */
static const char *add_mcount_sym(struct options *o, const char *arg)
{
	const char **v = o->scan.mcount_syms;
	size_t n = 0;

	if (v == default_mcount_syms)
		v = NULL;
	while (v && v[n])
		n++;
	v = xrealloc(v, (n + 2) * sizeof(*v));
	v[n] = arg;
	v[n + 1] = NULL;
	o->scan.mcount_syms = v;
	return NULL;
}

static void policy_push(const char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

/* --sections=GLOB,GLOB: replace the default list (not --trace-section). */
static void policy_set(struct policy *p, const char *csv)
{
	char *copy = xstrdup(csv), *tok, *save = NULL;

	/*
	 * The globs point into the copy, which lives as long as the policy;
	 * an earlier copy can go, as no glob of it is left.
	 */
	free(p->csv);
	p->csv = copy;
	p->ninclude = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		policy_push(&p->include, &p->ninclude, tok);
}

static void policy_add(struct policy *p, const char *glob)
{
	policy_push(&p->extra, &p->nextra, glob);
}

static void policy_exclude(struct policy *p, const char *glob)
{
	policy_push(&p->exclude, &p->nexclude, glob);
}

static const char *set_sections(struct options *o, const char *arg)
{
	policy_set(&o->scan.policy, arg);
	return NULL;
}

static const char *add_trace_section(struct options *o, const char *arg)
{
	policy_add(&o->scan.policy, arg);
	return NULL;
}

static const char *add_no_trace_section(struct options *o, const char *arg)
{
	policy_exclude(&o->scan.policy, arg);
	return NULL;
}

/* The full tool's options, after the kernel's (options.c). */
static const struct opt opts[] = {
	OPT_CALLBACK(0, "format", set_format, "elf|asm", CMD_SCAN,
		     "a relocatable object (default) or assembler text"),
	/*
	 * Off by default: the rename alone keeps a killed run from leaving
	 * a partial file, and fsync cost 3 to 40 ms a table for a build
	 * intermediate.
	 */
	OPT_BOOLEAN(0, "fsync", fsync, CMD_SCAN,
		    "fsync the output before it replaces the target"),
	OPT_BOOLEAN(0, "allow-empty", allow_empty, CMD_SCAN,
		    "write an empty table for an image that names an mcount symbol"),
	OPT_STRING(0, "anchor", anchor, "SYM|auto", CMD_SCAN | CMD_CHECK,
		   "the symbol entries are relative to (default auto)"),
	OPT_BOOLEAN(0, "stats", stats, CMD_SCAN | CMD_OBJ | CMD_NOP,
		    "print counts (and the time of each phase)"),
	OPT_CALLBACK(0, "mcount-sym", add_mcount_sym, "NAME",
		     CMDS_FILTER | CMD_NOP,
		     "the mcount symbol (repeatable; default __fentry__, mcount, _mcount)"),
	OPT_CALLBACK(0, "sections", set_sections, "GLOB,...", CMDS_FILTER,
		     "traced output sections, replacing the kernel-like default"),
	OPT_CALLBACK(0, "trace-section", add_trace_section, "GLOB",
		     CMDS_FILTER, "also trace these sections (repeatable)"),
	OPT_CALLBACK(0, "no-trace-section", add_no_trace_section, "GLOB",
		     CMDS_FILTER, "never trace these sections (repeatable)"),
	OPT_CALLBACK('j', "threads", set_threads, "N", CMDS_FILTER,
		     "threads (default: one per CPU for big images)"),
	OPT_STRING(0, "start-sym", start_sym, "S",
		   CMD_CHECK | CMD_DUMP | CMD_NOP,
		   "the symbol at the table's start (with --stop-sym)"),
	OPT_STRING(0, "stop-sym", stop_sym, "S",
		   CMD_CHECK | CMD_DUMP | CMD_NOP,
		   "the symbol at the table's end (with --start-sym)"),
	OPT_BOOLEAN(0, "allow-unsorted", allow_unsorted, CMD_CHECK,
		    "ordering faults do not fail the check"),
	OPT_BOOLEAN(0, "allow-zeroed", allow_zeroed, CMD_CHECK,
		    "entries holding 0 do not fail the check"),
	OPT_BOOLEAN(0, "byte-audit", byte_audit, CMD_CHECK,
		    "sites from function entries and bytes, not relocations"),
	OPT_CALLBACK(0, "max-list", set_max_list, "N", CMD_CHECK,
		     "at most N lines per kind of finding (default 50; 0 = all)"),
	OPT_BOOLEAN(0, "dropped", show_dropped, CMD_SITES,
		    "also list every dropped reference with its reason"),
};

static const struct command commands[] = {
	{ "dump", cmd_dump, CMD_DUMP, ONE_IMAGE, "IMAGE" },
	{ "sites", cmd_sites, CMD_SITES, ONE_IMAGE, "IMAGE" },
};

static const struct arch *const arches[] = { &arch_i386, &arch_x86_64_pie };

const struct extras extras_table = {
	.commands = commands,
	.ncommands = ARRAY_SIZE(commands),
	.opts = opts,
	.nopts = ARRAY_SIZE(opts),
	.arches = arches,
	.narches = ARRAY_SIZE(arches),
	.elf32 = &elf32_writer,
	.mcount_verdict = mcount_verdict,
	.dead_body = dead_body,
	.stripped_start = stripped_begin,
	.stripped_finish = stripped_finish,
	.stripped_cancel = stripped_cancel,
	.audit_sites = audit_check_sites,
	.code_relocs = audit_code_relocs,
	.verdict_note = audit_verdict_note,
	.read_dynamic = image_read_dynamic,
	.ehdr_anchor = ehdr_anchor,
	.dynsym_value = dynsym_value,
	.forced_anchor = forced_anchor,
	.table_write_asm = table_write_asm,
	.table_sections = table_fill_sections,
	.scan_stats = scan_print_stats,
	.empty_table = scan_empty_table,
	.describe_finding = describe_finding,
	.describe_nop_site = describe_nop_site,
	.explain_sites = explain_sites,
	.usage_note = USAGE_NOTE,
	.more_note = " (--max-list=0 lists all)",
	.zeroed_note = " (--allow-zeroed accepts them)",
	.anchor_note = "; name one with --anchor",
	.fast_scan = fast_scan,
};
