// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - the hot path: store one event per traced call in a buffer
 * owned by the calling thread.
 *
 * No lock: each thread writes only its own buffer and publishes its
 * count with a release store; a writer reading other threads' buffers
 * loads the count with acquire and reads only below it.  Buffers are
 * linked into a global list with a compare-and-swap push and never
 * freed, so events of exited threads are kept.
 *
 * This file is compiled with -mgeneral-regs-only: the trampoline does
 * not save vector registers (entry.S).  Everything here is notrace, and
 * the only libc calls are system-call wrappers (mmap, prctl, gettid),
 * which are async-signal-safe: a traced call can come from anywhere,
 * signal handlers included.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "internal.h"

#define LP_TLS __attribute__((tls_model("initial-exec")))

/* TSC_AUX holds the CPU number in its low 12 bits (Linux sets it). */
#define LP_TSC_AUX_CPU	0xfff
#define LP_CPU_UNKNOWN	0xffffffffu

/* CPUID 0x80000001, EDX bit 27: RDTSCP. */
#define LP_CPUID_EXT	0x80000001u
#define LP_CPUID_RDTSCP	(1u << 27)

static __thread struct lp_tbuf *lp_self LP_TLS;
static __thread int lp_busy LP_TLS;	/* recursion guard */

static struct lp_tbuf *lp_head;
static size_t lp_cap = 1 << 18;
static int lp_have_rdtscp;

/* Where a thread records when it could not get a buffer: drops only. */
static struct lp_tbuf lp_nobuf;

void lp_record_setup(size_t events_per_thread)
{
	unsigned int a, b, c, d;

	if (events_per_thread)
		lp_cap = events_per_thread;
	__asm__ volatile("cpuid"
			 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			 : "a"(LP_CPUID_EXT), "c"(0));
	lp_have_rdtscp = !!(d & LP_CPUID_RDTSCP);
}

struct lp_tbuf *lp_tbuf_list(void)
{
	return __atomic_load_n(&lp_head, __ATOMIC_ACQUIRE);
}

uint64_t lp_events_dropped(void)
{
	const struct lp_tbuf *b;
	uint64_t n = __atomic_load_n(&lp_nobuf.dropped, __ATOMIC_RELAXED);

	for (b = lp_tbuf_list(); b; b = b->next)
		n += __atomic_load_n(&b->dropped, __ATOMIC_RELAXED);
	return n;
}

static notrace uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static notrace uint64_t rdtscp(uint32_t *aux)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(*aux));
	return (uint64_t)hi << 32 | lo;
}

notrace uint64_t lp_clock_tsc(void)
{
	return rdtsc();
}

/* First event of a thread: map its buffer (zeroed) and list it. */
static notrace struct lp_tbuf *tbuf_new(void)
{
	size_t size = offsetof(struct lp_tbuf, ev) +
		      lp_cap * sizeof(struct lp_event);
	struct lp_tbuf *b;

	b = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b == MAP_FAILED)
		return &lp_nobuf;
	b->tid = gettid();
	prctl(PR_GET_NAME, (unsigned long)b->comm, 0, 0, 0);
	b->cap = lp_cap;
	b->next = __atomic_load_n(&lp_head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&lp_head, &b->next, b, 1,
					    __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return b;
}

/* Called by the trampoline: @func is the site, @caller a return address. */
notrace void lp_record(uintptr_t func, uintptr_t caller)
{
	struct lp_tbuf *b;
	struct lp_event *e;
	uint32_t aux = 0;
	size_t n;

	if (lp_busy)
		return;
	lp_busy = 1;
	/* A signal handler that traces sees lp_busy before we go on. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);

	b = lp_self;
	if (!b)
		b = lp_self = tbuf_new();
	n = b->count;
	if (n < b->cap) {
		e = &b->ev[n];
		if (lp_have_rdtscp) {
			e->tsc = rdtscp(&aux);
			e->cpu = aux & LP_TSC_AUX_CPU;
		} else {
			e->tsc = rdtsc();
			e->cpu = LP_CPU_UNKNOWN;
		}
		e->func = func;
		e->caller = caller;
		__atomic_store_n(&b->count, n + 1, __ATOMIC_RELEASE);
	} else {
		__atomic_fetch_add(&b->dropped, 1, __ATOMIC_RELAXED);
	}

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lp_busy = 0;
}
