/* SPDX-License-Identifier: GPL-2.0 */
/*
 * entry.S - the code enabled sites call: lpt_tramp5 / lpt_tramp6, what
 * an enabled 5- or 6-byte site calls, and lpt_graph_ret, where a
 * function hijacked in graph mode returns.  They call into graph.c and
 * record.c and use their data; nothing here refers to any other part of
 * the library.  What a site calls as linked, __fentry__, is in
 * autostart.c (it pulls the library out of the archive).
 */
#include "hotpath.h"

	.text

/*
 * The time and CPU of an event, as lpt_tsc_cpu (record.h) reads them:
 * the TSC in %rax and the CPU in %ecx; %rdx is clobbered.  Used only
 * while lpt_graph_fast is set, that is with RDPID or RDTSCP.
 */
	.macro	LPT_TSC_CPU
	cmpl	$LPT_HP_CPU_RDPID, lpt_cpu_insn(%rip)
	jne	3f
	rdpid	%rcx
	rdtsc
	jmp	4f
3:	rdtscp
4:	andl	$LPT_HP_TSC_AUX_CPU, %ecx
	shlq	$32, %rdx
	orq	%rdx, %rax
	.endm

/*
 * The event of the calling thread's ring at ev[pos], in the common case
 * (lpt_emit_fast, record.h): %rdi the buffer, \e a free register that
 * receives the event's address; every field but the depth is stored by
 * the caller (LPT_EVENT_PUBLISH).  Clobbers %rdx.
 */
	.macro	LPT_EVENT_AT e
	movq	LPT_TBUF_POS(%rdi), %rdx
	movq	%rdx, \e
	shlq	$LPT_EVENT_SHIFT, \e
	leaq	LPT_TBUF_EV(%rdi,\e), \e
	.endm

/*
 * The rest of lpt_emit_fast: the depth (\n, saturated at 255), the
 * thread, then pos + 1 (wrapping at cap) and head + 1, which publishes
 * the event (x86 keeps stores in order: the release).  %rdx still holds
 * pos.  Clobbers %eax.
 */
	.macro	LPT_EVENT_PUBLISH e, n
	movl	$LPT_EVENT_DEPTH_MAX, %eax
	cmpl	%eax, \n
	cmovbl	\n, %eax
	movb	%al, LPT_EVENT_DEPTH(\e)
	movl	LPT_TBUF_OWNER(%rdi), %eax
	movl	%eax, LPT_EVENT_TID(\e)
	movw	%cx, LPT_EVENT_CPU(\e)
	incq	%rdx
	cmpq	LPT_TBUF_CAP(%rdi), %rdx
	jne	5f
	xorl	%edx, %edx
5:	movq	%rdx, LPT_TBUF_POS(%rdi)
	addq	$1, LPT_TBUF_HEAD(%rdi)
	.endm

/*
 * Stack at entry (the site is the first instruction of the function, or
 * follows endbr64, so the function has not touched its frame):
 *
 *	0(%rsp)		return into the traced function, = site + len
 *	8(%rsp)		the traced function's return address, in its caller
 *
 * Graph mode's common entry first (lpt_graph_fast set: no depth or
 * minimum-duration filter, and RDPID or RDTSCP): the thread is not
 * busy, has its shadow stack and its buffer, the top frame is live
 * (top_live in graph.c, not restored), this is no tail call, the shadow
 * stack has room and the event fits in the ring (lpt_emit_fast_ok).
 * Then the frame is pushed, the ENTRY event stored and the return
 * hijacked here, with no call, saving only the registers used: what
 * lpt_graph_entry does in that case, in the same order (the frame is
 * complete and counted before the slot is written; the event is
 * published by head).  lpt_busy is set before the tests, so a signal
 * handler's traced calls cannot move sh->n or the ring between the
 * tests and the stores; instructions of one thread are seen by its
 * signal handlers in program order, so no fence is needed here.  Any
 * other case, having changed nothing, takes the general path below,
 * and lpt_graph_entry decides it from the start.  The fast path needs
 * no more than the general path: the layouts it uses are checked in
 * graph.c (hotpath.h).
 *
 * General path, saved: every register that can carry an argument or a
 * value the function expects at entry: rdi, rsi, rdx, rcx, r8, r9
 * (arguments), rax (%al = vector registers used by a variadic call),
 * r10 (static chain of nested functions) and r11 (free, but cheap to
 * keep).  Vector registers are not saved: lpt_record and all it calls
 * are compiled with -mgeneral-regs-only and call only system-call
 * wrappers.  The stack is realigned to 16 bytes for the C call,
 * whatever the caller left.
 *
 * Red zone: the 128 bytes below the traced function's rsp are not yet in
 * use at its first instruction, and its caller cannot keep data there
 * across the call that brought us here (the return address already
 * overwrote it).  So pushing here, or in the int3 emulation, is safe.
 */
	.macro	LPT_PUSH reg
	pushq	\reg
	.cfi_adjust_cfa_offset 8
	.endm

	.macro	LPT_POP reg
	popq	\reg
	.cfi_adjust_cfa_offset -8
	.endm

