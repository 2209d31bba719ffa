// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - what the API does (autostart.c holds its entry points,
 * lpt_init, lpt_enable and lpt_disable): init, the change of state of
 * the sites every glob selects in every loaded object, the settling of
 * objects a dlopen brings or a dlclose takes, and lpt_stats().
 *
 * The one lock (lock.c) serialises them (and the writers in output.c):
 * the site states, the statistics and the symbol table change only
 * under it.  The tracing threads never take it.
 *
 * fork: the mutex is taken around fork() (pthread_atfork), so a child
 * is never born while a rewrite is under way: it inherits no held lock,
 * no writable text window and no half-written site (sites left LPT_TRAP
 * by a failed rewrite are complete int3 states the handler covers).  The
 * child forgets the parent's events and starts its own buffers, with its
 * own thread ids; its exit handler takes a free lock and writes its own
 * file.  vfork and posix_spawn children share our memory until they
 * exec: they run no traced code and take no lock of ours.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "entry.h"
#include "env.h"
#include "graph.h"
#include "lock.h"
#include "msg.h"
#include "objects.h"
#include "output.h"
#include "record.h"
#include "sites.h"
#include "stream.h"
#include "textpoke.h"
#include "trap.h"

static int lpt_ready;		/* 1: init done; < 0: the last try failed */
static int lpt_forkable;	/* atfork handlers registered */
static struct lpt_stats lpt_st;

static void fork_prepare(void)
{
	lpt_lock();
}

static void fork_parent(void)
{
	lpt_unlock();
}

/* The only thread of the child: no one else can hold or want the lock. */
static void fork_child(void)
{
	lpt_lock_reset();
	lpt_record_forked();
}

