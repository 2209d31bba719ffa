/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dso-fentry.S - linked into a traced shared library (lptrace-dso.o):
 * the library's own __fentry__, hidden, a plain return.
 *
 * Its sites then call it directly (gcc's `call *__fentry__@GOTPCREL`
 * relaxed by the linker into `addr32 call`, clang's `call __fentry__`),
 * a form the runtime checks and rewrites like the program's.  Without
 * it they would go through the GOT or the PLT to whatever defines
 * __fentry__, a form the runtime refuses.  See runtime/objects.c.
 */
	.text
	.globl	__fentry__
	.hidden	__fentry__
	.type	__fentry__, @function
	.p2align 4
__fentry__:
	ret
	.size	__fentry__, . - __fentry__

	.section .note.GNU-stack, "", @progbits
