// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - the API: lp_init(), lp_enable(), lp_disable(), lp_stats().
 *
 * One mutex serialises them (and the writers in output.c): the site
 * states, the statistics and the symbol table change only under it.
 * The tracing threads never take it.
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

int lp_verbose;

static pthread_mutex_t lp_mutex = PTHREAD_MUTEX_INITIALIZER;
static int lp_ready;		/* 1: lp_init() done; < 0: it failed */
static struct lp_stats lp_st;

void lp_lock(void)
{
	pthread_mutex_lock(&lp_mutex);
}

void lp_unlock(void)
{
	pthread_mutex_unlock(&lp_mutex);
}

uint64_t lp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static size_t env_size(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : 0;
}

/*
 * The sites @glob selects (refused ones never): *nmatch counts them, and
 * the returned array (sorted) holds those not yet in state @to.
 */
static struct lp_site **select_sites(enum lp_state to, const char *glob,
				     size_t *nmatch, size_t *nchange)
{
	int all = !glob || !strcmp(glob, "*");
	struct lp_site **v;
	size_t i;

	*nmatch = *nchange = 0;
	v = malloc((lp_nsites ? lp_nsites : 1) * sizeof(*v));
	if (!v)
		return NULL;
	if (!all)
		lp_sites_name();
	for (i = 0; i < lp_nsites; i++) {
		struct lp_site *s = &lp_sites[i];

		if (s->state == LP_REFUSED)
			continue;
		if (!all && (!s->name || fnmatch(glob, s->name, 0)))
			continue;
		(*nmatch)++;
		if (s->state != to)
			v[(*nchange)++] = s;
	}
	return v;
}

/* Change the state of the selected sites; caller holds the lock. */
static int set_state(enum lp_state to, const char *glob, size_t *nmatch)
{
	struct lp_site **v;
	uint64_t t0 = lp_now_ns();
	size_t i, n;
	int err;

	v = select_sites(to, glob, nmatch, &n);
	if (!v)
		return -ENOMEM;
	err = lp_trap_check();
	if (!err)
		err = lp_poke_sites(v, n, to);
	free(v);

	lp_st.enabled = 0;
	for (i = 0; i < lp_nsites; i++)
		lp_st.enabled += lp_sites[i].state == LP_CALL;
	lp_st.last_patch_ns = lp_now_ns() - t0;
	lp_st.last_patched = n;
	return err;
}

static int init_locked(void)
{
	uint64_t t0 = lp_now_ns();
	size_t nmatch;
	int err;

	lp_verbose = getenv("LPTRACE_VERBOSE") &&
		     strcmp(getenv("LPTRACE_VERBOSE"), "0");
	lp_record_setup(env_size("LPTRACE_BUFSIZE"));
	lp_clock_start();

	/* Everything that makes rewriting safe comes first. */
	err = lp_sync_init(getenv("LPTRACE_SYNC"));
	if (err)
		return err;
	err = lp_trap_install();
	if (err)
		return err;
	err = lp_sites_load(&lp_st);
	if (err)
		return err;

	/* Every call __fentry__ becomes a NOP. */
	err = set_state(LP_NOP, NULL, &nmatch);
	lp_st.nopped = lp_st.last_patched;
	lp_st.init_ns = lp_now_ns() - t0;
	if (lp_verbose)
		fprintf(stderr, LP_PREFIX "%s: %llu sites: %llu nopped, %llu already nop, %llu refused in %.3f ms (%s)\n",
			program_invocation_short_name,
			(unsigned long long)lp_st.sites,
			(unsigned long long)lp_st.nopped,
			(unsigned long long)lp_st.already,
			(unsigned long long)lp_st.refused,
			lp_st.init_ns / 1e6, lp_sync_name());
	return err;
}

int lp_init(void)
{
	int err;

	lp_lock();
	if (!lp_ready) {
		err = init_locked();
		lp_ready = err ? err : 1;
	}
	err = lp_ready < 0 ? lp_ready : 0;
	lp_unlock();
	return err;
}

static int set_state_api(enum lp_state to, const char *glob)
{
	size_t nmatch = 0;
	int err;

	err = lp_init();
	if (err)
		return err;
	lp_lock();
	err = set_state(to, glob, &nmatch);
	if (lp_verbose)
		fprintf(stderr, LP_PREFIX "%s: %s \"%s\": %zu sites match, %llu rewritten in %.3f ms\n",
			program_invocation_short_name,
			to == LP_CALL ? "enable" : "disable",
			glob ? glob : "*", nmatch,
			(unsigned long long)lp_st.last_patched,
			lp_st.last_patch_ns / 1e6);
	lp_unlock();
	return err ? err : (int)nmatch;
}

int lp_enable(const char *glob)
{
	return set_state_api(LP_CALL, glob);
}

int lp_disable(const char *glob)
{
	return set_state_api(LP_NOP, glob);
}

void lp_stats(struct lp_stats *st)
{
	lp_lock();
	*st = lp_st;
	st->traps = lp_trap_count();
	st->events = lp_trace_count();
	st->dropped = lp_events_dropped();
	st->sync = lp_sync_name();
	lp_unlock();
}
