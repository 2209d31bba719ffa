// SPDX-License-Identifier: GPL-2.0
/*
 * textpoke.c - rewrite sites that other threads may be executing.
 *
 * The same protocol as Linux's text_poke_bp(), in user space and
 * batched over all sites:
 *
 *   1. for every site: want = new state; first byte = int3;  sync cores
 *   2. for every site: bytes 1..len-1 = new tail;           sync cores
 *   3. for every site: first byte = new first byte;          sync cores
 *
 * Why no thread ever runs a half-written site:
 *  - every site is one instruction (a call or a single NOP), so a thread
 *    is either before it or past it, never inside it;
 *  - a one-byte store is atomic, so step 1 and step 3 are each seen
 *    whole; between them the first byte is int3, and a thread arriving
 *    at the site traps and the SIGTRAP handler (trap.c) performs the
 *    instruction `want` names instead;
 *  - the core sync after each step makes every other running thread
 *    execute a serialising instruction, as the Intel and AMD manuals
 *    require for cross-modifying code, so none of them can still run
 *    stale bytes it fetched before the step; threads not running get
 *    the same through the kernel's return to user space.
 * The tail is therefore rewritten only while no thread can reach it.
 *
 * Enforced before each rewrite (lpt_poke_sites):
 *  - the bytes of every site are what we last wrote (site_verified):
 *    anything else (a debugger's breakpoint, a uprobe) is left alone;
 *  - the core sync exists (membarrier SYNC_CORE) and no debugger would
 *    take our int3 traps (may_rewrite); otherwise only a process of one
 *    thread is rewritten, with its signals blocked, and a process with
 *    more gets -EBUSY;
 *  - our SIGTRAP handler is installed (trap.c, called by control.c),
 *    and SIGTRAP cannot be blocked by the program (sigmask.c);
 *  - fork() waits for the rewrite to end (control.c, pthread_atfork).
 *
 * Text pages are made writable only around the stores of each step, one
 * window per run of neighbouring pages, and put back as mapped.  The
 * pages stay executable throughout: other threads are running them.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch-x86_64.h"
#include "env.h"
#include "lock.h"
#include "msg.h"
#include "proc.h"
#include "sites.h"
#include "textpoke.h"

enum lpt_step {
	LPT_STEP_INT3,		/* first byte := int3 */
	LPT_STEP_TAIL,		/* bytes 1..len-1 := new */
	LPT_STEP_HEAD,		/* first byte := new */
};

static struct {
	int core;		/* SYNC_CORE registered */
	const char *name;
	const char *why;	/* why not, when !core */
} lpt_sync = { .name = "none", .why = "not initialised" };

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/*
 * Pick the core-sync method once.  PRIVATE_EXPEDITED_SYNC_CORE is
 * exactly the guarantee wanted: every running thread of ours executes a
 * serialising instruction before the call returns.  Without it (old
 * kernel, LPTRACE_SYNC=none) there is no fallback that gives the same
 * guarantee for threads running other cores, so code is rewritten only
 * while this is the only thread (lpt_poke_sites): start-up NOPs still
 * work, enabling while threads run is refused with an error.  Plain
 * PRIVATE_EXPEDITED is not used: its IPI returns to user space through
 * a serialising IRET only by an accident of x86 entry code.
 */
int lpt_sync_init(void)
{
	long have;

	if (lpt_sync.core)
		return 0;
	have = membarrier(MEMBARRIER_CMD_QUERY);
	/* LPTRACE_SYNC=none: behave as a kernel without it (tests) */
	if (lpt_env.sync == LPT_SYNC_NONE)
		lpt_sync.why = "LPTRACE_SYNC=none";
	else if (have < 0)
		lpt_sync.why = "no membarrier system call";
	else if (!(have & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE))
		lpt_sync.why = "kernel has no membarrier SYNC_CORE";
	else if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE))
		lpt_sync.why = "membarrier SYNC_CORE registration failed";
	else {
		lpt_sync.core = 1;
		lpt_sync.name = "membarrier-sync-core";
		return 0;
	}
	lpt_sync.name = "single-thread-only";
	if (lpt_verbose)
		lpt_msg("%s: code is rewritten only while one thread runs",
			lpt_sync.why);
	return 0;
}

const char *lpt_sync_name(void)
{
	return lpt_sync.name;
}

/* A serialising instruction on this CPU (CPUID). */
static void serialise_self(void)
{
	unsigned int a = 0, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d)
			 :: "memory");
}

/*
 * Make every thread that may run the rewritten bytes serialise.  With
 * SYNC_CORE: all of ours.  Without: we are the only thread (checked
 * before the rewrite began, under the lock that also covers fork).
 * Registration belongs to the address space: a forked child redoes it.
 */
