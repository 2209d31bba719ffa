/* SPDX-License-Identifier: GPL-2.0 */
/* The x86 rules that i386 (arch-i386.c) and x86_64 (arch-x86_64.c) share. */
#ifndef LINKPASS_ARCH_X86_H
#define LINKPASS_ARCH_X86_H

#include "arch.h"

unsigned int x86_call_len(enum call_form f);
unsigned int x86_entry_prefix(const uint8_t *p, uint64_t avail);
unsigned int x86_padding_len(const uint8_t *p, uint64_t avail);
unsigned int x86_pad_nop_len(const uint8_t *p, uint64_t avail);
unsigned int x86_direct_call(const uint8_t *p, uint64_t avail,
			     uint64_t addr, uint64_t *target);
const uint8_t *x86_site_nop(unsigned int len);

#endif
