// SPDX-License-Identifier: GPL-2.0
/*
 * graph.c - function-graph mode (LPTRACE_GRAPH=1): entry and exit of
 * every traced call, through its return address.
 *
 * At entry (lpt_graph_entry, from the trampoline) the traced function
 * has not touched its frame: *slot is its return address into the
 * caller.  We push {original, slot, entry time, function} on the
 * thread's shadow stack and write lpt_graph_ret (entry.S) into *slot.
 * When the function returns it lands in lpt_graph_ret, which saves the
 * return-value registers and calls lpt_graph_exit(slot); that pops the
 * frame, records the exit, and gives back the original address, where
 * lpt_graph_ret returns to.  The common entry and exit (no filter, a
 * live top frame, room in the ring) are done by entry.S itself, with no
 * call (lpt_graph_fast); lpt_graph_entry and lpt_graph_exit below decide
 * every case, that one included.
 *
 * What keeps the shadow stack right:
 *
 *   recursion      every call has its own slot and frame;
 *   tail calls     A jumps to B: B's entry finds lpt_graph_ret already in
 *                  the slot.  B is pushed with the same slot, marked as
 *                  a tail call; the one return through the slot pops B
 *                  and, because B is marked, A (and so on down);
 *   longjmp, siglongjmp
 *                  frames jumped over never return.  Each entry pops
 *                  them from the top: a frame whose slot no longer holds
 *                  lpt_graph_ret (a later call wrote its own return
 *                  address there), or whose slot lies below the new
 *                  call's on the same stack (a live caller's is always
 *                  above), or on the alternate signal stack once we no
 *                  longer run there (frame_dead).  A handler running on
 *                  the alternate stack never pops the frames it
 *                  interrupted.  An exit finds its frame by
 *                  equality, the top-most frame with its slot, and pops
 *                  the frames above it too: jumped over, they exit now;
 *   signals        a handler's calls push and pop above the interrupted
 *                  frames; a handler that runs while this file is busy
 *                  is not hijacked (counted as recursion);
 *   disabled sites a function disabled while on the stack still returns
 *                  through lpt_graph_ret: the trampoline and the frames
 *                  stay, only new calls stop being traced;
 *   C++ exceptions the unwinder must see the real return addresses (it
 *                  finds no unwind info at lpt_graph_ret).  Before it
 *                  walks the stack (unwind.c wraps _Unwind_RaiseException
 *                  and friends) every frame of the thread gets its
 *                  original back and is marked restored; a restored
 *                  frame counts as live while its slot is above a new
 *                  call's.  When a handler catches (__cxa_begin_catch),
 *                  the frames below the catching one were unwound: they
 *                  exit then; the others are hijacked again.
 *
 * Not handled (docs/runtime.md): pthread_cancel unwinding through a
 * hijacked frame (libc's unwinder is reached without a PLT call we could
 * wrap); code that reads its own return address.
 *
 * Filters, applied here while recording:
 *   depth    a call with LPTRACE_DEPTH frames below it is not hijacked
 *            and not recorded; its callees see the same depth, so none
 *            of them is recorded either;
 *   time     entries are held (record.c), unpublished, until an exit is
 *            recorded; a call shorter than LPTRACE_MIN_NS whose entry is
 *            still held (no callee kept) drops it and records no exit;
 *            a long call's exit publishes its entry and its callers';
 *   glob     only enabled sites come here (LPTRACE_FILTER).
 *
 * The shadow stack is mapped on a thread's first call (mmap is
 * async-signal-safe); a thread deeper than LPT_SHADOW_MAX frames records
 * the excess calls as dropped.  Compiled like record.c
 * (-mgeneral-regs-only, notrace, system calls only).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graph.h"
#include "hotpath.h"
#include "record.h"

/* entry.S's fast paths use these layouts: hotpath.h, checked below. */
struct lpt_frame {
	uintptr_t orig;		/* the return address we replaced */
	uintptr_t *slot;	/* where it was */
	uint64_t tsc;		/* entry time */
	uintptr_t func;		/* site of the traced function */
	uint8_t tail;		/* pushed by a tail call: shares the slot of
				   the frame below, returns with it */
	uint8_t held;		/* its entry is held (minimum duration) */
	uint8_t restored;	/* *slot holds orig again: an unwinder walks */
};

