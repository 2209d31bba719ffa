// SPDX-License-Identifier: GPL-2.0
/*
 * env.c - what the runtime reads from its environment: every LPTRACE*
 * number and word is checked against its range or its list, and a bad
 * one is named in a message and replaced by the default; the program
 * runs on either way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "msg.h"

/* LPTRACE_X=n, decimal digits only, within [min, max]; else @def. */
unsigned long lpt_env_ulong(const char *name, unsigned long def,
			    unsigned long min, unsigned long max)
{
	const char *v = getenv(name);
	unsigned long long n;
	char *end;

	if (!v)
		return def;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || v[0] == '-' || v[0] == '+' || errno ||
	    n < min || n > max) {
		lpt_msg("%s=%.40s: not a number from %lu to %lu; using %lu",
			name, v, min, max, def);
		return def;
	}
	return n;
}

/* LPTRACE_X=word, the index of one of @words (NULL-terminated); else @def. */
int lpt_env_word(const char *name, const char *const *words, int def)
{
	const char *v = getenv(name);
	char list[128] = "";
	int i;

	if (!v || !*v)
		return def;
	for (i = 0; words[i]; i++)
		if (!strcmp(v, words[i]))
			return i;
	for (i = 0; words[i]; i++) {
		strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
		strncat(list, words[i], sizeof(list) - strlen(list) - 1);
	}
	lpt_msg("%s=%.40s: not one of %s; using %s", name, v, list,
		words[def]);
	return def;
}
