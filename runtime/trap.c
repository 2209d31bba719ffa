// SPDX-License-Identifier: GPL-2.0
/*
 * trap.c - the SIGTRAP handler that stands in for a site while its first
 * byte is int3 (see textpoke.c).
 *
 * A thread that reaches such a site traps with rip = site + 1.  The
 * handler finds the site and performs the instruction the site is
 * becoming (`want`): a NOP moves rip past the site; a call pushes the
 * return address site + len and jumps to the target.  Either old or new
 * behaviour would be correct at that moment; the new one is used.
 *
 * The push lands at rsp - 8 of the interrupted thread, which is at the
 * very first instruction of a function: nothing of the function is
 * below rsp yet, the caller cannot keep anything there across its call,
 * and the kernel put the signal frame below the 128-byte red zone.
 *
 * Traps that are not ours (a user's int3, raise(SIGTRAP), a debugger's
 * leftovers, an int3 on a refused site) go to the program's own SIGTRAP
 * handler, or get the default action; never back to the same int3
 * without a handler that moves past it.  The program's handler is the
 * one installed before us, or any installed after us: through
 * sigaction() (at the end of this file: it goes to set_chain(), ours
 * stays in place), or behind our back (signal(), a shared library's own
 * sigaction call): lpt_trap_check() notices before the next rewrite,
 * takes that handler as the one to chain to and puts ours back.  So a
 * crash reporter or a debugger helper never turns patching off for good.
 *
 * Flags: SA_NODEFER so that a signal handler interrupting ours can
 * itself hit a site (the kernel resets the action of a blocked SIGTRAP
 * that an int3 raises, which would kill the process).  No SA_ONSTACK:
 * an int3 happens at a function's entry on an ordinary stack, and the
 * kernel's signal frame (over 2.5 KiB with AVX-512 state) could overflow
 * a program's small alternate stack, which the kernel answers with
 * SIGSEGV.  A trap taken while already on the alternate stack stays on
 * it, as the kernel does for every handler.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "compiler.h"
#include "msg.h"
#include "sigmask.h"
#include "sites.h"
#include "trap.h"

#define LPT_TRAP_FLAGS	(SA_SIGINFO | SA_NODEFER | SA_RESTART)

/*
 * The program's SIGTRAP action.  Two slots: a change fills the one not
 * in use and then publishes it, so the handler never reads a half-copied
 * action (unless two changes land during one trap: not a real pattern).
 */
static struct sigaction lpt_prev_slot[2];
static struct sigaction *lpt_prev = &lpt_prev_slot[0];
static int lpt_installed;
static unsigned int lpt_adopted;	/* handlers taken over by lpt_trap_check */
static uint64_t lpt_traps;

static void trap_handler(int sig, siginfo_t *si, void *ctx);

static notrace void chain(int sig, siginfo_t *si, void *ctx)
{
	const struct sigaction *prev = __atomic_load_n(&lpt_prev,
						       __ATOMIC_ACQUIRE);
	struct sigaction dfl;

	if (prev->sa_handler == SIG_IGN && si->si_code != SI_KERNEL)
		return;
	if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		if (prev->sa_flags & SA_SIGINFO)
			prev->sa_sigaction(sig, si, ctx);
		else
			prev->sa_handler(sig);
		return;
	}
	/*
	 * Default action (an ignored int3 also gets it, as the kernel does
	 * for a forced SIGTRAP): restore it and raise again; SIGTRAP is not
	 * blocked in this handler, so it is delivered at once.
	 */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	lpt_real_sigaction(SIGTRAP, &dfl, NULL);
	raise(SIGTRAP);
}

/* Push @ret on the interrupted stack and resume at @target. */
static notrace void emulate_call(greg_t *gr, uintptr_t ret, uintptr_t target)
{
	uintptr_t sp = gr[REG_RSP] - sizeof(uintptr_t);

	*(uintptr_t *)sp = ret;
	gr[REG_RSP] = sp;
	gr[REG_RIP] = target;
}

static notrace void trap_handler(int sig, siginfo_t *si, void *ctx)
{
	greg_t *gr = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	int saved_errno = errno;
	struct lpt_site *s = NULL;

	/* int3 reports SI_KERNEL; kill()/raise() report <= 0. */
	if (si->si_code == SI_KERNEL)
		s = lpt_site_find(gr[REG_RIP] - 1);
	switch (s ? __atomic_load_n(&s->want, __ATOMIC_ACQUIRE) : LPT_REFUSED) {
	case LPT_NOP:
		gr[REG_RIP] = s->addr + s->len;
		break;
	case LPT_CALL:
		emulate_call(gr, s->addr + s->len, lpt_site_target(s, LPT_CALL));
		break;
	case LPT_FENTRY:
		emulate_call(gr, s->addr + s->len, lpt_site_target(s, LPT_FENTRY));
		break;
	default:	/* not a site, or an int3 we did not write */
		chain(sig, si, ctx);
		errno = saved_errno;
		return;
	}
	__atomic_fetch_add(&lpt_traps, 1, __ATOMIC_RELAXED);
	errno = saved_errno;
}

static int install(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = LPT_TRAP_FLAGS;
	sigemptyset(&sa.sa_mask);
	if (lpt_real_sigaction(SIGTRAP, &sa, old)) {
		lpt_msg("sigaction(SIGTRAP): %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Take @act as the program's handler (NULL: keep); @old gets the last. */
static void set_chain(const struct sigaction *act, struct sigaction *old)
{
	struct sigaction *cur = __atomic_load_n(&lpt_prev, __ATOMIC_ACQUIRE);
	struct sigaction *next = cur == &lpt_prev_slot[0] ?
				 &lpt_prev_slot[1] : &lpt_prev_slot[0];

	if (old)
		*old = *cur;
	if (!act)
		return;
	*next = *act;
	__atomic_store_n(&lpt_prev, next, __ATOMIC_RELEASE);
}

static int trap_is_ours(void)
{
	return __atomic_load_n(&lpt_installed, __ATOMIC_ACQUIRE);
}

int lpt_trap_install(void)
{
	struct sigaction old;
	int err;

	if (lpt_installed)
		return 0;
	err = install(&old);
	if (err)
		return err;
	set_chain(&old, NULL);
	__atomic_store_n(&lpt_installed, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Before every rewrite: int3 must only be written while our handler is
 * in place.  A handler installed behind our back becomes the one we
 * chain to, and ours goes back in front of it.
 */
int lpt_trap_check(void)
{
	struct sigaction cur;

	if (!lpt_installed)
		return -EINVAL;
	if (lpt_real_sigaction(SIGTRAP, NULL, &cur))
		return -errno;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler)
		return 0;
	if (!lpt_adopted++)
		lpt_msg("SIGTRAP handler replaced behind our back; chaining to it and putting ours back");
	set_chain(&cur, NULL);
	return install(NULL);
}

uint64_t lpt_trap_count(void)
{
	return __atomic_load_n(&lpt_traps, __ATOMIC_RELAXED);
}

/*
 * The program's sigaction (see sigmask.c for why the library defines
 * it): here, beside the SIGTRAP chain it changes, so that sigmask.c,
 * which trap.c uses, never calls up.  For SIGTRAP while ours is in place
 * the program's handler becomes the one ours chains to; for any signal,
 * the handler's sa_mask loses SIGTRAP.
 */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction copy;

	if (sig == SIGTRAP && trap_is_ours()) {
		set_chain(act, old);
		return 0;
	}
	if (act) {
		copy = *act;
		lpt_unblockable(&act->sa_mask, &copy.sa_mask);
		act = &copy;
	}
	return lpt_real_sigaction(sig, act, old);
}
