/* SPDX-License-Identifier: GPL-2.0 */
/* commands.h - the commands of lptrace (cmd_<command>.c, one each). */
#ifndef LPTRACE_COMMANDS_H
#define LPTRACE_COMMANDS_H

#define LPT_DEFAULT_DATA	"lptrace.data"

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_dump(int argc, char **argv);

/* "12.345 us": a duration in the unit that keeps it short. */
void fmt_ns(char *buf, size_t size, double ns);

#endif
