/* SPDX-License-Identifier: GPL-2.0 */
/* units.h - durations as the readers print them. */
#ifndef LPTRACE_UNITS_H
#define LPTRACE_UNITS_H

#include <stddef.h>

/* "12.345 us": a duration in the unit that keeps it short. */
void fmt_ns(char *buf, size_t size, double ns);

#endif
