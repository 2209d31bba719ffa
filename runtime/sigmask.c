// SPDX-License-Identifier: GPL-2.0
/*
 * sigmask.c - SIGTRAP can never be blocked in a thread of the program.
 *
 * Why: a thread that meets a site while its first byte is int3 must take
 * SIGTRAP.  If SIGTRAP is blocked, the kernel unblocks it, resets its
 * action to the default and the whole process dies.  Programs block
 * signals all the time: sigwait workers block everything, handlers are
 * installed with sigfillset(&sa.sa_mask), libraries block around
 * critical sections.
 *
 * How: the program links liblptrace.a before libc, so the definitions
 * below win for every call the program's own code makes.  Each takes
 * SIGTRAP out of the mask it is given and calls the kernel (or libc's
 * own sigaction) with the rest; what the caller reads back is what the
 * kernel holds, so SIGTRAP simply never appears blocked.
 *
 *   sigprocmask, pthread_sigmask   the mask to block or set
 *   sigsuspend                     the mask held while waiting (and
 *                                  while the handler that ends it runs)
 *   sigaction (trap.c)             sa_mask, held while that handler runs
 *                                  (lpt_unblockable); and for SIGTRAP
 *                                  itself, the program's handler becomes
 *                                  the one ours chains to, ours stays
 *                                  installed
 *
 * sigwait/sigwaitinfo/sigtimedwait and signalfd users block their
 * signals with one of the above first, so SIGTRAP stays deliverable;
 * waiting for SIGTRAP itself is not affected (an int3's SIGTRAP is
 * forced on the thread that hit it, never left pending).
 *
 * Limits (docs/runtime.md): masks set where these definitions do not
 * reach still block SIGTRAP: a raw syscall(SYS_rt_sigprocmask), calls
 * from inside libc itself (sighold(), signal()'s internal sigaction,
 * pselect/ppoll/epoll_pwait masks, setcontext/swapcontext's
 * uc_sigmask), calls made by shared libraries (they bind to libc's
 * definitions), and sanitizer runtimes that run deferred handlers with
 * every signal blocked.  Glibc's own short blocked windows (thread
 * creation, fork) run no traced code.
 *
 * These functions are async-signal-safe, like the ones they replace:
 * only system calls and bit operations on a local copy.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sigmask.h"

/* The kernel's sigset: the first 64 bits of glibc's sigset_t. */
#define LPT_KSIGSET_SIZE	(_NSIG / 8)
/* glibc's reserved real-time signals (cancellation, setxid): never blocked. */
#define LPT_SIGCANCEL		32
#define LPT_SIGSETXID		33

extern int __sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);

static unsigned long sigbit(int sig)
{
	return 1ul << (sig - 1);
}

/* @set without SIGTRAP (and glibc's reserved signals, as glibc does). */
const sigset_t *lpt_unblockable(const sigset_t *set, sigset_t *copy)
{
	if (!set)
		return NULL;
	*copy = *set;
	copy->__val[0] &= ~(sigbit(SIGTRAP) | sigbit(LPT_SIGCANCEL) |
			    sigbit(LPT_SIGSETXID));
	return copy;
}

static int set_mask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	if (set && how == SIG_UNBLOCK)	/* unblocking takes nothing away */
		return syscall(SYS_rt_sigprocmask, how, set, old,
			       LPT_KSIGSET_SIZE) ? errno : 0;
	return syscall(SYS_rt_sigprocmask, how, lpt_unblockable(set, &copy), old,
		       LPT_KSIGSET_SIZE) ? errno : 0;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err = set_mask(how, set, old);

	if (!err)
		return 0;
	errno = err;
	return -1;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return set_mask(how, set, old);
}

int sigsuspend(const sigset_t *mask)
{
	sigset_t copy;

	return syscall(SYS_rt_sigsuspend, lpt_unblockable(mask, &copy),
		       LPT_KSIGSET_SIZE);
}

int lpt_real_sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old)
{
	return __sigaction(sig, act, old);
}
