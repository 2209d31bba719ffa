/*
 * faults.c - the fault matrix of test_runtime_faults.py (issue 11).
 *
 *	faults MODE TRACE.txt
 *
 * Every mode runs the same harness: NWORKERS threads call traced
 * functions in a loop and check every result, while a toggler thread
 * enables and disables every site (at least MIN_TOGGLES times, and on
 * until the mode's own activity in the main thread is done).  Modes add
 * what makes programs hard to trace:
 *
 *	plain      nothing more (for the LPTRACE_BUFSIZE cases)
 *	blocked    workers block every signal (pthread_sigmask)
 *	handler    a SIGUSR1 handler installed with sigfillset(&sa_mask)
 *	           calls traced code; sent to the workers over and over
 *	sigwait    every thread blocks every signal; one thread sigwait()s,
 *	           one reads a signalfd, both call traced code
 *	altstack   workers run on a 2 KiB alternate signal stack setting
 *	forks      60 forks: children call traced code, toggle, exit()
 *	vfork      60 vfork + exec
 *	spawn      60 posix_spawn
 *	threads    short threads, each calling traced code: 100,000, or
 *	           FAULTS_THREADS (the tests take 20,000: without reuse
 *	           that is still thousands of buffers)
 *	initfail   (LPTRACE=off) the first init fails after its int3 step,
 *	           a second one finishes it
 *	refused    (LPTRACE=off) a site holds an int3 of the program's own,
 *	           with the program's SIGTRAP handler stepping over it
 *	foreign    an int3 written on an accepted site (as a debugger
 *	           would): left alone while there, rewritten once gone
 *	gdb        main calls f_bp, on which a debugger puts a breakpoint;
 *	           while threads run, rewrites are refused (-EBUSY)
 *	nosync     (LPTRACE_SYNC=none) enabling while threads run is refused;
 *	           once alone, it works
 *
 * Every wait is bounded (WAIT_NS): a hang becomes "FAIL ..." and exit 1.
 * Prints "errors=0" and key=value lines the test reads.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "lptrace.h"
#include "mprotect-fail.h"
#include "progs.h"

#define NWORKERS	3
#define MIN_TOGGLES	400
#define NCHILDREN	60
#define NTHREADS	100000
#define THREAD_BATCH	16
#define WAIT_NS		60000000000ll	/* a hang guard, not a timing check */
#define ALTSTACK_SIZE	2048		/* MINSIGSTKSZ of old */

extern char **environ;

NOINLINE int f_add(int x)
{
	return x + 3;
}

NOINLINE long f_mix(long a, long b, long c, long d, long e, long f, long g)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g;
}

NOINLINE int f_fib(int n)
{
	return n < 2 ? n : f_fib(n - 1) + f_fib(n - 2);
}

NOINLINE int f_sig(int x)
{
	return x ^ 0x5a;
}

NOINLINE int f_child(int x)
{
	return x * 3;
}

NOINLINE int f_victim(int x)
{
	return x - 1;
}

NOINLINE int f_bp(int x)
{
	return x + 7;
}

/*
 * The runtime calls gettid() on a thread's first event; this traced
 * definition wins over libc's, so that call re-enters the recorder: a
 * deterministic recursion, which must be dropped and counted.
 */
NOINLINE pid_t gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static const char *mode;
static volatile int stop, main_done;
static long iters[NWORKERS];
static long errors, toggles, sig_runs, refusals, toggles_done;
static pthread_t workers[NWORKERS], sigwait_thread, signalfd_thread;

static void fail(const char *what, long i)
{
	if (__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED) < 10) {
		printf("FAIL %s at %ld\n", what, i);
		fflush(stdout);
	}
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void check_calls(long i)
{
	if (f_add((int)i) != (int)i + 3)
		fail("f_add", i);
	if (f_mix(i, 1, 2, 3, 4, 5, 6) != i + 2 + 6 + 12 + 20 + 30 + 42)
		fail("f_mix", i);
	if (f_fib(8) != 21)
		fail("f_fib", i);
}

