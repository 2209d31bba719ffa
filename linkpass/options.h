/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of every command, declared once (options.c): one line of
 * the option table gives an option's name, its argument, the commands
 * that take it, where it is stored and its help text.  The usage text,
 * the getopt table and the check that a command takes an option all
 * come from that line, and opts_valid() checks what the options say
 * together.  Model: objtool's OPT_BOOLEAN() lines and opts_valid().
 */
#ifndef LINKPASS_OPTIONS_H
#define LINKPASS_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "compiler.h"
#include "site.h"

/* The commands, as bits: an option lists those that take it. */
enum {
	CMD_SCAN = BIT(0),
	CMD_CHECK = BIT(1),
	CMD_DUMP = BIT(2),
	CMD_SITES = BIT(3),
	CMD_OBJ = BIT(4),
	CMD_NOP = BIT(5),
};

enum out_format { FORMAT_ELF, FORMAT_ASM };

/* check --sites: what every site of the table must hold. */
enum site_expect {
	SITES_ANY,		/* the call or the NOP (the default) */
	SITES_CALL,		/* the call to the mcount symbol */
	SITES_NOP,		/* the NOP linkpass nop writes */
};

struct options {
	const char *image;	/* the IMAGE (obj, nop: the first FILE) */
	char **files;		/* obj, nop: every FILE */
	int nfiles;
	const char *output;
	bool stats;
	bool fsync;		/* fsync outputs before the rename */
	bool allow_empty;	/* scan: 0 sites with an mcount symbol is ok */
	enum out_format format;
	const char *anchor;
	const char *start_sym, *stop_sym;
	bool allow_unsorted;	/* check: ordering faults are not errors */
	bool allow_zeroed;	/* check: zero entries are not errors */
	bool byte_audit;	/* check: sites from function entries */
	enum site_expect sites;	/* check: what each site must hold */
	bool show_dropped;	/* sites: also list dropped references */
	long max_list;		/* check: lines per category; 0 = all */
	struct scan_opts scan;
};

/* The defaults; options_free() releases what parsing added. */
void options_init(struct options *o);
void options_free(struct options *o);

/* What parsing decided: run the command, print help, or stop. */
enum parsed { PARSE_RUN, PARSE_HELP, PARSE_ERROR };

/*
 * Parse the options of command @name (its CMD_* bit @cmd) from argv[2]
 * on, into @o; the operands are left from argv[optind].  An error is
 * one line, "linkpass: <command>: <cause> (see 'linkpass --help')".
 */
enum parsed options_parse(const char *name, unsigned int cmd, int argc,
			  char **argv, struct options *o);
/* What the options of command @cmd say together; PARSE_ERROR if wrong. */
enum parsed opts_valid(const char *name, unsigned int cmd,
		       const struct options *o);
/* The one-line usage error; @cmd may be NULL. */
enum parsed usage_error(const char *cmd, const char *fmt, ...)
	__printf(2, 3);
/* The option lines of the usage text. */
void options_usage(FILE *f);
/*
 * Run @fn on each file of @o (obj, nop): every one is tried, and the
 * exit status is EXIT_ERROR when any failed (each said why).
 */
int options_each_file(const struct options *o,
		      int (*fn)(const struct options *o, const char *path));

#endif
