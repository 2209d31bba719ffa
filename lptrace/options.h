/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of every lptrace command, declared once (options.c): one
 * line of the table gives an option's name, its argument, the commands
 * that take it, where it goes and its help text.  The usage text, the
 * getopt table and the check that a command takes an option come from
 * that line, and opts_valid() checks what the options say together.
 * The pattern of linkpass/options.c (objtool's OPT_* lines).
 */
#ifndef LPTRACE_OPTIONS_H
#define LPTRACE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LPT_DEFAULT_DATA	"lptrace.data"

/*
 * Exit status, as linkpass's: 0 ok, 2 an error.  1 is linkpass's "a
 * finding" (check found differences); no lptrace command has findings.
 */
#define EXIT_OK		0
#define EXIT_ERROR	2

/* The commands, as bits: an option lists those that take it. */
enum {
	CMD_RECORD = 1u << 0,
	CMD_REPORT = 1u << 1,
	CMD_GRAPH = 1u << 2,
	CMD_DUMP = 1u << 3,
	CMD_REPLAY = 1u << 4,
	CMD_INFO = 1u << 5,
};

/* The commands that read a file, and those that walk its events. */
#define CMDS_READ	(CMD_REPORT | CMD_GRAPH | CMD_DUMP | CMD_REPLAY | CMD_INFO)
#define CMDS_WALK	(CMD_REPORT | CMD_GRAPH | CMD_DUMP | CMD_REPLAY)

enum sort_key { SORT_DEFAULT, SORT_CALLS, SORT_TOTAL, SORT_SELF, SORT_NAME };
enum dump_format { DUMP_NONE, DUMP_TEXT, DUMP_CHROME, DUMP_FOLDED };

/* A list of globs (-F, -N) or thread ids (--tid), from repeats and commas. */
struct strlist {
	char **v;
	size_t n;
};

struct options {
	unsigned int cmd;		/* the command's CMD_* bit */
	const char *name;		/* and its name */
	const char *input;		/* -i */
	const char *output;		/* record -o */
	struct strlist filter;		/* -F: only these, and what they call */
	struct strlist notrace;		/* -N: not these, nor what they call */
	struct strlist tids;		/* --tid */
	long depth;			/* -D; 0 = no limit */
	const char *depth_arg;		/* record: as given */
	uint64_t min_ns;		/* -t; 0 = none */
	const char *min_arg;
	const char *bufsize;		/* record -b */
	bool graph;			/* record --graph */
	enum sort_key sort;		/* report -s */
	enum dump_format format;	/* dump --text|--chrome|--folded */
	bool range;			/* dump -r START~END given */
	uint64_t range_from, range_to;	/* ns from the first event; to 0 = end */
	char **operands;		/* record: PROG ARGS; graph: FUNC */
	int noperands;
};

void options_init(struct options *o);
void options_free(struct options *o);

/* What parsing decided: run the command, print help, or stop. */
enum parsed { PARSE_RUN, PARSE_HELP, PARSE_ERROR };

/*
 * Parse the options of command @name (its CMD_* bit @cmd) from argv[2]
 * on into @o; the operands are left from argv[optind].  An error is one
 * line, "lptrace: <command>: <cause> (see 'lptrace <command> --help')".
 */
enum parsed options_parse(const char *name, unsigned int cmd, int argc,
			  char **argv, struct options *o);
/* What the options of @o's command say together; PARSE_ERROR if wrong. */
enum parsed opts_valid(const struct options *o);
/* The one-line usage error; @cmd may be NULL. */
enum parsed usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The option lines of the usage text: every option, or those of @cmd. */
void options_usage(FILE *f, unsigned int cmd);

/* "500ns", "10us", "2ms", "1s" or plain nanoseconds; -1 if not one. */
long long parse_duration(const char *s);

#endif
