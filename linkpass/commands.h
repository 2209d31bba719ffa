/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands, one file each (cmd_*.c); their options: options.h. */
#ifndef LINKPASS_COMMANDS_H
#define LINKPASS_COMMANDS_H

#include "options.h"

enum operands {
	ONE_IMAGE,
	OBJECTS,		/* one or more FILE.o */
	FILES,			/* one or more IMAGE or FILE.o */
};

/* A line of main()'s command table. */
struct command {
	const char *name;
	int (*run)(struct options *o);	/* on o->image: the exit status */
	unsigned int bit;	/* CMD_*: which options it takes */
	enum operands operands;
	const char *synopsis;	/* the operands, in the usage */
};

int cmd_scan(struct options *o);
int cmd_check(struct options *o);
int cmd_obj(struct options *o);
int cmd_nop(struct options *o);
int cmd_dump(struct options *o);
int cmd_sites(struct options *o);

#endif
