// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - the runtime's one way to write a file: into a temp file next
 * to the target, renamed over it once complete, so a failed or killed
 * write leaves the old file (or none), never a partial one.  A device or
 * a pipe (/dev/null, /dev/stdout) is written in place: renaming a file
 * over it would replace the device node itself (for root, /dev/null).
 *
 * Mode: what open(path, O_CREAT, 0666) would give, i.e. 0666 & ~umask.
 * The umask is read from /proc/self/status: umask(2) can only be read by
 * setting it, which would race the program's other threads creating
 * files (linkpass, single-threaded, may do that; we may not).  Without
 * /proc the file keeps mkstemp's 0600, the safe side.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "msg.h"
#include "proc.h"

#define LPT_FILE_MODE	0666

int lpt_file_open(struct lpt_file *o, const char *path)
{
	struct stat st;
	long mask;
	int fd, err;

	o->path = path;
	o->tmp = NULL;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISDIR(st.st_mode)) {
		o->f = fopen(path, "w");
		if (o->f)
			return 0;
		err = -errno;
		lpt_msg("%s: %s", path, strerror(-err));
		return err;
	}
	o->tmp = malloc(strlen(path) + sizeof(".XXXXXX"));
	if (!o->tmp)
		return -ENOMEM;
	sprintf(o->tmp, "%s.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0)
		goto out_err;
	if (!lpt_status_field("Umask", 8, &mask))
		fchmod(fd, LPT_FILE_MODE & ~mask);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		goto out_err;
	}
	return 0;

out_err:
	err = -errno;
	lpt_msg("%s: %s", path, strerror(-err));
	free(o->tmp);
	return err;
}

/* Close and rename into place, or remove the temp file when @err. */
int lpt_file_commit(struct lpt_file *o, int err)
{
	if (fflush(o->f) || ferror(o->f))
		err = err ? err : -errno;
	if (fclose(o->f) && !err)
		err = -errno;
	if (!err && o->tmp && rename(o->tmp, o->path))
		err = -errno;
	if (err) {
		lpt_msg("%s: %s", o->path, strerror(-err));
		if (o->tmp)
			unlink(o->tmp);
	}
	free(o->tmp);
	return err;
}