static int is_mode(const char *m)
{
	return !strcmp(mode, m);
}

static void block_all(void)
{
	sigset_t all, cur;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	if (sigismember(&cur, SIGTRAP))
		fail("SIGTRAP blocked", 0);
}

static void *worker(void *arg)
{
	long id = (long)arg, i;
	stack_t ss;

	if (is_mode("blocked") || is_mode("sigwait"))
		block_all();
	if (is_mode("altstack")) {
		ss.ss_sp = malloc(ALTSTACK_SIZE);
		ss.ss_size = ALTSTACK_SIZE;
		ss.ss_flags = 0;
		if (sigaltstack(&ss, NULL))
			fail("sigaltstack", 0);
	}
	printf("worker %ld tid %d\n", id, (int)syscall(SYS_gettid));
	fflush(stdout);
	for (i = 0; !stop; i++) {
		check_calls(i);
		__atomic_store_n(&iters[id], i + 1, __ATOMIC_RELEASE);
		if (is_mode("threads"))
			usleep(100);	/* leave the CPUs to thread creation */
	}
	return NULL;
}

/* Until every worker has run another whole iteration (bounded). */
static void wait_progress(void)
{
	long seen[NWORKERS];
	long long t0 = now_ns();
	int w;

	for (w = 0; w < NWORKERS; w++)
		seen[w] = __atomic_load_n(&iters[w], __ATOMIC_ACQUIRE);
	for (w = 0; w < NWORKERS; w++) {
		while (__atomic_load_n(&iters[w], __ATOMIC_ACQUIRE) < seen[w] + 2) {
			if (now_ns() - t0 > WAIT_NS) {
				fail("worker stuck", w);
				exit(1);
			}
			sched_yield();
		}
	}
}

static void *toggler(void *arg)
{
	long i;
	int r;

	(void)arg;
	for (i = 0; i < MIN_TOGGLES || !main_done; i++) {
		r = i % 2 ? lpt_disable(NULL) : lpt_enable(NULL);
		/* Under a debugger, rewriting while threads run is refused. */
		if (r == -EBUSY && is_mode("gdb"))
			refusals++;
		else if (r <= 0)
			fail(i % 2 ? "disable" : "enable", r);
		if (i % 50 == 0)
			wait_progress();	/* the workers do run enabled */
		__atomic_store_n(&toggles_done, i + 1, __ATOMIC_RELEASE);
		if (i >= MIN_TOGGLES)
			usleep(1000);		/* leave the CPUs to the mode */
	}
	if (i % 2 && lpt_disable(NULL) <= 0 && !is_mode("gdb"))
		fail("last disable", i);
	toggles = i + i % 2;
	return NULL;
}

/* Wait for @pid, bounded; its exit status, or -1 after killing it. */
static int wait_child(pid_t pid)
{
	long long t0 = now_ns();
	int status;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		if (r < 0 || now_ns() - t0 > WAIT_NS) {
			fail("child hangs", pid);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(1000);
	}
}

/* ---- handler: a sigfillset handler calling traced code ---- */

static void on_usr1(int sig)
{
	(void)sig;
	if (f_sig(sig) != (sig ^ 0x5a) || f_fib(5) != 5)
		fail("in handler", sig);
	__atomic_fetch_add(&sig_runs, 1, __ATOMIC_RELAXED);
}

