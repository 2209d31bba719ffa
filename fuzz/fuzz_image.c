// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness (a): one input is one linked image, run through the
 * commands that read images (scan, check, dump, sites) exactly as the
 * command line runs them.  The input is written to a memfd and opened
 * by its /proc/self/fd path, so image_open() and everything after it
 * are the normal code, not a copy.
 *
 * On top of the sanitizers, the harness enforces the error contract:
 *   - exit status 0, 1 (check only) or 2;
 *   - status 2 prints exactly one line "linkpass: <file>: <place>: <cause>";
 *   - status 0/1 prints nothing on stderr;
 *   - scan leaves its output only on success (no temp file ever), and
 *     what it wrote opens as a relocatable object.
 * A breach calls abort(), which libFuzzer reports like a crash.
 *
 * Harness (b), the per-object mode (linkpass obj), is fuzz/fuzz_obj.c.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "commands.h"
#include "anchor.h"
#include "scan.h"
#include "fuzz_common.h"
#include "image.h"
#include "util.h"

static int input_fd = -1;
static char input_path[64];
static char out_path[PATH_MAX + 8];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_setup("fuzz_image", "t.o");
	input_fd = memfd_create("linkpass-fuzz-input", MFD_CLOEXEC);
	if (input_fd < 0) {
		perror("fuzz_image: setup: memfd_create");
		exit(1);
	}
	snprintf(input_path, sizeof(input_path), "/proc/self/fd/%d", input_fd);
	snprintf(out_path, sizeof(out_path), "%s/t.o", fuzz_dir);
	return 0;
}

/* Options beyond the defaults, to reach the threaded scan, the
 * assembler writer and the patchable-entry lists. */
struct variant {
	int threads;
	enum out_format format;
	bool patchable;
};

/* Run one command; check the error contract and what scan leaves. */
static void run(const char *name, int (*cmd)(struct options *),
		bool writes, const struct variant *v)
{
	char *err;
	size_t len;
	struct options o;
	int ret;

	options_init(&o);
	o.image = input_path;
	o.output = writes ? out_path : NULL;
	o.scan.threads = v->threads;
	o.scan.patchable = v->patchable;
	o.format = v->format;
	ret = fuzz_run(name, cmd, &o, input_path, &err, &len);
	options_free(&o);
	if (ret != EXIT_ERROR && ret != EXIT_OK &&
	    !(ret == EXIT_DIFF && cmd == cmd_check))
		fuzz_fail(name, "unexpected exit status");
	if (ret != EXIT_ERROR && len)
		fuzz_fail(name, err);
	if (writes && ret == EXIT_OK) {
		struct image im;

		if (fuzz_stray_files("t.o"))
			fuzz_fail("scan left files behind", NULL);
		if (v->format == FORMAT_ELF &&
		    image_open(&im, out_path, IMAGE_OBJECT) < 0)
			fuzz_fail("scan output is not a valid object", NULL);
		if (v->format == FORMAT_ELF)
			image_close(&im);
		unlink(out_path);
	}
	if (writes && fuzz_stray_files(NULL))
		fuzz_fail("scan left files behind", err);
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct variant plain = { 1, FORMAT_ELF, false };
	/* three workers even for a few relocations: uneven chunks */
	static const struct variant threads_asm = { 3, FORMAT_ASM, false };
	static const struct variant patchable = { 1, FORMAT_ELF, true };

	if (ftruncate(input_fd, 0) < 0 ||
	    (size && pwrite(input_fd, data, size, 0) != (ssize_t)size))
		fuzz_fail("cannot write the input", NULL);
	run("scan", cmd_scan, true, &plain);
	run("scan -j3 --format=asm", cmd_scan, true, &threads_asm);
	run("check -j3", cmd_check, false, &threads_asm);
	run("dump", cmd_dump, false, &plain);
	run("sites", cmd_sites, false, &plain);
	run("scan --patchable-entries", cmd_scan, true, &patchable);
	run("check --patchable-entries", cmd_check, false, &patchable);
	return 0;
}
