/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which output sections hold traced code: by default the kernel's
 * mcounted text sections (scripts/recordmcount.c); --sections,
 * --trace-section and --no-trace-section change the lists (options.c).
 */
#ifndef LINKPASS_POLICY_H
#define LINKPASS_POLICY_H

#include <stdbool.h>
#include <stddef.h>

struct policy {
	const char **include;	/* the default list or --sections globs */
	size_t ninclude;
	const char **extra;	/* --trace-section globs, kept by --sections */
	size_t nextra;
	const char **exclude;	/* globs; a match here always wins */
	size_t nexclude;
	char *csv;		/* the --sections copy the globs point into */
};

void policy_init(struct policy *p);
void policy_free(struct policy *p);
/* --sections=GLOB,GLOB: replace the default list (not --trace-section). */
void policy_set(struct policy *p, const char *csv);
/* --trace-section, --no-trace-section: one glob more */
void policy_add(struct policy *p, const char *glob);
void policy_exclude(struct policy *p, const char *glob);
bool policy_traced(const struct policy *p, const char *section);

#endif
