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
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "commands.h"
#include "image.h"
#include "util.h"

static int input_fd = -1;
static char input_path[64];
/* scan's output directory: $LINKPASS_FUZZ_OUT (fuzz/run.sh makes and
 * removes it), else a fresh one in /dev/shm, removed at exit */
static char out_dir[PATH_MAX] = "/dev/shm/linkpass-fuzz-XXXXXX";
static char out_path[PATH_MAX + 8];

static void fail(const char *what, const char *detail)
{
	/* stdout is /dev/null and stderr may be captured: use fd 2 */
	dprintf(2, "fuzz_image: contract broken: %s\n%s\n", what,
		detail ? detail : "");
	abort();
}

/* Names in out_dir other than "." and ".." (and @keep). */
static int stray_files(const char *keep)
{
	struct dirent *de;
	DIR *d = opendir(out_dir);
	int n = 0;

	if (!d)
		fail("cannot list the output directory", out_dir);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (!keep || strcmp(de->d_name, keep)))
			n++;
	closedir(d);
	return n;
}

static void cleanup(void)
{
	unlink(out_path);
	rmdir(out_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = getenv("LINKPASS_FUZZ_OUT");

	input_fd = memfd_create("linkpass-fuzz-input", MFD_CLOEXEC);
	if (dir && strlen(dir) < sizeof(out_dir))
		strcpy(out_dir, dir);
	else if (mkdtemp(out_dir))
		atexit(cleanup);
	else
		input_fd = -1;
	if (input_fd < 0 || stray_files(NULL)) {
		perror("fuzz_image: setup (the output directory must be empty)");
		exit(1);
	}
	snprintf(input_path, sizeof(input_path), "/proc/self/fd/%d", input_fd);
	snprintf(out_path, sizeof(out_path), "%s/t.o", out_dir);
	/* the commands' normal output is not wanted */
	if (!freopen("/dev/null", "w", stdout))
		exit(1);
	return 0;
}

/* Options beyond the defaults, to reach the threaded scan and the
 * assembler writer. */
struct variant {
	int threads;
	enum out_format format;
};

/* Run one command with stderr captured; check the error contract. */
static void run(const char *name, int (*cmd)(struct options *),
		bool writes, const struct variant *v)
{
	char *err = NULL, *nl, prefix[128];
	size_t len = 0;
	struct options o;
	FILE *saved = stderr, *cap;
	int ret;

	memset(&o, 0, sizeof(o));
	o.max_list = 50;
	o.image = input_path;
	o.output = writes ? out_path : NULL;
	scan_opts_init(&o.scan);
	o.scan.threads = v->threads;
	o.format = v->format;
	cap = open_memstream(&err, &len);
	if (!cap)
		fail("open_memstream", NULL);
	stderr = cap;
	ret = cmd(&o);
	stderr = saved;
	fclose(cap);
	scan_opts_free(&o.scan);

	snprintf(prefix, sizeof(prefix), "linkpass: %s: ", input_path);
	if (ret == EXIT_ERROR) {
		nl = strchr(err, '\n');
		if (!nl || nl[1] || strncmp(err, prefix, strlen(prefix)) ||
		    !strstr(err + strlen(prefix), ": "))
			fail(name, err);
	} else if (ret == EXIT_OK || (ret == EXIT_DIFF && cmd == cmd_check)) {
		if (len)
			fail(name, err);
	} else {
		fail(name, "unexpected exit status");
	}
	if (writes) {
		if (ret == EXIT_OK) {
			struct image im;

			if (stray_files("t.o"))
				fail("scan left files behind", NULL);
			if (v->format == FORMAT_ELF &&
			    image_open(&im, out_path, IMAGE_OBJECT) < 0)
				fail("scan output is not a valid object", NULL);
			if (v->format == FORMAT_ELF)
				image_close(&im);
			unlink(out_path);
		}
		if (stray_files(NULL))
			fail("scan left files behind", err);
	}
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct variant plain = { 1, FORMAT_ELF };
	/* three workers even for a few relocations: uneven chunks */
	static const struct variant threads_asm = { 3, FORMAT_ASM };

	if (ftruncate(input_fd, 0) < 0 ||
	    (size && pwrite(input_fd, data, size, 0) != (ssize_t)size))
		fail("cannot write the input", NULL);
	run("scan", cmd_scan, true, &plain);
	run("scan -j3 --format=asm", cmd_scan, true, &threads_asm);
	run("check -j3", cmd_check, false, &threads_asm);
	run("dump", cmd_dump, false, &plain);
	run("sites", cmd_sites, false, &plain);
	return 0;
}
