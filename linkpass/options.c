// SPDX-License-Identifier: GPL-2.0
/* The kernel's option table and the parser of every option table. */
#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "hooks.h"
#include "util.h"

#define BAD_PAD \
	"bad --patchable-entries '%s' (N or N,M with 0 <= M <= N, as in -fpatchable-function-entry)"

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

static const struct opt opts[] = {
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
};

/* getopt's value for option i when it has no short form */
#define LONG_ONLY 256

static size_t nopts(void)
{
	return ARRAY_SIZE(opts) + extras()->nopts;
}

static const struct opt *opt_at(size_t i)
{
	return i < ARRAY_SIZE(opts) ? &opts[i] :
	       &extras()->opts[i - ARRAY_SIZE(opts)];
}

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

void options_usage(FILE *f, const char *const *cmd_names)
{
	char left[64], cmds[64];
	size_t i, j, at;

	fputs("options (and the commands that take them):\n", f);
	for (i = 0; i < nopts(); i++) {
		const struct opt *p = opt_at(i);

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

	if (c >= LONG_ONLY && (size_t)(c - LONG_ONLY) < nopts())
		return opt_at(c - LONG_ONLY);
	for (i = 0; i < nopts(); i++)
		if (opt_at(i)->key && opt_at(i)->key == c)
			return opt_at(i);
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

	for (i = 0; i < nopts(); i++) {
		p = opt_at(i);
		longs[i] = (struct option){ p->name, p->has_arg, NULL,
					    p->key ? p->key :
					    (int)(LONG_ONLY + i) };
		if (!p->key)
			continue;
		shorts[k++] = (char)p->key;
		if (p->has_arg == required_argument)
			shorts[k++] = ':';
	}
	longs[nopts()] = (struct option){ NULL, 0, NULL, 0 };
	shorts[k] = 0;
}

enum parsed options_parse(const char *name, unsigned int cmd, int argc,
			  char **argv, struct options *o)
{
	struct option *longs = xcalloc(nopts() + 1, sizeof(*longs));
	char *shorts = xmalloc(2 * nopts() + 1);
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
