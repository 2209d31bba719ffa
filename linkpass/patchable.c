// SPDX-License-Identifier: GPL-2.0
/*
 * Sites from -fpatchable-function-entry=N[,M]: the first nop of each
 * function's pad is listed in __patchable_function_entries, whose
 * relocations -q keeps (S + A: an address, or in an object a section
 * and an offset).  The linked list has stale entries (overridden weak
 * functions) and no order.  A listed address is a site when it is in a
 * traced section, at a live function's entry (after an entry prefix)
 * or in the nops that run into one, and it must hold a nop.  With
 * N,M given, a site must start exactly such a pad: else the code was
 * not compiled as the caller says, an error.
 */
#include "patchable.h"

#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "relocs.h"
#include "util.h"

bool pad_run(const struct image *im, const struct section *sec,
	     uint64_t addr, unsigned int n, uint64_t *end)
{
	uint64_t base = image_section_base(im, sec), pos = addr;
	unsigned int len;

	if (addr < base || addr - base > sec->sh.sh_size)
		return false;
	while (n--) {
		len = im->arch->pad_nop_len(sec->bytes + (pos - base),
					    base + sec->sh.sh_size - pos);
		if (!len)
			return false;
		pos += len;
	}
	*end = pos;
	return true;
}

const struct func *pad_before_entry(const struct image *im,
				    const struct funcs *f,
				    const struct section *sec, uint64_t addr,
				    long *hint)
{
	uint64_t base = image_section_base(im, sec), pos = addr;
	uint64_t end = base + sec->sh.sh_size;
	const struct func *fn;
	unsigned int n;

	while (pos < end && pos - addr <= PAD_PRE_ENTRY_MAX) {
		/* no function covers @addr: the caller has looked */
		fn = pos == addr ? NULL :
		     funcs_lookup(f, (uint32_t)sec->idx, pos, hint);
		if (fn)
			return fn->start == pos ? fn : NULL;
		n = im->arch->pad_nop_len(sec->bytes + (pos - base), end - pos);
		if (!n)
			return NULL;
		pos += n;
	}
	return NULL;
}

uint64_t pad_entry(const struct image *im, const struct section *sec,
		   const struct func *fn)
{
	uint64_t base = image_section_base(im, sec);

	if (fn->start < base || fn->start - base >= sec->sh.sh_size)
		return fn->start;
	return fn->start + im->arch->entry_prefix(sec->bytes + (fn->start - base),
						  base + sec->sh.sh_size - fn->start);
}

bool pad_fits(const struct image *im, const struct scan_opts *o,
	      const struct section *sec, const struct func *fn, uint64_t addr)
{
	uint64_t end, entry = pad_entry(im, sec, fn);

	if (o->pad_m) {
		if (!pad_run(im, sec, addr, o->pad_m, &end) || end != fn->start)
			return false;
	} else if (entry != addr) {
		return false;
	}
	return pad_run(im, sec, entry, o->pad_n - o->pad_m, &end);
}

static enum site_verdict judge_entry(struct image *im, const uint8_t *traced,
				     const struct funcs *f,
				     const struct section *sec,
				     const struct site *s,
				     const struct site *prev,
				     const struct func **live)
{
	const struct func *fn;

	*live = NULL;
	if (prev && prev->addr == s->addr && prev->shndx == s->shndx)
		return DROP_DUPLICATE;
	if (!traced[sec->idx])
		return DROP_UNTRACED;
	fn = funcs_lookup(f, (uint32_t)sec->idx, s->addr, NULL);
	if (!fn) {
		*live = pad_before_entry(im, f, sec, s->addr, NULL);
		return *live ? SITE_KEPT : DROP_NO_FUNC;
	}
	*live = fn;
	return s->addr == funcs_entry(im, sec, fn, s->addr) ? SITE_KEPT :
	       DROP_NOT_ENTRY;
}

/* "<rsec> entry <i>", the place of a bad list entry in messages. */
static const char *entry_place(char *buf, size_t len,
			       const struct section *rsec, size_t i)
{
	snprintf(buf, len, "%s entry %zu", rsec->name, i);
	return buf;
}

