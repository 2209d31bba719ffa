// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass dump: the table linked into an image, one entry a line.
 * linkpass sites: what scan would put in the table, in the same form.
 */
#include <stdio.h>

#include "commands.h"
#include "describe.h"
#include "table_read.h"
#include "util.h"

static void print_entry(struct image *im, const struct funcs *f, uint64_t addr)
{
	char buf[512];

	printf("0x%016llx %s\n", (unsigned long long)addr,
	       describe_addr(im, f, addr, buf, sizeof(buf)));
}

int cmd_dump(struct options *o)
{
	struct funcs f = { 0 };
	struct table t;
	struct image im;
	int ret = EXIT_ERROR;
	size_t i;

	if (image_open(&im, o->image, IMAGE_LINKED) < 0)
		goto out_close;
	if (table_read(&im, o->start_sym, o->stop_sym, &t) < 0)
		goto out_close;
	if (!t.found) {
		lp_error(o->image, "ftrace table",
			 "not found: no __start_mcount_loc/__stop_mcount_loc or __start___mcount_loc/__stop___mcount_loc symbols and no __mcount_loc section");
		goto out_free_table;
	}
	funcs_build(&im, &f);
	for (i = 0; i < t.n; i++)
		print_entry(&im, &f, t.v[i]);
	ret = EXIT_OK;
	funcs_free(&f);
out_free_table:
	table_free(&t);
out_close:
	image_close(&im);
	return ret;
}

int cmd_sites(struct options *o)
{
	struct scan_result r;
	struct image im;
	int ret = EXIT_ERROR;
	size_t i;

	if (image_open(&im, o->image, IMAGE_LINKED) < 0)
		goto out_close;
	if (scan_image(&im, &o->scan, &r) < 0)
		goto out_close;
	for (i = 0; i < r.nkept; i++)
		print_entry(&im, &r.funcs, r.kept[i].addr);
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
