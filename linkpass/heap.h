/* SPDX-License-Identifier: GPL-2.0 */
/* Memory tuning for big inputs (heap.c). */
#ifndef LINKPASS_HEAP_H
#define LINKPASS_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Huge pages for the big block @p of @size bytes, before it is touched. */
void huge_hint(void *p, size_t size);
/* A reused heap for an input of @bytes, when it is big; once. */
void heap_for_input(uint64_t bytes);

#endif
