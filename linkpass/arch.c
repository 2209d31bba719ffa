// SPDX-License-Identifier: GPL-2.0
/* The architecture table: one entry per arch-*.c file. */
#include "arch.h"

#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

static const struct arch *const arches[] = {
	&arch_x86_64, &arch_aarch64, &arch_riscv64, &arch_i386,
};

const struct arch *arch_find(uint16_t machine, uint8_t elfclass)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i]->machine == machine &&
		    arches[i]->elfclass == elfclass)
			return arches[i];
	return NULL;
}

const char *arch_names(char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(arches) && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i ? ", " : "", arches[i]->name);
	return buf;
}
