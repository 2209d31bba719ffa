/* SPDX-License-Identifier: GPL-2.0 */
/*
 * entry.S - the code instrumented functions call.
 *
 * __fentry__ is what every site calls as linked (and what a refused site
 * keeps calling): a plain return.  mcount is the same for -pg without
 * -mfentry, so such programs link too (their sites are refused: the
 * call is not at the entry, and the tracer could not find the caller).
 *
 * lpt_tramp5 / lpt_tramp6 are what an enabled 5- or 6-byte site calls.
 */
	.text

	.globl	__fentry__
	.type	__fentry__, @function
	.p2align 4
__fentry__:
	ret
	.size	__fentry__, . - __fentry__

	.globl	mcount
	.type	mcount, @function
	.p2align 4
mcount:
	ret
	.size	mcount, . - mcount

/*
 * Stack at entry (the site is the first instruction of the function, or
 * follows endbr64, so the function has not touched its frame):
 *
 *	0(%rsp)		return into the traced function, = site + len
 *	8(%rsp)		the traced function's return address, in its caller
 *
 * Saved: every register that can carry an argument or a value the
 * function expects at entry: rdi, rsi, rdx, rcx, r8, r9 (arguments),
 * rax (%al = vector registers used by a variadic call), r10 (static
 * chain of nested functions) and r11 (free, but cheap to keep).  Vector
 * registers are not saved: lpt_record and all it calls are compiled with
 * -mgeneral-regs-only and call only system-call wrappers.  The stack is
 * realigned to 16 bytes for the C call, whatever the caller left.
 *
 * Red zone: the 128 bytes below the traced function's rsp are not yet in
 * use at its first instruction, and its caller cannot keep data there
 * across the call that brought us here (the return address already
 * overwrote it).  So pushing here, or in the int3 emulation, is safe.
 */
	.macro	LPT_TRAMP name, len
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rax
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	andq	$-16, %rsp
	movq	8(%rbp), %rdi		/* function = return address - len */
	subq	$\len, %rdi
	leaq	16(%rbp), %rsi		/* slot of its return address */
	call	lpt_record
	leaq	-72(%rbp), %rsp		/* 9 registers saved below rbp */
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	popq	%rax
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	\name, . - \name
	.endm

	LPT_TRAMP lpt_tramp5, 5
	LPT_TRAMP lpt_tramp6, 6

/*
 * Function-graph mode (graph.c): a hijacked function returns here, with
 * %rsp just above the slot that held our address.  Saved: %rax and %rdx,
 * the integer return values.  The vector and x87 return registers are
 * not touched: lpt_graph_exit and all it calls are compiled with
 * -mgeneral-regs-only.  The slot itself, now below %rsp, receives the
 * original return address and the final ret pops it: the stack ends as
 * the function's own ret would have left it.  The slot is free memory
 * here: the caller's red zone cannot hold live data across a call.
 */
	.globl	lpt_graph_ret
	.hidden	lpt_graph_ret
	.type	lpt_graph_ret, @function
	.p2align 4
lpt_graph_ret:
	subq	$8, %rsp		/* back over the slot: rsp = slot */
	pushq	%rax
	pushq	%rdx
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-16, %rsp
	leaq	24(%rbp), %rdi		/* the slot */
	call	lpt_graph_exit
	movq	%rbp, %rsp
	popq	%rbp
	movq	%rax, 16(%rsp)		/* original return address into the slot */
	popq	%rdx
	popq	%rax
	ret
	.size	lpt_graph_ret, . - lpt_graph_ret

/*
 * Start-up hook.  A program pulls this object out of the archive
 * because it calls __fentry__; listing lpt_autostart here pulls the rest
 * of the library with it and runs it before main.  A constructor
 * attribute in a C file would be dropped with its unreferenced object.
 */
	.section .init_array, "aw"
	.p2align 3
	.quad	lpt_autostart

	.section .note.GNU-stack, "", @progbits
