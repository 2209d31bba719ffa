// SPDX-License-Identifier: GPL-2.0
/*
 * The drop reason "dead body (overridden weak)" (filter.c), which the
 * stripped-objects check and the reports use.
 */
#include "funcs.h"
#include "site.h"

/* How far back from a site to look for padding before a dead body. */
#define DEAD_BODY_WINDOW 256
/* Function alignment of gcc and clang at -O2 on x86. */
#define FUNC_ALIGN 16

/*
 * Does the call at @s start a function body that has no symbol?  That
 * is how an overridden weak function looks in the final image: its
 * code stays, right after the function before it and its padding.
 * When the function before has no size (hand-written asm), the best
 * sign left is an entry aligned the way compilers align functions.
 */
bool dead_body(const struct image *im, const struct funcs *f,
	       const struct site *s)
{
	const struct section *sec = &im->secs[s->shndx];
	uint64_t base = im->ehdr.e_type == ET_REL ? 0 : sec->sh.sh_addr;
	const struct func *prev = funcs_prev(f, s->shndx, s->addr);
	const uint8_t *b = sec->bytes;
	uint64_t pos = prev ? prev->end : base;
	unsigned int n;

	if (!s->entry_style)
		return false;
	/* a symbol's range may start before its section (bad input) */
	if (pos < base)
		pos = base;
	if (prev && prev->end == prev->start) {
		pos = s->addr;
		if (s->addr - base >= 4 &&
		    im->arch->entry_prefix(b + (s->addr - base - 4), 4))
			pos -= 4;
		return pos % FUNC_ALIGN == 0;
	}
	if (pos > s->addr || s->addr - pos > DEAD_BODY_WINDOW)
		return false;
	while (pos < s->addr) {
		n = im->arch->padding_len(b + (pos - base), s->addr - pos);
		if (!n)
			break;
		pos += n;
	}
	if (pos < s->addr)
		pos += im->arch->entry_prefix(b + (pos - base), s->addr - pos);
	return pos == s->addr;
}
