/*
 * mprotect-fail.h - make the runtime's rewrites fail on purpose: the
 * program defines mprotect, which the runtime's calls bind to (the
 * program's own definition wins over libc's at link time).
 *
 * mprotect_ok_left = n: the next n calls succeed, the ones after fail
 * with EACCES; -1 (the default): every call goes through.  A rewrite
 * opens and closes one window per step (2 calls while the text fits in
 * one run of pages), so n = 2 lets the int3 step through and fails the
 * tail: every site is left behind int3.
 */
#ifndef MPROTECT_FAIL_H
#define MPROTECT_FAIL_H

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static int mprotect_ok_left = -1;

/* Not traced: the runtime calls it while sites hold int3. */
__attribute__((no_instrument_function))
int mprotect(void *addr, size_t len, int prot)
{
	if (mprotect_ok_left == 0) {
		errno = EACCES;
		return -1;
	}
	if (mprotect_ok_left > 0)
		mprotect_ok_left--;
	return syscall(SYS_mprotect, addr, len, prot);
}

#endif
