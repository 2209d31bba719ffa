// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass: Linux's ftrace call-site table (__mcount_loc) from a whole
 * linked image in one pass.  scan writes an image's sorted table
 * object, check compares the table in an image or object with its
 * sites, obj adds a table to relocatable objects, nop writes the NOP
 * over every site (x86_64), dump prints the table linked into an
 * image and sites what scan would put in it.  main() picks the command,
 * parses its options (options.c) and runs it; only main() exits.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compiler.h"
#include "util.h"

static const struct command commands[] = {
	{ "scan", cmd_scan, CMD_SCAN, ONE_IMAGE, "IMAGE -o TABLE.o" },
	{ "check", cmd_check, CMD_CHECK, ONE_IMAGE, "IMAGE|FILE.o" },
	{ "obj", cmd_obj, CMD_OBJ, OBJECTS, "FILE.o..." },
	{ "nop", cmd_nop, CMD_NOP, FILES, "IMAGE|FILE.o..." },
	{ "dump", cmd_dump, CMD_DUMP, ONE_IMAGE, "IMAGE" },
	{ "sites", cmd_sites, CMD_SITES, ONE_IMAGE, "IMAGE" },
};

/* The usage's last word on options: --anchor is scan's and check's. */
#define USAGE_NOTE \
	"check also accepts --anchor, so that one option list serves scan and check.\n"

static void usage(FILE *f)
{
	const char *names[32] = { NULL };
	const struct command *c;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		c = &commands[i];
		fprintf(f, "%s linkpass %-5s %s [options]\n",
			i ? "      " : "usage:", c->name, c->synopsis);
		names[__builtin_ctz(c->bit)] = c->name;
	}
	options_usage(f, names);
	fputs(USAGE_NOTE, f);
	fputs("exit status: 0 ok, 1 check found differences, 2 error\n", f);
}

/* Check the operands: one IMAGE, or one or more files. */
static enum parsed take_operands(const struct command *cmd, int argc)
{
	if (cmd->operands == OBJECTS && optind >= argc)
		return usage_error(cmd->name, "expected one or more FILE.o");
	if (cmd->operands == FILES && optind >= argc)
		return usage_error(cmd->name, "expected one or more IMAGE or FILE.o");
	if (cmd->operands == ONE_IMAGE && optind != argc - 1)
		return usage_error(cmd->name, "expected exactly one IMAGE");
	return PARSE_RUN;
}

int main(int argc, char **argv)
{
	const struct command *cmd = NULL;
	struct options o;
	enum parsed parsed;
	int ret = EXIT_ERROR, status;
	size_t i;

	/* no command: the usage; --help: the same, asked for */
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_ERROR : EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(commands) && !cmd; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		usage_error(NULL, "unknown command '%s'", argv[1]);
		return EXIT_ERROR;
	}
	options_init(&o);
	parsed = options_parse(cmd->name, cmd->bit, argc, argv, &o);
	if (parsed == PARSE_RUN)
		parsed = take_operands(cmd, argc);
	if (parsed == PARSE_RUN)
		parsed = opts_valid(cmd->name, cmd->bit, &o);
	if (parsed == PARSE_HELP) {
		usage(stdout);
		ret = EXIT_OK;
	} else if (parsed == PARSE_RUN) {
		/* obj, nop: each FILE in turn; the status is the worst one */
		for (ret = EXIT_OK; optind < argc; optind++) {
			o.image = argv[optind];
			status = cmd->run(&o);
			ret = status > ret ? status : ret;
		}
	}
	options_free(&o);
	return ret;
}
