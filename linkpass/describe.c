// SPDX-License-Identifier: GPL-2.0
/* Naming addresses in dump and check output. */
#include "describe.h"
#include "util.h"

#include <stdio.h>

const char *describe_addr(struct image *im, const struct funcs *f,
			  uint64_t addr, char *buf, size_t len)
{
	struct section *sec = image_section_at(im, addr);
	const struct func *fn;

	if (!sec) {
		snprintf(buf, len, "<none> <none>");
		return buf;
	}
	fn = funcs_lookup(f, (uint32_t)sec->idx, addr, NULL);
	if (fn)
		snprintf(buf, len, "%s+0x%llx %s", fn->sym->name,
			 (unsigned long long)(addr - fn->start), sec->name);
	else
		snprintf(buf, len, "<none> %s", sec->name);
	one_line(buf);		/* one entry stays one line */
	return buf;
}

const char *describe_bytes(struct image *im, uint64_t addr, char *buf,
			   size_t len)
{
	struct section *sec = image_section_at(im, addr);
	const uint8_t *b;
	uint64_t off, i;
	size_t at = 0;

	/* a description never fails or reports: unreadable is "<no bytes>" */
	if (!sec || (sec->sh.sh_flags & SHF_COMPRESSED) ||
	    !(b = image_section_bytes(im, sec))) {
		snprintf(buf, len, "<no bytes>");
		return buf;
	}
	off = addr - sec->sh.sh_addr;
	buf[0] = 0;
	for (i = 0; i < 6 && off + i < sec->sh.sh_size && at + 4 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%02x",
				       i ? " " : "", b[off + i]);
	return buf;
}

void describe_print_entry(struct image *im, const struct funcs *f,
			  uint64_t addr)
{
	char buf[512];

	printf("0x%016llx %s\n", (unsigned long long)addr,
	       describe_addr(im, f, addr, buf, sizeof(buf)));
}
