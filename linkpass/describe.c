// SPDX-License-Identifier: GPL-2.0
/* Naming addresses in dump and check output. */
#include "describe.h"
#include "patchable.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/*
 * The function whose pad an address in no function starts: the nops
 * from it run into the function's entry (the M nops before it of
 * -fpatchable-function-entry=N,M; arm64 CALL_OPS puts its entries 8
 * bytes before), so that it is named "func-0x8".  NULL when there is
 * none, or the bytes cannot be read.
 */
const struct func *describe_pad_of(struct image *im, const struct funcs *f,
				   struct section *sec, uint64_t addr,
				   long *hint)
{
	if (!image_section_bytes_quiet(im, sec))
		return NULL;
	return pad_before_entry(im, f, sec, addr, hint);
}

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
	if (fn) {
		snprintf(buf, len, "%s+0x%llx %s", fn->sym->name,
			 (unsigned long long)(addr - fn->start), sec->name);
	} else {
		fn = describe_pad_of(im, f, sec, addr, NULL);
		if (fn)
			snprintf(buf, len, "%s-0x%llx %s", fn->sym->name,
				 (unsigned long long)(fn->start - addr),
				 sec->name);
		else
			snprintf(buf, len, "<none> %s", sec->name);
	}
	one_line(buf);		/* one entry stays one line */
	return buf;
}

const char *describe_bytes(struct image *im, uint64_t addr, char *buf,
			   size_t len)
{
	struct section *sec = image_section_at(im, addr);

	return describe_section_bytes(im, sec, sec ? addr - sec->sh.sh_addr : 0,
				      buf, len);
}

const char *describe_section_bytes(struct image *im, struct section *sec,
				   uint64_t off, char *buf, size_t len)
{
	const uint8_t *b;
	uint64_t i;
	size_t at = 0;

	/* a description never fails or reports: unreadable is "<no bytes>" */
	b = sec ? image_section_bytes_quiet(im, sec) : NULL;
	if (!b) {
		snprintf(buf, len, "<no bytes>");
		return buf;
	}
	buf[0] = 0;
	for (i = 0; i < 6 && off + i < sec->sh.sh_size && at + 4 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%02x",
				       i ? " " : "", b[off + i]);
	return buf;
}

const char *describe_place(struct image *im, const struct funcs *f,
			   const struct place *p, char *buf, size_t len)
{
	const struct func *fn = funcs_lookup(f, p->shndx, p->off, NULL);
	const char *sec = p->shndx < im->nsecs ? im->secs[p->shndx].name :
			  "<none>";
	const struct func *pad = NULL;

	if (!fn && p->shndx < im->nsecs)
		pad = describe_pad_of(im, f, &im->secs[p->shndx], p->off, NULL);
	if (fn)
		snprintf(buf, len, "%s+0x%llx (%s+0x%llx)", sec,
			 (unsigned long long)p->off, fn->sym->name,
			 (unsigned long long)(p->off - fn->start));
	else if (pad)
		snprintf(buf, len, "%s+0x%llx (%s-0x%llx)", sec,
			 (unsigned long long)p->off, pad->sym->name,
			 (unsigned long long)(pad->start - p->off));
	else
		snprintf(buf, len, "%s+0x%llx (<none>)", sec,
			 (unsigned long long)p->off);
	one_line(buf);
	return buf;
}
