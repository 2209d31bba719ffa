// SPDX-License-Identifier: GPL-2.0
/*
 * The rules: which output sections of vmlinux or of a module hold traced
 * code.  They are the sections recordmcount.c accepts, as the linker
 * scripts name them after the link.  Code the rules name untraced may
 * hold calls that are never listed; code in a section the rules do not
 * name at all is an error for the check as soon as one of its functions
 * holds a site, so that a new section is decided on, not dropped.
 */
#include <string.h>

#include "linkpass.h"

static const char *const traced[] = {
	".text", ".text.*", ".init.text", ".ref.text", ".sched.text",
	".spinlock.text", ".irqentry.text", ".softirqentry.text",
	".kprobes.text", ".cpuidle.text",
};

/*
 * .exit.text runs once at most; the others are entry, early boot and
 * alternative-replacement code, built notrace.
 */
static const char *const untraced[] = {
	".exit.text", ".head.text", ".entry.text", ".noinstr.text",
	".altinstr_replacement", ".altinstr_aux", ".static_call.text",
};

/* An exact name, or a prefix ending in '*'. */
static bool matches(const char *const *pats, size_t n, const char *name)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(pats[i]);
		if (pats[i][len - 1] == '*' ?
		    !strncmp(pats[i], name, len - 1) : !strcmp(pats[i], name))
			return true;
	}
	return false;
}

void sections_classify(struct image *im)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		struct section *s = &im->secs[i];

		if (!(s->sh.sh_flags & SHF_EXECINSTR))
			s->rule = SEC_OTHER;
		else if (matches(untraced, ARRAY_SIZE(untraced), s->name))
			s->rule = SEC_UNTRACED;
		else if (matches(traced, ARRAY_SIZE(traced), s->name))
			s->rule = SEC_TRACED;
		else
			s->rule = SEC_OTHER;
	}
}