struct lpt_shadow {
	unsigned int n;
	struct lpt_frame f[LPT_SHADOW_MAX];
};

int lpt_graph_on;
uint8_t lpt_graph_fast;
static unsigned int lpt_max_depth;	/* 0: no limit */
static uint64_t lpt_min_ticks;		/* 0: no limit */
/*
 * entry.S's return trampoline, lpt_graph_ret, written into each hijacked
 * slot.  Given by lpt_graph_setup's caller rather than named here:
 * entry.S calls into this file (lpt_record, lpt_graph_exit), so this
 * file must not refer back to entry.S, or the layers of runtime/ would
 * form a circle (tests/test_layout.py).
 */
static uintptr_t lpt_ret;

__thread struct lpt_shadow *lpt_shadow LPT_TLS;

/* What entry.S's fast paths take for granted (hotpath.h). */
#define LPT_HOTPATH_IS(what, val) _Static_assert((what) == (val), #what)
LPT_HOTPATH_IS(offsetof(struct lpt_tbuf, owner), LPT_TBUF_OWNER);
LPT_HOTPATH_IS(offsetof(struct lpt_tbuf, cap), LPT_TBUF_CAP);
LPT_HOTPATH_IS(offsetof(struct lpt_tbuf, head), LPT_TBUF_HEAD);
LPT_HOTPATH_IS(offsetof(struct lpt_tbuf, pos), LPT_TBUF_POS);
LPT_HOTPATH_IS(offsetof(struct lpt_tbuf, held), LPT_TBUF_HELD);
LPT_HOTPATH_IS(offsetof(struct lpt_tbuf, limit), LPT_TBUF_LIMIT);
LPT_HOTPATH_IS(offsetof(struct lpt_tbuf, ev), LPT_TBUF_EV);
LPT_HOTPATH_IS(sizeof(((struct lpt_tbuf *)0)->owner), 4);
LPT_HOTPATH_IS(sizeof(((struct lpt_tbuf *)0)->held), 8);
LPT_HOTPATH_IS(sizeof(struct lpt_event), 1 << LPT_EVENT_SHIFT);
LPT_HOTPATH_IS(offsetof(struct lpt_event, tsc), LPT_EVENT_TSC);
LPT_HOTPATH_IS(offsetof(struct lpt_event, func), LPT_EVENT_FUNC);
LPT_HOTPATH_IS(offsetof(struct lpt_event, arg), LPT_EVENT_ARG);
LPT_HOTPATH_IS(offsetof(struct lpt_event, tid), LPT_EVENT_TID);
LPT_HOTPATH_IS(offsetof(struct lpt_event, cpu), LPT_EVENT_CPU);
LPT_HOTPATH_IS(offsetof(struct lpt_event, kind), LPT_EVENT_KIND);
LPT_HOTPATH_IS(offsetof(struct lpt_event, depth), LPT_EVENT_DEPTH);
LPT_HOTPATH_IS(sizeof(((struct lpt_event *)0)->cpu), 2);
LPT_HOTPATH_IS(LPT_EV_ENTRY, LPT_EVENT_ENTRY);
LPT_HOTPATH_IS(LPT_EV_EXIT, LPT_EVENT_EXIT);
LPT_HOTPATH_IS(sizeof(struct lpt_frame), LPT_FRAME_SIZE);
LPT_HOTPATH_IS(offsetof(struct lpt_frame, orig), LPT_FRAME_ORIG);
LPT_HOTPATH_IS(offsetof(struct lpt_frame, slot), LPT_FRAME_SLOT);
LPT_HOTPATH_IS(offsetof(struct lpt_frame, tsc), LPT_FRAME_TSC);
LPT_HOTPATH_IS(offsetof(struct lpt_frame, func), LPT_FRAME_FUNC);
LPT_HOTPATH_IS(offsetof(struct lpt_frame, tail), LPT_FRAME_TAIL);
LPT_HOTPATH_IS(offsetof(struct lpt_frame, held), LPT_FRAME_HELD);
LPT_HOTPATH_IS(offsetof(struct lpt_frame, restored), LPT_FRAME_RESTORED);
/* FLAGS's four bytes: the three flags and padding, nothing else. */
LPT_HOTPATH_IS(LPT_FRAME_FLAGS, LPT_FRAME_TAIL);
LPT_HOTPATH_IS(LPT_FRAME_RESTORED + 1 + 4 <= LPT_FRAME_SIZE, 1);
LPT_HOTPATH_IS(offsetof(struct lpt_shadow, n), LPT_SHADOW_N);
LPT_HOTPATH_IS(offsetof(struct lpt_shadow, f), LPT_SHADOW_F);
LPT_HOTPATH_IS(sizeof(((struct lpt_shadow *)0)->n), 4);
LPT_HOTPATH_IS(LPT_CPU_RDTSCP, LPT_HP_CPU_RDTSCP);
LPT_HOTPATH_IS(LPT_CPU_RDPID, LPT_HP_CPU_RDPID);
LPT_HOTPATH_IS(LPT_TSC_AUX_CPU, LPT_HP_TSC_AUX_CPU);
LPT_HOTPATH_IS(LPT_EV_CPU_UNKNOWN > LPT_TSC_AUX_CPU, 1);

