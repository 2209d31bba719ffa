// SPDX-License-Identifier: GPL-2.0
/* scan --stats: the counts and the time of each phase. */
#include <stdio.h>
#include <string.h>

#include "anchor.h"
#include "options.h"
#include "scan.h"
#include "util.h"

/* The verdicts' names, short. */
static const char *const verdict_short[NR_VERDICTS] = {
	[SITE_KEPT] = "kept",
	[DROP_NOT_CALL] = "not a call",
	[DROP_UNTRACED] = "untraced section",
	[DROP_DEAD_BODY] = "dead body (overridden weak)",
	[DROP_NO_FUNC] = "no function symbol",
	[DROP_NOT_ENTRY] = "not at entry",
	[DROP_DUPLICATE] = "duplicate",
};

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void print_stats(const struct options *o, const struct scan_result *r,
			const struct anchors *a, const uint64_t *ns)
{
	const struct scan_stats *s = &r->stats;
	int v;
	size_t i;

	printf("linkpass scan %s -> %s\n", o->image, o->output);
	printf("  %-40s %zu\n", "relocation sections read", s->relsecs);
	printf("  %-40s %zu\n", "relocations seen", s->relocs);
	printf("  %-40s %zu\n", "references to the mcount symbol", s->refs);
	printf("  %-40s %zu\n", "call sites found", s->calls);
	for (v = DROP_NOT_CALL; v < NR_VERDICTS; v++) {
		char label[96];

		snprintf(label, sizeof(label), "dropped: %s", verdict_short[v]);
		printf("  %-40s %zu\n", label, s->verdicts[v]);
	}
	printf("  %-40s %zu\n", "table entries", r->nkept);
	printf("  %-40s %zu", "anchor symbols", a->n);
	for (i = 0; i < a->n && i < 4; i++)
		printf("%s%s", i ? ", " : " (", a->list[i]->name);
	printf("%s\n", a->n > 4 ? ", ...)" : a->n ? ")" : "");
	printf("  %-40s %d\n", "threads", s->threads);
	printf("  %-40s %.3f ms\n", "time: open image", ms(ns[1] - ns[0]));
	printf("  %-40s %.3f ms\n", "time: function index", ms(s->ns_symbols));
	printf("  %-40s %.3f ms\n", "time: relocation scan", ms(s->ns_relocs));
	printf("  %-40s %.3f ms\n", "time: filter and sort", ms(s->ns_filter));
	printf("  %-40s %.3f ms%s\n", "time: stripped-objects check",
	       ms(s->ns_stripped), s->stripped_threaded ?
	       " (on its own thread, while the table is written)" : "");
	printf("  %-40s %.3f ms\n", "time: write table", ms(ns[3] - ns[2]));
	printf("  %-40s %.3f ms\n", "time: total", ms(ns[3] - ns[0]));
}

/*
 * The drop counts of --stats, by a second scan with the reasons on,
 * after the table is written: the timed run is the one without
 * --stats, so --stats does not change what it measures.
 */
static void count_reasons(struct image *im, const struct options *o,
			  struct scan_result *r)
{
	struct scan_result full;

	if (find_sites(im, &o->scan, &scan_explained, &full) < 0)
		return;		/* not reached: the same scan succeeded */
	memcpy(r->stats.verdicts, full.stats.verdicts,
	       sizeof(r->stats.verdicts));
	scan_result_free(&full);
}

void scan_print_stats(struct image *im, const struct options *o,
		      struct scan_result *r, const struct anchors *a,
		      const uint64_t *ns)
{
	count_reasons(im, o, r);
	print_stats(o, r, a, ns);
}
