// SPDX-License-Identifier: GPL-2.0
/* linkpass scan: image in, sorted table object out. */
#include "anchor.h"
#include "commands.h"
#include "scan.h"
#include "table_write.h"
#include "util.h"

/* The table's gate: the scan's stripped-objects check must pass. */
static int stripped_passed(void *arg)
{
	return scan_finish(arg);
}

int cmd_scan(struct options *o)
{
	/* the times of --stats: start, open, write, end */
	uint64_t ns[4] = { now_ns() };
	struct scan_result r;
	struct out_gate gate = { stripped_passed, &r };
	const struct scan_want want = { .anchors = true, .stripped_later = true };
	struct anchors a;
	struct image im;
	int ret = EXIT_ERROR;

	/* the scan reads the symbols in place; a shared library's anchors */
	if (image_open_lazy(&im, o->image, IMAGE_LINKED) < 0 ||
	    image_read_dynamic(&im) < 0)
		goto out_close;
	ns[1] = now_ns();
	/* the check goes on while the table is written; the gate waits */
	if (find_sites(&im, &o->scan, &want, &r) < 0)
		goto out_close;
	/* no site: an error unless the image names no mcount symbol */
	if (!r.nkept && (scan_finish(&r) < 0 ||
			 scan_empty_table(&im, o, &r) < 0))
		goto out_free_scan;
	if (anchors_choose(&im, o->anchor, r.nkept, r.anchors, &a) < 0)
		goto out_free_scan;
	ns[2] = now_ns();
	if (o->format == FORMAT_ASM ?
	    table_write_asm(&im, r.kept, r.nkept, &a, o->output, &gate) :
	    table_write_elf(&im, r.kept, r.nkept, &a, o->output, &gate))
		goto out_free_anchors;
	ret = EXIT_OK;
	ns[3] = now_ns();
	if (o->stats)
		scan_print_stats(&im, o, &r, &a, ns);
out_free_anchors:
	anchors_free(&a);
out_free_scan:
	scan_result_free(&r);
out_close:
	image_close(&im);
	return ret;
}
