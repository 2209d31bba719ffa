// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - the hot path: store one event per traced call in a buffer
 * owned by the calling thread.
 *
 * No lock: each buffer has one owner thread at a time, which alone
 * writes it and publishes its count with a release store; a writer
 * reading other threads' buffers loads the count with acquire and reads
 * only below it.  Buffers are linked into a global list with a
 * compare-and-swap push and never unmapped while the process runs, so
 * events of exited threads are kept.
 *
 * Reuse: a thread's first event looks for a buffer whose owner has
 * exited (tgkill(pid, owner, 0) fails with ESRCH) and takes it over with
 * a compare-and-swap of the owner field, so two new threads never share
 * one; only when none is free is a new buffer mapped.  A program that
 * starts 100,000 short threads therefore holds as many buffers as it
 * ever had threads at once.  Events carry their thread id, so a reused
 * buffer still tells whose each event was.  A dead owner's tid may be
 * reused by a new thread: then that buffer merely stays unclaimed
 * (it can never be claimed twice).
 *
 * This file is compiled with -mgeneral-regs-only: the trampoline does
 * not save vector registers (entry.S).  Everything here is notrace, and
 * the only libc calls are system-call wrappers (mmap, prctl, gettid,
 * getpid, syscall), which are async-signal-safe: a traced call can come
 * from anywhere, signal handlers included.  errno is saved around them.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "internal.h"

#define LPT_TLS __attribute__((tls_model("initial-exec")))

static __thread struct lpt_tbuf *lpt_self LPT_TLS;
static __thread int lpt_busy LPT_TLS;	/* recursion guard */

static struct lpt_tbuf *lpt_head;
static size_t lpt_cap = LPT_BUFSIZE_DEFAULT;
static int lpt_rdtscp_ok;
static uint64_t lpt_recursed;		/* events lost to recursion */

/* Where a thread records when it could not get a buffer: drops only. */
static struct lpt_tbuf lpt_nobuf;

void lpt_record_setup(size_t events_per_thread)
{
	lpt_cap = events_per_thread;
	lpt_rdtscp_ok = lpt_have_rdtscp();
}

struct lpt_tbuf *lpt_tbuf_list(void)
{
	return __atomic_load_n(&lpt_head, __ATOMIC_ACQUIRE);
}

uint64_t lpt_events_dropped(void)
{
	const struct lpt_tbuf *b;
	uint64_t n = __atomic_load_n(&lpt_nobuf.dropped, __ATOMIC_RELAXED);

	for (b = lpt_tbuf_list(); b; b = b->next)
		n += __atomic_load_n(&b->dropped, __ATOMIC_RELAXED);
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
		/* Pairs with the dead owner's release of its last count. */
		(void)__atomic_load_n(&b->count, __ATOMIC_ACQUIRE);
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
	lpt_nobuf.dropped = 0;
	lpt_recursed = 0;
}

/* Called by the trampoline: @func is the site, @caller a return address. */
notrace void lpt_record(uintptr_t func, uintptr_t caller)
{
	struct lpt_tbuf *b;
	struct lpt_event *e;
	uint32_t cpu = LPT_CPU_UNKNOWN;
	size_t n;

	if (lpt_busy) {
		__atomic_fetch_add(&lpt_recursed, 1, __ATOMIC_RELAXED);
		return;
	}
	lpt_busy = 1;
	/* A signal handler that traces sees lpt_busy before we go on. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);

	b = lpt_self;
	if (!b) {
		int saved_errno = errno;

		b = lpt_self = tbuf_get();
		errno = saved_errno;
	}
	n = b->count;
	if (n < b->cap) {
		e = &b->ev[n];
		e->tsc = lpt_rdtscp_ok ? lpt_rdtscp(&cpu) : lpt_rdtsc();
		e->cpu = cpu;
		e->tid = b->owner;
		e->func = func;
		e->caller = caller;
		__atomic_store_n(&b->count, n + 1, __ATOMIC_RELEASE);
	} else {
		__atomic_fetch_add(&b->dropped, 1, __ATOMIC_RELAXED);
	}

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lpt_busy = 0;
}
