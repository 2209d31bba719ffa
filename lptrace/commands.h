/* SPDX-License-Identifier: GPL-2.0 */
/*
 * commands.h - the commands of lptrace (cmd_<command>.c, one each).
 * Each returns the exit status: EXIT_OK, or EXIT_ERROR after one line
 * on stderr; record returns the program's.
 */
#ifndef LPTRACE_COMMANDS_H
#define LPTRACE_COMMANDS_H

#include <stddef.h>

#include "options.h"

int cmd_record(const struct options *o);
int cmd_report(const struct options *o);
int cmd_graph(const struct options *o);
int cmd_dump(const struct options *o);
int cmd_replay(const struct options *o);
int cmd_info(const struct options *o);

#endif
