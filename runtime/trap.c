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
 * leftovers) go to the handler that was installed before us, or get
 * the default action.
 *
 * Flags: SA_NODEFER so that a signal handler interrupting ours can
 * itself hit a site (the kernel resets the action of a blocked SIGTRAP
 * that an int3 raises, which would kill the process).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "internal.h"

static struct sigaction lp_prev;
static int lp_installed;
static uint64_t lp_traps;

static void chain(int sig, siginfo_t *si, void *ctx)
{
	struct sigaction dfl;

	if (lp_prev.sa_handler == SIG_IGN && si->si_code != SI_KERNEL)
		return;
	if (lp_prev.sa_handler != SIG_DFL && lp_prev.sa_handler != SIG_IGN) {
		if (lp_prev.sa_flags & SA_SIGINFO)
			lp_prev.sa_sigaction(sig, si, ctx);
		else
			lp_prev.sa_handler(sig);
		return;
	}
	/*
	 * Default action (an ignored int3 also gets it, as the kernel does
	 * for a forced SIGTRAP): restore it and raise again; SIGTRAP is not
	 * blocked in this handler, so it is delivered at once.
	 */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGTRAP, &dfl, NULL);
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
	struct lp_site *s = NULL;

	/* int3 reports SI_KERNEL; kill()/raise() report <= 0. */
	if (si->si_code == SI_KERNEL)
		s = lp_site_find(gr[REG_RIP] - 1);
	if (!s) {
		chain(sig, si, ctx);
		errno = saved_errno;
		return;
	}
	switch (__atomic_load_n(&s->want, __ATOMIC_ACQUIRE)) {
	case LP_NOP:
		gr[REG_RIP] = s->addr + s->len;
		break;
	case LP_CALL:
		emulate_call(gr, s->addr + s->len,
			     (uintptr_t)(s->len == 6 ? lp_tramp6 : lp_tramp5));
		break;
	default:	/* LP_FENTRY */
		emulate_call(gr, s->addr + s->len, (uintptr_t)__fentry__);
		break;
	}
	__atomic_fetch_add(&lp_traps, 1, __ATOMIC_RELAXED);
	errno = saved_errno;
}

int lp_trap_install(void)
{
	struct sigaction sa;

	if (lp_installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &lp_prev)) {
		fprintf(stderr, LP_PREFIX "%s: sigaction(SIGTRAP): %s\n",
			program_invocation_short_name, strerror(errno));
		return -errno;
	}
	lp_installed = 1;
	return 0;
}

/*
 * Before every rewrite: int3 must only be written while our handler is
 * in place.  A program that replaced it gets an error, not a crash.
 */
int lp_trap_check(void)
{
	struct sigaction cur;

	if (!lp_installed || sigaction(SIGTRAP, NULL, &cur))
		return -EINVAL;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler)
		return 0;
	fprintf(stderr, LP_PREFIX "%s: the SIGTRAP handler was replaced; refusing to patch live code\n",
		program_invocation_short_name);
	return -EBUSY;
}

uint64_t lp_trap_count(void)
{
	return __atomic_load_n(&lp_traps, __ATOMIC_RELAXED);
}
