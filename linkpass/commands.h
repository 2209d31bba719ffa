/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands, one file each (cmd_*.c); their options: options.h. */
#ifndef LINKPASS_COMMANDS_H
#define LINKPASS_COMMANDS_H

#include "options.h"

int cmd_scan(struct options *o);
int cmd_check(struct options *o);
int cmd_dump(struct options *o);
int cmd_sites(struct options *o);
int cmd_obj(struct options *o);
int cmd_nop(struct options *o);

#endif
