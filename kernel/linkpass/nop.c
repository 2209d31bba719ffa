// SPDX-License-Identifier: GPL-2.0
/*
 * The state ftrace_init_nop() would leave each site in, written at link
 * time and in place, so that boot and module load need not write it: the
 * NOP over x86's call (with CC_USING_NOP_MCOUNT no site is written at
 * boot), arm64's "mov x9, x30" and riscv's "auipc t0" (their
 * ftrace_init_nop() leaves a site that holds it alone).
 *
 * Every site is checked to hold its call or pad, and every state
 * computed, before any is written.  An x86 call's relocation becomes
 * R_X86_64_NONE, as objtool --mnop leaves it, so that nothing writes the
 * call back.  Where the link cannot know a state (riscv's modules, placed
 * away from ftrace_caller), nothing is written.
 */
#include <stdlib.h>
#include <string.h>

#include "linkpass.h"

struct write {
	uint8_t *at;
	uint8_t buf[INIT_STATE_MAX];
	unsigned int len;
	size_t rela;
};

/* Does @s still hold what the compiler put there? */
static bool pristine(struct image *im, const struct site *s,
		     const struct site *calls, size_t ncalls,
		     const struct symbol *mcount, size_t *rela)
{
	const struct site *c;
	uint64_t site;

	if (!im->arch->mcount)
		return pad_at(im, s->fn, &site, false) && site == s->addr;
	c = site_find(im, calls, ncalls, s->shndx, s->addr);
	*rela = c ? c->rela : 0;
	return c && (!mcount || call_bytes(im, s->shndx, s->addr, mcount->value));
}

int nop_sites(struct image *im, const struct site *s, size_t n)
{
	const struct arch *a = im->arch;
	const struct symbol *mcount = NULL;
	struct site *calls = NULL;
	struct write *w;
	size_t i, ncalls = 0;
	uint64_t addr;
	int ret = -1;

	if (a->mcount && !im->rel)
		mcount = image_symbol(im, a->mcount);
	if (a->mcount && mcount_calls(im, &calls, &ncalls) < 0)
		return -1;
	w = calloc(n ? n : 1, sizeof(*w));
	if (!w) {
		error(im, NULL, "out of memory");
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		const struct section *sec = &im->secs[s[i].shndx];

		if (!pristine(im, &s[i], calls, ncalls, mcount, &w[i].rela)) {
			error(im, sec->name, "0x%llx: the site of %s does not hold %s",
			      (unsigned long long)s[i].addr, s[i].fn->sym->name,
			      a->mcount ? "its call" : "its pad");
			goto out_free;
		}
		w[i].len = a->init_state(im, &s[i], &addr, w[i].buf);
		if (!w[i].len) {
			ret = 0;
			goto out_free;
		}
		if (!image_bytes(im, s[i].shndx, addr, w[i].len)) {
			error(im, sec->name, "0x%llx: out of the section",
			      (unsigned long long)addr);
			goto out_free;
		}
		w[i].at = im->map + sec->sh.sh_offset + (addr - sec->sh.sh_addr);
	}
	for (i = 0; i < n; i++) {
		Elf64_Rela r;

		memcpy(w[i].at, w[i].buf, w[i].len);
		if (!w[i].rela)
			continue;
		memcpy(&r, im->map + w[i].rela, sizeof(r));
		r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), a->r_none);
		memcpy(im->map + w[i].rela, &r, sizeof(r));
	}
	ret = 0;
out_free:
	free(w);
	free(calls);
	return ret;
}
