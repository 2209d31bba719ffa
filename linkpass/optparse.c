// SPDX-License-Identifier: GPL-2.0
/*
 * The parser of the option table (options.c): the usage lines, getopt's
 * tables made from it, each option applied to struct options, and the
 * check of their combination.
 */
#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* getopt's value for option i when it has no short form */
#define LONG_ONLY 256

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

void options_usage(FILE *f, const char *const *cmd_names)
{
	char left[64], cmds[64];
	size_t i, j, at;

	fputs("options (and the commands that take them):\n", f);
	for (i = 0; i < options_count; i++) {
		const struct opt *p = &options_table[i];

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
		for (j = 0; p->type != OPT_T_HELP && j < 32; j++)
			if ((p->cmds & (1u << j)) && cmd_names[j])
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

	if (c >= LONG_ONLY && (size_t)(c - LONG_ONLY) < options_count)
		return &options_table[c - LONG_ONLY];
	for (i = 0; i < options_count; i++)
		if (options_table[i].key && options_table[i].key == c)
			return &options_table[i];
	return NULL;
}

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
	/* a known option whose argument was the next word: the option */
	if (c != '?' && optarg && optarg == argv[optind - 1])
		return argv[optind - 2];
	return argv[optind - 1];
}

/* getopt's tables, made from the option table. */
static void getopt_tables(struct option *longs, char *shorts)
{
	const struct opt *p;
	size_t i, k = 0;

	for (i = 0; i < options_count; i++) {
		p = &options_table[i];
		longs[i] = (struct option){ p->name, p->has_arg, NULL,
					    p->key ? p->key :
					    (int)(LONG_ONLY + i) };
		if (!p->key)
			continue;
		shorts[k++] = (char)p->key;
		if (p->has_arg == required_argument)
			shorts[k++] = ':';
	}
	longs[options_count] = (struct option){ NULL, 0, NULL, 0 };
	shorts[k] = 0;
}

enum parsed options_parse(const char *name, unsigned int cmd, int argc,
			  char **argv, struct options *o)
{
	struct option *longs = xcalloc(options_count + 1, sizeof(*longs));
	char *shorts = xmalloc(2 * options_count + 1);
	const struct opt *p;
	enum parsed ret = PARSE_RUN;
	int c;

	getopt_tables(longs, shorts);
	optind = 2;	/* argv[1] is the command */
	opterr = 0;	/* errors are reported here, in one line */
	while (ret == PARSE_RUN &&
	       (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		/* '?': an unknown option, or a known one used wrongly */
		p = find_opt(c == '?' ? optopt : c);
		if (!p || !(p->cmds & cmd) || (c == '?' && !p->has_arg))
			ret = usage_error(name, "unrecognized option '%s'",
					  bad_option(argv, c));
		else if (c == '?')
			ret = usage_error(name, "option '%s' needs an argument",
					  bad_option(argv, c));
		else
			ret = apply(name, p, optarg, o);
	}
	free(shorts);
	free(longs);
	out_fsync = o->fsync;
	return ret;
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
