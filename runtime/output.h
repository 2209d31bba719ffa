/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h - the events in the buffers as text or JSON files (see
 * output.c).  Its functions are the API's lpt_trace_count,
 * lpt_write_text and lpt_write_json: declared in lptrace.h.
 */
#ifndef LPT_OUTPUT_H
#define LPT_OUTPUT_H

#include "lptrace.h"

#endif /* LPT_OUTPUT_H */