static void install_usr1(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

static void run_handler(void)
{
	long long t0 = now_ns();
	int i, k;

	for (i = 0; i < 2000 && now_ns() - t0 < WAIT_NS; i++) {
		for (k = 0; k < NWORKERS; k++)
			pthread_kill(workers[k], SIGUSR1);
		usleep(200);
	}
}

/* ---- sigwait: sigwait() and signalfd threads ---- */

static void *sigwaiter(void *arg)
{
	sigset_t set;
	int sig;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (!stop) {
		if (sigwait(&set, &sig) || sig != SIGUSR1)
			fail("sigwait", sig);
		if (f_sig(sig) != (sig ^ 0x5a))
			fail("after sigwait", sig);
		__atomic_fetch_add(&sig_runs, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *fdwaiter(void *arg)
{
	struct signalfd_siginfo si;
	sigset_t set;
	int fd;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (fd < 0) {
		fail("signalfd", 0);
		return NULL;
	}
	while (!stop) {
		if (read(fd, &si, sizeof(si)) != sizeof(si))
			fail("signalfd read", 0);
		if (f_fib(6) != 8)
			fail("after signalfd", 0);
		__atomic_fetch_add(&sig_runs, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	return NULL;
}

static void run_sigwait(void)
{
	int i;

	for (i = 0; i < 2000; i++) {
		kill(getpid(), i % 2 ? SIGUSR2 : SIGUSR1);
		usleep(200);
	}
}

/* Stop the sigwait threads: signal until each has come back. */
static void join_waiter(pthread_t t, int sig)
{
	long long t0 = now_ns();

	while (pthread_tryjoin_np(t, NULL)) {
		if (now_ns() - t0 > WAIT_NS) {
			fail("waiter stuck", sig);
			exit(1);
		}
		kill(getpid(), sig);
		usleep(1000);
	}
}

/* ---- forks, vfork, posix_spawn ---- */

static void run_forks(void)
{
	int i, k, bad = 0;
	pid_t pid;

	for (i = 0; i < NCHILDREN; i++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			fail("fork", i);
			continue;
		}
		if (pid == 0) {
			for (k = 0; k < 4; k++) {
				if (lpt_enable("f_child") != 1)
					bad++;
				bad += f_child(k) != 3 * k;
				check_calls(k);
				if (lpt_disable("f_child") != 1)
					bad++;
			}
			exit(bad || errors ? 1 : 0);
		}
		printf("child %d\n", (int)pid);
		if (wait_child(pid) != 0)
			fail("child status", pid);
	}
}

static void run_vfork(void)
{
	char *argv[] = { "true", NULL };
	int i;
	pid_t pid;

	for (i = 0; i < NCHILDREN; i++) {
		pid = vfork();
		if (pid == 0) {
			execve("/bin/true", argv, environ);
			_exit(127);
		}
		if (pid < 0 || wait_child(pid) != 0)
			fail("vfork child", i);
	}
}

static void run_spawn(void)
{
	char *argv[] = { "true", NULL };
	int i;
	pid_t pid;

	for (i = 0; i < NCHILDREN; i++) {
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) ||
		    wait_child(pid) != 0)
			fail("posix_spawn", i);
	}
}

/* ---- many short threads ---- */

static void *short_thread(void *arg)
{
	check_calls((long)arg);
	return NULL;
}

static int count_maps(void)
{
	char buf[4096];
	int fd = open("/proc/self/maps", O_RDONLY), n = 0;
	ssize_t r, j;

	while (fd >= 0 && (r = read(fd, buf, sizeof(buf))) > 0)
		for (j = 0; j < r; j++)
			n += buf[j] == '\n';
	if (fd >= 0)
		close(fd);
	return n;
}

static void run_threads(void)
{
	pthread_t t[THREAD_BATCH];
	struct lpt_stats st;
	const char *env = getenv("FAULTS_THREADS");
	long i, n = env ? atol(env) : NTHREADS;
	int k, made = 0;

	for (i = 0; i < n; i += THREAD_BATCH) {
		for (k = 0; k < THREAD_BATCH; k++) {
			if (pthread_create(&t[k], NULL, short_thread,
					   (void *)(i + k))) {
				fail("pthread_create", i + k);
				exit(1);
			}
		}
		for (k = 0; k < THREAD_BATCH; k++)
			pthread_join(t[k], NULL);
		made += THREAD_BATCH;
	}
	lpt_stats(&st);
	printf("threads=%d maps=%d buffers=%llu\n", made, count_maps(),
	       (unsigned long long)st.buffers);
}

/* ---- initfail ---- */

static const uint8_t *site_of(const void *fn)
{
	static const uint8_t endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const uint8_t *p = fn;

	return memcmp(p, endbr, sizeof(endbr)) ? p : p + sizeof(endbr);
}

static void init_fail_then_retry(void)
{
	int r;

	mprotect_ok_left = 2;		/* int3 written, tail fails */
	r = lpt_init();
	mprotect_ok_left = -1;
	printf("init1=%d\n", r);
	print_entry("after-fail", site_of((void *)f_add));
	wait_progress();		/* workers run the int3 sites */
	r = lpt_init();
	printf("init2=%d\n", r);
	print_entry("after-retry", site_of((void *)f_add));
}

/* ---- refused: a site holding the program's own int3 ---- */

static uintptr_t victim_site;
static unsigned int victim_len;
static long victim_traps;

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	greg_t *gr = ((ucontext_t *)ctx)->uc_mcontext.gregs;

	(void)sig;
	(void)si;
	if ((uintptr_t)gr[REG_RIP] - 1 != victim_site) {
		fail("stray SIGTRAP", gr[REG_RIP]);
		_exit(1);
	}
	gr[REG_RIP] = victim_site + victim_len;	/* step over, as a NOP */
	__atomic_fetch_add(&victim_traps, 1, __ATOMIC_RELAXED);
}

static void plant_int3(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *p = (uint8_t *)site_of((void *)f_victim);
	void *start = (void *)((uintptr_t)p & ~(page - 1));
	struct sigaction sa;

	victim_site = (uintptr_t)p;
	victim_len = p[0] == 0x67 ? 6 : 5;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	mprotect(start, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC);
	*(volatile uint8_t *)p = 0xcc;
	mprotect(start, 2 * page, PROT_READ | PROT_EXEC);
	printf("init=%d\n", lpt_init());
}

static void run_refused(void)
{
	int i;

	for (i = 0; i < 1000; i++)
		if (f_victim(i) != i - 1)
			fail("f_victim", i);
	printf("victim_traps=%ld\n", victim_traps);
}

/* ---- foreign: someone else's int3 on an accepted site ---- */

/*
 * As a debugger writes: through /proc/self/mem, which ignores page
 * protection (changing it would race the runtime's writable windows).
 */
static void write_byte(uint8_t *p, uint8_t b)
{
	int fd = open("/proc/self/mem", O_RDWR);

	if (fd < 0 || pwrite(fd, &b, 1, (off_t)(uintptr_t)p) != 1)
		fail("/proc/self/mem", 0);
	if (fd >= 0)
		close(fd);
}

static uint8_t foreign_orig;

/* Before the toggler starts: nothing of ours is writing. */
static void plant_foreign(void)
{
	uint8_t *p = (uint8_t *)site_of((void *)f_victim);

	foreign_orig = p[0];
	write_byte(p, 0xcc);
}

static void wait_toggles(long n)
{
	long long t0 = now_ns();

	while (__atomic_load_n(&toggles_done, __ATOMIC_ACQUIRE) < n) {
		if (now_ns() - t0 > WAIT_NS) {
			fail("toggler stuck", n);
			exit(1);
		}
		usleep(1000);
	}
}

static void run_foreign(void)
{
	uint8_t *p = (uint8_t *)site_of((void *)f_victim);
	struct lpt_stats st;

	wait_toggles(20);
	lpt_stats(&st);
	printf("skipped-while-planted=%llu\n", (unsigned long long)st.skipped);
	write_byte(p, foreign_orig);
	wait_toggles(80);
	lpt_stats(&st);
	printf("skipped-after=%llu\n", (unsigned long long)st.skipped);
}

/* ---- gdb ---- */

static void run_gdb(void)
{
	int i;

	for (i = 0; i < 20; i++) {
		if (f_bp(i) != i + 7)
			fail("f_bp", i);
		usleep(2000);
	}
}

/* ---- nosync: refused while threads run, done when alone ---- */

static void nosync_threaded(void)
{
	printf("enable-threaded=%d\n", lpt_enable(NULL));
}

static void nosync_alone(void)
{
	int on = lpt_enable("f_add");

	printf("enable-alone=%d f_add=%d\n", on, f_add(1));
	lpt_disable(NULL);
}

/* ---- the modes ---- */

static void sigwait_start(void)
{
	pthread_create(&sigwait_thread, NULL, sigwaiter, NULL);
	pthread_create(&signalfd_thread, NULL, fdwaiter, NULL);
}

static void sigwait_stop(void)
{
	join_waiter(sigwait_thread, SIGUSR1);
	join_waiter(signalfd_thread, SIGUSR2);
}

struct mode {
	const char *name;
	void (*before)(void);	/* before the workers start */
	void (*ready)(void);	/* workers running, no toggler yet */
	void (*during)(void);	/* main thread, while the toggler runs */
	void (*after)(void);	/* workers joined */
	int no_toggler;
};

static const struct mode modes[] = {
	{ .name = "plain" },
	{ .name = "blocked" },
	{ .name = "altstack" },
	{ .name = "handler", .before = install_usr1, .during = run_handler },
	{ .name = "sigwait", .before = block_all, .ready = sigwait_start,
	  .during = run_sigwait, .after = sigwait_stop },
	{ .name = "forks", .during = run_forks },
	{ .name = "vfork", .during = run_vfork },
	{ .name = "spawn", .during = run_spawn },
	{ .name = "threads", .during = run_threads },
	{ .name = "initfail", .ready = init_fail_then_retry },
	{ .name = "refused", .before = plant_int3, .during = run_refused },
	{ .name = "foreign", .before = plant_foreign, .during = run_foreign },
	{ .name = "gdb", .during = run_gdb },
	{ .name = "nosync", .ready = nosync_threaded, .after = nosync_alone,
	  .no_toggler = 1 },
};

static const struct mode *find_mode(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].name, name))
			return &modes[i];
	return NULL;
}

