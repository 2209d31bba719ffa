// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - the binary trace file (format: lptrace-data.h).
 *
 * Stream mode (LPTRACE_DATA=path): the file is opened at init and gets
 * its prologue (magic, INFO, SYMS); a writer thread then drains every
 * thread's ring to it every LPT_DRAIN_MS while the program runs, and at
 * exit the last events, the thread names, the clock calibration and the
 * END record (totals) are appended.  The writer only appends: a reader
 * of the finished file sees every event once.
 *
 * Nothing is dropped by default: a thread whose ring is full wakes the
 * writer and waits for it (record.c, ring_wait: bounded, counted in the
 * END record as waits).  What the writer costs is the copy into the
 * page cache, not its 2 ms poll: so it packs the rings' 32-byte events
 * into 16 bytes each, 8 for a graph-mode EXIT (lptrace-data.h; about
 * 0.4 GB for 33 million events) before it writes them.  On a loaded machine it falls behind
 * one fast thread, which then waits instead of losing events.
 * LPTRACE_FULL=drop restores dropping (counted) for programs that must
 * never be slowed down.
 *
 * Fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT,
 * SIGTERM, SIGQUIT), when a file is configured: the handler appends what
 * the rings still hold and an END record naming the signal, then
 * re-raises the signal with its default action.  In ring mode the file
 * is LPTRACE_CRASH, written whole by the handler.  Everything the
 * handler calls is async-signal-safe: open, write, writev, close,
 * clock_gettime, nanosleep, sched_yield, sigaction, raise; the prologue
 * and the path were prepared at init.  A handler the program installs
 * later replaces ours (the program then decides what a crash does).
 *
 * One drainer at a time: the writer thread and the handler take
 * lpt_drain_lock by compare-and-swap.  The handler waits for the writer
 * at most LPT_DRAIN_WAIT tries (the writer may be the thread that
 * crashed), then drains anyway, packing into a staging buffer of its own.
 *
 * Forked children do not write to the parent's file (they would share
 * its offset): a child goes back to ring mode (record.c) and its own
 * LPTRACE_OUT/LPTRACE_JSON files.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "env.h"
#include "lock.h"
#include "msg.h"
#include "record.h"
#include "sigmask.h"
#include "sites.h"
#include "stream.h"
#include "symtab.h"

#define LPT_DRAIN_MS	2
#define LPT_DRAIN_WAIT	100000

static const int lpt_fatal[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM, SIGQUIT,
};

static struct {
	int fd;			/* stream mode: the open file, else -1 */
	const char *crash;	/* ring mode: LPTRACE_CRASH, else NULL */
	char *prologue;		/* magic + INFO + SYMS, built at init */
	size_t prologue_len;
	pid_t pid;		/* the process that owns the file */
	pthread_t writer;
	int running;		/* writer thread started */
	int failed;		/* the writer's write failed: -errno (atomic) */
	int stop;		/* tells it to stop (atomic) */
	int done;		/* END written: nothing more (atomic) */
	uint64_t events;	/* events written */
} lpt_stream = { .fd = -1 };

static int lpt_drain_lock;

