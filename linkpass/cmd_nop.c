// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass nop FILE...: the NOP over every site of the table at link
 * time (arch->site_nop: only x86_64 has one), so that nothing rewrites
 * code at boot.  A linked image's sites are its table's non-zero
 * entries, each a direct call to a defined mcount symbol or the NOP
 * already; where the image kept the site's static relocation (-q) it
 * becomes R_*_NONE, as objtool --mnop leaves it.  An object's (a .ko)
 * are its table's relocations: each a call with a PC32/PLT32
 * relocation against an mcount symbol, which becomes NONE so that the
 * module loader leaves the NOP alone.  Every site is checked before a
 * byte is written, in place in a copy that replaces the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compiler.h"
#include "describe.h"
#include "elfwrite.h"
#include "mcount.h"
#include "mcount-table.h"
#include "table_read.h"
#include "util.h"

#define NOP_STATS \
	"linkpass nop %s: %zu sites NOP'd, %zu already NOPs, %zu zero entries skipped, %zu relocations made NONE\n"

/* The longest call a site may hold (x86's 67 e8 rel32). */
#define SITE_MAX 6

struct nop_site {
	struct place at;	/* address (shndx 0), or section + offset */
	size_t entry;		/* its table entry, for messages */
	struct section *sec;	/* the code section holding it */
	uint64_t off;		/* its offset in @sec */
	unsigned int len;	/* the length of its call or NOP; 0: other */
	bool call;		/* holds the call: gets the NOP */
	const struct relocs *rel;	/* its relocation, if kept */
	size_t ri;
	bool fix_rel;		/* the relocation is not NONE yet */
	const char *bad;	/* why the site is refused, or NULL */
};

struct nop_job {
	const struct options *o;
	struct image *im;
	struct nop_site *v;		/* sorted by place, distinct */
	size_t n;
	uint8_t *is_mcount;		/* by symbol index */
	struct relocs *rels;		/* by section index: its relocations */
	size_t nzero, nnopped, nalready, nrelocs;
};

