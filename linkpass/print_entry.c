// SPDX-License-Identifier: GPL-2.0
/* The lines of dump and sites: "0x<addr> <function>+0x<off> <section>". */
#include <stdio.h>
#include <string.h>

#include "describe.h"
#include "util.h"

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

	/* 0 is a zeroed entry: no place, even where .data..percpu is at 0 */
	if (!addr)
		return NULL;
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
	pad = sec && !fn ? describe_pad_of(im, f, sec, addr, &c->hint) : NULL;
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
