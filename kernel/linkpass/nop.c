// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace NOPs written at link time, in place: where the architecture
 * promises CC_USING_NOP_MCOUNT, no site is written at boot or module
 * load, so every site of vmlinux and of every module must hold the NOP
 * ftrace_init_nop() would have written.  Each site is checked to hold its
 * call before any is written; each call's relocation becomes R_*_NONE, as
 * objtool --mnop leaves it, so that nothing writes the call back.
 */
#include <stdlib.h>
#include <string.h>

#include "linkpass.h"

int nop_sites(struct image *im, const struct site *s, size_t n)
{
	const struct arch *a = im->arch;
	const struct symbol *mcount = NULL;
	const struct site **call;
	struct site *calls;
	size_t i, ncalls;
	int ret = -1;

	if (!a->nop)
		return error(im, NULL, "%s has no link-time NOPs", a->name);
	if (!im->rel)
		mcount = image_symbol(im, a->mcount);
	if (mcount_calls(im, &calls, &ncalls) < 0)
		return -1;
	call = calloc(n ? n : 1, sizeof(*call));
	if (!call) {
		error(im, NULL, "out of memory");
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		call[i] = site_find(im, calls, ncalls, s[i].shndx, s[i].addr);
		if (!call[i] || (mcount &&
				 !call_bytes(im, s[i].shndx, s[i].addr, mcount->value))) {
			error(im, im->secs[s[i].shndx].name,
			      "0x%llx: no call to %s to write the NOP over",
			      (unsigned long long)s[i].addr, a->mcount);
			goto out_free;
		}
	}
	for (i = 0; i < n; i++) {
		const struct section *sec = &im->secs[s[i].shndx];
		uint8_t *p = im->map + sec->sh.sh_offset + (s[i].addr - sec->sh.sh_addr);
		Elf64_Rela r;

		memcpy(p, a->nop, a->call_len);
		memcpy(&r, im->map + call[i]->rela, sizeof(r));
		r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), a->r_none);
		memcpy(im->map + call[i]->rela, &r, sizeof(r));
	}
	ret = 0;
out_free:
	free(call);
	free(calls);
	return ret;
}
