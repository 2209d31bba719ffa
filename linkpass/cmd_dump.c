// SPDX-License-Identifier: GPL-2.0
/* linkpass dump: the table linked into an image, one entry a line. */
#include <stdio.h>

#include "commands.h"
#include "describe.h"
#include "table_read.h"
#include "util.h"

int cmd_dump(struct options *o)
{
	struct describe_cursor cur = DESCRIBE_CURSOR_INIT;
	struct funcs f = { 0 };
	struct table t;
	struct image im;
	int ret = EXIT_ERROR;
	size_t i;

	if (image_open(&im, o->image, IMAGE_LINKED) < 0)
		goto out_close;
	if (table_read_found(&im, o->start_sym, o->stop_sym, &t) < 0)
		goto out_close;
	funcs_build(&im, &f);
	for (i = 0; i < t.n; i++)
		describe_print_entry(&im, &f, t.v[i], &cur);
	ret = EXIT_OK;
	funcs_free(&f);
	table_free(&t);
out_close:
	image_close(&im);
	return ret;
}
