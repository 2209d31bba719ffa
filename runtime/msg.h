/* SPDX-License-Identifier: GPL-2.0 */
/* msg.h - the runtime's one way to speak (see msg.c). */
#ifndef LPT_MSG_H
#define LPT_MSG_H

#pragma GCC visibility push(hidden)

/*
 * Every message of the runtime: "lptrace: PROGRAM: " + @fmt + newline,
 * on stderr, in one write.  Not async-signal-safe.
 */
void lpt_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#pragma GCC visibility pop

#endif /* LPT_MSG_H */
