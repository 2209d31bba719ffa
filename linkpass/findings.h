/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What linkpass check finds (cmd_check.c), for a linked image (entries
 * are addresses) and a relocatable object (section + offset), named and
 * explained by describe.c and audit.c.
 */
#ifndef LINKPASS_FINDINGS_H
#define LINKPASS_FINDINGS_H

#include <stddef.h>

struct findings {
	size_t missing, stale, dups, unordered;
	size_t zeroed;		/* entries holding 0 (sorttable -s) */
	size_t wrong;		/* sites not holding what --sites wants */
};

enum finding {
	FOUND_MISSING,		/* a site the table lacks */
	FOUND_STALE,		/* an entry that is no site */
	FOUND_DUPLICATE,	/* an entry listed again */
	FOUND_CALL,		/* a site holding the call, --sites=nop */
	FOUND_NOP,		/* a site holding the NOP, --sites=call */
};

#endif
