// SPDX-License-Identifier: GPL-2.0
/*
 * Sites from a compiler-made table: -fpatchable-function-entry=N[,M]
 * reserves N nops per function (M of them before the entry symbol) and
 * lists the first nop of each in __patchable_function_entries, one
 * absolute address per function.  The linker concatenates those lists,
 * with the same faults as per-object __mcount_loc tables: entries for
 * overridden weak functions, no order.  With -q the image keeps the
 * list's relocations, and each entry's address is S + A of one.
 *
 * A listed address is a site when it is in a traced section and
 *   - at a live function's entry, after an optional entry prefix
 *     (endbr64, bti c), or
 *   - in the run of nops that ends at a live function's entry (the M
 *     nops placed before the symbol);
 * and it must hold a nop (arch->padding_len): a listed address that
 * does not is an error, as is any relocation other than the absolute
 * one of the architecture.
 */
#include "patchable.h"

#include <stdlib.h>
#include <string.h>

#include "relocs.h"
#include "util.h"

/* How far before an entry the M nops may start (M <= 64 instructions). */
#define PRE_ENTRY_MAX 256

/* The static relocation section for section @s, or NULL. */
static struct section *relocs_for(struct image *im, const struct section *s)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		struct section *r = &im->secs[i];

		if ((r->sh.sh_type == SHT_RELA || r->sh.sh_type == SHT_REL) &&
		    !(r->sh.sh_flags & SHF_ALLOC) && r->sh.sh_info == s->idx)
			return r;
	}
	return NULL;
}

/* Does a run of nops from @addr reach the entry of a live function? */
static bool before_entry(struct image *im, const struct funcs *f,
			 const struct section *sec, uint64_t addr)
{
	uint64_t pos = addr, end = sec->sh.sh_addr + sec->sh.sh_size;
	const struct func *fn;
	unsigned int n;

	while (pos < end && pos - addr <= PRE_ENTRY_MAX) {
		fn = funcs_lookup(f, (uint32_t)sec->idx, pos, NULL);
		if (fn)
			return fn->start == pos && pos != addr;
		n = im->arch->padding_len(sec->bytes + (pos - sec->sh.sh_addr),
					  end - pos);
		if (!n)
			return false;
		pos += n;
	}
	return false;
}