/* Where list relocation @r points: a code section and an address. */
static int entry_target(struct image *im, const struct section *list,
			enum reloc_layout l, const struct reloc *r,
			const struct section *rsec, size_t i, struct section **secp,
			uint64_t *addrp)
{
	unsigned int w = im->arch->addr_size;
	/* an object's offsets count from the section, whatever its sh_addr */
	uint64_t base = im->ehdr.e_type == ET_REL ? 0 : list->sh.sh_addr;
	uint64_t off = r->offset - base, addr;
	const struct symbol *sym;
	struct section *sec;
	char place[160];

	if (r->offset < base || off >= list->sh.sh_size ||
	    off % w || list->sh.sh_size - off < w)
		return lp_error(im->path,
				entry_place(place, sizeof(place), rsec, i),
				"offset 0x%llx is not an entry of %s",
				(unsigned long long)r->offset, list->name);
	if (r->type != im->arch->abs_reloc)
		return lp_error(im->path,
				entry_place(place, sizeof(place), rsec, i),
				"%s: relocation type %u, expected %u (absolute address)",
				im->arch->name, r->type, im->arch->abs_reloc);
	if (r->sym >= im->nsyms)
		return lp_error(im->path,
				entry_place(place, sizeof(place), rsec, i),
				"symbol index %llu out of range (%zu symbols)",
				(unsigned long long)r->sym, im->nsyms);
	sym = &im->syms[r->sym];
	if (reloc_has_addend(l)) {
		addr = sym->value + (uint64_t)r->addend;
	} else {
		uint64_t v = 0;

		/* Rel: the linked value, or an object's addend, in place */
		memcpy(&v, list->bytes + off, w);
		addr = im->ehdr.e_type == ET_REL ? sym->value + v : v;
	}
	if (im->ehdr.e_type == ET_REL)
		sec = sym->shndx && sym->shndx < im->nsecs ?
		      &im->secs[sym->shndx] : NULL;
	else
		sec = image_section_at(im, addr);
	if (!sec || !(sec->sh.sh_flags & SHF_EXECINSTR) ||
	    sec->sh.sh_type == SHT_NOBITS ||
	    addr - image_section_base(im, sec) >= sec->sh.sh_size)
		return lp_error(im->path,
				entry_place(place, sizeof(place), rsec, i),
				"0x%llx%s%s is in no code section",
				(unsigned long long)addr,
				im->ehdr.e_type == ET_REL ? " from symbol " : "",
				im->ehdr.e_type == ET_REL ? sym->name : "");
	if (!image_section_bytes(im, sec))
		return -1;
	if (!im->arch->pad_nop_len(sec->bytes + (addr - image_section_base(im, sec)),
				   image_section_base(im, sec) + sec->sh.sh_size - addr))
		return lp_error(im->path,
				entry_place(place, sizeof(place), rsec, i),
				"%s: 0x%llx (%s+0x%llx) holds no nop",
				im->arch->name, (unsigned long long)addr,
				sec->name,
				(unsigned long long)(addr - image_section_base(im, sec)));
	*secp = sec;
	*addrp = addr;
	return 0;
}

void listed_site(struct site *s, const struct section *sec,
			uint64_t addr)
{
	memset(s, 0, sizeof(*s));
	s->addr = addr;
	s->shndx = (uint32_t)sec->idx;
	s->form = CALL_NONE;
	s->verdict = SITE_KEPT;
	s->entry_style = 1;
}

void patchable_stats(struct scan_stats *st, size_t n)
{
	st->relsecs = 1;
	st->relocs = n;
	st->refs = n;
	st->calls = n;
	st->threads = 1;
}

/* A list without its relocations, in an object or in a linked image. */
#define NO_RELOCS_OBJ \
	"no relocation section: an object's list entries must be relocated"
#define NO_RELOCS_IMAGE \
	"no relocations kept for it; link the image with -q (--emit-relocs)"

/* Every listed address, as a candidate site; -1 on bad input. */
static int read_entries(struct image *im, const struct section *list,
			struct site **out, size_t *n)
{
	struct section *rsec = image_relocs_of(im, list), *sec = NULL;
	enum reloc_layout l;
	struct relocs rel;
	size_t i;

