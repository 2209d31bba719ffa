// SPDX-License-Identifier: GPL-2.0
/*
 * demo.c - the main program of `make demo`.
 *
 * It is linked with a generated sample kernel (tests/samples/gen.py),
 * whose own main() is renamed sample_main at compile time, and with
 * runtime/liblptrace.a, which NOPs every __mcount_loc site before
 * main() runs.  The demo then:
 *   1. prints what the runtime did at start (sites, NOP'd, refused, time);
 *   2. runs workload() once untraced to learn the expected result;
 *   3. starts THREADS threads that call workload() over and over, each
 *      checking every result, while the main thread enables and
 *      disables tracing for a subset of functions (a name glob) several
 *      times;
 *   4. with LPTRACE_DATA set (stream mode, as `make demo` runs it), the
 *      runtime has streamed the trace to that file and finishes it at
 *      exit; otherwise the demo writes the rings as ftrace-style text
 *      and Chrome JSON, and prints a one-line summary.
 * `demo --count ROUNDS` only runs workload(ROUNDS) (see count_run).
 * Built without -pg: nothing here is traced.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lptrace.h"

#define THREADS		4
#define TOGGLES		20	/* enable/disable cycles */
#define TOGGLE_MS	5	/* time traced in each cycle */

int workload(int rounds);	/* from the sample's main.c */

static int expected;
static atomic_int stop;
static atomic_long runs, wrong;

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (workload(1) != expected)
			atomic_fetch_add(&wrong, 1);
		atomic_fetch_add(&runs, 1);
	}
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * `demo --count ROUNDS`: run workload(ROUNDS) once in this thread and
 * exit, for a recording whose call counts the sample's manifest knows
 * (lptrace record -- demo --count 3).
 */
static int count_run(int rounds)
{
	printf("demo: workload(%d) = %d\n", rounds, workload(rounds));
	return 0;
}

int main(int argc, char **argv)
{
	const char *glob = argc > 1 ? argv[1] : "u000[0-3]_*";
	const char *text = argc > 2 ? argv[2] : "trace.txt";
	const char *json = argc > 3 ? argv[3] : "trace.json";
	pthread_t tid[THREADS];
	const char *data = getenv("LPTRACE_DATA");
	struct lpt_stats st;
	int i, n = 0;

	if (argc == 3 && !strcmp(argv[1], "--count"))
		return count_run(atoi(argv[2]));
	lpt_stats(&st);
	/* link-vmlinux.sh wrote the NOPs at link time: start only checks */
	printf("demo: start: %llu sites, %llu NOP'd, %llu already NOPs, %llu refused, %.3f ms (core sync: %s)\n",
	       (unsigned long long)st.sites, (unsigned long long)st.nopped,
	       (unsigned long long)st.already, (unsigned long long)st.refused,
	       st.init_ns / 1e6, st.sync);

	expected = workload(1);
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL)) {
			fprintf(stderr, "demo: cannot start thread %d\n", i);
			return 1;
		}
	for (i = 0; i < TOGGLES; i++) {
		int on = lpt_enable(glob);

		if (on < 0) {
			fprintf(stderr, "demo: lpt_enable: %s\n", strerror(-on));
			break;
		}
		n = on;
		sleep_ms(TOGGLE_MS);
		if (lpt_disable(glob) < 0)
			fprintf(stderr, "demo: lpt_disable failed\n");
		sleep_ms(TOGGLE_MS / 4);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);

	lpt_stats(&st);
	printf("demo: traced '%s' (%d sites) %d times while %d threads ran workload() %ld times, %ld wrong results, %llu int3 hits emulated\n",
	       glob, n, TOGGLES, THREADS, atomic_load(&runs),
	       atomic_load(&wrong), (unsigned long long)st.traps);
	if (data && *data) {
		/* Stream mode: the runtime finishes the file at exit. */
		printf("demo: streaming the trace to %s (lptrace dump/report read it)\n",
		       data);
		return atomic_load(&wrong) ? 1 : 0;
	}
	if (lpt_write_text(text) < 0 || lpt_write_json(json) < 0) {
		fprintf(stderr, "demo: cannot write the trace\n");
		return 1;
	}
	printf("demo: %llu calls traced: %s (ftrace text), %s (Chrome JSON, opens in Perfetto); %llu overwritten in full thread rings, %llu dropped\n",
	       (unsigned long long)lpt_trace_count(), text, json,
	       (unsigned long long)st.overwritten,
	       (unsigned long long)st.dropped);
	return atomic_load(&wrong) ? 1 : 0;
}
