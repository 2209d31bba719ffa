// SPDX-License-Identifier: GPL-2.0
/*
 * maps.c - the executable mappings of this process, from /proc/self/maps.
 *
 * The patcher needs two facts per site before it touches it: that its
 * bytes are mapped code (a bad table entry must be refused, not read),
 * and which protection to restore after a writable window.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "maps.h"
#include "proc.h"

/* Parse "start-end perms ..." lines; keep the executable ones. */
int lpt_maps_load(struct lpt_maps *m)
{
	char *buf, *line, *next, *end;
	struct lpt_map *nv;
	size_t len, cap = 0;
	int err = 0;

	m->v = NULL;
	m->n = 0;
	buf = lpt_read_proc_file("/proc/self/maps", &len);
	if (!buf)
		return -errno;
	for (line = buf; *line; line = next) {
		struct lpt_map map;
		unsigned long start, stop;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		start = strtoul(line, &end, 16);
		if (*end != '-')
			continue;
		stop = strtoul(end + 1, &end, 16);
		if (*end != ' ' || strlen(end) < 5)
			continue;
		if (end[3] != 'x')
			continue;
		map.start = start;
		map.end = stop;
		map.prot = PROT_EXEC;
		if (end[1] == 'r')
			map.prot |= PROT_READ;
		if (end[2] == 'w')
			map.prot |= PROT_WRITE;
		if (m->n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(m->v, cap * sizeof(*nv));
			if (!nv) {
				err = -ENOMEM;
				goto out_free;
			}
			m->v = nv;
		}
		m->v[m->n++] = map;
	}
	free(buf);
	return 0;

out_free:
	free(m->v);
	m->v = NULL;
	m->n = 0;
	free(buf);
	return err;
}

/* The executable mapping holding @addr; the kernel lists them sorted. */
const struct lpt_map *lpt_maps_find(const struct lpt_maps *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}

void lpt_maps_free(struct lpt_maps *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}
