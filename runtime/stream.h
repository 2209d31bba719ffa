/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h - the binary trace file (LPTRACE_DATA), its writer thread,
 * and the dump of the buffers on a fatal signal (see stream.c).
 */
#ifndef LPT_STREAM_H
#define LPT_STREAM_H

#include <stdint.h>

#include "sites.h"

#pragma GCC visibility push(hidden)

int lpt_stream_setup(unsigned int flags, uint64_t min_ns,
		     unsigned int max_depth);
int lpt_stream_active(void);
void lpt_stream_finish(void);
/* A library's names, for the file: before @o is published (objects.c). */
void lpt_stream_object(struct lpt_obj *o);

#pragma GCC visibility pop

#endif /* LPT_STREAM_H */
