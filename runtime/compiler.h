/* SPDX-License-Identifier: GPL-2.0 */
/* compiler.h - attributes every file of the runtime may use. */
#ifndef LPT_COMPILER_H
#define LPT_COMPILER_H

/*
 * The library is built without -pg; notrace also keeps the hot path out
 * of the table if someone builds it with -pg anyway, which would make
 * the recorder trace itself.
 */
#define notrace __attribute__((no_instrument_function))

/* Thread-locals of the hot path: one TLS access, no call. */
#define LPT_TLS __attribute__((tls_model("initial-exec")))

#endif /* LPT_COMPILER_H */
