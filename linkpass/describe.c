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
static const struct func *pad_of(struct image *im, const struct funcs *f,
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
		fn = pad_of(im, f, sec, addr, NULL);
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
		pad = pad_of(im, f, &im->secs[p->shndx], p->off, NULL);
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

/* A bounded string, cut like snprintf cuts at the buffer's end. */
struct line {
	char *p;
	size_t len, cap;	/* cap includes the final NUL */
};

static void put(struct line *l, const char *s, size_t n)
{
	if (l->len + 1 >= l->cap)
		return;
	if (n > l->cap - 1 - l->len)
		n = l->cap - 1 - l->len;
	memcpy(l->p + l->len, s, n);
	l->len += n;
}

static void put_str(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

/* "0x" and @v in hex, at least @width digits. */
static void put_hex(struct line *l, uint64_t v, int width)
{
	static const char digits[] = "0123456789abcdef";
	char buf[18];
	int n = 0;

	do {
		buf[sizeof(buf) - 1 - n++] = digits[v & 15];
		v >>= 4;
	} while (v || n < width);
	put(l, "0x", 2);
	put(l, buf + sizeof(buf) - n, (size_t)n);
}

static struct section *cursor_section(struct image *im,
				      struct describe_cursor *c,
				      uint64_t addr)
{
	const GElf_Shdr *sh = c->sec ? &c->sec->sh : NULL;

	if (!sh || addr < sh->sh_addr || addr - sh->sh_addr >= sh->sh_size)
		c->sec = image_section_at(im, addr);
	return c->sec;
}

void describe_print_entry(struct image *im, const struct funcs *f,
			  uint64_t addr, struct describe_cursor *c)
{
	struct section *sec = cursor_section(im, c, addr);
	char desc[512], out[540];
	struct line d = { desc, 0, sizeof(desc) };
	struct line o = { out, 0, sizeof(out) };
	const struct func *fn, *pad;

	/* the description as describe_addr() makes it, 511 bytes at most */
	fn = sec ? funcs_lookup(f, (uint32_t)sec->idx, addr, &c->hint) : NULL;
	pad = sec && !fn ? pad_of(im, f, sec, addr, &c->hint) : NULL;
	if (!sec) {
		put_str(&d, "<none> <none>");
	} else if (fn) {
		put_str(&d, fn->sym->name);
		put(&d, "+", 1);
		put_hex(&d, addr - fn->start, 1);
		put(&d, " ", 1);
		put_str(&d, sec->name);
	} else if (pad) {
		put_str(&d, pad->sym->name);
		put(&d, "-", 1);
		put_hex(&d, pad->start - addr, 1);
		put(&d, " ", 1);
		put_str(&d, sec->name);
	} else {
		put_str(&d, "<none> ");
		put_str(&d, sec->name);
	}
	desc[d.len] = 0;
	one_line(desc);		/* one entry stays one line */
	put_hex(&o, addr, 16);
	put(&o, " ", 1);
	put(&o, desc, d.len);
	put(&o, "\n", 1);
	fwrite(out, 1, o.len, stdout);
}
