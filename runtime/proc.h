/* SPDX-License-Identifier: GPL-2.0 */
/* proc.h - what the runtime reads from /proc/self (see proc.c). */
#ifndef LPT_PROC_H
#define LPT_PROC_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* A whole /proc file, NUL-terminated (malloc'd); NULL with errno. */
char *lpt_read_proc_file(const char *path, size_t *lenp);
/* /proc/self/status field @key ("Threads", "Umask") as a number; -errno. */
int lpt_status_field(const char *key, int base, long *val);

#pragma GCC visibility pop

#endif /* LPT_PROC_H */
