/* SPDX-License-Identifier: GPL-2.0 */
/* cli.h - the commands of lptrace (one file each). */
#ifndef LPTRACE_CLI_H
#define LPTRACE_CLI_H

#define LPT_DEFAULT_DATA	"lptrace.data"

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_dump(int argc, char **argv);

/* "12.345 us": a duration in the unit that keeps it short. */
void fmt_ns(char *buf, size_t size, double ns);

#endif
