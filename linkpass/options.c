// SPDX-License-Identifier: GPL-2.0
/*
 * The option table: one line per option, with the functions that take
 * the arguments which are not plain strings.  optparse.c reads it.
 */
#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "mcount.h"
#include "policy.h"
#include "util.h"

#define BAD_PAD \
	"bad --patchable-entries '%s' (N or N,M with 0 <= M <= N, as in -fpatchable-function-entry)"

static bool parse_long(const char *s, long min, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min)
		return false;
	*out = v;
	return true;
}

static const char *set_sites(struct options *o, const char *arg)
{
	static const char *const words[] = {
		[SITES_ANY] = "any", [SITES_CALL] = "call", [SITES_NOP] = "nop",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(arg, words[i])) {
			o->sites = (enum site_expect)i;
			return NULL;
		}
	return "unknown --sites '%s' (call, nop or any)";
}

/* "N" or "N,M", as -fpatchable-function-entry takes them. */
static bool parse_pad(const char *s, struct scan_opts *so)
{
	char *end;
	unsigned long n, m = 0;

	n = strtoul(s, &end, 10);
	if (end == s || (*end && *end != ','))
		return false;
	if (*end) {
		s = end + 1;
		m = strtoul(s, &end, 10);
		if (end == s || *end)
			return false;
	}
	if (!n || n > 64 || m > n)
		return false;
	so->pad_n = (unsigned int)n;
	so->pad_m = (unsigned int)m;
	return true;
}

static const char *set_patchable(struct options *o, const char *arg)
{
	o->scan.patchable = true;
	if (arg && !parse_pad(arg, &o->scan))
		return BAD_PAD;
	return NULL;
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

const struct opt options_table[] = {
	OPT_STRING('o', "output", output, "FILE", CMD_SCAN,
		   "the table object to write (required)"),
	OPT_CALLBACK_OPTARG(0, "patchable-entries", set_patchable, "N[,M]",
			    CMDS_FILTER,
			    "sites from -fpatchable-function-entry=N[,M], not calls"),
	OPT_CALLBACK(0, "sites", set_sites, "call|nop|any", CMD_CHECK,
		     "what every table site must hold (default any: either)"),
	OPT_BOOLEAN(0, "check", then_check, CMD_OBJ,
		    "then check each object, as the check command does"),
	OPT_BOOLEAN(0, "nop", then_nop, CMD_OBJ,
		    "then NOP its sites, as the nop command does"),
	{ 'h', "help", no_argument, OPT_T_HELP, 0, NULL, NULL, ~0u,
	  "this text" },
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

const size_t options_count = ARRAY_SIZE(options_table);

void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->max_list = 50;
	scan_opts_init(&o->scan);
}

void options_free(struct options *o)
{
	scan_opts_free(&o->scan);
}
