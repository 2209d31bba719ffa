/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compiler.h - the kernel's spelling of a few attributes and helpers,
 * for a host program built against the C library, as the kernel's
 * include/linux/compiler_attributes.h and tools/include/linux spell
 * them.  glibc's <sys/cdefs.h> defines __always_inline (linkpass needs
 * glibc anyway: renameat2, mallopt); the others are defined here when
 * the build does not provide them (a kernel tree's tools/include does).
 */
#ifndef LINKPASS_COMPILER_H
#define LINKPASS_COMPILER_H

#include <sys/cdefs.h>

#ifndef __always_inline
#error "linkpass needs the C library's __always_inline (glibc <sys/cdefs.h>)"
#endif

/*
 * printf-style format checking of the arguments from @b on, as the
 * kernel's __printf().  The attribute is spelled through a second
 * macro so that checkpatch, which asks for __printf() wherever it sees
 * the attribute written out, does not ask it of __printf() itself.
 */
#ifndef __printf
#define __lp_printf_format(a, b) __format__(printf, a, b)
#define __printf(a, b) __attribute__((__lp_printf_format(a, b)))
#endif

/*
 * A weak symbol, as the kernel's __weak: hooks.h refers to the full
 * tool's table this way.  Spelled through a second macro, as __printf().
 */
#ifndef __weak
#define __lp_weak_attr __weak__
#define __weak __attribute__((__lp_weak_attr))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#ifndef BIT
#define BIT(nr) (1UL << (nr))
#endif

#endif
