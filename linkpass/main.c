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
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

static const char usage_text[] =
"usage: linkpass scan  IMAGE -o TABLE.o [--stats] [--format=elf|asm] [--anchor=SYM|auto] [filter options]\n"
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
"exit status: 0 ok, 1 check found differences, 2 error\n";

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
	OPT_ALLOW_ZEROED,
	OPT_BYTE_AUDIT,
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
	{ "allow-zeroed", no_argument, NULL, OPT_ALLOW_ZEROED },
	{ "byte-audit", no_argument, NULL, OPT_BYTE_AUDIT },
	{ NULL, 0, NULL, 0 },
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "linkpass: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage_text);
	return EXIT_ERROR;
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

static int parse(int argc, char **argv, struct options *o)
{
	size_t nsyms = 0;
	long v;
	int c;

	optind = 2;	/* argv[1] is the command */
	while ((c = getopt_long(argc, argv, "o:j:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'j':
			if (!parse_long(optarg, 1, &v))
				return usage_error("bad thread count '%s'", optarg);
			o->scan.threads = (int)v;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		case OPT_STATS:
			o->stats = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "elf"))
				o->format = FORMAT_ELF;
			else if (!strcmp(optarg, "asm"))
				o->format = FORMAT_ASM;
			else
				return usage_error("unknown format '%s' (elf or asm)", optarg);
			break;
		case OPT_MCOUNT_SYM:
			add_mcount_sym(o, optarg, &nsyms);
			break;
		case OPT_ANCHOR:
			o->anchor = optarg;
			break;
		case OPT_SECTIONS:
			policy_set(&o->scan.policy, optarg);
			break;
		case OPT_TRACE_SECTION:
			policy_add(&o->scan.policy, optarg);
			break;
		case OPT_NO_TRACE_SECTION:
			policy_exclude(&o->scan.policy, optarg);
			break;
		case OPT_START_SYM:
			o->start_sym = optarg;
			break;
		case OPT_STOP_SYM:
			o->stop_sym = optarg;
			break;
		case OPT_ALLOW_UNSORTED:
			o->allow_unsorted = true;
			break;
		case OPT_MAX_LIST:
			if (!parse_long(optarg, 0, &v))
				return usage_error("bad --max-list '%s'", optarg);
			o->max_list = v;
			break;
		case OPT_DROPPED:
			o->show_dropped = true;
			break;
		case OPT_ALLOW_ZEROED:
			o->allow_zeroed = true;
			break;
		case OPT_BYTE_AUDIT:
			o->byte_audit = true;
			break;
		default:
			fputs(usage_text, stderr);
			return EXIT_ERROR;
		}
	}
	if (!strcmp(argv[1], "obj")) {
		if (optind >= argc)
			return usage_error("%s: expected one or more FILE.o", argv[1]);
	} else if (optind != argc - 1) {
		return usage_error("%s: expected exactly one IMAGE", argv[1]);
	}
	o->image = argv[optind];
	o->files = &argv[optind];
	o->nfiles = argc - optind;
	return EXIT_OK;
}

static int run_obj(struct options *o)
{
	return cmd_obj(o, o->nfiles, o->files);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(struct options *o);
	} commands[] = {
		{ "scan", cmd_scan },
		{ "check", cmd_check },
		{ "dump", cmd_dump },
		{ "sites", cmd_sites },
		{ "obj", run_obj },
	};
	struct options o;
	size_t i;
	int ret;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_ERROR : EXIT_OK;
	}
	memset(&o, 0, sizeof(o));
	o.max_list = 50;
	scan_opts_init(&o.scan);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		ret = usage_error("unknown command '%s'", argv[1]);
		goto out;
	}
	ret = parse(argc, argv, &o);
	if (ret != EXIT_OK)
		goto out;
	if (commands[i].run == cmd_scan && !o.output) {
		ret = usage_error("%s: scan needs -o TABLE.o", o.image);
		goto out;
	}
	ret = commands[i].run(&o);
out:
	scan_opts_free(&o.scan);
	return ret;
}
