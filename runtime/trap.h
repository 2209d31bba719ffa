/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trap.h - the SIGTRAP handler that covers sites while an int3 sits
 * there, and the program's sigaction (see trap.c).
 */
#ifndef LPT_TRAP_H
#define LPT_TRAP_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

int lpt_trap_install(void);
int lpt_trap_check(void);
uint64_t lpt_trap_count(void);

#pragma GCC visibility pop

#endif /* LPT_TRAP_H */