static int sync_cores(void)
{
	serialise_self();
	if (!lpt_sync.core)
		return 0;
	if (!membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE))
		return 0;
	if (errno == EPERM &&
	    !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) &&
	    !membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE))
		return 0;
	return -errno;
}

/*
 * Is a debugger (ptrace) attached?  It takes the SIGTRAP of every int3
 * before our handler could, and does not know what to do with ours:
 * gdb stops the program, or (told to pass SIGTRAP) passes its own
 * breakpoints' traps too and the program dies.
 */
static int debugger_attached(void)
{
	long pid;

	return !lpt_status_field("TracerPid", 10, &pid) && pid;
}

/*
 * May we rewrite now, and how?  The int3 protocol needs other threads
 * to take our SIGTRAP (no debugger) and to be serialised (SYNC_CORE).
 * Without either, code is rewritten only while this is the only thread,
 * with every signal but SIGTRAP blocked (*exclusive), so that no signal
 * handler runs a site half-way; else -EBUSY with a message (the
 * first of each kind, and every one when LPTRACE_VERBOSE=1).
 * Threads created during the rewrite are not seen: the rewrite happens
 * under the lock, and creating threads concurrently with the calls of
 * this API is the caller's race (docs/runtime.md).
 */
static int may_rewrite(int *exclusive)
{
	static unsigned int told_sync, told_debugger;
	const char *why = NULL;
	unsigned int *told;
	long threads;
	int err;

	*exclusive = 0;
	if (debugger_attached()) {
		why = "a debugger is attached and would take our int3 traps";
		told = &told_debugger;
	} else if (!lpt_sync.core) {
		why = lpt_sync.why;
		told = &told_sync;
	} else {
		return 0;
	}
	err = lpt_status_field("Threads", 10, &threads);
	if (!err && threads == 1) {
		*exclusive = 1;
		return 0;
	}
	if (!(*told)++ || lpt_verbose) {
		if (err)
			lpt_msg("%s; cannot count threads (/proc/self/status: %s): code not rewritten",
				why, strerror(-err));
		else
			lpt_msg("%s: code is not rewritten while %ld other threads run",
				why, threads - 1);
	}
	return -EBUSY;
}

static int poke(struct lpt_site **v, size_t n, enum lpt_state to,
		size_t *skipped);

/*
 * Block every signal of this thread around an exclusive rewrite, but
 * SIGTRAP: should this thread itself reach a site (a traced function of
 * the program's that we call, such as its own malloc), the int3 must be
 * emulated, not kill it.
 */
static void block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, _NSIG / 8);
}

static void restore_signals(const sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
}

static uintptr_t page_down(uintptr_t a, uintptr_t page)
{
	return a & ~(page - 1);
}

static uintptr_t page_up(uintptr_t a, uintptr_t page)
{
	return (a + page - 1) & ~(page - 1);
}

/* One store per step; a byte store cannot be seen half done. */
static void step_write(struct lpt_site *s, enum lpt_step step,
		       enum lpt_state to)
{
	volatile uint8_t *p = (volatile uint8_t *)s->addr;
	uint8_t buf[LPT_SITE_MAX];
	unsigned int i;

	switch (step) {
	case LPT_STEP_INT3:
		p[0] = X86_OP_INT3;
		break;
	case LPT_STEP_TAIL:
		lpt_site_fill(s, to, buf);
		for (i = 1; i < s->len; i++)
			p[i] = buf[i];
		break;
	case LPT_STEP_HEAD:
		lpt_site_fill(s, to, buf);
		p[0] = buf[0];
		break;
	}
}

/*
 * Apply @step to v[0..n) (sorted by address), one writable window per
 * run of sites on neighbouring pages with the same protection.  Returns
 * 0, or -errno with *done = the number of sites written.
 */
static int step_pass(struct lpt_site **v, size_t n, enum lpt_step step,
		     enum lpt_state to, size_t *done)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	size_t i = 0, j, k;

	while (i < n) {
		uintptr_t start = page_down(v[i]->addr, page);
		uintptr_t end = page_up(v[i]->addr + v[i]->len, page);
		int prot = v[i]->prot;

		/* (v[j] above v[j - 1]: an unsorted array only splits runs.) */
		for (j = i + 1; j < n && v[j]->prot == prot &&
		     v[j]->addr > v[j - 1]->addr &&
		     page_down(v[j]->addr, page) <= end; j++)
			if (page_up(v[j]->addr + v[j]->len, page) > end)
				end = page_up(v[j]->addr + v[j]->len, page);
		if (mprotect((void *)start, end - start, prot | PROT_WRITE)) {
			*done = i;
			return -errno;
		}
		for (k = i; k < j; k++)
			step_write(v[k], step, to);
		if (mprotect((void *)start, end - start, prot)) {
			/* Written, but the window stays open: say so loudly. */
			lpt_msg("mprotect(%#lx, %#lx) back to %#x: %s; text left writable",
				(unsigned long)start,
				(unsigned long)(end - start), prot,
				strerror(errno));
		}
		i = j;
	}
	*done = n;
	return 0;
}

