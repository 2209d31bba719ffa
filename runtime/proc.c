// SPDX-License-Identifier: GPL-2.0
/*
 * proc.c - what the runtime reads from /proc/self: a whole file (maps,
 * status), and one field of status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

/* Read a whole /proc file; its size is unknown until read. */
char *lpt_read_proc_file(const char *path, size_t *lenp)
{
	size_t cap = 16384, len = 0;
	char *buf, *nbuf;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	if (!buf)
		goto out_close;
	for (;;) {
		if (len == cap) {
			nbuf = realloc(buf, cap * 2 + 1);
			if (!nbuf)
				goto out_free;
			buf = nbuf;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto out_free;
		if (r == 0)
			break;
		len += r;
	}
	buf[len] = '\0';
	*lenp = len;
	close(fd);
	return buf;

out_free:
	free(buf);
out_close:
	close(fd);
	return NULL;
}

int lpt_status_field(const char *key, int base, long *val)
{
	size_t len, klen = strlen(key);
	char *buf, *line, *end;
	int err = -ENOENT;

	buf = lpt_read_proc_file("/proc/self/status", &len);
	if (!buf)
		return -errno;
	for (line = buf; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		*val = strtol(line + klen + 1, &end, base);
		err = end == line + klen + 1 ? -EINVAL : 0;
		break;
	}
	free(buf);
	return err;
}
