// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by fuzz/fuzz_image.c and fuzz/fuzz_obj.c. */
#include "fuzz_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

char fuzz_dir[PATH_MAX] = "/dev/shm/linkpass-fuzz-XXXXXX";
static const char *harness_name = "fuzz";
static char keep_path[PATH_MAX + 16];

void fuzz_fail(const char *what, const char *detail)
{
	/* stdout is /dev/null and stderr may be captured: use fd 2 */
	dprintf(2, "%s: contract broken: %s\n%s\n", harness_name, what,
		detail ? detail : "");
	abort();
}

int fuzz_stray_files(const char *keep)
{
	struct dirent *de;
	DIR *d = opendir(fuzz_dir);
	int n = 0;

	if (!d)
		fuzz_fail("cannot list the work directory", fuzz_dir);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (!keep || strcmp(de->d_name, keep)))
			n++;
	closedir(d);
	return n;
}

static void cleanup(void)
{
	unlink(keep_path);
	rmdir(fuzz_dir);
}

void fuzz_setup(const char *harness, const char *keep)
{
	const char *env = getenv("LINKPASS_FUZZ_OUT");

	harness_name = harness;
	if (env && strlen(env) < sizeof(fuzz_dir))
		strcpy(fuzz_dir, env);
	else if (mkdtemp(fuzz_dir))
		atexit(cleanup);
	else
		exit(1);
	snprintf(keep_path, sizeof(keep_path), "%s/%s", fuzz_dir, keep);
	if (fuzz_stray_files(NULL)) {
		fprintf(stderr, "%s: setup: the work directory %s must be empty\n",
			harness, fuzz_dir);
		exit(1);
	}
	/* the commands' normal output is not wanted */
	if (!freopen("/dev/null", "w", stdout))
		exit(1);
}

int fuzz_run(const char *name, int (*cmd)(struct options *),
	     struct options *o, const char *file, char **err, size_t *len)
{
	FILE *saved = stderr, *cap;
	char prefix[PATH_MAX + 16];
	int ret;

	*err = NULL;
	*len = 0;
	cap = open_memstream(err, len);
	if (!cap)
		fuzz_fail("open_memstream", NULL);
	stderr = cap;
	ret = cmd(o);
	stderr = saved;
	fclose(cap);

	snprintf(prefix, sizeof(prefix), "linkpass: %s: ", file);
	if (ret == EXIT_ERROR) {
		char *nl = strchr(*err, '\n');

		if (!nl || nl[1] || strncmp(*err, prefix, strlen(prefix)) ||
		    !strstr(*err + strlen(prefix), ": "))
			fuzz_fail(name, *err);
	}
	return ret;
}
