// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - the hot path: store one event per traced call (or per
 * entry and exit in graph mode, graph.c) in a buffer owned by the
 * calling thread.
 *
 * Each buffer is a ring of `cap` events.  `head` counts the events ever
 * published in it; the next one goes to ev[pos], pos = head % cap.
 *
 *   ring mode (default)   the owner overwrites the oldest event: the
 *                         buffer keeps the most recent `cap` events, and
 *                         head - cap of them were overwritten (counted,
 *                         never lost silently);
 *   stream mode           (LPTRACE_DATA, stream.c) a writer thread drains
 *                         events [tail, head) to the file and advances
 *                         `tail`; the owner never overwrites an event not
 *                         yet drained: when head - tail == cap it wakes
 *                         the writer and waits for room (ring_wait,
 *                         counted as a wait), at most LPT_WAIT_MS; only
 *                         then, or with LPTRACE_FULL=drop, or when no
 *                         writer runs, is the event dropped and counted;
 *   keep-first mode       (LPTRACE_KEEP=first) the same with no writer:
 *                         tail stays 0, the first `cap` events are kept
 *                         and the later ones dropped and counted.
 *
 * No lock: each buffer has one owner thread at a time, which alone
 * writes ev[], pos and head, and publishes head with a release store; a
 * reader loads head with acquire and reads only below it.  In stream
 * mode the writer alone advances tail (release), and the owner loads it
 * with acquire before it reuses a slot, so a slot is never written while
 * it is being drained.  In ring mode a reader at exit copies the window
 * and then discards what the owner may have overwritten meanwhile
 * (output.c).  Buffers are linked into a global list with a
 * compare-and-swap push and never unmapped while the process runs.
 *
 * Held events (graph mode's minimum duration): entries are written
 * after ev[pos] without being published, a stack of them, one per open
 * call; a call that turns out short drops its own (the last held), and
 * the first event that stays (an exit of a long enough call) publishes
 * them all first.  No reader ever sees a held event, so dropping one
 * races with nobody.
 *
 * Reuse: a thread's first event looks for a buffer whose owner has
 * exited (tgkill(pid, owner, 0) fails with ESRCH) and takes it over with
 * a compare-and-swap of the owner field, so two new threads never share
 * one; only when none is free is a new buffer mapped.  Events carry
 * their thread id, so a reused buffer still tells whose each event was.
 *
 * This file is compiled with -mgeneral-regs-only: the trampoline does
 * not save vector registers (entry.S).  Everything here is notrace, and
 * the only libc calls are system-call wrappers (mmap, prctl, gettid,
 * getpid, syscall), which are async-signal-safe: a traced call can come
 * from anywhere, signal handlers included.  errno is saved around them.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "record.h"

__thread struct lpt_tbuf *lpt_self LPT_TLS;
__thread int lpt_busy LPT_TLS;		/* recursion guard */

static struct lpt_tbuf *lpt_head;
static size_t lpt_cap = LPT_BUFSIZE_DEFAULT;
int lpt_cpu_insn;			/* enum lpt_cpu_insn */
static int lpt_no_overwrite;		/* stream or keep-first mode */
static uint64_t lpt_recursed;		/* events lost to recursion */

/* Longest wait for the writer to make room, in 1 ms naps. */
#define LPT_WAIT_MS	1000

int lpt_stream_waitable;		/* see record.h (atomic) */
__thread int lpt_no_wait LPT_TLS;	/* the writer thread */
static uint32_t lpt_kick;		/* futex: the writer is wanted */

/* Where a thread records when it could not get a buffer: drops only. */
static struct lpt_tbuf lpt_nobuf;

void lpt_record_setup(size_t events_per_thread, int no_overwrite)
{
	lpt_cap = events_per_thread;
	lpt_no_overwrite = no_overwrite;
	lpt_cpu_insn = lpt_cpu_insn_best();
}

int lpt_record_overwrites(void)
{
	return !lpt_no_overwrite;
}

struct lpt_tbuf *lpt_tbuf_list(void)
{
	return __atomic_load_n(&lpt_head, __ATOMIC_ACQUIRE);
}

/* Async-signal-safe: relaxed loads of counters and the list. */
uint64_t lpt_events_dropped(void)
{
	const struct lpt_tbuf *b;
	uint64_t n = __atomic_load_n(&lpt_nobuf.dropped, __ATOMIC_RELAXED);

	for (b = lpt_tbuf_list(); b; b = b->next)
		n += __atomic_load_n(&b->dropped, __ATOMIC_RELAXED);
	return n;
}

uint64_t lpt_events_overwritten(void)
{
	const struct lpt_tbuf *b;
	uint64_t n = 0, h;

	if (lpt_no_overwrite)
		return 0;
	for (b = lpt_tbuf_list(); b; b = b->next) {
		h = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
		n += h > b->cap ? h - b->cap : 0;
	}
	return n;
}

uint64_t lpt_events_waited(void)
{
	const struct lpt_tbuf *b;
	uint64_t n = 0;

	for (b = lpt_tbuf_list(); b; b = b->next)
		n += __atomic_load_n(&b->waits, __ATOMIC_RELAXED);
	return n;
}

uint64_t lpt_buffers(void)
{
	const struct lpt_tbuf *b;
	uint64_t n = 0;

	for (b = lpt_tbuf_list(); b; b = b->next)
		n++;
	return n;
}

uint64_t lpt_events_recursed(void)
{
	return __atomic_load_n(&lpt_recursed, __ATOMIC_RELAXED);
}

void lpt_count_recursed(void)
{
	__atomic_fetch_add(&lpt_recursed, 1, __ATOMIC_RELAXED);
}

static notrace size_t tbuf_size(size_t cap)
{
	return offsetof(struct lpt_tbuf, ev) + cap * sizeof(struct lpt_event);
}

/* Is thread @tid of this process gone?  (0 is nobody's: free.) */
static notrace int owner_gone(pid_t tid, pid_t self)
{
	if (!tid || tid == self)	/* our tid: its old owner is dead */
		return 1;
	return syscall(SYS_tgkill, getpid(), tid, 0) && errno == ESRCH;
}

/* A buffer left by an exited thread, now owned by @self; or NULL. */
static notrace struct lpt_tbuf *tbuf_reuse(pid_t self)
{
	struct lpt_tbuf *b;

	for (b = lpt_tbuf_list(); b; b = b->next) {
		pid_t owner = __atomic_load_n(&b->owner, __ATOMIC_ACQUIRE);

		if (!owner_gone(owner, self) ||
		    !__atomic_compare_exchange_n(&b->owner, &owner, self, 0,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		/* Pairs with the dead owner's release of its last head. */
		(void)__atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
		b->held = 0;	/* a dead owner's held entry stays unpublished */
		return b;
	}
	return NULL;
}

/* First event of a thread: reuse or map a buffer (zeroed) and list it. */
static notrace struct lpt_tbuf *tbuf_get(void)
{
	pid_t self = gettid();
	struct lpt_tbuf *b;

	b = tbuf_reuse(self);
	if (b) {
		prctl(PR_GET_NAME, (unsigned long)b->comm, 0, 0, 0);
		return b;
	}
	b = mmap(NULL, tbuf_size(lpt_cap), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b == MAP_FAILED)
		return &lpt_nobuf;
	b->owner = self;
	prctl(PR_GET_NAME, (unsigned long)b->comm, 0, 0, 0);
	b->cap = lpt_cap;
	b->next = __atomic_load_n(&lpt_head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&lpt_head, &b->next, b, 1,
					    __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return b;
}

/* A thread's first event: its buffer (lpt_tbuf_self, record.h). */
notrace struct lpt_tbuf *lpt_tbuf_first(void)
{
	int saved_errno = errno;
	struct lpt_tbuf *b;

	b = lpt_self = tbuf_get();
	errno = saved_errno;
	return b;
}

/*
 * In a forked child (the only thread, atfork handler): the buffers
 * hold the parent's events, which the parent writes; the child starts
 * with none and its own thread ids.  The old buffers are forgotten, not
 * unmapped: their pages stay shared copy-on-write with the parent, and a
 * fork() from a signal handler that interrupted lpt_record() returns
 * into code still holding a pointer to one.
 */
void lpt_record_forked(void)
{
	lpt_head = NULL;
	lpt_self = NULL;
	/* The parent's file is not ours (stream.c): rings, as by default. */
	lpt_no_overwrite = 0;
	lpt_stream_waitable = 0;
	lpt_nobuf.dropped = 0;
	lpt_recursed = 0;
}

/* futex(2) on a private word; -errno.  Async-signal-safe. */
static notrace long futex(uint32_t *word, int op, uint32_t val, long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
	int saved_errno = errno;
	long r;

	r = syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val,
		    ns ? &ts : NULL, NULL, 0);
	if (r < 0)
		r = -errno;
	errno = saved_errno;
	return r;
}

/* Wake the writer now rather than at its next poll. */
notrace void lpt_writer_kick(void)
{
	if (!__atomic_exchange_n(&lpt_kick, 1, __ATOMIC_SEQ_CST))
		futex(&lpt_kick, FUTEX_WAKE, 1, 0);
}

/* The writer: sleep @ns or until kicked.  1 if it was kicked. */
int lpt_writer_nap(long ns)
{
	futex(&lpt_kick, FUTEX_WAIT, 0, ns);
	return __atomic_exchange_n(&lpt_kick, 0, __ATOMIC_SEQ_CST);
}

/* The writer advanced @b's tail: wake its owner if it waits for room. */
void lpt_drained(struct lpt_tbuf *b)
{
	__atomic_fetch_add(&b->drained, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&b->waiting, __ATOMIC_SEQ_CST))
		futex(&b->drained, FUTEX_WAKE, INT_MAX, 0);
}

static notrace int ring_has_room(const struct lpt_tbuf *b)
{
	return b->head + b->held -
	       __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE) < b->cap;
}

/*
 * Stream mode, @b full: wake the writer and wait until it drains, in
 * naps of 1 ms, at most LPT_WAIT_MS.  Returns 0 when there is room, -1
 * when the event must be dropped.
 *
 * Never waits forever, and never for nothing:
 *   - only while a writer runs (lpt_stream_waitable: cleared before it
 *     stops, when it fails, once a fatal signal or the exit took the
 *     file, and in a forked child, which records in rings);
 *   - never on the writer thread (lpt_no_wait): it would wait for itself;
 *   - a signal handler or any other caller holds nothing the writer
 *     needs (the writer reads head, never waits for an owner), so the
 *     wait ends when the writer drains, or at the bound;
 *   - after a wait that timed out, the owner drops without waiting
 *     until the writer drains @b again (`gave_up`), so a stuck writer
 *     costs one bound, not one per event.
 * Async-signal-safe (futex, clock-free): a traced call may come from a
 * signal handler.
 */
static notrace __attribute__((noinline, cold)) int ring_wait(struct lpt_tbuf *b)
{
	uint32_t seen = __atomic_load_n(&b->drained, __ATOMIC_SEQ_CST);
	int naps;

	if (!__atomic_load_n(&lpt_stream_waitable, __ATOMIC_ACQUIRE) ||
	    lpt_no_wait || (b->gave_up && seen == b->gave_up_at))
		return -1;
	b->gave_up = 0;
	__atomic_store_n(&b->waits, b->waits + 1, __ATOMIC_RELAXED);
	for (naps = 0; naps < LPT_WAIT_MS; naps++) {
		if (!__atomic_load_n(&lpt_stream_waitable, __ATOMIC_ACQUIRE))
			break;
		__atomic_store_n(&b->waiting, 1, __ATOMIC_SEQ_CST);
		seen = __atomic_load_n(&b->drained, __ATOMIC_SEQ_CST);
		if (ring_has_room(b))
			break;
		lpt_writer_kick();
		futex(&b->drained, FUTEX_WAIT, seen, 1000000L);
	}
	__atomic_store_n(&b->waiting, 0, __ATOMIC_RELAXED);
	if (ring_has_room(b))
		return 0;
	b->gave_up = 1;
	b->gave_up_at = __atomic_load_n(&b->drained, __ATOMIC_SEQ_CST);
	return -1;
}

/* Publish the held events, if any: they become ev[head...]. */
static notrace void publish_held(struct lpt_tbuf *b)
{
	size_t k = b->held;

	if (!k)
		return;
	b->held = 0;
	b->pos = (b->pos + k) % b->cap;
	__atomic_store_n(&b->head, b->head + k, __ATOMIC_RELEASE);
}

/*
 * Store one event of the calling thread (which is busy) in @b; the
 * common case is inline (lpt_emit_now, record.h).  With
 * @hold it is written after the events already held and stays
 * unpublished: a call that turns out short drops it again
 * (lpt_emit_unhold); any event emitted without @hold publishes all the
 * held ones first.  Returns 0, or -1 when dropped (stream and
 * keep-first modes, buffer full).
 */
notrace int lpt_emit(struct lpt_tbuf *b, uint8_t kind, uint64_t tsc,
		     uint32_t cpu, uintptr_t func, uint64_t arg,
		     unsigned int depth, int hold)
{
	struct lpt_event *e;
	size_t idx;

	if (!hold)
		publish_held(b);
	if (!b->cap || (hold && b->held + 1 >= b->cap) ||
	    (lpt_no_overwrite && !ring_has_room(b) && ring_wait(b))) {
		__atomic_fetch_add(&b->dropped, 1, __ATOMIC_RELAXED);
		return -1;
	}
	idx = b->pos + b->held;		/* held < cap: one wrap at most */
	e = &b->ev[idx >= b->cap ? idx - b->cap : idx];
	lpt_event_fill(e, b, kind, tsc, cpu, func, arg, depth);
	/* Where lpt_emit_now (record.h) may go without looking at tail. */
	b->limit = lpt_no_overwrite ?
		   __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE) + b->cap :
		   UINT64_MAX;
	if (hold) {
		/* A reader loads held after head: see output.c. */
		__atomic_store_n(&b->held, b->held + 1, __ATOMIC_RELEASE);
		return 0;
	}
	b->pos = b->pos + 1 == b->cap ? 0 : b->pos + 1;
	__atomic_store_n(&b->head, b->head + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Drop the last held event (the caller's own entry, see graph.c). */
notrace void lpt_emit_unhold(struct lpt_tbuf *b)
{
	__atomic_store_n(&b->held, b->held - 1, __ATOMIC_RELAXED);
}

/*
 * Entry-only mode: one CALL event.  Tail-called by lpt_record (graph.c),
 * the trampoline's way in; never inlined there (record.h), for the
 * reason given there.
 */
notrace void lpt_record_call(uintptr_t func, uintptr_t *slot)
{
	struct lpt_tbuf *b;
	uint32_t cpu;
	uint64_t tsc;

	if (!lpt_busy_take()) {
		lpt_count_recursed();
		return;
	}

	/* The buffer first: a thread's first event may search a while. */
	b = lpt_tbuf_self();
	tsc = lpt_tsc_cpu(&cpu);
	lpt_emit_now(b, LPT_EV_CALL, tsc, cpu, func, *slot, 0);

	lpt_busy_drop();
}
