// SPDX-License-Identifier: GPL-2.0
/*
 * Naming addresses in the output: dump's and sites' lines, and the
 * function and bytes of a place in check's findings (for which check
 * scans again with the drop reasons) and nop's errors.
 */
#include "describe.h"
#include "findings.h"
#include "patchable.h"
#include "scan.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/*
 * The function whose pad an address in no function starts: the nops
 * from it run into the function's entry (the M nops before it of
 * -fpatchable-function-entry=N,M; arm64 CALL_OPS puts its entries 8
 * bytes before), so that it is named "func-0x8".  NULL when there is
 * none, or the bytes cannot be read.
 */
const struct func *describe_pad_of(struct image *im, const struct funcs *f,
				   struct section *sec, uint64_t addr,
				   long *hint)
{
	if (!image_section_bytes_quiet(im, sec))
		return NULL;
	return pad_before_entry(im, f, sec, addr, hint);
}

const char *describe_addr(struct image *im, const struct funcs *f,
			  uint64_t addr, char *buf, size_t len)
{
	/* 0 is a zeroed entry: no place, even where .data..percpu is at 0 */
	struct section *sec = addr ? image_section_at(im, addr) : NULL;
	const struct func *fn;

	if (!sec) {
		snprintf(buf, len, "<none> <none>");
		return buf;
	}
	fn = funcs_lookup(f, (uint32_t)sec->idx, addr, NULL);
	if (fn) {
		snprintf(buf, len, "%s+0x%llx %s", fn->sym->name,
			 (unsigned long long)(addr - fn->start), sec->name);
	} else {
		fn = describe_pad_of(im, f, sec, addr, NULL);
		if (fn)
			snprintf(buf, len, "%s-0x%llx %s", fn->sym->name,
				 (unsigned long long)(fn->start - addr),
				 sec->name);
		else
			snprintf(buf, len, "<none> %s", sec->name);
	}
	one_line(buf);		/* one entry stays one line */
	return buf;
}

const char *describe_bytes(struct image *im, uint64_t addr, char *buf,
			   size_t len)
{
	struct section *sec = image_section_at(im, addr);

	return describe_section_bytes(im, sec, sec ? addr - sec->sh.sh_addr : 0,
				      buf, len);
}

const char *describe_section_bytes(struct image *im, struct section *sec,
				   uint64_t off, char *buf, size_t len)
{
	const uint8_t *b;
	uint64_t i;
	size_t at = 0;

	/* a description never fails or reports: unreadable is "<no bytes>" */
	b = sec ? image_section_bytes_quiet(im, sec) : NULL;
	if (!b) {
		snprintf(buf, len, "<no bytes>");
		return buf;
	}
	buf[0] = 0;
	for (i = 0; i < 6 && off + i < sec->sh.sh_size && at + 4 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%02x",
				       i ? " " : "", b[off + i]);
	return buf;
}

const char *describe_place(struct image *im, const struct funcs *f,
			   const struct place *p, char *buf, size_t len)
{
	const struct func *fn = funcs_lookup(f, p->shndx, p->off, NULL);
	const char *sec = p->shndx < im->nsecs ? im->secs[p->shndx].name :
			  "<none>";
	const struct func *pad = NULL;

	if (!fn && p->shndx < im->nsecs)
		pad = describe_pad_of(im, f, &im->secs[p->shndx], p->off, NULL);
	if (fn)
		snprintf(buf, len, "%s+0x%llx (%s+0x%llx)", sec,
			 (unsigned long long)p->off, fn->sym->name,
			 (unsigned long long)(p->off - fn->start));
	else if (pad)
		snprintf(buf, len, "%s+0x%llx (%s-0x%llx)", sec,
			 (unsigned long long)p->off, pad->sym->name,
			 (unsigned long long)(pad->start - p->off));
	else
		snprintf(buf, len, "%s+0x%llx (<none>)", sec,
			 (unsigned long long)p->off);
	one_line(buf);
	return buf;
}

void describe_finding(struct image *im, struct scan_result *r, int kind,
		      const struct place *p, char *buf, size_t len)
{
	const struct site *d;
	char where[512], bytes[64];
	size_t at;

	/* a scan without drop reasons has no function index: build it */
	if (!r->funcs.v && image_symbols(im) == 0)
		funcs_build(im, &r->funcs);
	if (im->ehdr.e_type == ET_REL) {
		describe_place(im, &r->funcs, p, buf, len);
		at = strlen(buf);
		if ((kind == FOUND_CALL || kind == FOUND_NOP) && at + 8 < len) {
			snprintf(buf + at, len - at, ": bytes ");
			describe_section_bytes(im, &im->secs[p->shndx], p->off,
					       buf + at + 8, len - at - 8);
		}
		return;
	}
	describe_addr(im, &r->funcs, p->off, where, sizeof(where));
	if (kind == FOUND_MISSING || kind == FOUND_DUPLICATE) {
		snprintf(buf, len, "0x%016llx %s", (unsigned long long)p->off,
			 where);
		return;
	}
	d = kind == FOUND_STALE ? scan_find_dropped(r, p->off) : NULL;
	snprintf(buf, len, "0x%016llx %s: bytes %s%s%s",
		 (unsigned long long)p->off, where,
		 describe_bytes(im, p->off, bytes, sizeof(bytes)),
		 d ? "; call " : "", d ? verdict_name[d->verdict] : "");
}

/* The common case: the table is exactly the sites, nothing to list. */
static bool agree(const struct scan_result *r, const struct place *v,
		  size_t n)
{
	size_t i;

	if (n != r->nkept)
		return false;
	for (i = 0; i < n && v[i].off == r->kept[i].addr; i++)
		;
	return i == n;
}

int explain_sites(struct image *im, const struct options *o,
		  struct scan_result *r, const struct place *v, size_t n)
{
	if (o->byte_audit || agree(r, v, n))
		return 0;
	scan_result_free(r);
	return find_sites(im, &o->scan, &scan_explained, r);
}

void describe_nop_site(struct image *im, const struct place *p,
		       struct section *sec, uint64_t off, char *buf,
		       size_t len)
{
	char fn[512], where[540], bytes[64] = "<no bytes>";
	struct funcs f;

	funcs_build(im, &f);
	if (im->ehdr.e_type == ET_REL) {
		describe_place(im, &f, p, where, sizeof(where));
	} else {
		describe_addr(im, &f, p->off, fn, sizeof(fn));
		snprintf(where, sizeof(where), "0x%llx (%s)",
			 (unsigned long long)p->off, fn);
	}
	if (sec)
		describe_section_bytes(im, sec, off, bytes, sizeof(bytes));
	snprintf(buf, len, "%s, holding %s", where, bytes);
	funcs_free(&f);
}

const char *const verdict_name[NR_VERDICTS] = {
	[SITE_KEPT] = "kept",
	[DROP_NOT_CALL] = "not a call (data or address reference)",
	[DROP_UNTRACED] = "in an untraced section",
	[DROP_DEAD_BODY] = "in a dead function body (overridden weak function)",
	[DROP_NO_FUNC] = "in code that no live function symbol covers",
	[DROP_NOT_ENTRY] = "not at a function entry",
	[DROP_DUPLICATE] = "duplicate relocation for one site",
};

const struct site *scan_find_dropped(const struct scan_result *r,
				     uint64_t addr)
{
	size_t lo = 0, hi = r->ndropped;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->dropped[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ndropped && r->dropped[lo].addr == addr ?
	       &r->dropped[lo] : NULL;
}
