/* SPDX-License-Identifier: GPL-2.0 */
/* The byte audit's direct calls of every architecture (arch-audit.c). */
#ifndef LINKPASS_ARCH_AUDIT_H
#define LINKPASS_ARCH_AUDIT_H

#include "arch.h"

/* arch->direct_call, or aarch64's and riscv64's (the full tool's). */
unsigned int arch_direct_call(const struct arch *a, const uint8_t *p,
			      uint64_t avail, uint64_t addr, uint64_t *target);

#endif
