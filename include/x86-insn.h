/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-insn.h - every x86 instruction byte pattern the project reads or
 * writes (linkpass, the runtime, nopbench, tests/lpfacts.py).
 */
#ifndef LP_X86_INSN_H
#define LP_X86_INSN_H

#include <stdint.h>

/* `call rel32`: opcode, then a displacement from the next instruction. */
#define X86_OP_CALL		0xe8
/* `addr32`: a PIE's GOT call `ff 15 disp32`, relaxed to `67 e8 rel32`. */
#define X86_OP_ADDR32		0x67
/* `ff /2` with a RIP-relative disp32: the unrelaxed GOT call. */
#define X86_OP_GRP5		0xff
#define X86_MODRM_CALL_RIP	0x15
/* `jmp rel32`, and `jcc rel32` (0f 80..0f 8f): the other direct
 * branches with a 32-bit displacement (tail calls).
 */
#define X86_OP_JMP		0xe9
#define X86_OP_TWOBYTE		0x0f
#define X86_OP2_JCC_FIRST	0x80
#define X86_OP2_JCC_LAST	0x8f
/* Breakpoint: the first byte of a site while it is being rewritten. */
#define X86_OP_INT3		0xcc
/* One-byte NOP and the padding bytes compilers put between functions. */
#define X86_OP_NOP1		0x90

/* Length of a direct call, and of the addr32 form. */
#define X86_CALL_LEN		5
#define X86_CALL_ADDR32_LEN	6

/* One NOP instruction per site length (Linux's x86_nops): never two. */
#define X86_NOP5_BYTES		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 }
#define X86_NOP6_BYTES		{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 }
/* Indirect-branch-tracking landing pads (CET/IBT), 4 bytes each. */
#define X86_ENDBR64_BYTES	{ 0xf3, 0x0f, 0x1e, 0xfa }
#define X86_ENDBR32_BYTES	{ 0xf3, 0x0f, 0x1e, 0xfb }
#define X86_ENDBR_LEN		4

#endif /* LP_X86_INSN_H */
