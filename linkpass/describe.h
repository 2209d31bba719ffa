/* SPDX-License-Identifier: GPL-2.0 */
/* Naming an address for humans: "<function>+0x<off> <section>". */
#ifndef LINKPASS_DESCRIBE_H
#define LINKPASS_DESCRIBE_H

#include "funcs.h"
#include "image.h"
#include "site.h"

/*
 * "func+0x4 .text", "<none> .text" or "<none> <none>"; "func-0x8 .text"
 * for an address in no function from which nops run into func's entry
 * (a pad of -fpatchable-function-entry=N,M with M nops before it).
 */
const char *describe_addr(struct image *im, const struct funcs *f,
			  uint64_t addr, char *buf, size_t len);
/* Up to 6 bytes at @addr as hex, or "<no bytes>". */
const char *describe_bytes(struct image *im, uint64_t addr, char *buf,
			   size_t len);
/* The same at offset @off of section @sec. */
const char *describe_section_bytes(struct image *im, struct section *sec,
				   uint64_t off, char *buf, size_t len);
/*
 * A place of a relocatable object: ".text+0x4 (func+0x4)", or
 * ".text+0x4 (<none>)" where no function covers it, or
 * ".text+0x0 (func-0x8)" before func's entry as describe_addr() says.
 */
const char *describe_place(struct image *im, const struct funcs *f,
			   const struct place *p, char *buf, size_t len);

/*
 * The live function whose pad (M nops before its entry) holds @addr,
 * in no function, or NULL.  @hint as for funcs_lookup().
 */
const struct func *describe_pad_of(struct image *im, const struct funcs *f,
				   struct section *sec, uint64_t addr,
				   long *hint);

#endif
