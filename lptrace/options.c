// SPDX-License-Identifier: GPL-2.0
/*
 * The option table and its parser.  Adding an option is one line of
 * opts[] (and the field of struct options it sets): its usage line, its
 * getopt entry and the commands that accept it all come from there.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

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
	int has_arg;
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
#define OPT_FLAG_FN(k, n, f, c, h) \
	{ k, n, no_argument, OPT_T_FN, 0, f, NULL, c, h }

long long parse_duration(const char *s)
{
	static const struct { const char *unit; long long ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!errno && !strcmp(end, units[i].unit) &&
		    v <= 1000000000000ull / units[i].ns)
			return v * units[i].ns;
	return -1;
}

/* Append each comma-separated item of @arg to @l. */
static const char *list_add(struct strlist *l, const char *arg)
{
	const char *p = arg, *comma;

	do {
		char **nv;

		comma = strchr(p, ',');
		if (comma == p || !*p)
			return "empty item in '%s'";
		nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
		if (!nv)
			return "out of memory for '%s'";
		l->v = nv;
		l->v[l->n] = comma ? strndup(p, comma - p) : strdup(p);
		if (!l->v[l->n])
			return "out of memory for '%s'";
		l->n++;
		p = comma + 1;
	} while (comma);
	return NULL;
}

static const char *add_filter(struct options *o, const char *arg)
{
	return list_add(&o->filter, arg);
}

static const char *add_notrace(struct options *o, const char *arg)
{
	return list_add(&o->notrace, arg);
}

static const char *add_tid(struct options *o, const char *arg)
{
	const char *bad = list_add(&o->tids, arg);
	size_t i;

	for (i = 0; !bad && i < o->tids.n; i++)
		if (strspn(o->tids.v[i], "0123456789") != strlen(o->tids.v[i]))
			bad = "bad --tid '%s' (thread ids, comma-separated)";
	return bad;
}

static const char *set_depth(struct options *o, const char *arg)
{
	char *end;

	o->depth = strtol(arg, &end, 10);
	if (!*arg || *end || o->depth < 1 || o->depth > 4096)
		return "bad -D '%s' (a depth from 1 to 4096)";
	o->depth_arg = arg;
	return NULL;
}

static const char *set_min(struct options *o, const char *arg)
{
	long long ns = parse_duration(arg);

	if (ns < 0)
		return "-t %s: not a duration (500ns, 10us, 2ms, 1s)";
	o->min_ns = ns;
	o->min_arg = arg;
	return NULL;
}

static const char *set_sort(struct options *o, const char *arg)
{
	static const char *const words[] = {
		[SORT_CALLS] = "calls", [SORT_TOTAL] = "total",
		[SORT_SELF] = "self", [SORT_NAME] = "name",
	};
	size_t i;

	for (i = SORT_CALLS; i < ARRAY_SIZE(words); i++)
		if (!strcmp(arg, words[i])) {
			o->sort = i;
			return NULL;
		}
	return "unknown sort key '%s' (calls, total, self or name)";
}

/* START~END, each a duration from the first event, either may be empty. */
static const char *set_range(struct options *o, const char *arg)
{
	const char *tilde = strchr(arg, '~');
	char from[64];
	long long a = 0, b = 0;

	if (!tilde || (size_t)(tilde - arg) >= sizeof(from))
		return "bad -r '%s' (START~END: 10ms~20ms, 1s~, ~500us)";
	memcpy(from, arg, tilde - arg);
	from[tilde - arg] = 0;
	if (*from)
		a = parse_duration(from);
	if (tilde[1])
		b = parse_duration(tilde + 1);
	if (a < 0 || b < 0 || (tilde[1] && b <= a))
		return "bad -r '%s' (START~END: 10ms~20ms, 1s~, ~500us)";
	o->range = true;
	o->range_from = a;
	o->range_to = b;
	return NULL;
}

static const char *only_one_format(struct options *o, enum dump_format f)
{
	if (o->format != DUMP_NONE && o->format != f)
		return "one format: --text, --chrome or --folded%s";
	o->format = f;
	return NULL;
}

static const char *set_text(struct options *o, const char *arg)
{
	(void)arg;
	return only_one_format(o, DUMP_TEXT);
}

static const char *set_chrome(struct options *o, const char *arg)
{
	(void)arg;
	return only_one_format(o, DUMP_CHROME);
}

static const char *set_folded(struct options *o, const char *arg)
{
	(void)arg;
	return only_one_format(o, DUMP_FOLDED);
}

