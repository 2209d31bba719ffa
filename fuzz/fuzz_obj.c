// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness (b): one input is one relocatable object, run
 * through the per-object mode (linkpass obj) exactly as the command line
 * runs it.  The mode rewrites its file in place through a temp file and
 * a rename, so the input is a regular file in a private directory.
 *
 * On top of the sanitizers, the harness enforces the mode's contract:
 *   - exit status 0 or 2;
 *   - status 2 prints exactly one line "linkpass: <file>: <place>: <cause>"
 *     and leaves the file byte for byte as it was;
 *   - status 0 prints nothing, or the one "already present" line, and
 *     leaves either the input unchanged or a valid relocatable object
 *     that has a __mcount_loc section;
 *   - a second run on that result changes nothing (never a doubled table);
 *   - no temp file is ever left behind.
 * Then linkpass nop runs on what obj left: status 2 prints one line and
 * leaves the file as it was; status 0 leaves an object that opens, and
 * that a second nop run does not change.
 * A breach calls abort(), which libFuzzer reports like a crash.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "image.h"
#include "fuzz_common.h"
#include "mcount-table.h"
#include "util.h"

static char path[PATH_MAX + 8];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_setup("fuzz_obj", "in.o");
	snprintf(path, sizeof(path), "%s/in.o", fuzz_dir);
	return 0;
}

static void put_file(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		fuzz_fail("cannot write the input", path);
}

static uint8_t *get_file(size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n = 0;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		fuzz_fail("cannot read the result", path);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		fuzz_fail("cannot read the result", path);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* Run linkpass obj (or nop) on the file; returns its status and stderr. */
static int run_on_file(int (*cmd)(struct options *), const char *what,
		       char **err, size_t *len)
{
	struct options o;
	int ret;

	options_init(&o);
	o.image = path;
	ret = fuzz_run(what, cmd, &o, path, err, len);
	options_free(&o);
	return ret;
}

/* Run linkpass obj on the file; returns its status, checks its stderr. */
static int run_obj(char **err)
{
	size_t len;
	int ret;

	ret = run_on_file(cmd_obj,
			  "obj: error is not one 'file: place: cause' line",
			  err, &len);
	if (ret == EXIT_OK) {
		if (len && !strstr(*err, ": " MCOUNT_SECTION ": already present"))
			fuzz_fail("obj: success printed something", *err);
	} else if (ret != EXIT_ERROR) {
		fuzz_fail("obj: unexpected exit status", *err);
	}
	if (fuzz_stray_files("in.o"))
		fuzz_fail("obj left a temp file behind", *err);
	return ret;
}

/* linkpass nop on what obj left, twice (see the top). */
static void check_nop(void)
{
	uint8_t *before, *after;
	size_t n0, n1, len;
	char *err = NULL;
	struct image im;
	int ret;

	before = get_file(&n0);
	ret = run_on_file(cmd_nop, "nop: error is not one 'file: place: cause' line",
			  &err, &len);
	if (fuzz_stray_files("in.o"))
		fuzz_fail("nop left a temp file behind", err);
	after = get_file(&n1);
	if (ret == EXIT_ERROR) {
		if (n1 != n0 || (n0 && memcmp(before, after, n0)))
			fuzz_fail("nop failed but changed the file", err);
	} else if (ret != EXIT_OK || len) {
		fuzz_fail("nop: unexpected status or output", err);
	} else {
		if (image_open(&im, path, IMAGE_OBJECT) < 0)
			fuzz_fail("nop wrote an object that does not open", NULL);
		image_close(&im);
		free(err);
		err = NULL;
		free(before);
		before = after;
		n0 = n1;
		if (run_on_file(cmd_nop, "nop (again)", &err, &len) != EXIT_OK)
			fuzz_fail("a second nop run on its own output failed", err);
		after = get_file(&n1);
		if (n1 != n0 || memcmp(before, after, n0))
			fuzz_fail("a second nop run changed the object", err);
	}
	free(before);
	free(after);
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *once, *twice;
	size_t n1, n2;
	char *err = NULL;
	struct image im;

	put_file(data, size);
	if (run_obj(&err) == EXIT_ERROR) {
		once = get_file(&n1);
		if (n1 != size || (size && memcmp(once, data, size)))
			fuzz_fail("obj failed but changed the file", err);
		free(once);
		free(err);
		return 0;
	}
	free(err);
	err = NULL;
	once = get_file(&n1);
	if (n1 != size || (size && memcmp(once, data, size))) {
		/* rewritten: it must be an object with its table */
		if (image_open(&im, path, IMAGE_OBJECT) < 0)
			fuzz_fail("obj wrote an object that does not open", NULL);
		if (!image_find_section(&im, MCOUNT_SECTION))
			fuzz_fail("obj rewrote the object without a table", NULL);
		image_close(&im);
	}
	if (run_obj(&err) != EXIT_OK)
		fuzz_fail("a second obj run on its own output failed", err);
	twice = get_file(&n2);
	if (n2 != n1 || memcmp(once, twice, n1))
		fuzz_fail("a second obj run changed the object", err);
	free(once);
	free(twice);
	free(err);
	check_nop();
	unlink(path);
	return 0;
}