/*
 * The start of both fast paths: take the thread's recursion guard
 * (lpt_busy; to \busy when it is already held, having changed nothing)
 * and load the thread's shadow stack into %rsi and its buffer into
 * %rdi (to \unbusy, guard held, when either is missing).  %r11 keeps
 * the guard's address for the release.
 */
	.macro	LPT_FAST_THREAD busy, unbusy
	movq	lpt_busy@gottpoff(%rip), %r11
	cmpl	$0, %fs:(%r11)
	jne	\busy
	movl	$1, %fs:(%r11)
	movq	lpt_shadow@gottpoff(%rip), %rsi
	movq	%fs:(%rsi), %rsi		/* sh */
	movq	lpt_self@gottpoff(%rip), %rdi
	movq	%fs:(%rdi), %rdi		/* b */
	testq	%rsi, %rsi
	jz	\unbusy
	testq	%rdi, %rdi
	jz	\unbusy
	.endm

	/* The registers the fast entry saved, in reverse. */
	.macro	LPT_POP_FAST
	LPT_POP	%r10
	LPT_POP	%r9
	LPT_POP	%r8
	LPT_POP	%rdi
	LPT_POP	%rsi
	LPT_POP	%rdx
	LPT_POP	%rcx
	LPT_POP	%rax
	.endm

	.macro	LPT_TRAMP name, len
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	cmpb	$0, lpt_graph_fast(%rip)
	je	.Lgeneral\@
	LPT_PUSH %rax
	LPT_PUSH %rcx
	LPT_PUSH %rdx
	LPT_PUSH %rsi
	LPT_PUSH %rdi
	LPT_PUSH %r8
	LPT_PUSH %r9
	LPT_PUSH %r10
	/* 64(%rsp): site + len; 72(%rsp): the slot.  r11 is free. */
	LPT_FAST_THREAD .Lbusy\@, .Lunbusy\@
	leaq	72(%rsp), %r9			/* slot */
	movq	(%r9), %r8			/* orig */
	leaq	lpt_graph_ret(%rip), %rax
	cmpq	%rax, %r8			/* a tail call */
	je	.Lunbusy\@
	movl	LPT_SHADOW_N(%rsi), %r10d	/* n */
	cmpl	$LPT_SHADOW_MAX, %r10d
	je	.Lunbusy\@
	testl	%r10d, %r10d
	jz	1f
	leaq	(%r10,%r10,4), %rdx		/* top frame: f[n - 1] */
	leaq	LPT_SHADOW_F-LPT_FRAME_SIZE(%rsi,%rdx,8), %rdx
	cmpb	$0, LPT_FRAME_RESTORED(%rdx)
	jne	.Lunbusy\@
	movq	LPT_FRAME_SLOT(%rdx), %rdx
	cmpq	%r9, %rdx			/* live: at or above our slot */
	jb	.Lunbusy\@
	cmpq	%rax, (%rdx)			/* and still ours */
	jne	.Lunbusy\@