static const struct opt opts[] = {
	OPT_STRING('o', "output", output, "FILE", CMD_RECORD,
		   "the trace file to write (default " LPT_DEFAULT_DATA ")"),
	OPT_STRING('i', "input", input, "FILE", CMDS_READ,
		   "the trace file to read (default " LPT_DEFAULT_DATA ")"),
	OPT_BOOLEAN(0, "graph", graph, CMD_RECORD,
		    "record entries and exits (function-graph mode)"),
	OPT_STRING('b', "bufsize", bufsize, "EVENTS", CMD_RECORD,
		   "events per thread ring (LPTRACE_BUFSIZE)"),
	OPT_CALLBACK('F', "filter", add_filter, "GLOB,...",
		     CMD_RECORD | CMDS_WALK,
		     "record: trace only these; read: only these and their callees (repeatable)"),
	OPT_CALLBACK('N', "notrace", add_notrace, "GLOB,...",
		     CMD_RECORD | CMDS_WALK,
		     "read: not these functions, nor their callees (repeatable)"),
	OPT_CALLBACK('D', "depth", set_depth, "DEPTH", CMD_RECORD | CMDS_WALK,
		     "calls at most DEPTH deep (with -F: from the filtered function)"),
	OPT_CALLBACK('t', "time-filter", set_min, "MIN",
		     CMD_RECORD | CMD_REPORT | CMD_GRAPH | CMD_DUMP,
		     "only calls that took at least MIN (500ns, 10us, 2ms)"),
	OPT_CALLBACK(0, "tid", add_tid, "TID,...", CMDS_WALK,
		     "only these threads (repeatable)"),
	OPT_CALLBACK('s', "sort", set_sort, "calls|total|self|name", CMD_REPORT,
		     "the order (default total in a graph recording, else calls)"),
	OPT_FLAG_FN(0, "text", set_text, CMD_DUMP,
		    "ftrace text, threads merged in time order"),
	OPT_FLAG_FN(0, "chrome", set_chrome, CMD_DUMP,
		    "Chrome trace-event JSON (Perfetto)"),
	OPT_FLAG_FN(0, "folded", set_folded, CMD_DUMP,
		    "folded stacks with their self time in ns (flamegraph.pl, inferno, speedscope)"),
	OPT_CALLBACK('r', "time-range", set_range, "START~END", CMD_DUMP,
		     "--chrome: calls that start in this window (from the first event)"),
	{ 'h', "help", no_argument, OPT_T_HELP, 0, NULL, NULL, ~0u,
	  "this text" },
};

#define NOPTS (ARRAY_SIZE(opts))
/* getopt's value for opts[i] when it has no short form */
#define LONG_ONLY 256

void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->input = LPT_DEFAULT_DATA;
	o->output = LPT_DEFAULT_DATA;
}

static void list_free(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

void options_free(struct options *o)
{
	list_free(&o->filter);
	list_free(&o->notrace);
	list_free(&o->tids);
}

enum parsed usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lptrace: ");
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, " (see 'lptrace %s --help')\n", cmd);
	else
		fprintf(stderr, " (see 'lptrace --help')\n");
	return PARSE_ERROR;
}

/* The names of the CMD_* bits, in bit order, for the usage. */
static const char *const cmd_names[] = {
	"record", "report", "graph", "dump", "replay", "info",
};

#define NCMDS (ARRAY_SIZE(cmd_names))

void options_usage(FILE *f, unsigned int cmd)
{
	char left[64], cmds[80];
	size_t i, j, at;

	fputs(cmd == ~0u ? "options (and the commands that take them):\n" :
	      "options:\n", f);
	for (i = 0; i < NOPTS; i++) {
		const struct opt *p = &opts[i];

		if (!(p->cmds & cmd))
			continue;
		if (p->key)
			at = (size_t)snprintf(left, sizeof(left), "-%c, --%s",
					      p->key, p->name);
		else
			at = (size_t)snprintf(left, sizeof(left), "--%s",
					      p->name);
		if (p->arg)
			snprintf(left + at, sizeof(left) - at, "=%s", p->arg);
		at = 0;
		cmds[0] = 0;
		for (j = 0; cmd == ~0u && p->type != OPT_T_HELP && j < NCMDS;
		     j++)
			if (p->cmds & (1u << j))
				at += (size_t)snprintf(cmds + at,
						       sizeof(cmds) - at,
						       "%s%s", at ? ", " : "",
						       cmd_names[j]);
		fprintf(f, "  %-30s %s%s%s%s\n", left, p->help,
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
			return usage_error(name, bad, arg ? arg : "");
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

/*
 * getopt's tables, made from opts[].  record stops at the program's
 * name ('+'): what follows is the program's own.
 */
static void getopt_tables(unsigned int cmd, struct option *longs,
			  char *shorts)
{
	size_t i, k = 0;

	if (cmd == CMD_RECORD)
		shorts[k++] = '+';
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
	char shorts[2 * NOPTS + 2];
	const struct opt *p;
	enum parsed ret;
	int c;

	o->cmd = cmd;
	o->name = name;
	getopt_tables(cmd, longs, shorts);
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
	o->operands = argv + optind;
	o->noperands = argc - optind;
	return PARSE_RUN;
}

enum parsed opts_valid(const struct options *o)
{
	const char *name = o->name;

	switch (o->cmd) {
	case CMD_RECORD:
		if (!o->noperands)
			return usage_error(name, "expected PROG [ARGS...]");
		if ((o->depth_arg || o->min_arg) && !o->graph)
			return usage_error(name, "-D and -t filter function-graph recordings: add --graph");
		/* the runtime has no exclude list: that is for the readers */
		if (o->notrace.n)
			return usage_error(name, "the runtime has no exclude list: filter when reading (report -N GLOB)");
		return PARSE_RUN;
	case CMD_GRAPH:
		if (o->noperands != 1)
			return usage_error(name, "expected exactly one FUNC");
		break;
	case CMD_DUMP:
		if (o->format == DUMP_NONE)
			return usage_error(name, "expected --text, --chrome or --folded");
		if (o->range && o->format != DUMP_CHROME)
			return usage_error(name, "-r is for --chrome");
		if (o->min_ns && o->format == DUMP_TEXT)
			return usage_error(name, "-t is for --chrome and --folded (text prints each entry before its exit is known)");
		/* fall through */
	default:
		if (o->noperands)
			return usage_error(name, "unexpected operand '%s'",
					   o->operands[0]);
	}
	return PARSE_RUN;
}