/*
 * After lpt_record_setup (lpt_cpu_insn).  The fast paths of entry.S
 * (lpt_graph_fast) serve the case without filters, on a CPU with RDPID
 * or RDTSCP; otherwise every call goes through lpt_record.  @ret is
 * entry.S's lpt_graph_ret.
 */
void lpt_graph_setup(unsigned int max_depth, uint64_t min_ticks,
		     uintptr_t ret)
{
	lpt_ret = ret;
	lpt_max_depth = max_depth;
	lpt_min_ticks = min_ticks;
	lpt_graph_on = 1;
	lpt_graph_fast = !max_depth && !min_ticks &&
			 lpt_cpu_insn != LPT_CPU_NONE;
}

static notrace struct lpt_shadow *shadow_self(void)
{
	struct lpt_shadow *sh = lpt_shadow;
	int saved_errno;

	if (sh)
		return sh;
	saved_errno = errno;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	errno = saved_errno;
	if (sh == MAP_FAILED)
		return NULL;
	lpt_shadow = sh;
	return sh;
}

/*
 * Is the frame whose slot is @top, below a new call's @slot, dead?  A
 * live caller's slot is never below its callee's on the same stack.
 * Asked only in that rare case, so one sigaltstack(2) then is cheap.
 * Frames on the alternate signal stack are dead if we no longer run on
 * it (siglongjmp out of a handler); frames on another stack than ours
 * are otherwise kept.  Only the alternate signal stack is known: other
 * stacks (swapcontext) are not told apart.
 */
static notrace int frame_dead(uintptr_t *top, uintptr_t *slot, stack_t *alt)
{
	uintptr_t lo, hi;
	int saved_errno, top_alt, slot_alt;

	if (alt->ss_flags == -1) {
		saved_errno = errno;
		if (sigaltstack(NULL, alt))
			alt->ss_flags = SS_DISABLE;
		errno = saved_errno;
	}
	if (alt->ss_flags & SS_DISABLE)
		return 1;
	lo = (uintptr_t)alt->ss_sp;
	hi = lo + alt->ss_size;
	top_alt = (uintptr_t)top - lo < hi - lo;
	slot_alt = (uintptr_t)slot - lo < hi - lo;
	if (top_alt && !(alt->ss_flags & SS_ONSTACK))
		return 1;
	return top_alt == slot_alt;
}

/* Pop the top frame, recording its exit at @tsc.  Inline: the hot path. */
lpt_inline void pop_exit(struct lpt_shadow *sh, struct lpt_tbuf *b,
			 uint64_t tsc, uint32_t cpu)
{
	const struct lpt_frame *f = &sh->f[--sh->n];

	/* Held entries above ours were dropped by their short calls. */
	if (f->held && b->held && tsc - f->tsc < lpt_min_ticks) {
		lpt_emit_unhold(b);
		return;
	}
	lpt_emit_now(b, LPT_EV_EXIT, tsc, cpu, f->func, f->tsc, sh->n);
}

