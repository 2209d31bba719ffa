/*
 * basic.c - functions of many calling conventions.  Checks their results
 * with sites NOP'd, traced and NOP'd again, and prints its own entry
 * bytes and lpt_stats for the test to check.
 *
 *	basic TRACE.txt TRACE.json
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lptrace.h"
#include "progs.h"

struct big { long a, b, c, d; };

NOINLINE int f_int6(int a, int b, int c, int d, int e, int f)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

NOINLINE long f_stack(long a, long b, long c, long d, long e, long f,
		      long g, long h)
{
	return a - b + c - d + e - f + g * h;
}

NOINLINE double f_fp(double x, float y, int i, double z)
{
	return x * y + i - z;
}

NOINLINE int f_var(int n, ...)
{
	double s = 0;
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return (int)(s * 10);
}

NOINLINE struct big f_big(long x)
{
	struct big r = { x, x + 1, x * 2, -x };

	return r;
}

NOINLINE static int f_static(int x)
{
	return x ^ 0x5a5a;
}

NOINLINE int f_fib(int n)
{
	return n < 2 ? n : f_fib(n - 1) + f_fib(n - 2);
}

static int errors;

#define CHECK(expr, want) do {						\
	if ((expr) != (want)) {						\
		printf("FAIL %s\n", #expr);				\
		errors++;						\
	}								\
} while (0)

static void run_all(void)
{
	struct big b = f_big(5);

	CHECK(f_int6(1, 2, 3, 4, 5, 6), 91);
	CHECK(f_stack(1, 2, 3, 4, 5, 6, 7, 8), 53);
	CHECK(f_fp(1.5, 2.0f, 3, 0.5), 5.5);
	CHECK(f_var(3, 1.5, 2.25, 3.0), 67);
	CHECK(b.a + b.b + b.c + b.d, 16);
	CHECK(f_static(0x0f0f), 0x5555);
	CHECK(f_fib(10), 55);
}

static void print_entries(void)
{
	print_entry("f_int6", (void *)f_int6);
	print_entry("f_stack", (void *)f_stack);
	print_entry("f_fp", (void *)f_fp);
	print_entry("f_var", (void *)f_var);
	print_entry("f_big", (void *)f_big);
	print_entry("f_static", (void *)f_static);
	print_entry("f_fib", (void *)f_fib);
}

int main(int argc, char **argv)
{
	struct lpt_stats st;
	int n;

	printf("phase nop\n");
	print_entries();
	run_all();

	n = lpt_enable(NULL);
	printf("phase call enabled=%d\n", n);
	print_entries();
	run_all();

	n = lpt_disable(NULL);
	printf("phase nop-again disabled=%d\n", n);
	print_entries();
	run_all();

	lpt_stats(&st);
	printf("stats sites=%llu nopped=%llu already=%llu refused=%llu enabled=%llu events=%llu sync=%s\n",
	       (unsigned long long)st.sites, (unsigned long long)st.nopped,
	       (unsigned long long)st.already,
	       (unsigned long long)st.refused,
	       (unsigned long long)st.enabled,
	       (unsigned long long)st.events, st.sync);
	if (argc > 2 && (lpt_write_text(argv[1]) || lpt_write_json(argv[2])))
		errors++;
	printf("errors=%d\n", errors);
	return errors ? 1 : 0;
}