static void report_failure(const char *what, int err)
{
	lpt_msg("%s: %s; sites left behind int3 (still correct, slower; the next enable or disable completes them)",
		what, strerror(-err));
}

/*
 * Are the bytes of @s what we last wrote (as ftrace_verify_code checks
 * before every change)?  For a site left half-way (LPT_TRAP) only the
 * int3 is ours to know.  Anything else is someone else's write: a
 * debugger's breakpoint, a uprobe, another patcher.
 */
static int site_verified(struct lpt_site *s)
{
	const volatile uint8_t *p = (const volatile uint8_t *)s->addr;
	uint8_t want[LPT_SITE_MAX], have[LPT_SITE_MAX];
	char hex[3 * LPT_SITE_MAX + 1];
	unsigned int i;

	for (i = 0; i < s->len; i++)
		have[i] = p[i];
	if (s->state == LPT_TRAP) {
		if (have[0] == X86_OP_INT3)
			return 1;
	} else {
		lpt_site_fill(s, s->state, want);
		if (!memcmp(want, have, s->len))
			return 1;
	}
	/*
	 * An int3 over our own tail (a debugger's breakpoint, or its stale
	 * copy of our int3 put back) stands for the instruction we wrote:
	 * should it ever reach our handler, it runs as the site's state.
	 * Anything else is not ours to run: the handler passes it on.
	 */
	if (s->state == LPT_TRAP || have[0] != X86_OP_INT3 ||
	    memcmp(want + 1, have + 1, s->len - 1))
		__atomic_store_n(&s->want, LPT_REFUSED, __ATOMIC_RELEASE);
	if (!s->foreign) {
		for (i = 0; i < s->len; i++)
			sprintf(hex + 3 * i, "%02x ", have[i]);
		hex[3 * s->len - 1] = '\0';
		lpt_sites_name();
		lpt_msg("site %#lx (%s): holds %s, not what lptrace wrote (a debugger's breakpoint?); not rewritten while it does",
			(unsigned long)s->addr, s->name ? s->name : "?", hex);
	}
	s->foreign = 1;
	return 0;
}

/* Keep the sites of v[0..n) whose bytes are ours; returns how many. */
static size_t verify_sites(struct lpt_site **v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (!site_verified(v[i]))
			continue;
		v[i]->foreign = 0;
		v[k++] = v[i];
	}
	return k;
}

/*
 * Move the sites v[0..n), sorted by address, to state @to.  Sites whose
 * bytes are not what we last wrote are skipped (*skipped counts them).
 * On failure the sites that already hold int3 are marked LPT_TRAP: the
 * handler keeps running them as `want` says, and the next change of
 * state completes them, since the protocol works from any bytes behind
 * int3.
 */
int lpt_poke_sites(struct lpt_site **v, size_t n, enum lpt_state to,
		   size_t *skipped)
{
	int err, exclusive;
	sigset_t old;

	*skipped = 0;
	if (!n)
		return 0;
	err = may_rewrite(&exclusive);
	if (err)
		return err;
	if (exclusive)
		block_signals(&old);
	err = poke(v, n, to, skipped);
	if (exclusive)
		restore_signals(&old);
	return err;
}

static int poke(struct lpt_site **v, size_t n, enum lpt_state to,
		size_t *skipped)
{
	size_t i, done = 0, ok;
	int err;

	ok = verify_sites(v, n);
	*skipped = n - ok;
	n = ok;
	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		__atomic_store_n(&v[i]->want, to, __ATOMIC_RELEASE);

	err = step_pass(v, n, LPT_STEP_INT3, to, &done);
	if (err) {
		report_failure("making text writable", err);
		goto out_trapped;
	}
	err = sync_cores();
	if (err)
		goto out_sync;
	err = step_pass(v, n, LPT_STEP_TAIL, to, &done);
	if (err) {
		report_failure("making text writable", err);
		done = n;
		goto out_trapped;
	}
	err = sync_cores();
	if (err)
		goto out_sync;
	err = step_pass(v, n, LPT_STEP_HEAD, to, &done);
	if (err) {
		report_failure("making text writable", err);
		for (i = 0; i < done; i++)
			v[i]->state = to;
		for (; i < n; i++)
			v[i]->state = LPT_TRAP;
		return err;
	}
	for (i = 0; i < n; i++)
		v[i]->state = to;
	/* Nobody may run the old bytes once we return. */
	err = sync_cores();
	if (err)
		report_failure("membarrier", err);
	return err;

out_sync:
	report_failure("membarrier", err);
	done = n;
out_trapped:
	for (i = 0; i < done; i++)
		v[i]->state = LPT_TRAP;
	return err;
}
