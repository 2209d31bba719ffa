/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefile.h - a trace file read back (format: runtime/lptrace-data.h):
 * checked whole when opened, then held as arrays the commands walk.
 */
#ifndef LPTRACE_TRACEFILE_H
#define LPTRACE_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "lptrace-data.h"
#include "render.h"

struct data_sym {
	uint64_t addr;
	uint64_t size;
	char *name;
};

struct lpt_data {
	const char *path;
	struct lpt_rec_info info;
	char *exe;
	struct data_sym *syms;		/* sorted by address */
	size_t nsyms;
	struct lpt_event *ev;		/* all events, grouped by thread */
	size_t nev;
	struct lpt_rthread *threads;	/* one per thread id, views into ev */
	size_t nthreads;
	struct lpt_rec_clock clk;
	struct lpt_rec_end end;
};

/* 0, or -1 after one line on stderr saying what is wrong with the file. */
int data_open(struct lpt_data *d, const char *path);
void data_close(struct lpt_data *d);

/* The function covering @addr, or NULL. */
const struct data_sym *data_sym_find(const struct lpt_data *d, uint64_t addr);
/* Names for render.c: a site's function; the function of a return address. */
const char *data_func_name(void *ctx, uint64_t site, char *buf, size_t n);
const char *data_caller_name(void *ctx, uint64_t ret, char *buf, size_t n);
void data_render(const struct lpt_data *d, struct lpt_render *r);

/* Error output: "lptrace: " + message + newline. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