static int cmp_site_addr(const void *a, const void *b)
{
	const struct lpt_site *x = *(struct lpt_site *const *)a;
	const struct lpt_site *y = *(struct lpt_site *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int skipped_obj(const struct lpt_obj *o, int fresh)
{
	return o->gone || (fresh && !o->fresh);
}

static int all_sites(const char *glob)
{
	return !glob || !strcmp(glob, "*");
}

/*
 * @glob split at its commas into fnmatch(3) patterns (a C name holds no
 * comma, so "a*,b*" is two): a NULL-terminated array in one allocation,
 * or NULL when out of memory.
 */
static char **glob_list(const char *glob)
{
	size_t n = 2, len = strlen(glob) + 1;
	const char *p;
	char **v, *text;

	for (p = glob; *p; p++)
		n += *p == ',';
	v = malloc(n * sizeof(*v) + len);
	if (!v)
		return NULL;
	text = memcpy((char *)(v + n), glob, len);
	n = 0;
	v[n++] = text;
	for (; *text; text++)
		if (*text == ',') {
			*text = 0;
			v[n++] = text + 1;
		}
	v[n] = NULL;
	return v;
}

static int glob_list_match(char *const *v, const char *name)
{
	for (; *v; v++)
		if (!fnmatch(*v, name, 0))
			return 1;
	return 0;
}

/*
 * The objects whose sites were all our NOP at load have no records yet
 * (lpt_sites_check): a disable of every site leaves them as they are;
 * any other change needs their records first.
 */
static int build_needed(enum lpt_state to, const char *glob, int fresh)
{
	struct lpt_obj *o;
	int err;

	if (to == LPT_NOP && all_sites(glob))
		return 0;
	for (o = lpt_objs; o; o = o->next) {
		if (skipped_obj(o, fresh))
			continue;
		err = lpt_sites_build(o, &lpt_st);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The sites @glob (one or a comma list) selects (refused ones never; with @fresh, only those of
 * objects loaded since the last settle): *nmatch counts them, and the
 * returned array holds those not yet in state @to, sorted by address as
 * lpt_poke_sites() needs (each object's are; objects are listed in load
 * order, and ld.so maps later libraries below earlier ones).
 */
static struct lpt_site **select_sites(enum lpt_state to, const char *glob,
				      int fresh, size_t *nmatch, size_t *nchange)
{
	int all = all_sites(glob);
	char **globs = NULL;
	struct lpt_site **v;
	struct lpt_obj *o;
	size_t i, total = 0, match = 0, change = 0;
	int nobj = 0;

	*nmatch = *nchange = 0;
	for (o = lpt_objs; o; o = o->next)
		total += o->gone || !o->sites ? 0 : o->nsites;
	if (!all && !(globs = glob_list(glob)))
		return NULL;
	v = malloc((total ? total : 1) * sizeof(*v));
	if (!v) {
		free(globs);
		return NULL;
	}
	if (!all)
		lpt_sites_name();
	for (o = lpt_objs; o; o = o->next) {
		if (skipped_obj(o, fresh))
			continue;
		if (!o->sites) {
			/* all our NOP, and left so: see build_needed() */
			match += o->nsites;
			continue;
		}
		nobj += o->nsites > 0;
		for (i = 0; i < o->nsites; i++) {
			struct lpt_site *s = &o->sites[i];

			if (s->state == LPT_REFUSED)
				continue;
			if (!all && (!s->name || !glob_list_match(globs, s->name)))
				continue;
			match++;
			if (s->state != to || s->foreign)
				v[change++] = s;
		}
	}
	*nmatch = match;
	*nchange = change;
	free(globs);
	if (nobj > 1)
		qsort(v, *nchange, sizeof(*v), cmp_site_addr);
	return v;
}

struct change {
	enum lpt_state to;
	const char *glob;
	int fresh;		/* only the sites of newly loaded objects */
	size_t ndone;		/* matching sites now in state @to */
};

/*
 * Change the state of the selected sites; caller holds the lock and
 * runs inside lpt_objects_pinned(): first the loaded objects are
 * brought up to date, so no gone object is touched.
 */
static int set_state_pinned(void *arg)
{
	struct change *c = arg;
	struct lpt_site **v;
	struct lpt_obj *o;
	uint64_t t0 = lpt_now_ns(), enabled = 0;
	size_t i, n, nmatch, skipped = 0;
	int err;

	lpt_objects_refresh(&lpt_st);
	err = build_needed(c->to, c->glob, c->fresh);
	if (err)
		return err;
	v = select_sites(c->to, c->glob, c->fresh, &nmatch, &n);
	if (!v)
		return -ENOMEM;
	err = lpt_trap_check();
	if (!err)
		err = lpt_poke_sites(v, n, c->to, &skipped);
	/* v[0..n - skipped): the sites it tried, in whatever state now. */
	c->ndone = nmatch - n;
	for (i = 0; i < n - skipped; i++)
		c->ndone += v[i]->state == c->to;
	free(v);

	/* counted in a local: a store per site to the global costs more */
	for (o = lpt_objs; o; o = o->next) {
		const struct lpt_site *v = o->sites;
		size_t ns = o->gone || !v ? 0 : o->nsites;

		for (i = 0; i < ns; i++)
			enabled += v[i].state == LPT_CALL;
	}
	lpt_st.enabled = enabled;
	lpt_st.last_patch_ns = lpt_now_ns() - t0;
	lpt_st.last_patched = err ? 0 : n - skipped;
	lpt_st.skipped = skipped;
	return err;
}

static int set_state(enum lpt_state to, const char *glob, size_t *ndone)
{
	struct change c = { .to = to, .glob = glob };
	int err;

	err = lpt_objects_pinned(set_state_pinned, &c);
	*ndone = c.ndone;
	return err;
}

/*
 * The recording mode, from the environment (env.c): ring, keep-first or
 * stream buffers (LPTRACE_BUFSIZE, LPTRACE_KEEP, LPTRACE_DATA),
 * entry-only or function graph (LPTRACE_GRAPH) with its filters
 * (LPTRACE_DEPTH, LPTRACE_MIN_NS).  Set once, before any site is
 * enabled.
 */
static uint64_t lpt_min_ns;
static unsigned int lpt_max_depth;

static void mode_setup(void)
{
	struct lpt_clock clk;
	uint64_t ticks = 0;

	if (lpt_ready)			/* a failed init tried already */
		return;
	lpt_record_setup(lpt_env.bufsize,
			 lpt_env.data || lpt_env.keep == LPT_KEEP_FIRST);
	if (!lpt_env.graph)
		return;
	lpt_max_depth = lpt_env.depth;
	lpt_min_ns = lpt_env.min_ns;
	if (lpt_min_ns) {
		/* The threshold in TSC ticks: calibrate now (20 ms). */
		lpt_clock_start();
		lpt_clock_finish(&clk);
		ticks = (unsigned __int128)lpt_min_ns * (clk.tsc1 - clk.tsc0) /
			(clk.ns1 - clk.ns0);
		if (!ticks)
			ticks = 1;
	}
	/* the return trampoline, registered here: graph.c may not name it */
	lpt_graph_setup(lpt_max_depth, ticks, (uintptr_t)lpt_graph_ret);
}

/*
 * Every step can be run again: a step done by an earlier, failed try
 * returns at once, and set_state() takes up sites the failed try left
 * behind int3 (LPT_TRAP) or in the old state.
 */
static int init_locked(uintptr_t fentry)
{
	struct lpt_obj *o;
	uint64_t t0 = lpt_now_ns();
	size_t ndone;
	int err;

	lpt_env_load();
	lpt_verbose = lpt_env.verbose;
	mode_setup();
	if (!lpt_forkable) {
		err = pthread_atfork(fork_prepare, fork_parent, fork_child);
		if (err) {
			lpt_msg("pthread_atfork: %s", strerror(err));
			return -err;
		}
		lpt_forkable = 1;
	}
	lpt_clock_start();

	/* Everything that makes rewriting safe comes first. */
	err = lpt_sync_init();
	if (err)
		return err;
	err = lpt_trap_install();
	if (err)
		return err;
	err = lpt_sites_load(&lpt_st, fentry);
	if (err)
		return err;
	/* A file that cannot be written is reported; tracing goes on. */
	lpt_stream_setup(lpt_graph_on ? LPT_INFO_GRAPH : 0, lpt_min_ns,
			 lpt_max_depth);

	/* Every call __fentry__ becomes a NOP, the libraries' too. */
	err = set_state(LPT_NOP, NULL, &ndone);
	for (o = lpt_objs; o; o = o->next)
		o->fresh = 0;
	lpt_st.nopped += lpt_st.last_patched;
	lpt_st.init_ns = lpt_now_ns() - t0;
	if (lpt_verbose)
		lpt_msg("%llu sites: %llu nopped, %llu already nop, %llu refused in %.3f ms (%s)",
			(unsigned long long)lpt_st.sites,
			(unsigned long long)lpt_st.nopped,
			(unsigned long long)lpt_st.already,
			(unsigned long long)lpt_st.refused,
			lpt_st.init_ns / 1e6, lpt_sync_name());
	return err;
}

/* lpt_init (autostart.c): @fentry is the program's __fentry__. */
int lpt_control_init(uintptr_t fentry)
{
	int err;

	lpt_lock();
	if (lpt_ready <= 0) {
		err = init_locked(fentry);
		lpt_ready = err ? err : 1;
	}
	err = lpt_ready < 0 ? lpt_ready : 0;
	lpt_unlock();
	return err;
}

/*
 * lpt_enable and lpt_disable (autostart.c), once init succeeded: the
 * number of matching sites now in state @to, or -errno.
 */
int lpt_control_set(enum lpt_state to, const char *glob)
{
	size_t ndone = 0;
	int err;

	lpt_lock();
	err = set_state(to, glob, &ndone);
	if (lpt_verbose)
		lpt_msg("%s \"%s\": %zu sites now %s, %llu rewritten in %.3f ms",
			to == LPT_CALL ? "enable" : "disable",
			glob ? glob : "*", ndone,
			to == LPT_CALL ? "enabled" : "disabled",
			(unsigned long long)lpt_st.last_patched,
			lpt_st.last_patch_ns / 1e6);
	lpt_unlock();
	return err ? err : (int)ndone;
}

/*
 * After a dlopen or dlclose of the program's (below): forget the gone
 * objects, NOP the sites of the new ones, and enable LPTRACE_FILTER's
 * functions among them, as init did for the objects loaded then.
 */
static const char *lpt_filter;

static int settle_pinned(void *arg)
{
	struct change nop = { .to = LPT_NOP, .fresh = 1 };
	struct change on = { .to = LPT_CALL, .glob = lpt_filter, .fresh = 1 };
	struct lpt_obj *o;
	int err;

	(void)arg;
	err = set_state_pinned(&nop);
	if (!err && lpt_filter)
		err = set_state_pinned(&on);
	for (o = lpt_objs; o; o = o->next)
		o->fresh = 0;
	return err;
}

static void objects_changed(void)
{
	lpt_lock();
	if (lpt_ready > 0)
		lpt_objects_pinned(settle_pinned, NULL);
	lpt_unlock();
}

/*
 * The program's dlopen: the real one, then the new objects' tables
 * (objects.c), their sites NOP'd and the filter's enabled.  Here, beside
 * the site states they settle, so that objects.c never calls up.
 * Libraries' calls come here too: the program exports dlopen (libc.so
 * defines it, so the linker puts the program's definition in .dynsym)
 * and ld.so looks in the program first.  A call that bypasses it
 * (dlsym(RTLD_NEXT), dlmopen) is found at the next enable or disable.
 */
void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	void *h;

	if (!real)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	if (!real)
		return NULL;
	h = real(file, mode);
	if (h)
		objects_changed();
	return h;
}

/* The real dlclose, then the gone objects forgotten at once (objects.c). */
int dlclose(void *handle)
{
	static int (*real)(void *);
	int ret;

	if (!real)
		real = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real)
		return -1;
	ret = real(handle);
	if (!ret)
		objects_changed();
	return ret;
}

/* LPTRACE_FILTER, enabled at start and in every object loaded later. */
void lpt_control_filter(const char *glob)
{
	lpt_lock();
	lpt_filter = glob;
	lpt_unlock();
}

void lpt_stats(struct lpt_stats *st)
{
	lpt_lock();
	*st = lpt_st;
	st->traps = lpt_trap_count();
	st->events = lpt_trace_count();
	st->dropped = lpt_events_dropped();
	st->waits = lpt_events_waited();
	st->overwritten = lpt_events_overwritten();
	st->recursed = lpt_events_recursed();
	st->buffers = lpt_buffers();
	st->sync = lpt_sync_name();
	lpt_unlock();
}
