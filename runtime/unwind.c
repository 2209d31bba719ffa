// SPDX-License-Identifier: GPL-2.0
/*
 * unwind.c - C++ exceptions through function-graph frames.
 *
 * A hijacked frame's return address is lpt_graph_ret, which has no
 * unwind information the unwinder could use: an exception thrown through
 * it would end in std::terminate.  So the program's entries into the
 * unwinder are wrapped: before the real one walks the stack, graph.c
 * puts the original return addresses back (lpt_graph_unwind_begin); when
 * a handler catches, graph.c records the exits of the frames unwound and
 * hijacks the live ones again (lpt_graph_catch).
 *
 *   _Unwind_RaiseException      throw (from libstdc++'s __cxa_throw)
 *   _Unwind_Resume              a cleanup (destructors) done, unwinding
 *                               goes on (from the program's landing pads)
 *   _Unwind_Resume_or_Rethrow   throw; (from __cxa_rethrow)
 *   __cxa_begin_catch           a catch clause starts (from the program)
 *
 * Each calls the next definition (dlsym RTLD_NEXT: libgcc_s, libstdc++).
 * The program's own calls bind to these at link time; libstdc++'s calls
 * reach them because the link exports a definition a linked shared
 * library refers to.  This file is its own archive member, pulled in only
 * by a program that refers to one of the names (C++ code with a landing
 * pad or a catch), so a C program linking libgcc_eh statically does not
 * get a second definition.  The wrappers are harmless when graph mode is
 * off: the shadow stack is then empty.
 *
 * Like uftrace (which restores from its shadow stack in the same two
 * places); the code is ours.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <unwind.h>

#include "graph.h"
#include "msg.h"

/* The next definition of @name, looked up once; abort if there is none. */
static void *next_fn(void **cache, const char *name)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (fn)
		return fn;
	fn = dlsym(RTLD_NEXT, name);
	if (!fn) {
		lpt_msg("%s: no definition after ours (%s)", name, dlerror());
		abort();
	}
	__atomic_store_n(cache, fn, __ATOMIC_RELEASE);
	return fn;
}

_Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static void *real;
	_Unwind_Reason_Code (*fn)(struct _Unwind_Exception *) =
		next_fn(&real, "_Unwind_RaiseException");

	lpt_graph_unwind_begin();
	return fn(e);
}

_Unwind_Reason_Code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	static void *real;
	_Unwind_Reason_Code (*fn)(struct _Unwind_Exception *) =
		next_fn(&real, "_Unwind_Resume_or_Rethrow");

	lpt_graph_unwind_begin();
	return fn(e);
}

void _Unwind_Resume(struct _Unwind_Exception *e)
{
	static void *real;
	void (*fn)(struct _Unwind_Exception *) =
		next_fn(&real, "_Unwind_Resume");

	lpt_graph_unwind_begin();
	fn(e);
	abort();	/* _Unwind_Resume does not return */
}

void *__cxa_begin_catch(void *exc);

void *__cxa_begin_catch(void *exc)
{
	static void *real;
	void *(*fn)(void *) = next_fn(&real, "__cxa_begin_catch");

	/* Our CFA: the catching frame's stack pointer at its call. */
	lpt_graph_catch((uintptr_t)__builtin_dwarf_cfa());
	return fn(exc);
}
