/*
 * envonly.c - no lptrace call at all: everything comes from the
 * LPTRACE* environment.  Two threads call alpha_* and beta_* functions.
 */
#include <pthread.h>

#include "progs.h"

NOINLINE int alpha_one(int x)
{
	return x + 1;
}

NOINLINE int alpha_two(int x)
{
	return x * 2;
}

NOINLINE int beta_one(int x)
{
	return x - 1;
}

static int errors;

NOINLINE static void *calls(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++)
		if (alpha_one(i) != i + 1 || alpha_two(i) != 2 * i ||
		    beta_one(i) != i - 1)
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(void)
{
	pthread_t th;

	pthread_create(&th, NULL, calls, NULL);
	calls(NULL);
	pthread_join(th, NULL);
	printf("errors=%d\n", errors);
	return errors ? 1 : 0;
}
