// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass: build Linux's ftrace call-site table (__mcount_loc) from a
 * whole linked image in one pass, check any image's table, and dump it.
 *
 *   scan   image linked with -q  ->  sorted table object to link in
 *   check  table in the image    ==  sites from the image's relocations?
 *   dump   the table in the image, one entry a line
 *   sites  what scan would write, in dump's form
 *   obj    per-object mode: add __mcount_loc to relocatable objects
 *
 * main() picks the command from a table, parses the options that
 * command takes, and runs it.  Only main() exits.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

static const char usage_text[] =
"usage: linkpass scan  IMAGE -o TABLE.o [--stats] [--format=elf|asm] [--anchor=SYM|auto] [--fsync] [filter options]\n"
"       linkpass check IMAGE|FILE.o [--start-sym=S --stop-sym=S] [--allow-unsorted] [--allow-zeroed] [--byte-audit] [--max-list=N] [filter options]\n"
"       linkpass dump  IMAGE [--start-sym=S --stop-sym=S]\n"
"       linkpass sites IMAGE [--dropped] [filter options]\n"
"       linkpass obj   FILE.o... [--stats] [filter options]\n"
"filter options:\n"
"  --mcount-sym=NAME        the mcount symbol (repeatable; default __fentry__, mcount, _mcount)\n"
"  --sections=GLOB,...      traced output sections, replacing the kernel-like default\n"
"  --trace-section=GLOB     also trace sections matching GLOB (repeatable)\n"
"  --no-trace-section=GLOB  never trace sections matching GLOB (repeatable)\n"
"  -j, --threads=N          relocation scan threads (default: one per CPU for big images)\n"
"  --patchable-entries[=N[,M]]\n"
"                           sites are the entries of __patchable_function_entries\n"
"                           (-fpatchable-function-entry), not mcount calls; with\n"
"                           N,M each must start a pad of N nops, M before the\n"
"                           entry (required by check --byte-audit)\n"
"check also accepts --anchor, so that one option list serves scan and check.\n"
"exit status: 0 ok, 1 check found differences, 2 error\n";

/* Groups of options; each command takes some of them. */
enum {
	OPTS_FILTER = 1 << 0,	/* --mcount-sym, --*sections, -j */
	OPTS_OUTPUT = 1 << 1,	/* -o, --format, --fsync */
	OPTS_ANCHOR = 1 << 2,
	OPTS_STATS = 1 << 3,
	OPTS_BOUNDS = 1 << 4,	/* --start-sym, --stop-sym */
	OPTS_CHECK = 1 << 5,	/* --allow-unsorted, --allow-zeroed,
				 * --byte-audit, --max-list */
	OPTS_DROPPED = 1 << 6,
};

enum operands {
	ONE_IMAGE,
	OBJECTS,		/* one or more FILE.o */
};

struct command {
	const char *name;
	int (*run)(struct options *o);
	unsigned int opts;	/* OPTS_* it accepts */
	enum operands operands;
	bool needs_output;
};

static const struct command commands[] = {
	{ "scan", cmd_scan, OPTS_FILTER | OPTS_OUTPUT | OPTS_ANCHOR | OPTS_STATS,
	  ONE_IMAGE, true },
	{ "check", cmd_check, OPTS_FILTER | OPTS_ANCHOR | OPTS_BOUNDS | OPTS_CHECK,
	  ONE_IMAGE, false },
	{ "dump", cmd_dump, OPTS_BOUNDS, ONE_IMAGE, false },
	{ "sites", cmd_sites, OPTS_FILTER | OPTS_DROPPED, ONE_IMAGE, false },
	{ "obj", cmd_obj, OPTS_FILTER | OPTS_STATS, OBJECTS, false },
};