/* write(2) all of it; async-signal-safe.  0 or -errno. */
static int write_all(int fd, struct iovec *iov, int n)
{
	while (n) {
		ssize_t r = writev(fd, iov, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		while (n && (size_t)r >= iov->iov_len) {
			r -= iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (char *)iov->iov_base + r;
			iov->iov_len -= r;
		}
	}
	return 0;
}

static int write_rec(int fd, uint32_t type, const void *p, size_t len)
{
	static const char pad[LPT_REC_ALIGN];
	struct lpt_rec h = { type, len };
	struct iovec iov[3] = {
		{ &h, sizeof(h) },
		{ (void *)p, len },
		{ (void *)pad, -len & (LPT_REC_ALIGN - 1) },
	};

	return write_all(fd, iov, 3);
}

/* Add a record to the prologue being built (not the hot path). */
static int prologue_add(uint32_t type, const void *p, size_t len)
{
	size_t pad = -len & (LPT_REC_ALIGN - 1);
	size_t need = sizeof(struct lpt_rec) + len + pad;
	struct lpt_rec h = { type, len };
	char *np;

	np = realloc(lpt_stream.prologue, lpt_stream.prologue_len + need);
	if (!np)
		return -ENOMEM;
	lpt_stream.prologue = np;
	np += lpt_stream.prologue_len;
	memcpy(np, &h, sizeof(h));
	memcpy(np + sizeof(h), p, len);
	memset(np + sizeof(h) + len, 0, pad);
	lpt_stream.prologue_len += need;
	return 0;
}

/* INFO: mode, filters and the program's path. */
static int prologue_info(unsigned int flags, uint64_t min_ns,
			 unsigned int max_depth)
{
	struct lpt_rec_info *in;
	char path[4096];
	ssize_t n;
	int err;

	n = readlink("/proc/self/exe", path, sizeof(path));
	if (n < 0)
		n = 0;
	in = calloc(1, sizeof(*in) + n);
	if (!in)
		return -ENOMEM;
	in->version = LPT_DATA_VERSION;
	in->flags = flags;
	in->pid = getpid();
	in->event_size = LPT_PK_EVENT_SIZE;
	in->min_ns = min_ns;
	in->max_depth = max_depth;
	in->pathlen = n;
	memcpy(in + 1, path, n);
	err = prologue_add(LPT_REC_INFO, in, sizeof(*in) + n);
	free(in);
	return err;
}

/*
 * SYMS: every function of @tabs[0..ntabs) (NULL: the program's), so the
 * file names its own events; *lenp is the record's length.
 */
static char *syms_blob(const struct lpt_symtab *const *tabs, size_t ntabs,
		       size_t *lenp)
{
	size_t i, k, len = 0, off = 0;
	char *blob;

	for (k = 0; k < ntabs; k++) {
		for (i = 0; i < lpt_symtab_count(tabs[k]); i++) {
			uintptr_t a;
			uint64_t sz;
			const char *name = lpt_symtab_get(tabs[k], i, &a, &sz);

			len += sizeof(struct lpt_rec_sym) +
			       ((strlen(name) + LPT_REC_ALIGN - 1) & -LPT_REC_ALIGN);
		}
	}
	blob = calloc(1, len ? len : 1);
	if (!blob)
		return NULL;
	for (k = 0; k < ntabs; k++) {
		for (i = 0; i < lpt_symtab_count(tabs[k]); i++) {
			struct lpt_rec_sym s;
			uintptr_t a;
			uint64_t sz;
			const char *name = lpt_symtab_get(tabs[k], i, &a, &sz);

			s.addr = a;
			s.size = sz > UINT32_MAX ? UINT32_MAX : sz;
			s.namelen = strlen(name);
			memcpy(blob + off, &s, sizeof(s));
			memcpy(blob + off + sizeof(s), name, s.namelen);
			off += sizeof(s) + ((s.namelen + LPT_REC_ALIGN - 1) &
					    -LPT_REC_ALIGN);
		}
	}
	*lenp = len;
	return blob;
}

static int prologue_syms(void)
{
	static const struct lpt_symtab *const program[] = { NULL };
	size_t len;
	char *blob;
	int err;

	blob = syms_blob(program, 1, &len);
	if (!blob)
		return -ENOMEM;
	err = prologue_add(LPT_REC_SYMS, blob, len);
	free(blob);
	return err;
}

/*
 * A library's SYMS record (the functions of its own symbol table), built
 * when it is loaded, before it is published, so that whoever writes the
 * file next appends it with one writev: the writer on its next round,
 * the exit, or a fatal-signal handler.  A crash then leaves the names of
 * every library loaded until then.  Nothing without a file to write.
 */
void lpt_stream_object(struct lpt_obj *o)
{
	const struct lpt_symtab *tab = &o->syms;
	size_t len, pad;
	struct lpt_rec h = { LPT_REC_SYMS, 0 };
	char *blob, *rec;

	if (!lpt_stream.prologue || !o->nsites || !*o->path)
		return;
	blob = syms_blob(&tab, 1, &len);
	if (!blob)
		return;		/* its events print as addresses */
	pad = -len & (LPT_REC_ALIGN - 1);
	rec = calloc(1, sizeof(h) + len + pad);
	if (rec) {
		h.len = len;
		memcpy(rec, &h, sizeof(h));
		memcpy(rec + sizeof(h), blob, len);
		o->syms_rec_len = sizeof(h) + len + pad;
		o->syms_rec = rec;
	}
	free(blob);
}

/*
 * The SYMS records of the libraries not yet in the file.  The list only
 * grows and each record is built before its object is published, so it
 * is walked without the lock.  Caller holds lpt_drain_lock.
 * Async-signal-safe.
 */
static int write_objects(int fd)
{
	struct lpt_obj *o;
	struct iovec iov;
	int err;

	for (o = __atomic_load_n(&lpt_objs, __ATOMIC_ACQUIRE); o;
	     o = __atomic_load_n(&o->next, __ATOMIC_ACQUIRE)) {
		if (!o->syms_rec || o->syms_rec_out)
			continue;
		iov = (struct iovec){ o->syms_rec, o->syms_rec_len };
		err = write_all(fd, &iov, 1);
		if (err)
			return err;
		o->syms_rec_out = 1;
	}
	return 0;
}

/*
 * EVENTS records are packed (lptrace-data.h) into one of two staging
 * buffers and written whole, one write each.  Whoever holds
 * lpt_drain_lock packs into the first; a fatal-signal handler that did
 * not get the lock (the writer crashed holding it, or hangs) packs into
 * the second, so no two drainers ever share one.  Static: the handler
 * allocates nothing (the packing state, 4 KB, is not on its stack,
 * which may be a small alternate one), and the pages are touched only
 * in stream mode.
 */
#define LPT_PACK_WORDS	(256 * 1024 / 8)

/* How far ahead the writer asks for ring lines the traced thread wrote. */
#define LPT_PREFETCH_EVENTS	16

static struct lpt_stage {
	struct lpt_pk_state st;
	uint64_t w[LPT_PACK_WORDS];
} lpt_stage[2];

/*
 * Append what buffer @b holds past its tail: in stream mode everything
 * not yet drained; in ring mode (tail 0) the last `cap` events.  One
 * EVENTS record per staging buffer's worth, and one per run of events
 * of the same thread (a ring taken over by a new thread may still hold
 * its old owner's).  The tail advances after each record, so a waiting
 * owner gets room as soon as possible.  @sg: lpt_stage[0] or [1].
 * Async-signal-safe.
 */
static int drain_one(int fd, struct lpt_tbuf *b, struct lpt_stage *sg)
{
	uint64_t *buf = sg->w;
	uint64_t head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	uint64_t from = b->tail;
	struct lpt_rec *h = (struct lpt_rec *)buf;
	struct lpt_rec_events *re = (struct lpt_rec_events *)(buf + 1);
	int err;

	if (head - from > b->cap)
		from = head - b->cap;
	while (from < head) {
		size_t i = from % b->cap, w = 2, cap = b->cap;
		const struct lpt_event *ev = b->ev;
		int32_t tid = ev[i].tid;
		uint32_t count = 0;
		struct iovec iov;

		lpt_pk_start(&sg->st);
		do {
			/* Up to the ring's end or a full staging buffer. */
			uint64_t end = head - from;

			if (end > cap - i)
				end = cap - i;
			if (end > (LPT_PACK_WORDS - w) / LPT_PK_MAX_WORDS)
				end = (LPT_PACK_WORDS - w) / LPT_PK_MAX_WORDS;
			end += from;
			while (from < end && ev[i].tid == tid) {
				__builtin_prefetch(&ev[i + LPT_PREFETCH_EVENTS]);
				w += lpt_pk_encode(&sg->st, &ev[i++], buf + w);
				from++;
				count++;
			}
			if (i == cap)
				i = 0;
		} while (from < head && ev[i].tid == tid &&
			 w + LPT_PK_MAX_WORDS <= LPT_PACK_WORDS);
		*h = (struct lpt_rec){ LPT_REC_EVENTS, (w - 1) * 8 };
		*re = (struct lpt_rec_events){ tid, count };
		iov = (struct iovec){ buf, w * 8 };
		err = write_all(fd, &iov, 1);
		if (err)
			return err;
		lpt_stream.events += count;
		/* The owner may reuse the slots once it sees the new tail. */
		__atomic_store_n(&b->tail, from, __ATOMIC_RELEASE);
		lpt_drained(b);
	}
	return 0;
}

static int drain_all(int fd, struct lpt_stage *sg)
{
	struct lpt_tbuf *b;
	int err = 0;

	for (b = lpt_tbuf_list(); b && !err; b = b->next)
		err = drain_one(fd, b, sg);
	return err;
}

/* THREAD, CLOCK and END records: the file is complete.  Signal-safe. */
static int write_end(int fd, int signo)
{
	struct lpt_rec_end end = { 0 };
	struct lpt_clock clk;
	struct lpt_rec_clock rc;
	uint64_t waits = lpt_events_waited();
	struct lpt_tbuf *b;
	int err = 0;

	for (b = lpt_tbuf_list(); b && !err; b = b->next) {
		struct lpt_rec_thread t = { .tid = b->owner };

		memcpy(t.comm, b->comm, sizeof(t.comm));
		err = write_rec(fd, LPT_REC_THREAD, &t, sizeof(t));
	}
	lpt_clock_finish(&clk);
	rc = (struct lpt_rec_clock){ clk.tsc0, clk.ns0, clk.tsc1, clk.ns1 };
	if (!err)
		err = write_rec(fd, LPT_REC_CLOCK, &rc, sizeof(rc));
	end.events = lpt_stream.events;
	end.dropped = lpt_events_dropped();
	end.overwritten = lpt_events_overwritten();
	end.recursed = lpt_events_recursed();
	end.signo = signo;
	end.waits = waits > UINT32_MAX ? UINT32_MAX : waits;
	if (!err)
		err = write_rec(fd, LPT_REC_END, &end, sizeof(end));
	return err;
}

/* 1 when taken; 0 when given up after LPT_DRAIN_WAIT tries. */
static int drain_lock(void)
{
	int tries = 0;

	while (__atomic_exchange_n(&lpt_drain_lock, 1, __ATOMIC_ACQUIRE)) {
		if (++tries == LPT_DRAIN_WAIT)
			return 0;
		sched_yield();
	}
	return 1;
}

static void drain_unlock(void)
{
	__atomic_store_n(&lpt_drain_lock, 0, __ATOMIC_RELEASE);
}

/* No thread waits for the writer from now on; wake those that do. */
static void writer_leaving(void)
{
	struct lpt_tbuf *b;

	__atomic_store_n(&lpt_stream_waitable, 0, __ATOMIC_RELEASE);
	for (b = lpt_tbuf_list(); b; b = b->next)
		lpt_drained(b);
}

/*
 * Every LPT_DRAIN_MS, or at once when a thread with a full ring kicks
 * it, drain every ring.  Its own ring, if a call it makes is traced
 * (a program's function called by libc), never makes it wait.
 */
static void *writer_main(void *arg)
{
	int err = 0;

	(void)arg;
	lpt_no_wait = 1;
	while (!__atomic_load_n(&lpt_stream.stop, __ATOMIC_ACQUIRE) && !err) {
		lpt_writer_nap(LPT_DRAIN_MS * 1000000L);
		drain_lock();
		if (!__atomic_load_n(&lpt_stream.done, __ATOMIC_ACQUIRE))
			err = write_objects(lpt_stream.fd) ?:
			      drain_all(lpt_stream.fd, &lpt_stage[0]);
		drain_unlock();
	}
	__atomic_store_n(&lpt_stream.failed, err, __ATOMIC_RELEASE);
	writer_leaving();
	if (err)
		lpt_msg("%s: %s; events from now on are dropped",
			lpt_env.data, strerror(-err));
	return NULL;
}

/* On a fatal signal: the rings to the file, then die of the signal. */
static void fatal_handler(int signo)
{
	int saved_errno = errno, fd = lpt_stream.fd, locked;

	if (getpid() != lpt_stream.pid ||
	    __atomic_exchange_n(&lpt_stream.done, 1, __ATOMIC_ACQ_REL))
		goto out_raise;
	/* The writer drains no more: threads waiting for room give up. */
	__atomic_store_n(&lpt_stream_waitable, 0, __ATOMIC_RELEASE);
	locked = drain_lock();
	if (fd >= 0 && __atomic_load_n(&lpt_stream.failed, __ATOMIC_ACQUIRE))
		goto out_unlock;	/* as in lpt_stream_finish */
	if (fd < 0) {
		struct iovec iov = { lpt_stream.prologue,
				     lpt_stream.prologue_len };

		fd = open(lpt_stream.crash,
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0 || write_all(fd, &iov, 1))
			goto out_unlock;
	}
	if (!write_objects(fd) && !drain_all(fd, &lpt_stage[!locked]))
		write_end(fd, signo);
	if (fd != lpt_stream.fd)
		close(fd);
out_unlock:
	if (locked)
		drain_unlock();
out_raise:
	/* SA_RESETHAND restored the default; it acts once we return. */
	raise(signo);
	errno = saved_errno;
}

static void fatal_install(void)
{
	struct sigaction sa = { .sa_handler = fatal_handler,
				.sa_flags = SA_RESETHAND | SA_ONSTACK };
	struct sigaction old;
	size_t i;

	for (i = 0; i < sizeof(lpt_fatal) / sizeof(lpt_fatal[0]); i++) {
		/* A handler the program already has stays. */
		if (lpt_real_sigaction(lpt_fatal[i], NULL, &old) ||
		    old.sa_handler != SIG_DFL)
			continue;
		lpt_real_sigaction(lpt_fatal[i], &sa, NULL);
	}
}

/* Start the writer with every signal blocked: the program's stay its own. */
static int writer_start(void)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&lpt_stream.writer, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	lpt_stream.running = 1;
	return 0;
}

