// SPDX-License-Identifier: GPL-2.0
/* scan --format=asm: the table as assembler text. */
#include "table_write.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int table_write_asm(struct image *im, const struct site *sites, size_t n,
		    const struct anchors *a, const char *out,
		    const struct out_gate *gate)
{
	const struct arch *arch = im->arch;
	/* one entry: 8 bytes (x86_64, aarch64, riscv64) or 4 (i386) */
	const char *word = arch->addr_size == 8 ? ".quad" : ".long";
	struct outfile of;
	FILE *f;
	size_t i;
	int ret = 0;

	if (out_open(&of, out) < 0)
		return -1;
	of.gate = gate;
	f = fdopen(dup(of.fd), "w");
	if (!f) {
		lp_error(out, "write", "fdopen: %s", strerror(errno));
		out_abort(&of);
		return -1;
	}
	fprintf(f, "/* ftrace call sites of %s: %zu entries, made by linkpass */\n",
		im->path, n);
	fprintf(f, "\t.section %s,\"%sR\",@progbits\n", MCOUNT_SECTION,
		table_writable(im) ? "aw" : "a");
	fprintf(f, "\t.balign %u\n", arch->addr_size);
	for (i = 0; i < a->n; i++)
		if (anchor_ref_vis(a->list[i]) == STV_HIDDEN)
			fprintf(f, "\t.hidden %s\n", a->list[i]->name);
	for (i = 0; i < n; i++) {
		const struct symbol *anc = a->by_shndx[sites[i].shndx];
		int64_t off = (int64_t)(sites[i].addr - anc->value);

		fprintf(f, "\t%s %s %c 0x%llx\n", word, anc->name,
			off < 0 ? '-' : '+',
			(unsigned long long)(off < 0 ? -(uint64_t)off : (uint64_t)off));
	}
	fprintf(f, "\t.section .note.GNU-stack,\"\",@progbits\n");
	if (fflush(f) || ferror(f))
		ret = lp_error(out, "write", "%s", strerror(errno));
	fclose(f);
	if (ret)
		out_abort(&of);
	else
		ret = out_commit(&of);
	return ret;
}