enum {
	OPT_STATS = 256,
	OPT_FORMAT,
	OPT_MCOUNT_SYM,
	OPT_ANCHOR,
	OPT_SECTIONS,
	OPT_TRACE_SECTION,
	OPT_NO_TRACE_SECTION,
	OPT_START_SYM,
	OPT_STOP_SYM,
	OPT_ALLOW_UNSORTED,
	OPT_MAX_LIST,
	OPT_DROPPED,
	OPT_FSYNC,
	OPT_ALLOW_ZEROED,
	OPT_BYTE_AUDIT,
	OPT_PATCHABLE,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "threads", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "mcount-sym", required_argument, NULL, OPT_MCOUNT_SYM },
	{ "anchor", required_argument, NULL, OPT_ANCHOR },
	{ "sections", required_argument, NULL, OPT_SECTIONS },
	{ "trace-section", required_argument, NULL, OPT_TRACE_SECTION },
	{ "no-trace-section", required_argument, NULL, OPT_NO_TRACE_SECTION },
	{ "start-sym", required_argument, NULL, OPT_START_SYM },
	{ "stop-sym", required_argument, NULL, OPT_STOP_SYM },
	{ "allow-unsorted", no_argument, NULL, OPT_ALLOW_UNSORTED },
	{ "max-list", required_argument, NULL, OPT_MAX_LIST },
	{ "dropped", no_argument, NULL, OPT_DROPPED },
	{ "fsync", no_argument, NULL, OPT_FSYNC },
	{ "allow-zeroed", no_argument, NULL, OPT_ALLOW_ZEROED },
	{ "byte-audit", no_argument, NULL, OPT_BYTE_AUDIT },
	{ "patchable-entries", optional_argument, NULL, OPT_PATCHABLE },
	{ NULL, 0, NULL, 0 },
};

/* The option group of each option value getopt returns. */
static unsigned int group_of(int c)
{
	switch (c) {
	case 'j': case OPT_MCOUNT_SYM: case OPT_SECTIONS:
	case OPT_TRACE_SECTION: case OPT_NO_TRACE_SECTION:
	case OPT_PATCHABLE:
		return OPTS_FILTER;
	case 'o': case OPT_FORMAT: case OPT_FSYNC:
		return OPTS_OUTPUT;
	case OPT_ANCHOR:
		return OPTS_ANCHOR;
	case OPT_STATS:
		return OPTS_STATS;
	case OPT_START_SYM: case OPT_STOP_SYM:
		return OPTS_BOUNDS;
	case OPT_ALLOW_UNSORTED: case OPT_MAX_LIST:
	case OPT_ALLOW_ZEROED: case OPT_BYTE_AUDIT:
		return OPTS_CHECK;
	case OPT_DROPPED:
		return OPTS_DROPPED;
	default:
		return 0;	/* -h: every command */
	}
}

/* What parsing decided: run the command, print help, or stop. */
enum parsed { PARSE_RUN, PARSE_HELP, PARSE_ERROR };

/*
 * One line, "linkpass: <command>: <cause> (see 'linkpass --help')":
 * the full usage text would bury the cause.
 */
static enum parsed usage_error(const char *cmd, const char *fmt, ...)
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

static bool parse_long(const char *s, long min, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min)
		return false;
	*out = v;
	return true;
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

static void add_mcount_sym(struct options *o, const char *name, size_t *n)
{
	/* the first --mcount-sym replaces the default list */
	if (!*n)
		o->scan.mcount_syms = NULL;
	o->scan.mcount_syms = xrealloc(o->scan.mcount_syms,
				       (*n + 2) * sizeof(*o->scan.mcount_syms));
	o->scan.mcount_syms[(*n)++] = name;
	o->scan.mcount_syms[*n] = NULL;
}

