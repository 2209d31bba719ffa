/* SPDX-License-Identifier: GPL-2.0 */
/*
 * file.h - a file that appears whole or not at all (temp file, rename),
 * created with the mode a plain open(O_CREAT, 0666) would give (see
 * file.c).
 */
#ifndef LPT_FILE_H
#define LPT_FILE_H

#include <stdio.h>

#pragma GCC visibility push(hidden)

struct lpt_file {
	FILE *f;
	char *tmp;		/* NULL: a device or pipe, written in place */
	const char *path;
};
int lpt_file_open(struct lpt_file *o, const char *path);
int lpt_file_commit(struct lpt_file *o, int err);

#pragma GCC visibility pop

#endif /* LPT_FILE_H */
