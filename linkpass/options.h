/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of every command: one line of the option table gives an
 * option's name, argument, commands, field and help, from which the
 * usage text, the getopt table and the checks are made (as objtool's
 * OPT_BOOLEAN() lines).  options.c has the table, optparse.c reads it.
 */
#ifndef LINKPASS_OPTIONS_H
#define LINKPASS_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
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
enum site_expect { SITES_ANY, SITES_CALL, SITES_NOP };

struct options {
	const char *image;	/* the IMAGE, or (obj, nop) one FILE in turn */
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
	/* obj --check, --nop: then check, then nop, each object */
	bool then_check, then_nop;
	struct scan_opts scan;
};

enum opt_type {
	OPT_T_BOOL,		/* no argument: the bool at .off is set */
	OPT_T_STR,		/* the argument, at .off */
	OPT_T_FN,		/* .fn takes it */
	OPT_T_HELP,		/* -h, --help: every command */
};

/* A line of the option table. */
struct opt {
	int key;		/* the short option's letter, or 0 */
	const char *name;
	int has_arg;		/* no_argument, required_argument... */
	enum opt_type type;
	size_t off;		/* OPT_T_BOOL, OPT_T_STR: the field */
	/* NULL, or the message of a bad @arg: a format with one %s */
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

/* The option table (options.c), in usage order. */
extern const struct opt options_table[];
extern const size_t options_count;

void options_init(struct options *o);
void options_free(struct options *o);

enum parsed { PARSE_RUN, PARSE_HELP, PARSE_ERROR };

/* Command @name's options from argv[2] on; operands from argv[optind]. */
enum parsed options_parse(const char *name, unsigned int cmd, int argc,
			  char **argv, struct options *o);
enum parsed opts_valid(const char *name, unsigned int cmd,
		       const struct options *o);
/* "linkpass: <cmd>: <cause> (see 'linkpass --help')"; @cmd may be NULL */
enum parsed usage_error(const char *cmd, const char *fmt, ...)
	__printf(2, 3);
/* The option lines of the usage text; @cmd_names: by CMD_* bit. */
void options_usage(FILE *f, const char *const *cmd_names);

#endif
