// SPDX-License-Identifier: GPL-2.0
/*
 * The option table and its parser.  Adding an option is one line of
 * opts[] (and the field of struct options it sets): its usage line, its
 * getopt entry and the commands that accept it all come from there.
 */
#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "mcount.h"
#include "util.h"

/* The message of a --patchable-entries that is not N or N,M. */
#define BAD_PAD \
	"bad --patchable-entries '%s' (N or N,M with 0 <= M <= N, as in -fpatchable-function-entry)"

/* How an option's argument reaches struct options. */
enum opt_type {
	OPT_T_BOOL,		/* no argument: the bool at .off is set */
	OPT_T_STR,		/* the argument, at .off */
	OPT_T_FN,		/* .fn takes it */
	OPT_T_HELP,		/* -h, --help: every command */
};

struct opt {
	int key;		/* the short option's letter, or 0 */
	const char *name;
	int has_arg;		/* no_argument, required_argument... */
	enum opt_type type;
	size_t off;		/* OPT_T_BOOL, OPT_T_STR: the field */
	/*
	 * OPT_T_FN: store @arg in @o; NULL, or the message of a bad
	 * argument, a format with one %s for the argument as given
	 */
	const char *(*fn)(struct options *o, const char *arg);
	const char *arg;	/* the argument's name in the usage */
	unsigned int cmds;	/* the CMD_* bits of the commands taking it */
	const char *help;
};

#define OPT_BOOLEAN(k, n, field, c, h) \
	{ k, n, no_argument, OPT_T_BOOL, offsetof(struct options, field), \
	  NULL, NULL, c, h }
#define OPT_STRING(k, n, field, a, c, h) \
	{ k, n, required_argument, OPT_T_STR, \
	  offsetof(struct options, field), NULL, a, c, h }
#define OPT_CALLBACK(k, n, f, a, c, h) \
	{ k, n, required_argument, OPT_T_FN, 0, f, a, c, h }
#define OPT_CALLBACK_OPTARG(k, n, f, a, c, h) \
	{ k, n, optional_argument, OPT_T_FN, 0, f, a, c, h }

/* The options that choose which sites there are (scan, check...). */
#define CMDS_FILTER (CMD_SCAN | CMD_CHECK | CMD_SITES | CMD_OBJ)

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

/* The index of @arg among the NULL-terminated @words, or -1. */
static int word_index(const char *arg, const char *const *words)
{
	int i;

	for (i = 0; words[i]; i++)
		if (!strcmp(arg, words[i]))
			return i;
	return -1;
}

static const char *set_format(struct options *o, const char *arg)
{
	static const char *const words[] = {
		[FORMAT_ELF] = "elf", [FORMAT_ASM] = "asm", NULL,
	};
	int i = word_index(arg, words);

	if (i < 0)
		return "unknown format '%s' (elf or asm)";
	o->format = (enum out_format)i;
	return NULL;
}

static const char *set_sites(struct options *o, const char *arg)
{
	static const char *const words[] = {
		[SITES_ANY] = "any", [SITES_CALL] = "call",
		[SITES_NOP] = "nop", NULL,
	};
	int i = word_index(arg, words);

	if (i < 0)
		return "unknown --sites '%s' (call, nop or any)";
	o->sites = (enum site_expect)i;
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

static const struct opt opts[] = {
	OPT_STRING('o', "output", output, "FILE", CMD_SCAN,
		   "the table object to write (required)"),
	OPT_CALLBACK(0, "format", set_format, "elf|asm", CMD_SCAN,
		     "a relocatable object (default) or assembler text"),
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
	OPT_CALLBACK_OPTARG(0, "patchable-entries", set_patchable, "N[,M]",
			    CMDS_FILTER,
			    "sites from -fpatchable-function-entry=N[,M], not calls"),
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
	OPT_CALLBACK(0, "sites", set_sites, "call|nop|any", CMD_CHECK,
		     "what every table site must hold (default any: either)"),
	OPT_CALLBACK(0, "max-list", set_max_list, "N", CMD_CHECK,
		     "at most N lines per kind of finding (default 50; 0 = all)"),
	OPT_BOOLEAN(0, "dropped", show_dropped, CMD_SITES,
		    "also list every dropped reference with its reason"),
	{ 'h', "help", no_argument, OPT_T_HELP, 0, NULL, NULL, ~0u,
	  "this text" },
};

#define NOPTS (ARRAY_SIZE(opts))
/* getopt's value for opts[i] when it has no short form */
#define LONG_ONLY 256

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

enum parsed usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "linkpass: ");
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'linkpass --help')\n");
	return PARSE_ERROR;
}

/* The names of the CMD_* bits, in bit order, for the usage. */
static const char *const cmd_names[] = {
	"scan", "check", "dump", "sites", "obj", "nop",
};

#define NCMDS (ARRAY_SIZE(cmd_names))

