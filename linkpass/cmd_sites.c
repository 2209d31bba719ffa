// SPDX-License-Identifier: GPL-2.0
/* linkpass sites: what scan would put in the table, in dump's form. */
#include <stdio.h>

#include "commands.h"
#include "describe.h"
#include "scan.h"
#include "util.h"

int cmd_sites(struct options *o)
{
	struct describe_cursor cur = DESCRIBE_CURSOR_INIT;
	struct scan_result r;
	struct image im;
	int ret = EXIT_ERROR;
	size_t i;

	if (image_open(&im, o->image, IMAGE_LINKED) < 0)
		goto out_close;
	if (find_sites(&im, &o->scan, &scan_explained, &r) < 0)
		goto out_close;
	for (i = 0; i < r.nkept; i++)
		describe_print_entry(&im, &r.funcs, r.kept[i].addr, &cur);
	if (o->show_dropped) {
		for (i = 0; i < r.ndropped; i++) {
			char buf[512];

			printf("dropped 0x%016llx %s: %s\n",
			       (unsigned long long)r.dropped[i].addr,
			       describe_addr(&im, &r.funcs, r.dropped[i].addr,
					     buf, sizeof(buf)),
			       verdict_name[r.dropped[i].verdict]);
		}
	}
	ret = EXIT_OK;
	scan_result_free(&r);
out_close:
	image_close(&im);
	return ret;
}
