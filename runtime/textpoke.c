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
 * Text pages are made writable only around the stores of each step, one
 * window per run of neighbouring pages, and put back as mapped.  The
 * pages stay executable throughout: other threads are running them.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch-x86_64.h"
#include "internal.h"

enum lp_step {
	LP_STEP_INT3,		/* first byte := int3 */
	LP_STEP_TAIL,		/* bytes 1..len-1 := new */
	LP_STEP_HEAD,		/* first byte := new */
};

static struct {
	int cmd;		/* membarrier command that syncs cores */
	int reg;		/* its registration command */
	const char *name;
} lp_sync = { .name = "none" };

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/*
 * Pick and register the core-sync method once.
 * PRIVATE_EXPEDITED_SYNC_CORE is exactly the guarantee wanted.  Where it
 * is missing, PRIVATE_EXPEDITED is the fallback: it interrupts every CPU
 * running a thread of ours, and on x86 the return from that interrupt
 * to user space is an IRET, which is serialising.
 */
int lp_sync_init(const char *method)
{
	long have = membarrier(MEMBARRIER_CMD_QUERY);
	int want_core = !method || !*method || !strcmp(method, "sync_core");

	if (have < 0) {
		fprintf(stderr, LP_PREFIX "%s: membarrier: %s; cannot patch live code\n",
			program_invocation_short_name, strerror(errno));
		return -ENOSYS;
	}
	if (want_core && (have & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
	    !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE)) {
		lp_sync.cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE;
		lp_sync.reg = MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE;
		lp_sync.name = "membarrier-sync-core";
		return 0;
	}
	if ((have & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		lp_sync.cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
		lp_sync.reg = MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;
		lp_sync.name = "membarrier-expedited";
		return 0;
	}
	fprintf(stderr, LP_PREFIX "%s: membarrier: no private expedited command (have %#lx); cannot patch live code\n",
		program_invocation_short_name, have);
	return -ENOSYS;
}

const char *lp_sync_name(void)
{
	return lp_sync.name;
}

/* Registration belongs to the address space: a forked child redoes it. */
static int sync_cores(void)
{
	if (!membarrier(lp_sync.cmd))
		return 0;
	if (errno == EPERM && !membarrier(lp_sync.reg) &&
	    !membarrier(lp_sync.cmd))
		return 0;
	return -errno;
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
static void step_write(struct lp_site *s, enum lp_step step, enum lp_state to)
{
	volatile uint8_t *p = (volatile uint8_t *)s->addr;
	uint8_t buf[LP_SITE_MAX];
	unsigned int i;

	switch (step) {
	case LP_STEP_INT3:
		p[0] = LP_OP_INT3;
		break;
	case LP_STEP_TAIL:
		lp_site_fill(s, to, buf);
		for (i = 1; i < s->len; i++)
			p[i] = buf[i];
		break;
	case LP_STEP_HEAD:
		lp_site_fill(s, to, buf);
		p[0] = buf[0];
		break;
	}
}

/*
 * Apply @step to v[0..n) (sorted by address), one writable window per
 * run of sites on neighbouring pages with the same protection.  Returns
 * 0, or -errno with *done = the number of sites written.
 */
static int step_pass(struct lp_site **v, size_t n, enum lp_step step,
		     enum lp_state to, size_t *done)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	size_t i = 0, j, k;

	while (i < n) {
		uintptr_t start = page_down(v[i]->addr, page);
		uintptr_t end = page_up(v[i]->addr + v[i]->len, page);
		int prot = v[i]->prot;

		for (j = i + 1; j < n && v[j]->prot == prot &&
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
			fprintf(stderr, LP_PREFIX "%s: mprotect(%#lx, %#lx) back to %#x: %s; text left writable\n",
				program_invocation_short_name,
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
	fprintf(stderr, LP_PREFIX "%s: %s: %s; sites left behind int3 (still correct, slower)\n",
		program_invocation_short_name, what, strerror(-err));
}

/*
 * Move the sites v[0..n), sorted by address, to state @to.  On failure
 * the sites that already hold int3 are marked LP_TRAP: the handler
 * keeps running them as `want` says, and the next change of state
 * completes them, since the protocol works from any bytes behind int3.
 */
int lp_poke_sites(struct lp_site **v, size_t n, enum lp_state to)
{
	size_t i, done = 0;
	int err;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		__atomic_store_n(&v[i]->want, to, __ATOMIC_RELEASE);

	err = step_pass(v, n, LP_STEP_INT3, to, &done);
	if (err) {
		report_failure("making text writable", err);
		goto out_trapped;
	}
	err = sync_cores();
	if (err)
		goto out_sync;
	err = step_pass(v, n, LP_STEP_TAIL, to, &done);
	if (err) {
		report_failure("making text writable", err);
		done = n;
		goto out_trapped;
	}
	err = sync_cores();
	if (err)
		goto out_sync;
	err = step_pass(v, n, LP_STEP_HEAD, to, &done);
	if (err) {
		report_failure("making text writable", err);
		for (i = 0; i < done; i++)
			v[i]->state = to;
		for (; i < n; i++)
			v[i]->state = LP_TRAP;
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
		v[i]->state = LP_TRAP;
	return err;
}
