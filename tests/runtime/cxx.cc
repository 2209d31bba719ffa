// cxx.cc - C++ names for lptrace's demangling: a namespace, an
// overload, a template and a method, each called a known number of times.
#include <cstdio>

#define NOINLINE __attribute__((noinline))

namespace ns {
NOINLINE int twice(int x) { return 2 * x; }
NOINLINE long twice(long x) { return 2 * x + 1; }
template <typename T> NOINLINE T add(T a, T b) { return a + b; }
struct counter {
	int n = 0;
	NOINLINE void bump(int by) { n += by; }
};
}

int main()
{
	ns::counter c;
	long sum = 0;

	for (int i = 0; i < 3; i++) {
		sum += ns::twice(i) + ns::twice(long(i)) + ns::add<int>(i, 1);
		c.bump(1);
	}
	std::printf("sum=%ld n=%d\n", sum, c.n);
	return !(sum == 21 && c.n == 3);
}