void options_usage(FILE *f)
{
	char left[64], cmds[64];
	size_t i, j, at;

	fputs("options (and the commands that take them):\n", f);
	for (i = 0; i < NOPTS; i++) {
		const struct opt *p = &opts[i];

		if (p->key)
			at = (size_t)snprintf(left, sizeof(left), "-%c, --%s",
					      p->key, p->name);
		else
			at = (size_t)snprintf(left, sizeof(left), "--%s",
					      p->name);
		if (p->arg)
			snprintf(left + at, sizeof(left) - at,
				 p->has_arg == optional_argument ?
				 "[=%s]" : "=%s", p->arg);
		at = 0;
		cmds[0] = 0;
		for (j = 0; p->type != OPT_T_HELP && j < NCMDS; j++)
			if (p->cmds & (1u << j))
				at += (size_t)snprintf(cmds + at,
						       sizeof(cmds) - at,
						       "%s%s", at ? ", " : "",
						       cmd_names[j]);
		fprintf(f, "  %-28s %s%s%s%s\n", left, p->help,
			at ? " [" : "", cmds, at ? "]" : "");
	}
}

/* The entry getopt_long() returned @c for, or NULL. */
static const struct opt *find_opt(int c)
{
	size_t i;

	if (c >= LONG_ONLY && (size_t)(c - LONG_ONLY) < NOPTS)
		return &opts[c - LONG_ONLY];
	for (i = 0; i < NOPTS; i++)
		if (opts[i].key && opts[i].key == c)
			return &opts[i];
	return NULL;
}

/* Apply option @p with argument @arg to @o. */
static enum parsed apply(const char *name, const struct opt *p,
			 const char *arg, struct options *o)
{
	const char *bad;

	switch (p->type) {
	case OPT_T_BOOL:
		*(bool *)((char *)o + p->off) = true;
		break;
	case OPT_T_STR:
		*(const char **)((char *)o + p->off) = arg;
		break;
	case OPT_T_FN:
		bad = p->fn(o, arg);
		if (bad)
			return usage_error(name, bad, arg);
		break;
	case OPT_T_HELP:
		return PARSE_HELP;
	}
	return PARSE_RUN;
}

/* The option getopt could not use, as the user wrote it. */
static const char *bad_option(char **argv, int c)
{
	static char shortopt[3] = "-?";

	if (c == '?' && optopt && optopt != '?' && optopt < LONG_ONLY) {
		shortopt[1] = (char)optopt;
		return shortopt;
	}
	return argv[optind - 1];
}

/* getopt's tables, made from opts[]. */
static void getopt_tables(struct option *longs, char *shorts)
{
	size_t i, k = 0;

	for (i = 0; i < NOPTS; i++) {
		longs[i] = (struct option){ opts[i].name, opts[i].has_arg,
					    NULL, opts[i].key ? opts[i].key :
					    (int)(LONG_ONLY + i) };
		if (!opts[i].key)
			continue;
		shorts[k++] = (char)opts[i].key;
		if (opts[i].has_arg == required_argument)
			shorts[k++] = ':';
	}
	longs[NOPTS] = (struct option){ NULL, 0, NULL, 0 };
	shorts[k] = 0;
}

enum parsed options_parse(const char *name, unsigned int cmd, int argc,
			  char **argv, struct options *o)
{
	struct option longs[NOPTS + 1];
	char shorts[2 * NOPTS + 1];
	const struct opt *p;
	enum parsed ret;
	int c;

	getopt_tables(longs, shorts);
	optind = 2;	/* argv[1] is the command */
	opterr = 0;	/* errors are reported here, in one line */
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		/* '?': an unknown option, or a known one used wrongly */
		p = find_opt(c == '?' ? optopt : c);
		if (!p || !(p->cmds & cmd) || (c == '?' && !p->has_arg))
			return usage_error(name, "unrecognized option '%s'",
					   bad_option(argv, c));
		if (c == '?')
			return usage_error(name, "option '%s' needs an argument",
					   bad_option(argv, c));
		ret = apply(name, p, optarg, o);
		if (ret != PARSE_RUN)
			return ret;
	}
	out_fsync = o->fsync;
	return PARSE_RUN;
}

int options_each_file(const struct options *o,
		      int (*fn)(const struct options *o, const char *path))
{
	int i, failed = 0;

	/* every file is tried; all failures are reported */
	for (i = 0; i < o->nfiles; i++)
		if (fn(o, o->files[i]) < 0)
			failed++;
	return failed ? EXIT_ERROR : EXIT_OK;
}

enum parsed opts_valid(const char *name, unsigned int cmd,
		       const struct options *o)
{
	if (cmd == CMD_SCAN && !o->output)
		return usage_error(name, "missing -o FILE");
	if (o->sites != SITES_ANY && o->scan.patchable)
		return usage_error(name, "--sites is for mcount calls, not --patchable-entries");
	return PARSE_RUN;
}
