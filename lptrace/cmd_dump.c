// SPDX-License-Identifier: GPL-2.0
/* cmd_dump.c - `lptrace dump --text|--chrome`: the file through render.c. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "tracefile.h"

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "text", no_argument, NULL, 'T' },
		{ "chrome", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = LPT_DEFAULT_DATA;
	struct lpt_render r;
	struct lpt_data d;
	int c, fmt = 0, err;

	while ((c = getopt_long(argc, argv, "i:", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			in = optarg;
			break;
		case 'T':
		case 'C':
			fmt = c;
			break;
		default:
			return 2;
		}
	}
	if (!fmt || optind != argc) {
		fputs("usage: lptrace dump [-i FILE] --text|--chrome\n", stderr);
		return 2;
	}
	if (data_open(&d, in))
		return 1;
	data_render(&d, &r);
	err = fmt == 'T' ? lpt_render_text(stdout, &r) :
			   lpt_render_json(stdout, &r);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("stdout: write failed");
		err = -1;
	}
	data_close(&d);
	return err ? 1 : 0;
}
