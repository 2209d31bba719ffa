/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands and the options they share. */
#ifndef LINKPASS_COMMANDS_H
#define LINKPASS_COMMANDS_H

#include <stdbool.h>

#include "scan.h"

enum out_format { FORMAT_ELF, FORMAT_ASM };

struct options {
	const char *image;	/* the IMAGE (for obj: the first FILE.o) */
	char **files;		/* obj: every FILE.o */
	int nfiles;
	const char *output;
	bool stats;
	enum out_format format;
	const char *anchor;
	const char *start_sym, *stop_sym;
	bool allow_unsorted;	/* check: ordering faults are not errors */
	bool allow_zeroed;	/* check: zero entries are not errors */
	bool byte_audit;	/* check: sites from function entries */
	bool show_dropped;	/* sites: also list dropped references */
	long max_list;		/* check: lines per category; 0 = all */
	struct scan_opts scan;
};

int cmd_scan(struct options *o);
int cmd_check(struct options *o);
int cmd_dump(struct options *o);
int cmd_sites(struct options *o);
int cmd_obj(struct options *o);

#endif