/*
 * At init, after the sites and the symbols: open LPTRACE_DATA (stream
 * mode) or remember LPTRACE_CRASH (ring mode), build the prologue,
 * install the fatal-signal handlers, start the writer.  Caller holds
 * the lock.  0 or -errno; on error, tracing goes on in ring mode.
 */
int lpt_stream_setup(unsigned int flags, uint64_t min_ns,
		     unsigned int max_depth)
{
	const char *data = lpt_env.data;
	const char *crash = lpt_env.crash;
	struct iovec iov;
	int err;

	if (!data && !crash)
		return 0;
	lpt_symtab_load();
	lpt_stream.pid = getpid();
	lpt_stream.prologue_len = 0;
	err = prologue_add(0, NULL, 0);		/* room for the magic */
	if (err)
		return err;
	memcpy(lpt_stream.prologue, LPT_DATA_MAGIC, LPT_DATA_MAGIC_LEN);
	err = prologue_info(flags, min_ns, max_depth);
	if (!err)
		err = prologue_syms();
	if (err)
		return err;
	if (!data) {
		lpt_stream.crash = crash;
		fatal_install();
		return 0;
	}
	lpt_stream.fd = open(data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0666);
	if (lpt_stream.fd < 0) {
		err = -errno;
		lpt_msg("LPTRACE_DATA=%s: %s", data, strerror(errno));
		return err;
	}
	iov = (struct iovec){ lpt_stream.prologue, lpt_stream.prologue_len };
	err = write_all(lpt_stream.fd, &iov, 1);
	/* Before the writer starts: it may fail and clear it at once. */
	if (!err)
		__atomic_store_n(&lpt_stream_waitable,
				 lpt_env.full == LPT_FULL_WAIT,
				 __ATOMIC_RELEASE);
	if (!err)
		err = writer_start();
	if (err) {
		lpt_stream_waitable = 0;
		lpt_msg("LPTRACE_DATA=%s: %s", data, strerror(-err));
		close(lpt_stream.fd);
		lpt_stream.fd = -1;
		return err;
	}
	fatal_install();
	return 0;
}