	if (!rsec)
		return lp_error(im->path, list->name, "%s",
				im->ehdr.e_type == ET_REL ? NO_RELOCS_OBJ :
				NO_RELOCS_IMAGE);
	if (image_relocs(im, rsec, &rel) < 0)
		return -1;
	l = rel.layout;
	/* a list of size 0: its first relocation is not an entry */
	if (!reloc_has_addend(l) &&
	    !image_section_bytes(im, (struct section *)list))
		return -1;
	*out = xcalloc(rel.count ? rel.count : 1, sizeof(**out));
	*n = 0;
	for (i = 0; i < rel.count; i++) {
		struct reloc r;
		uint64_t addr = 0;

		reloc_get(l, rel.base, i, &r);
		if (entry_target(im, list, l, &r, rsec, i, &sec, &addr) < 0)
			return -1;
		listed_site(&(*out)[(*n)++], sec, addr);
	}
	return 0;
}

/* Judge every candidate, keeping r->kept in (section, address) order. */
static int judge_all(struct image *im, const struct scan_opts *o,
		     struct site *cand, size_t n, struct scan_result *r)
{
	const struct func *fn;
	uint8_t *traced;
	size_t i;

	traced = traced_sections(im, o);
	r->kept = cand;		/* compacted in place */
	r->dropped = xmalloc((n ? n : 1) * sizeof(*r->dropped));
	for (i = 0; i < n; i++) {
		struct site s = cand[i];
		const struct section *sec = &im->secs[s.shndx];

		s.verdict = (uint8_t)judge_entry(im, traced, &r->funcs, sec, &s,
						 r->nkept ? &r->kept[r->nkept - 1] :
						 NULL, &fn);
		if (s.verdict == SITE_KEPT && o->pad_n &&
		    !pad_fits(im, o, sec, fn, s.addr)) {
			free(traced);
			return lp_error(im->path, sec->name,
					"entry 0x%llx of %s does not start a pad of %u nops with %u before the entry (--patchable-entries=%u,%u): the code was compiled with another -fpatchable-function-entry",
					(unsigned long long)s.addr,
					fn->sym->name, o->pad_n, o->pad_m,
					o->pad_n, o->pad_m);
		}
		r->stats.verdicts[s.verdict]++;
		if (s.verdict == SITE_KEPT)
			r->kept[r->nkept++] = s;
		else
			r->dropped[r->ndropped++] = s;
	}
	free(traced);
	return 0;
}

int patchable_scan(struct image *im, const struct scan_opts *o,
		   struct scan_result *r)
{
	const struct section *list;
	struct site *cand = NULL;
	size_t n = 0;
	uint64_t t0;

	memset(r, 0, sizeof(*r));
	if (!im->symtab)
		return lp_error(im->path, ".symtab",
				"no symbol table: the image is stripped; scan the unstripped link output");
	list = image_find_section(im, PATCHABLE_SECTION);
	/* an object without one is all notrace; an image, linked wrong */
	if (!list && im->ehdr.e_type == ET_REL)
		return 0;
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
	if (read_entries(im, list, &cand, &n) < 0)
		goto out_free;
	patchable_stats(&r->stats, n);
	r->stats.ns_relocs = now_ns() - t0;

	t0 = now_ns();
	/* equal addresses are equal sites: any sort gives the same order */
	sort_sites(cand, n, im->nsecs, im->ehdr.e_type != ET_REL, false);
	if (judge_all(im, o, cand, n, r) < 0) {
		cand = NULL;	/* r->kept owns it now */
		goto out_free;
	}
	cand = NULL;		/* likewise */
	r->stats.ns_filter = now_ns() - t0;
	if (!im->nlocal_funcs && r->stats.verdicts[DROP_NO_FUNC]) {
		lp_error(im->path, im->symtab->name,
			 "no local function symbols (discarded by ld -x/--discard-all or strip -x?), so %zu patchable entries lie in no function symbol and static functions cannot be told from dead code; link keeping local symbols",
			 r->stats.verdicts[DROP_NO_FUNC]);
		goto out_free;
	}
	return 0;
out_free:
	free(cand);
	free(r->kept);
	free(r->dropped);
	funcs_free(&r->funcs);
	memset(r, 0, sizeof(*r));
	return -1;
}
