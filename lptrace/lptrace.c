// SPDX-License-Identifier: GPL-2.0
/*
 * lptrace - record and read traces of programs linked with liblptrace.a.
 *
 *   record  run a program with its trace streamed to a file
 *   report  per function: calls, total and self time
 *   graph   the calls under a function, merged into one tree
 *   dump    the file as ftrace text, Chrome JSON or folded stacks
 *   replay  the calls in time order, nested, with their durations
 *   info    what the file says about the recording
 *
 * main() picks the command from a table, parses the options that
 * command takes (options.c), and runs it.  Only main() exits.
 * Exit status, as linkpass's: 0 ok, 2 an error (one line on stderr);
 * 1, linkpass's "a finding", is not used.  record exits with the
 * program's status.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

struct command {
	const char *name;
	int (*run)(const struct options *o);
	unsigned int bit;	/* CMD_*: which options it takes */
	const char *synopsis;	/* the operands, in the usage */
	const char *what;
};

static const struct command commands[] = {
	{ "record", cmd_record, CMD_RECORD, "[options] [--] PROG [ARGS...]",
	  "run PROG with its trace streamed to FILE" },
	{ "report", cmd_report, CMD_REPORT, "[options]",
	  "per function: calls, total and self time" },
	{ "graph", cmd_graph, CMD_GRAPH, "[options] FUNC",
	  "the calls under FUNC merged into one tree (entry-only: callers, callees)" },
	{ "dump", cmd_dump, CMD_DUMP, "--text|--chrome|--folded [options]",
	  "the trace as ftrace text, Chrome JSON or folded stacks" },
	{ "replay", cmd_replay, CMD_REPLAY, "[options]",
	  "the calls in time order, nested, with their durations" },
	{ "info", cmd_info, CMD_INFO, "[options]",
	  "what the file says about the recording" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f, const struct command *cmd)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!cmd || cmd == &commands[i])
			fprintf(f, "%s lptrace %-6s %s\n",
				i && !cmd ? "      " : "usage:",
				commands[i].name, commands[i].synopsis);
	if (cmd)
		fprintf(f, "%s.\n", cmd->what);
	options_usage(f, cmd ? cmd->bit : ~0u);
	fputs("MIN, START and END are durations (500ns, 10us, 2ms, 1s); GLOBs are fnmatch(3)'s.\n"
	      "exit status: 0 ok, 2 error; record: the program's (128 + signal if killed)\n",
	      f);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	struct options o;
	enum parsed parsed;
	int ret = EXIT_ERROR;

	/* no command: the usage; --help: the same, asked for */
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout, NULL);
		return argc < 2 ? EXIT_ERROR : EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		usage_error(NULL, "unknown command '%s'", argv[1]);
		return EXIT_ERROR;
	}

	/* the options of that command, then the command itself */
	options_init(&o);
	parsed = options_parse(cmd->name, cmd->bit, argc, argv, &o);
	if (parsed == PARSE_RUN)
		parsed = opts_valid(&o);
	if (parsed == PARSE_HELP) {
		usage(stdout, cmd);
		ret = EXIT_OK;
	} else if (parsed == PARSE_RUN) {
		ret = cmd->run(&o);
	}
	options_free(&o);
	return ret;
}