/* Pop the top frame; its exit is recorded unless the recorder is busy. */
lpt_inline void pop_frame(struct lpt_shadow *sh, struct lpt_tbuf *b,
			  uint64_t tsc, uint32_t cpu, int busy)
{
	if (busy)
		sh->n--;
	else
		pop_exit(sh, b, tsc, cpu);
}

/*
 * The quick half of the entry's test for jumped-over frames: the top
 * frame, whose slot is @top, is live if a new call's @slot lies below
 * it on the same stack and the slot still holds our address (or holds
 * the original, restored for an unwinder).  Otherwise pop_jumped
 * decides, out of line: this is rare.
 */
lpt_inline int top_live(const struct lpt_frame *t, uintptr_t *slot,
			uintptr_t ret)
{
	return t->restored ? t->slot > slot : *t->slot == ret && t->slot >= slot;
}

/*
 * Jumped-over frames: their slot was reused by a later call, or lies
 * below ours on the same stack (or on the alternate signal stack we left).
 */
static notrace __attribute__((noinline)) void
pop_jumped(struct lpt_shadow *sh, struct lpt_tbuf *b, uintptr_t *slot,
	   uint64_t tsc, uint32_t cpu)
{
	uintptr_t ret = lpt_ret;
	stack_t alt = { .ss_flags = -1 };

	while (sh->n) {
		const struct lpt_frame *t = &sh->f[sh->n - 1];
		uintptr_t *top = t->slot;

		if (t->restored ? top > slot :
		    *top == ret && (top >= slot || !frame_dead(top, slot, &alt)))
			break;
		pop_exit(sh, b, tsc, cpu);
	}
}

/* An exit below the top: the frames above it were jumped over. */
static notrace __attribute__((noinline)) void
pop_above(struct lpt_shadow *sh, struct lpt_tbuf *b, unsigned int i,
	  uint64_t tsc, uint32_t cpu, int busy)
{
	while (sh->n > i + 1)
		pop_frame(sh, b, tsc, cpu, busy);
}

/*
 * Every case of an entry, from lpt_record; the trampolines (entry.S)
 * do the common one themselves first, when lpt_graph_fast allows.
 * Never inlined into lpt_record (graph.h): see there.
 */