static void report(const char *out)
{
	struct lpt_stats st;

	lpt_stats(&st);
	printf("toggles=%ld refusals=%ld sig_runs=%ld traps=%llu events=%llu dropped=%llu overwritten=%llu recursed=%llu enabled=%llu sync=%s\n",
	       toggles, refusals, sig_runs, (unsigned long long)st.traps,
	       (unsigned long long)st.events, (unsigned long long)st.dropped,
	       (unsigned long long)st.overwritten,
	       (unsigned long long)st.recursed,
	       (unsigned long long)st.enabled, st.sync);
	/* With LPTRACE=off nothing writes at exit: write here. */
	if (out && !getenv("LPTRACE_OUT") && lpt_write_text(out))
		fail("write trace", 0);
	printf("errors=%ld\n", errors);
}

int main(int argc, char **argv)
{
	const struct mode *m = argc > 1 ? find_mode(argv[1]) : NULL;
	pthread_t tog;
	long k;

	if (!m)
		return 2;
	mode = m->name;
	if (m->before)
		m->before();
	for (k = 0; k < NWORKERS; k++)
		pthread_create(&workers[k], NULL, worker, (void *)k);
	wait_progress();
	if (m->ready)
		m->ready();
	if (!m->no_toggler)
		pthread_create(&tog, NULL, toggler, NULL);
	if (m->during)
		m->during();
	main_done = 1;
	if (!m->no_toggler)
		pthread_join(tog, NULL);
	stop = 1;
	for (k = 0; k < NWORKERS; k++)
		pthread_join(workers[k], NULL);
	if (m->after)
		m->after();
	report(argc > 2 ? argv[2] : NULL);
	return errors ? 1 : 0;
}
