/* dllib.c - the traced shared library dlmain.c loads. */
#include "progs.h"

NOINLINE int lib_leaf(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

NOINLINE int lib_mid(int x)
{
	return lib_leaf(x) + lib_leaf(x + 1);
}
