// SPDX-License-Identifier: GPL-2.0
/*
 * -fpatchable-function-entry=N[,M] lists each function's first pad nop
 * in __patchable_function_entries (with -q: S + A of a relocation each;
 * stale entries, no order).  A listed entry must hold a nop; it is a
 * site at a live function's entry or in the nops that run into one.
 * With N,M given, a site must start exactly such a pad.
 */
#include "patchable.h"

#include <stdlib.h>
#include <string.h>

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
	off = addr - image_section_base(im, sec);
	if (!im->arch->pad_nop_len(sec->bytes + off, sec->sh.sh_size - off))
		return lp_error(im->path,
				entry_place(place, sizeof(place), rsec, i),
				"%s: 0x%llx (%s+0x%llx) holds no nop",
				im->arch->name, (unsigned long long)addr,
				sec->name, (unsigned long long)off);
	*secp = sec;
	*addrp = addr;
	return 0;
}

void listed_site(struct site *s, const struct section *sec, uint64_t addr)
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

int patchable_read(struct image *im, struct site **out, size_t *n)
{
	struct section *list = image_find_section(im, PATCHABLE_SECTION);
	struct section *rsec, *sec = NULL;
	struct relocs rel;
	struct reloc r;
	uint64_t addr = 0;
	size_t i;

	*out = NULL;
	*n = 0;
	/* an object without one is all notrace; an image, linked wrong */
	if (!list && im->ehdr.e_type == ET_REL)
		return 1;
	if (!list || list->sh.sh_type == SHT_NOBITS)
		return lp_error(im->path, PATCHABLE_SECTION,
				"no such section: compile with -fpatchable-function-entry and keep the section in every link");
	/* scan and check open the image lazily; this path wants them all */
	if (image_symbols(im) < 0)
		return -1;
	rsec = image_relocs_of(im, list);
	if (!rsec && im->ehdr.e_type == ET_REL)
		return lp_error(im->path, list->name,
				"no relocation section: an object's list entries must be relocated");
	if (!rsec)
		return lp_error(im->path, list->name,
				"no relocations kept for it; link the image with -q (--emit-relocs)");
	if (image_relocs(im, rsec, &rel) < 0)
		return -1;
	/* a list of size 0: its first relocation is not an entry */
	if (!reloc_has_addend(rel.layout) && !image_section_bytes(im, list))
		return -1;
	*out = xcalloc(rel.count ? rel.count : 1, sizeof(**out));
	for (i = 0; i < rel.count; i++) {
		reloc_get(rel.layout, rel.base, i, &r);
		if (entry_target(im, list, rel.layout, &r, rsec, i, &sec,
				 &addr) < 0) {
			free(*out);
			*out = NULL;
			return -1;
		}
		listed_site(&(*out)[(*n)++], sec, addr);
	}
	return 0;
}
