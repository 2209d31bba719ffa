// SPDX-License-Identifier: GPL-2.0
/* The architecture table: one entry per arch-*.c file. */
#include "arch.h"

#include <stdint.h>
#include <stdio.h>

#include "compiler.h"
#include "hooks.h"

/*
 * The kernel's; hooks.h adds the full tool's: i386, and an x86_64 that
 * replaces the kernel's (arch-x86-pie.c).
 */
static const struct arch *const arches[] = {
	&arch_x86_64, &arch_aarch64, &arch_riscv64,
};

/* Entry @i of the kernel's arches then the full tool's, or NULL. */
static const struct arch *arch_at(size_t i)
{
	if (i < ARRAY_SIZE(arches))
		return arches[i];
	i -= ARRAY_SIZE(arches);
	return i < extras()->narches ? extras()->arches[i] : NULL;
}

/* The last of entries [0, @n) for @machine/@elfclass, or NULL. */
static const struct arch *find_in(size_t n, uint16_t machine,
				  uint8_t elfclass)
{
	const struct arch *a, *found = NULL;
	size_t i;

	for (i = 0; i < n && (a = arch_at(i)); i++)
		if (a->machine == machine && a->elfclass == elfclass)
			found = a;
	return found;
}

/* The last match: the full tool's entry replaces the kernel's. */
const struct arch *arch_find(uint16_t machine, uint8_t elfclass)
{
	return find_in(SIZE_MAX, machine, elfclass);
}

/* Each machine once, where it first comes. */
const char *arch_names(char *buf, size_t len)
{
	const struct arch *a;
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; (a = arch_at(i)) && at < len; i++)
		if (!find_in(i, a->machine, a->elfclass))
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       i ? ", " : "", a->name);
	return buf;
}
