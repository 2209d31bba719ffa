// SPDX-License-Identifier: GPL-2.0
/*
 * env.c - what the runtime reads from its environment and from
 * /proc/self: every LPTRACE* number and word is checked against its
 * range or its list, and a bad one is named in a message and replaced by
 * the default; the program runs on either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* LPTRACE_X=n, decimal digits only, within [min, max]; else @def. */
unsigned long lpt_env_ulong(const char *name, unsigned long def,
			    unsigned long min, unsigned long max)
{
	const char *v = getenv(name);
	unsigned long long n;
	char *end;

	if (!v)
		return def;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || v[0] == '-' || v[0] == '+' || errno ||
	    n < min || n > max) {
		lpt_msg("%s=%.40s: not a number from %lu to %lu; using %lu",
			name, v, min, max, def);
		return def;
	}
	return n;
}

/* LPTRACE_X=word, the index of one of @words (NULL-terminated); else @def. */
int lpt_env_word(const char *name, const char *const *words, int def)
{
	const char *v = getenv(name);
	char list[128] = "";
	int i;

	if (!v || !*v)
		return def;
	for (i = 0; words[i]; i++)
		if (!strcmp(v, words[i]))
			return i;
	for (i = 0; words[i]; i++) {
		strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
		strncat(list, words[i], sizeof(list) - strlen(list) - 1);
	}
	lpt_msg("%s=%.40s: not one of %s; using %s", name, v, list,
		words[def]);
	return def;
}

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