int lpt_stream_active(void)
{
	return lpt_stream.fd >= 0 && getpid() == lpt_stream.pid;
}

/*
 * The last writes, from the exiting thread.  The reader of a pipe may
 * have left since the writer's last write, which then did not fail:
 * this thread's write fails instead, with EPIPE, and raises SIGPIPE.
 * It is blocked here, and the SIGPIPE the write left pending taken
 * back, so the program ends as it would have without us.
 */
static int finish_writes(void)
{
	static const struct timespec now;
	sigset_t pipe, old;
	int err;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe, &old);
	err = drain_all(lpt_stream.fd, &lpt_stage[0]);
	if (!err)
		err = write_objects(lpt_stream.fd);
	if (!err)
		err = write_end(lpt_stream.fd, 0);
	if (err == -EPIPE && !sigismember(&old, SIGPIPE))
		while (sigtimedwait(&pipe, NULL, &now) < 0 && errno == EINTR)
			;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* At exit: stop the writer, drain the rest, close the file. */
void lpt_stream_finish(void)
{
	int err;

	if (!lpt_stream_active() || !lpt_stream.running)
		return;
	__atomic_store_n(&lpt_stream_waitable, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&lpt_stream.stop, 1, __ATOMIC_RELEASE);
	lpt_writer_kick();
	pthread_join(lpt_stream.writer, NULL);
	lpt_stream.running = 0;
	drain_lock();
	if (__atomic_exchange_n(&lpt_stream.done, 1, __ATOMIC_ACQ_REL)) {
		drain_unlock();
		return;
	}
	/*
	 * A file the writer could not write to (said then) gets nothing
	 * more: on a pipe without a reader, this thread's write would
	 * raise SIGPIPE in the program.
	 */
	err = lpt_stream.failed;
	if (!err)
		err = finish_writes();
	drain_unlock();
	if (close(lpt_stream.fd) && !err)
		err = -errno;
	if (err && err != lpt_stream.failed)
		lpt_msg("LPTRACE_DATA=%s: %s", lpt_env.data, strerror(-err));
	if (lpt_verbose)
		lpt_msg("%s: %llu events written, %llu dropped, %llu waits for the writer",
			lpt_env.data, (unsigned long long)lpt_stream.events,
			(unsigned long long)lpt_events_dropped(),
			(unsigned long long)lpt_events_waited());
}
