/* SPDX-License-Identifier: GPL-2.0 */
/* The -pg rule of an mcount call after the prologue. */
#ifndef LINKPASS_PROLOGUE_H
#define LINKPASS_PROLOGUE_H

#include <stdbool.h>
#include <stdint.h>

struct func;
struct image;
struct section;
struct site;

/*
 * The rule of architectures whose mcount call follows the prologue
 * (aarch64, riscv64), NULL for others (x86): may the bytes [@from, @to)
 * of @code, from a function's entry to its first mcount call, precede
 * that call?
 */
typedef bool (*prologue_rule_fn)(const uint8_t *code, uint64_t from,
				 uint64_t to);
prologue_rule_fn prologue_rule(uint16_t machine);
/* The verdict of an mcount call after the prologue (filter.c). */
int mcount_verdict(const struct image *im, const struct section *sec,
		   const struct func *fn, const struct site *s,
		   const struct func *last);

#endif
