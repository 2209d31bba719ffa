/* SPDX-License-Identifier: GPL-2.0 */
/* The byte audit's per-architecture facts (arch-audit.c). */
#ifndef LINKPASS_ARCH_AUDIT_H
#define LINKPASS_ARCH_AUDIT_H

#include "arch.h"

/* arch->direct_call, or aarch64's and riscv64's. */
unsigned int arch_direct_call(const struct arch *a, const uint8_t *p,
			      uint64_t avail, uint64_t addr, uint64_t *target);

/*
 * The widths in bytes a patchable pad's nops may have on @a, whose ELF
 * header has @e_flags, as a mask (2 | 4): one width for all the nops
 * of a pad, as the kernel's compiler lays them out.  riscv64 with RVC
 * c.nop (an image with RVC may also hold code built without it: its
 * pads are then all nop) and nop without, aarch64 nop; 0 where no
 * kernel uses pads (x86: any nop).
 */
unsigned int arch_pad_widths(const struct arch *a, uint32_t e_flags);

#endif