static int cmp_site(const void *a, const void *b)
{
	const struct nop_site *x = a, *y = b;
	int c = cmp_place(&x->at, &y->at);

	return c ? c : x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The NOP of one of the lengths the architecture has, at @p. */
static unsigned int nop_at(const struct arch *a, const uint8_t *p,
			   uint64_t avail)
{
	unsigned int len;
	const uint8_t *nop;

	for (len = 1; len <= SITE_MAX && len <= avail; len++) {
		nop = a->site_nop(len);
		if (nop && !memcmp(p, nop, len))
			return len;
	}
	return 0;
}

/*
 * The site of entry @entry, @at in @sec (or NULL).  A linked image's
 * call target is checked here, an object's by take_reloc().
 */
static void add_site(struct nop_job *j, size_t entry, const struct place *at,
		     struct section *sec, const uint64_t *targets,
		     size_t ntargets)
{
	struct nop_site *s = &j->v[j->n++];
	struct image *im = j->im;
	uint64_t base, avail, target;
	const uint8_t *p;

	memset(s, 0, sizeof(*s));
	s->at = *at;
	s->entry = entry;
	if (!sec) {
		s->bad = "is in no section";
		return;
	}
	base = image_section_base(im, sec);
	if (!(sec->sh.sh_flags & SHF_EXECINSTR) ||
	    sec->sh.sh_type == SHT_NOBITS || at->off < base ||
	    at->off - base >= sec->sh.sh_size ||
	    !image_section_bytes_quiet(im, sec)) {
		s->bad = "is not in the bytes of a code section";
		return;
	}
	s->sec = sec;
	s->off = at->off - base;
	p = sec->bytes + s->off;
	avail = sec->sh.sh_size - s->off;
	s->len = nop_at(im->arch, p, avail);
	if (s->len)
		return;
	s->len = im->arch->direct_call(p, avail, at->off, &target);
	s->call = s->len && im->arch->site_nop(s->len) &&
		  (im->ehdr.e_type == ET_REL ||
		   mcount_is_target(targets, ntargets, target));
	if (!s->call)
		s->bad = "is neither a call to an mcount symbol nor the NOP";
}

/*
 * The sites: a linked image's non-zero table entries, or an object's
 * table relocations as section + offset.
 */
static int table_sites(struct nop_job *j)
{
	struct image *im = j->im;
	struct section *sec = image_find_section(im, MCOUNT_SECTION);
	uint64_t targets[8];
	size_t ntargets = 0, n, i;
	struct place *p = NULL;
	struct table t;
	int ret = -1;

	if (im->ehdr.e_type == ET_REL) {
		if (!sec)
			return 0;	/* nothing traced: nothing to NOP */
		if (table_read_object(im, sec, &p, &n) >= 0) {
			j->v = xcalloc(n ? n : 1, sizeof(*j->v));
			for (i = 0; i < n; i++)
				add_site(j, i, &p[i], &im->secs[p[i].shndx],
					 NULL, 0);
			ret = 0;
		}
		free(p);
		return ret;
	}
	if (table_read_found(im, j->o->start_sym, j->o->stop_sym, &t) < 0)
		return -1;
	for (i = 0; i < t.n; i++)
		j->nzero += !t.v[i];
	if (j->nzero < t.n &&
	    mcount_targets(im, j->o->scan.mcount_syms, "nop", targets,
			   ARRAY_SIZE(targets), &ntargets) < 0)
		goto out_free_table;
	j->v = xcalloc(t.n ? t.n : 1, sizeof(*j->v));
	for (i = 0; i < t.n; i++) {
		if (!t.v[i])
			continue;	/* a dead entry, zeroed after the link */
		add_site(j, i, &(struct place){ .off = t.v[i] },
			 image_section_at(im, t.v[i]), targets, ntargets);
	}
	ret = 0;
out_free_table:
	table_free(&t);
	return ret;
}

/* The last site at or before @at, or NULL. */
static struct nop_site *site_before(struct nop_job *j, const struct place *at)
{
	size_t lo = 0, hi = j->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp_place(&j->v[mid].at, at) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &j->v[lo - 1] : NULL;
}

/*
 * Relocation @ri of @rs names an mcount symbol: it is the site's whose
 * call (or NOP'd call) it patches, or into whose NOP it would write.
 * A call's must be a direct call's; a NOP's becomes NONE.
 */
static void take_reloc(struct nop_job *j, const struct relocs *rs, size_t ri,
		       const struct reloc *r)
{
	struct image *im = j->im;
	const struct section *sec = rs->target;
	uint64_t base = image_section_base(im, sec), start = 0;
	struct place at = { .shndx = im->ehdr.e_type == ET_REL ?
				     (uint32_t)sec->idx : 0 };
	enum call_form form = CALL_NONE;
	struct nop_site *s;

	if (r->offset < base)
		return;
	if (sec->bytes)
		form = im->arch->call_at(sec->bytes, sec->sh.sh_size,
					 r->offset - base, r->type, &start);
	at.off = form == CALL_NONE || form == CALL_BAD ? r->offset :
		 base + start;
	s = site_before(j, &at);
	if (!s || s->rel || s->bad || s->at.shndx != at.shndx ||
	    (s->at.off != at.off &&
	     (s->call || r->offset - s->at.off >= s->len)))
		return;
	s->rel = rs;
	s->ri = ri;
	s->fix_rel = r->type != im->arch->none_reloc;
	if (!s->call)
		return;
	if (form != CALL_REL32 &&
	    (form != CALL_ADDR32 || im->ehdr.e_type == ET_REL))
		s->bad = "is a call whose relocation is not a direct call's";
	else if (im->ehdr.e_type == ET_REL && (!reloc_has_addend(rs->layout) ||
					       r->addend != -4))
		s->bad = "is a call whose relocation's addend is not -4";
	else if (s->len != im->arch->call_len(form))
		s->bad = "is a call that its relocation reads otherwise";
}

/* Each site's relocation, where the file keeps its section's. */
static int find_relocs(struct nop_job *j)
{
	struct image *im = j->im;
	struct section *rsec;
	struct relocs *rs;
	struct reloc r;
	size_t i, k;

	j->is_mcount = xcalloc(im->nsyms ? im->nsyms : 1, 1);
	for (i = 1; i < im->nsyms; i++)
		j->is_mcount[i] = mcount_kind(j->o->scan.mcount_syms,
					      im->syms[i].name) != MCOUNT_NO;
	j->rels = xcalloc(im->nsecs, sizeof(*j->rels));
	for (i = 0; i < j->n; i++) {
		const struct section *sec = j->v[i].sec;

		if (!sec || j->rels[sec->idx].rsec)
			continue;
		rsec = image_relocs_of(im, sec);
		rs = &j->rels[sec->idx];
		if (rsec && image_relocs(im, rsec, rs) < 0)
			return -1;
		for (k = 0; rsec && k < rs->count; k++) {
			reloc_get(rs->layout, rs->base, k, &r);
			if (r.sym < im->nsyms && j->is_mcount[r.sym])
				take_reloc(j, rs, k, &r);
		}
	}
	for (i = 0; i < j->n; i++) {
		struct nop_site *s = &j->v[i];

		if (!s->bad && s->call && !s->rel &&
		    (im->ehdr.e_type == ET_REL || j->rels[s->sec->idx].rsec))
			s->bad = "is a call without a relocation against an mcount symbol";
		j->nnopped += s->call;
		j->nalready += !s->call;
		j->nrelocs += s->fix_rel;
	}
	return 0;
}

/*
 * Refuse the file when a site is bad: one line, for the first, with
 * its function and bytes (describe.c).
 */
static int refuse(struct nop_job *j)
{
	const struct nop_site *first = NULL;
	struct image *im = j->im;
	char where[640], place[64];
	size_t nbad = 0, i;

	for (i = 0; i < j->n; i++)
		if (j->v[i].bad && !nbad++)
			first = &j->v[i];
	if (!nbad)
		return 0;
	describe_nop_site(im, &first->at, first->sec, first->off, where,
			  sizeof(where));
	snprintf(place, sizeof(place), MCOUNT_SECTION " entry %zu",
		 first->entry);
	return lp_error(im->path, place, "%s, %s; nothing written%s", where,
			first->bad,
			nbad > 1 ? " (and more sites like it)" : "");
}

/* The NOPs and the NONE relocations, into a copy that replaces the file. */
static int write_nops(struct nop_job *j)
{
	struct image *im = j->im;
	uint8_t rel[sizeof(Elf64_Rela)];
	struct reloc r;
	struct elfw w;
	size_t i, es;
	int ret = 0;

	if (!j->nnopped && !j->nrelocs)
		return 0;	/* done already: the file stays as it is */
	if (elfw_patch(&w, im) < 0)
		return -1;
	for (i = 0; i < j->n && !ret; i++) {
		const struct nop_site *s = &j->v[i];

		if (s->call)
			ret = elfw_put(&w, s->sec->sh.sh_offset + s->off,
				       im->arch->site_nop(s->len), s->len);
		if (ret || !s->fix_rel)
			continue;
		es = reloc_entsize(s->rel->layout);
		reloc_get(s->rel->layout, s->rel->base, s->ri, &r);
		r.type = im->arch->none_reloc;
		reloc_put(s->rel->layout, rel, 0, &r);
		ret = elfw_put(&w, s->rel->rsec->sh.sh_offset + s->ri * es,
			       rel, es);
	}
	if (ret) {
		elfw_abort(&w);
		return -1;
	}
	return elfw_commit(&w);
}

/* Drop repeated sites (a duplicate entry), counting the rest. */
static void distinct_sites(struct nop_job *j)
{
	size_t i, k = 0;

	if (!j->n)
		return;		/* j->v may be NULL: no table */
	qsort(j->v, j->n, sizeof(*j->v), cmp_site);
	for (i = 0; i < j->n; i++)
		if (!k || cmp_place(&j->v[k - 1].at, &j->v[i].at))
			j->v[k++] = j->v[i];
	j->n = k;
}

int cmd_nop(struct options *o)
{
	const char *path = o->image;
	struct nop_job j = { .o = o };
	struct image im;
	int ret = -1;

	j.im = &im;
	if (image_open(&im, path, IMAGE_ANY) < 0)
		goto out_close;
	if (!im.arch->site_nop) {
		lp_error(path, "ELF header",
			 "not supported on %s: only x86_64 sites get a NOP at link time",
			 im.arch->name);
		goto out_close;
	}
	/* the sites, then their relocations, checked before any write */
	if (table_sites(&j) < 0)
		goto out_free;
	distinct_sites(&j);
	if (find_relocs(&j) < 0 || refuse(&j) < 0)
		goto out_free;
	ret = write_nops(&j);
	if (!ret && o->stats)
		printf(NOP_STATS, path, j.nnopped, j.nalready, j.nzero,
		       j.nrelocs);
out_free:
	free(j.v);
	free(j.is_mcount);
	free(j.rels);
out_close:
	image_close(&im);
	return ret ? EXIT_ERROR : EXIT_OK;
}
