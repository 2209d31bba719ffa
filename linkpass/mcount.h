/* SPDX-License-Identifier: GPL-2.0 */
/* The mcount symbols: names, kinds, addresses. */
#ifndef LINKPASS_MCOUNT_H
#define LINKPASS_MCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

/* Names of the mcount symbol used when --mcount-sym is not given. */
extern const char *const default_mcount_syms[];

/* What a symbol's name makes it. */
enum mcount_kind {
	MCOUNT_NO = 0,		/* no mcount symbol */
	MCOUNT_ENTRY = 1,	/* __fentry__*: called first thing */
	MCOUNT_PROLOGUE = 2,	/* mcount: called after the prologue */
};

/* The kind of symbol @name among the NULL-terminated @syms. */
uint8_t mcount_kind(const char *const *syms, const char *name);

/*
 * The addresses of the mcount symbols @syms that @im defines (the first
 * definition of each name), at most @max into @t, their count in *@n.
 * -1 after an error line naming @what when none is defined.
 */
int mcount_targets(struct image *im, const char *const *syms,
		   const char *what, uint64_t *t, size_t max, size_t *n);
/* Is @addr one of the @n targets @t? */
bool mcount_is_target(const uint64_t *t, size_t n, uint64_t addr);

#endif
