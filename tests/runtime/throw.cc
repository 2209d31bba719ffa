// throw.cc - C++ exceptions unwinding through traced frames in
// function-graph mode: thrower() throws through middle() (which has a
// local with a destructor, run during the unwinding) and is caught in
// catcher(); a rethrow is caught one level higher in outer().  After
// each catch, traced calls go on and return normally.
//
// Per round: catcher, middle, thrower, guard::~guard (from the
// unwinding), after_catch; outer catches a rethrow of another round.
#include <cstdio>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

static int depth_sum;

struct guard {
	NOINLINE ~guard() { depth_sum += 1; }
};

NOINLINE int after_catch(int x) { return x + 1; }

NOINLINE void thrower(int x)
{
	if (x >= 0)
		throw std::runtime_error("thrown");
	depth_sum += x;
}

NOINLINE int middle(int x)
{
	guard g;

	thrower(x);
	return x;
}

NOINLINE int catcher(int x)
{
	try {
		return middle(x);
	} catch (const std::runtime_error &) {
		return after_catch(x);
	}
}

NOINLINE int rethrower(int x)
{
	try {
		return middle(x);
	} catch (...) {
		throw;
	}
}

NOINLINE int outer(int x)
{
	try {
		return rethrower(x);
	} catch (const std::exception &) {
		return after_catch(x) + 10;
	}
}

int main()
{
	int sum = 0;

	for (int i = 0; i < 3; i++)
		sum += catcher(i);	// 1 + 2 + 3
	sum += outer(5);		// 16
	std::printf("sum=%d guards=%d\n", sum, depth_sum);
	return !(sum == 22 && depth_sum == 4);
}
