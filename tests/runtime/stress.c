/*
 * stress.c - worker threads call traced functions in tight loops and
 * check every result, while the main thread enables and disables
 * tracing (all, then globs) over and over, and a timer signal calls a
 * traced function from a signal handler.
 *
 *	stress NWORKERS ROUNDS TRACE.txt [notimer]
 *
 * Every enable is followed by a wait until each worker has run one whole
 * iteration, so every enabled function really runs while enabled.
 * Prints the worker tids and the functions that ran while enabled; the
 * test checks that each worker's trace has them all.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lptrace.h"
#include "progs.h"

#define MAX_WORKERS	16
#define STUCK_NS	60000000000ll	/* a hang guard, not a timing check */

struct big { long a, b, c, d; };

NOINLINE int work_a1(int x)
{
	return x * 7 + 1;
}

NOINLINE long work_a2(long a, long b, long c, long d, long e, long f,
		      long g, long h)
{
	return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8;
}

NOINLINE double work_b1(double x, float y)
{
	return x * 2 + y;
}

NOINLINE int work_b2(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

NOINLINE struct big work_c1(long x)
{
	struct big r = { x, x + 1, x + 2, x + 3 };

	return r;
}

NOINLINE int work_c2(int n)
{
	return n < 2 ? n : work_c2(n - 1) + work_c2(n - 2);
}

NOINLINE int work_sig(int x)
{
	return x ^ 0x3c;
}

static int stop;
static long iters[MAX_WORKERS];
static long errors;

static void fail(const char *what, long i)
{
	if (__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED) < 10)
		printf("FAIL %s at %ld\n", what, i);
}

/* One iteration calls every work_ function once, checking each result. */
static void *worker(void *arg)
{
	long id = (long)arg;

	printf("worker %ld tid %d\n", id, (int)syscall(SYS_gettid));
	fflush(stdout);
	for (long i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++) {
		struct big b;
		int x = (int)(i & 0xffff);

		if (work_a1(x) != x * 7 + 1)
			fail("work_a1", i);
		if (work_a2(i, 1, 2, 3, 4, 5, 6, 7) != i + 2 + 6 + 12 + 20 + 30 + 42 + 56)
			fail("work_a2", i);
		if (work_b1(x, 0.5f) != x * 2.0 + 0.5)
			fail("work_b1", i);
		if (work_b2(4, x, 1, 2, 3) != x + 6)
			fail("work_b2", i);
		b = work_c1(i);
		if (b.a + b.b + b.c + b.d != 4 * i + 6)
			fail("work_c1", i);
		if (work_c2(5) != 5)
			fail("work_c2", i);
		__atomic_store_n(&iters[id], i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (work_sig(0x55) != (0x55 ^ 0x3c))
		fail("work_sig", 0);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Wait until every worker has started and finished one more iteration. */
static void wait_progress(int nworkers)
{
	long snap[MAX_WORKERS];
	long long t0 = now_ns();

	for (int t = 0; t < nworkers; t++)
		snap[t] = __atomic_load_n(&iters[t], __ATOMIC_ACQUIRE);
	for (int t = 0; t < nworkers; t++)
		while (__atomic_load_n(&iters[t], __ATOMIC_ACQUIRE) < snap[t] + 2) {
			if (now_ns() - t0 > STUCK_NS) {
				printf("FAIL worker %d stuck\n", t);
				exit(1);
			}
			sched_yield();
		}
}

static long toggles;

static void expect(int got, int want, const char *what)
{
	toggles++;
	if (got < 0 || (want >= 0 && got != want)) {
		printf("FAIL %s returned %d, want %d\n", what, got, want);
		__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	}
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 500 }, { 0, 500 } };
	pthread_t th[MAX_WORKERS];
	struct lpt_stats st;
	int nworkers, rounds;

	if (argc < 4)
		return 2;
	nworkers = atoi(argv[1]);
	rounds = atoi(argv[2]);
	if (nworkers < 1 || nworkers > MAX_WORKERS)
		return 2;

	/* notimer: for ThreadSanitizer, which runs handlers with SIGTRAP blocked */
	if (argc < 5 || strcmp(argv[4], "notimer")) {
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	for (long t = 0; t < nworkers; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);

	for (int r = 0; r < rounds; r++) {
		switch (r % 4) {
		case 0:	/* everything */
			expect(lpt_enable(NULL), -1, "lpt_enable(NULL)");
			wait_progress(nworkers);
			expect(lpt_disable(NULL), -1, "lpt_disable(NULL)");
			break;
		case 1:	/* one glob */
			expect(lpt_enable("work_a*"), 2, "lpt_enable(work_a*)");
			wait_progress(nworkers);
			expect(lpt_disable("work_a*"), 2, "lpt_disable(work_a*)");
			break;
		case 2:	/* two globs, then all off */
			expect(lpt_enable("work_b*"), 2, "lpt_enable(work_b*)");
			expect(lpt_enable("work_c?"), 2, "lpt_enable(work_c?)");
			wait_progress(nworkers);
			expect(lpt_disable("*"), -1, "lpt_disable(*)");
			break;
		case 3:	/* all, then carve out */
			expect(lpt_enable("*"), -1, "lpt_enable(*)");
			expect(lpt_disable("work_a*"), 2, "lpt_disable(work_a*)");
			wait_progress(nworkers);
			expect(lpt_disable("work_[bc]2"), 2, "lpt_disable(work_[bc]2)");
			expect(lpt_disable(NULL), -1, "lpt_disable(NULL)");
			break;
		}
	}

	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int t = 0; t < nworkers; t++)
		pthread_join(th[t], NULL);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);

	lpt_stats(&st);
	printf("toggles=%ld traps=%llu events=%llu dropped=%llu sync=%s\n",
	       toggles, (unsigned long long)st.traps,
	       (unsigned long long)st.events,
	       (unsigned long long)st.dropped, st.sync);
	if (rounds >= 4)
		printf("expected work_a1 work_a2 work_b1 work_b2 work_c1 work_c2\n");
	if (lpt_write_text(argv[3]))
		__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	printf("errors=%ld\n", __atomic_load_n(&errors, __ATOMIC_RELAXED));
	return errors ? 1 : 0;
}