notrace void lpt_graph_entry(uintptr_t func, uintptr_t *slot)
{
	uintptr_t ret = lpt_ret, orig = *slot;
	struct lpt_shadow *sh;
	struct lpt_tbuf *b;
	struct lpt_frame *f;
	uint64_t tsc;
	uint32_t cpu;
	int tail;

	if (!lpt_busy_take()) {
		lpt_count_recursed();
		return;
	}

	sh = shadow_self();
	b = lpt_tbuf_self();	/* before the time: it may search a while */
	tsc = lpt_tsc_cpu(&cpu);
	if (!sh)
		goto out_drop;
	if (sh->n && !top_live(&sh->f[sh->n - 1], slot, ret))
		pop_jumped(sh, b, slot, tsc, cpu);
	tail = orig == ret;
	if (tail) {
		/* A tail call: the slot's frame is on top, keep its original. */
		if (!sh->n || sh->f[sh->n - 1].slot != slot)
			goto out;	/* cannot happen: leave the slot alone */
		orig = sh->f[sh->n - 1].orig;
	}

	if (lpt_max_depth && sh->n >= lpt_max_depth)
		goto out;
	if (sh->n == LPT_SHADOW_MAX)
		goto out_drop;

	f = &sh->f[sh->n];
	f->orig = orig;
	f->slot = slot;
	f->tsc = tsc;
	f->func = func;
	f->tail = tail;
	f->restored = 0;
	f->held = lpt_min_ticks &&
		  !lpt_emit(b, LPT_EV_ENTRY, tsc, cpu, func, orig, sh->n, 1);
	if (!lpt_min_ticks)
		lpt_emit_now(b, LPT_EV_ENTRY, tsc, cpu, func, orig, sh->n);
	sh->n++;
	/* The frame is complete before the function can return through it. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*slot = ret;
	goto out;

out_drop:
	__atomic_fetch_add(&b->dropped, 1, __ATOMIC_RELAXED);
out:
	lpt_busy_drop();
}

/*
 * Called by the trampoline: @func is the site, @slot the traced
 * function's return-address slot (its caller's return address).  Each
 * mode is a tail call: in graph mode this costs three instructions,
 * where one function for both saved and restored registers that only
 * the entry-only body uses (callgrind: 11 instructions a call).  Here
 * rather than in record.c so that record.c, which this file uses,
 * never calls up into the graph code.
 */
notrace void lpt_record(uintptr_t func, uintptr_t *slot)
{
	if (lpt_graph_on)
		lpt_graph_entry(func, slot);
	else
		lpt_record_call(func, slot);
}

/*
 * A return through lpt_graph_ret with no frame for its slot: the
 * original address is unknown, nothing sane is left to do.  Only
 * possible if the program rewrote a return address we hijacked.
 */
static notrace void lpt_graph_lost(uintptr_t *slot)
{
	static const char msg[] =
		"lptrace: function-graph: a return address the tracer replaced was lost; aborting\n";

	(void)slot;
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	abort();
}

/*
 * From lpt_graph_ret, in every case but the common one it takes itself
 * (entry.S): the function whose return address was at @slot returned.
 * Returns where it must really go.  Runs even when busy (a signal
 * handler may return through a frame while we are in the recorder):
 * then the frame is popped without recording.
 */
notrace uintptr_t lpt_graph_exit(uintptr_t *slot)
{
	struct lpt_shadow *sh = lpt_shadow;
	struct lpt_tbuf *b = NULL;
	uintptr_t orig = 0;
	unsigned int i;
	uint64_t tsc;
	uint32_t cpu;
	int busy = !lpt_busy_take(), tail;	/* held by our caller */

	if (!busy)
		b = lpt_tbuf_self();
	tsc = lpt_tsc_cpu(&cpu);
	for (i = sh ? sh->n : 0; i-- > 0;)
		if (sh->f[i].slot == slot)
			break;
	if (i == (unsigned int)-1)
		lpt_graph_lost(slot);	/* does not return */
	/* Frames above ours were jumped over; then ours and its tail calls. */
	if (sh->n > i + 1)
		pop_above(sh, b, i, tsc, cpu, busy);
	do {
		tail = sh->f[sh->n - 1].tail;
		orig = sh->f[sh->n - 1].orig;
		pop_frame(sh, b, tsc, cpu, busy);
	} while (tail && sh->n);
	if (!busy)
		lpt_busy_drop();
	return orig;
}

/*
 * An unwinder is about to walk this thread's stack (unwind.c): give every
 * hijacked slot its original address back.  Frames stay on the shadow
 * stack, marked restored.  Tail-call frames share a slot: the first
 * (top-most) write puts the original back, the others find it there.
 */
notrace void lpt_graph_unwind_begin(void)
{
	uintptr_t ret = lpt_ret;
	struct lpt_shadow *sh = lpt_shadow;
	unsigned int i;

	if (!sh || !lpt_busy_take())
		return;
	for (i = sh->n; i-- > 0;) {
		struct lpt_frame *f = &sh->f[i];

		if (!f->restored && *f->slot == ret)
			*f->slot = f->orig;
		f->restored = 1;
	}
	lpt_busy_drop();
}

/*
 * A handler caught an exception in the frame whose stack pointer, at
 * its call of __cxa_begin_catch, was @cfa.  Frames whose slot lies below
 * it were unwound: they exit now.  The others are live: hijacked again.
 */
notrace void lpt_graph_catch(uintptr_t cfa)
{
	uintptr_t ret = lpt_ret;
	struct lpt_shadow *sh = lpt_shadow;
	struct lpt_tbuf *b;
	unsigned int i;
	uint64_t tsc;
	uint32_t cpu;

	if (!sh || !lpt_busy_take())
		return;
	b = lpt_tbuf_self();
	tsc = lpt_tsc_cpu(&cpu);
	while (sh->n && (uintptr_t)sh->f[sh->n - 1].slot < cfa)
		pop_exit(sh, b, tsc, cpu);
	for (i = sh->n; i-- > 0;) {
		struct lpt_frame *f = &sh->f[i];

		if (!f->restored)
			continue;
		if (*f->slot == f->orig)
			*f->slot = ret;
		f->restored = 0;
	}
	lpt_busy_drop();
}