/* Apply one option @c with argument @arg to @o. */
static enum parsed apply_option(const struct command *cmd, int c,
				const char *arg, struct options *o,
				size_t *nsyms)
{
	long v;

	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case 'j':
		if (!parse_long(arg, 1, &v))
			return usage_error(cmd->name, "bad thread count '%s'", arg);
		o->scan.threads = v > 1024 ? 1024 : (int)v;
		break;
	case OPT_STATS:
		o->stats = true;
		break;
	case OPT_FORMAT:
		if (!strcmp(arg, "elf"))
			o->format = FORMAT_ELF;
		else if (!strcmp(arg, "asm"))
			o->format = FORMAT_ASM;
		else
			return usage_error(cmd->name, "unknown format '%s' (elf or asm)", arg);
		break;
	case OPT_MCOUNT_SYM:
		add_mcount_sym(o, arg, nsyms);
		break;
	case OPT_ANCHOR:
		o->anchor = arg;
		break;
	case OPT_SECTIONS:
		policy_set(&o->scan.policy, arg);
		break;
	case OPT_TRACE_SECTION:
		policy_add(&o->scan.policy, arg);
		break;
	case OPT_NO_TRACE_SECTION:
		policy_exclude(&o->scan.policy, arg);
		break;
	case OPT_START_SYM:
		o->start_sym = arg;
		break;
	case OPT_STOP_SYM:
		o->stop_sym = arg;
		break;
	case OPT_ALLOW_UNSORTED:
		o->allow_unsorted = true;
		break;
	case OPT_MAX_LIST:
		if (!parse_long(arg, 0, &v))
			return usage_error(cmd->name, "bad --max-list '%s'", arg);
		o->max_list = v;
		break;
	case OPT_DROPPED:
		o->show_dropped = true;
		break;
	case OPT_PATCHABLE:
		o->scan.patchable = true;
		if (arg && !parse_pad(arg, &o->scan))
			return usage_error(cmd->name,
					   "bad --patchable-entries '%s' (N or N,M with 0 <= M <= N, as in -fpatchable-function-entry)",
					   arg);
		break;
	case OPT_FSYNC:
		out_fsync = true;
		break;
	case OPT_ALLOW_ZEROED:
		o->allow_zeroed = true;
		break;
	case OPT_BYTE_AUDIT:
		o->byte_audit = true;
		break;
	}
	return PARSE_RUN;
}

/* The option getopt could not use, as the user wrote it. */
static const char *bad_option(char **argv, int c)
{
	static char shortopt[3] = "-?";

	if (c == '?' && optopt && optopt != '?') {
		shortopt[1] = (char)optopt;
		return shortopt;
	}
	return argv[optind - 1];
}

/* Check the operands: one IMAGE, or one or more FILE.o. */
static enum parsed take_operands(const struct command *cmd, int argc,
				 char **argv, struct options *o)
{
	if (cmd->operands == OBJECTS && optind >= argc)
		return usage_error(cmd->name, "expected one or more FILE.o");
	if (cmd->operands == ONE_IMAGE && optind != argc - 1)
		return usage_error(cmd->name, "expected exactly one IMAGE");
	o->image = argv[optind];
	o->files = &argv[optind];
	o->nfiles = argc - optind;
	if (cmd->needs_output && !o->output)
		return usage_error(cmd->name, "missing -o FILE");
	return PARSE_RUN;
}

static enum parsed parse(const struct command *cmd, int argc, char **argv,
			 struct options *o)
{
	size_t nsyms = 0;
	int c;

	optind = 2;	/* argv[1] is the command */
	opterr = 0;	/* errors are reported here, in one line */
	while ((c = getopt_long(argc, argv, "o:j:h", long_opts, NULL)) != -1) {
		if (c == 'h')
			return PARSE_HELP;
		if (c == ':' || (c == '?' && optopt && strchr("oj", optopt)))
			return usage_error(cmd->name, "option '%s' needs an argument",
					   bad_option(argv, c));
		if (c == '?' || !(group_of(c) & cmd->opts))
			return usage_error(cmd->name, "unrecognized option '%s'",
					   bad_option(argv, c));
		if (apply_option(cmd, c, optarg, o, &nsyms) != PARSE_RUN)
			return PARSE_ERROR;
	}
	return take_operands(cmd, argc, argv, o);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	struct options o;
	int ret = EXIT_ERROR;

	/* no command: the usage; --help: the same, asked for */
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_ERROR : EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		usage_error(NULL, "unknown command '%s'", argv[1]);
		return EXIT_ERROR;
	}

	/* the options of that command, then the command itself */
	memset(&o, 0, sizeof(o));
	o.max_list = 50;
	scan_opts_init(&o.scan);
	switch (parse(cmd, argc, argv, &o)) {
	case PARSE_HELP:
		fputs(usage_text, stdout);
		ret = EXIT_OK;
		break;
	case PARSE_RUN:
		ret = cmd->run(&o);
		break;
	case PARSE_ERROR:
		break;
	}
	scan_opts_free(&o.scan);
	return ret;
}
