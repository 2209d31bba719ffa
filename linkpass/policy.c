// SPDX-License-Identifier: GPL-2.0
/* Traced-section policy. */
#include "policy.h"

#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "util.h"

static const char *const default_sections[] = {
	".text", ".text.*", ".init.text", ".ref.text", ".sched.text",
	".spinlock.text", ".irqentry.text", ".softirqentry.text",
	".kprobes.text", ".cpuidle.text",
};

#define NDEFAULT (ARRAY_SIZE(default_sections))

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->include = xmalloc(sizeof(default_sections));
	memcpy(p->include, default_sections, sizeof(default_sections));
	p->ninclude = NDEFAULT;
}

void policy_free(struct policy *p)
{
	free(p->include);
	free(p->extra);
	free(p->exclude);
	free(p->csv);
	memset(p, 0, sizeof(*p));
}

static void policy_push(const char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

void policy_set(struct policy *p, const char *csv)
{
	char *copy = xstrdup(csv), *tok, *save = NULL;

	/*
	 * The globs point into the copy, which lives as long as the policy;
	 * an earlier copy can go, as no glob of it is left.
	 */
	free(p->csv);
	p->csv = copy;
	p->ninclude = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		policy_push(&p->include, &p->ninclude, tok);
}

void policy_add(struct policy *p, const char *glob)
{
	policy_push(&p->extra, &p->nextra, glob);
}

void policy_exclude(struct policy *p, const char *glob)
{
	policy_push(&p->exclude, &p->nexclude, glob);
}

bool policy_traced(const struct policy *p, const char *section)
{
	size_t i;

	for (i = 0; i < p->nexclude; i++)
		if (glob_match(p->exclude[i], section))
			return false;
	for (i = 0; i < p->ninclude; i++)
		if (glob_match(p->include[i], section))
			return true;
	for (i = 0; i < p->nextra; i++)
		if (glob_match(p->extra[i], section))
			return true;
	return false;
}
