// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/linkpass: ftrace's table of call sites, made from the linked
 * image, the way kallsyms makes its tables.
 *
 *   linkpass [--patchable=N,M [--lists=vmlinux.o]] FILE > TABLE.S
 *	The sites of FILE's live functions in traced code, sorted, as
 *	assembler.  FILE is a kallsyms link of vmlinux (linked with
 *	--emit-relocs where the sites are calls) or a module's .ko; the
 *	table object is linked into the next link of vmlinux, or first into
 *	a relink of the module ("ld -r TABLE.o FILE").
 *
 *   linkpass [--patchable=N,M] --check [--nop] FILE
 *	Audit the table linked into FILE against FILE's code (check.c);
 *	with --nop, then write at every site the state ftrace_init_nop()
 *	would leave it in (nop.c).
 *
 * --patchable=N,M: the sites are -fpatchable-function-entry=N,M pads,
 * which the compiler lists in each object; vmlinux is linked without the
 * lists, so --lists names the object that has them (vmlinux.o).
 * Exit status: 0 done, 1 the table is not exact (each difference
 * reported), 2 an error, reported on one line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkpass.h"

static void usage_exit(void)
{
	fprintf(stderr,
		"usage: linkpass [--patchable=N,M [--lists=OBJECT]] FILE > TABLE.S\n"
		"       linkpass [--patchable=N,M] --check [--nop] FILE\n");
	exit(2);
}

static bool parse_pad(const char *arg, struct pad *pad)
{
	char *end;
	unsigned long n, m = 0;

	n = strtoul(arg, &end, 10);
	if (*end == ',')
		m = strtoul(end + 1, &end, 10);
	if (*end || !n || n > 64 || m > n)
		return false;
	pad->n = n;
	pad->m = m;
	return true;
}

static int make_table(struct image *im, const char *lists)
{
	struct site *s;
	size_t n;
	int ret;

	if (im->rel && image_section(im, MCOUNT_SECTION))
		return error(im, MCOUNT_SECTION, "the module has a table already");
	if (sites_find(im, lists, &s, &n) < 0)
		return -1;
	ret = im->rel ? emit_module(im, s, n) : emit_vmlinux(im, s, n);
	free(s);
	return ret;
}

static int check_and_nop(struct image *im, bool nop)
{
	struct site *t;
	size_t n;
	int ret;

	ret = check_image(im, &t, &n);
	if (!ret && nop)
		ret = nop_sites(im, t, n);
	free(t);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "patchable", required_argument, NULL, 'p' },
		{ "lists", required_argument, NULL, 'l' },
		{ "check", no_argument, NULL, 'c' },
		{ "nop", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct pad pad = { 0, 0 };
	bool check = false, nop = false;
	const char *lists = NULL;
	struct image im;
	int c, ret;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!parse_pad(optarg, &pad)) {
				fprintf(stderr, "linkpass: --patchable=%s: %s\n",
					optarg, "expected N,M with 0 < N <= 64, M <= N");
				return 2;
			}
			break;
		case 'l':
			lists = optarg;
			break;
		case 'c':
			check = true;
			break;
		case 'n':
			nop = true;
			break;
		default:
			usage_exit();
		}
	}
	if (optind != argc - 1 || (nop && !check))
		usage_exit();

	/* the file, its sections, symbols and functions */
	if (image_open(&im, argv[optind], nop) < 0)
		return 2;
	im.pad = pad;
	/* the table, or the audit of the one linked in (and the NOPs) */
	ret = check ? check_and_nop(&im, nop) : make_table(&im, lists);
	image_close(&im);
	return ret < 0 ? 2 : ret;
}