1:	cmpq	$0, LPT_TBUF_HELD(%rdi)
	jne	.Lunbusy\@
	movq	LPT_TBUF_HEAD(%rdi), %rax
	cmpq	LPT_TBUF_LIMIT(%rdi), %rax
	jae	.Lunbusy\@

	LPT_TSC_CPU
	leaq	(%r10,%r10,4), %rdx		/* the new frame: f[n] */
	leaq	LPT_SHADOW_F(%rsi,%rdx,8), %rdx
	movq	%r8, LPT_FRAME_ORIG(%rdx)
	movq	%r9, LPT_FRAME_SLOT(%rdx)
	movq	%rax, LPT_FRAME_TSC(%rdx)
	movq	64(%rsp), %r9
	subq	$\len, %r9			/* func */
	movq	%r9, LPT_FRAME_FUNC(%rdx)
	movl	$0, LPT_FRAME_FLAGS(%rdx)	/* not tail, held or restored */
	LPT_EVENT_AT %r11
	movq	%rax, LPT_EVENT_TSC(%r11)
	movq	%r9, LPT_EVENT_FUNC(%r11)
	movq	%r8, LPT_EVENT_ARG(%r11)
	movb	$LPT_EVENT_ENTRY, LPT_EVENT_KIND(%r11)
	LPT_EVENT_PUBLISH %r11, %r10d
	incl	%r10d
	movl	%r10d, LPT_SHADOW_N(%rsi)	/* the frame counts... */
	leaq	lpt_graph_ret(%rip), %rax
	movq	%rax, 72(%rsp)			/* ...before the return comes here */
	movq	lpt_busy@gottpoff(%rip), %r11
	movl	$0, %fs:(%r11)
	.cfi_remember_state
	LPT_POP_FAST
	ret
	.cfi_restore_state
.Lunbusy\@:
	movl	$0, %fs:(%r11)
.Lbusy\@:
	LPT_POP_FAST
.Lgeneral\@:
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
 * the integer return values; rcx, rsi, rdi and r8-r11 carry nothing
 * back from a function and are free.  The vector and x87 return
 * registers are not touched: lpt_graph_exit and all it calls are
 * compiled with -mgeneral-regs-only.  The slot itself, now below %rsp,
 * receives the original return address and the final ret pops it: the
 * stack ends as the function's own ret would have left it.  The slot is
 * free memory here: the caller's red zone cannot hold live data across
 * a call.
 *
 * The common exit first, as the trampolines' common entry: not busy,
 * the thread's buffer mapped, the top frame is this slot's (nothing
 * jumped over), not a tail call's, not held, and the event fits in the
 * ring.  Then the frame is popped and the EXIT stored here, with no
 * call.  Else lpt_graph_exit decides every case from the start.
 */
	.globl	lpt_graph_ret
	.hidden	lpt_graph_ret
	.type	lpt_graph_ret, @function
	.p2align 4
lpt_graph_ret:
	subq	$8, %rsp		/* back over the slot: rsp = slot */
	pushq	%rax
	pushq	%rdx
	/* 16(%rsp): the slot */
	cmpb	$0, lpt_graph_fast(%rip)
	je	.Lret_general
	LPT_FAST_THREAD .Lret_general, .Lret_unbusy
	movl	LPT_SHADOW_N(%rsi), %r8d
	testl	%r8d, %r8d
	jz	.Lret_unbusy
	decl	%r8d				/* n - 1: the top frame */
	leaq	(%r8,%r8,4), %r9
	leaq	LPT_SHADOW_F(%rsi,%r9,8), %r9	/* f */
	leaq	16(%rsp), %r10
	cmpq	%r10, LPT_FRAME_SLOT(%r9)
	jne	.Lret_unbusy
	cmpw	$0, LPT_FRAME_TAIL(%r9)		/* tail or held */
	jne	.Lret_unbusy
	cmpq	$0, LPT_TBUF_HELD(%rdi)
	jne	.Lret_unbusy
	movq	LPT_TBUF_HEAD(%rdi), %rax
	cmpq	LPT_TBUF_LIMIT(%rdi), %rax
	jae	.Lret_unbusy

	LPT_TSC_CPU
	movl	%r8d, LPT_SHADOW_N(%rsi)	/* pop: we are busy, f stays */
	LPT_EVENT_AT %r10
	movq	%rax, LPT_EVENT_TSC(%r10)
	movq	LPT_FRAME_FUNC(%r9), %rax
	movq	%rax, LPT_EVENT_FUNC(%r10)
	movq	LPT_FRAME_TSC(%r9), %rax
	movq	%rax, LPT_EVENT_ARG(%r10)
	movb	$LPT_EVENT_EXIT, LPT_EVENT_KIND(%r10)
	LPT_EVENT_PUBLISH %r10, %r8d
	movq	LPT_FRAME_ORIG(%r9), %rax
	movl	$0, %fs:(%r11)
	movq	%rax, 16(%rsp)		/* original return address into the slot */
	popq	%rdx
	popq	%rax
	ret

.Lret_unbusy:
	movl	$0, %fs:(%r11)
.Lret_general:
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

	.section .note.GNU-stack, "", @progbits
