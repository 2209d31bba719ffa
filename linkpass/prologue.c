// SPDX-License-Identifier: GPL-2.0
/*
 * The -pg rule of the full tool: a call to mcount or _mcount after the
 * prologue (aarch64, riscv64, x86 without -mfentry), as user-space
 * programs have them.  The kernel calls __fentry__ at the entry or
 * has patchable entries, so its set of files has no such rule.
 */
#include "extras.h"

#include "funcs.h"
#include "image.h"
#include "site.h"

/*
 * Where the mcount call follows the prologue (aarch64, riscv64): only
 * prologue code, no call or return, may lie between the function's
 * entry and its first mcount call (arch->prologue_ok).
 */
static bool prologue_before(const struct image *im, const struct section *sec,
			    const struct func *fn, const struct site *s)
{
	uint64_t base = im->ehdr.e_type == ET_REL ? 0 : sec->sh.sh_addr;

	if (!im->arch->prologue_ok)
		return true;
	if (fn->start < base || s->addr < fn->start ||
	    s->addr - base > sec->sh.sh_size)
		return false;
	return im->arch->prologue_ok(sec->bytes, fn->start - base,
				     s->addr - base);
}

int mcount_verdict(const struct image *im, const struct section *sec,
		   const struct func *fn, const struct site *s,
		   const struct func *last)
{
	/* mcount is called once, after the prologue */
	if (last == fn || !prologue_before(im, sec, fn, s))
		return DROP_NOT_ENTRY;
	return SITE_KEPT;
}