static enum site_verdict judge_entry(struct image *im, const uint8_t *traced,
				     const struct funcs *f,
				     const struct section *sec,
				     const struct site *s,
				     const struct site *prev)
{
	const struct func *fn;

	if (prev && prev->addr == s->addr)
		return DROP_DUPLICATE;
	if (!traced[sec->idx])
		return DROP_UNTRACED;
	fn = funcs_lookup(f, (uint32_t)sec->idx, s->addr, NULL);
	if (!fn)
		return before_entry(im, f, sec, s->addr) ? SITE_KEPT :
		       DROP_NO_FUNC;
	return s->addr == funcs_entry(im, sec, fn, s->addr) ? SITE_KEPT :
	       DROP_NOT_ENTRY;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every listed address, as a candidate site; -1 on bad input. */
static int read_entries(struct image *im, const struct section *list,
			struct site **out, size_t *n)
{
	struct section *rsec = relocs_for(im, list), *sec;
	unsigned int w = im->arch->addr_size;
	enum reloc_layout l;
	struct relocs rel;
	char place[160];
	size_t i;

	if (!rsec)
		return lp_error(im->path, list->name,
				"no relocations kept for it; link the image with -q (--emit-relocs)");
	if (image_relocs(im, rsec, &rel) < 0)
		return -1;
	l = reloc_layout_of(im, rsec);
	/* a list of size 0 has no bytes: its first relocation is refused
	 * below as not an entry */
	if (!reloc_has_addend(l) &&
	    !image_section_bytes(im, (struct section *)list))
		return -1;
	*out = xcalloc(rel.count ? rel.count : 1, sizeof(**out));
	*n = 0;
	for (i = 0; i < rel.count; i++) {
		struct site *s = &(*out)[*n];
		uint64_t off, addr;
		struct reloc r;

		reloc_get(l, rel.base, i, &r);
		snprintf(place, sizeof(place), "%s entry %zu", rsec->name, i);
		off = r.offset - list->sh.sh_addr;
		if (r.offset < list->sh.sh_addr || off >= list->sh.sh_size ||
		    off % w || list->sh.sh_size - off < w)
			return lp_error(im->path, place,
					"offset 0x%llx is not an entry of %s",
					(unsigned long long)r.offset, list->name);
		if (r.type != im->arch->abs_reloc)
			return lp_error(im->path, place,
					"%s: relocation type %u, expected %u (absolute address)",
					im->arch->name, r.type, im->arch->abs_reloc);
		if (r.sym >= im->nsyms)
			return lp_error(im->path, place,
					"symbol index %llu out of range (%zu symbols)",
					(unsigned long long)r.sym, im->nsyms);
		addr = im->syms[r.sym].value;
		if (reloc_has_addend(l)) {
			addr += (uint64_t)r.addend;
		} else {
			uint64_t v = 0;

			memcpy(&v, list->bytes + off, w);
			addr = v;	/* Rel: the linked value is in place */
		}
		sec = image_section_at(im, addr);
		if (!sec || !(sec->sh.sh_flags & SHF_EXECINSTR) ||
		    sec->sh.sh_type == SHT_NOBITS)
			return lp_error(im->path, place,
					"0x%llx is in no code section",
					(unsigned long long)addr);
		if (!image_section_bytes(im, sec))
			return -1;
		if (!im->arch->padding_len(sec->bytes + (addr - sec->sh.sh_addr),
					   sec->sh.sh_addr + sec->sh.sh_size - addr))
			return lp_error(im->path, place,
					"%s: 0x%llx (%s+0x%llx) holds no nop",
					im->arch->name, (unsigned long long)addr,
					sec->name,
					(unsigned long long)(addr - sec->sh.sh_addr));
		memset(s, 0, sizeof(*s));
		s->addr = addr;
		s->shndx = (uint32_t)sec->idx;
		s->form = CALL_NONE;
		s->verdict = SITE_KEPT;
		s->entry_style = 1;
		(*n)++;
	}
	return 0;
}

int patchable_scan(struct image *im, const struct scan_opts *o,
		   struct scan_result *r)
{
	const struct section *list;
	struct site *cand = NULL;
	uint8_t *traced;
	size_t n = 0, i;
	uint64_t t0;

	memset(r, 0, sizeof(*r));
	if (im->ehdr.e_type == ET_REL)
		return lp_error(im->path, "ELF header",
				"--patchable-entries is for linked images");
	if (!im->symtab)
		return lp_error(im->path, ".symtab",
				"no symbol table: the image is stripped; scan the unstripped link output");
	list = image_find_section(im, PATCHABLE_SECTION);
	if (!list || list->sh.sh_type == SHT_NOBITS)
		return lp_error(im->path, PATCHABLE_SECTION,
				"no such section: compile with -fpatchable-function-entry and keep the section in every link");
	t0 = now_ns();
	/* scan and check open the image lazily; this path wants them all */
	if (image_symbols(im) < 0)
		return -1;
	funcs_build(im, &r->funcs);
	r->explained = true;
	r->stats.ns_symbols = now_ns() - t0;

	t0 = now_ns();
	if (read_entries(im, list, &cand, &n) < 0) {
		free(cand);
		scan_result_free(r);
		return -1;
	}
	r->stats.relsecs = 1;
	r->stats.relocs = r->stats.refs = r->stats.calls = n;
	r->stats.threads = 1;
	r->stats.ns_relocs = now_ns() - t0;

	t0 = now_ns();
	qsort(cand, n, sizeof(*cand), cmp_addr);
	traced = xcalloc(im->nsecs, 1);
	for (i = 1; i < im->nsecs; i++)
		traced[i] = policy_traced(&o->policy, im->secs[i].name);
	r->kept = cand;		/* compacted in place */
	r->dropped = xmalloc((n ? n : 1) * sizeof(*r->dropped));
	for (i = 0; i < n; i++) {
		struct site s = cand[i];

		s.verdict = (uint8_t)judge_entry(im, traced, &r->funcs,
						 &im->secs[s.shndx], &s,
						 r->nkept ? &r->kept[r->nkept - 1] :
						 NULL);
		r->stats.verdicts[s.verdict]++;
		if (s.verdict == SITE_KEPT)
			r->kept[r->nkept++] = s;
		else
			r->dropped[r->ndropped++] = s;
	}
	free(traced);
	r->stats.ns_filter = now_ns() - t0;
	if (!im->nlocal_funcs && r->stats.verdicts[DROP_NO_FUNC]) {
		lp_error(im->path, im->symtab->name,
			 "no local function symbols (discarded by ld -x/--discard-all or strip -x?), so %zu patchable entries lie in no function symbol and static functions cannot be told from dead code; link keeping local symbols",
			 r->stats.verdicts[DROP_NO_FUNC]);
		scan_result_free(r);
		return -1;
	}
	return 0;
}
