/*
 * dlloader.c - a traced shared library that dlopen()s another one
 * (dllib.c) itself: the program never calls dlopen.  dlnested.c uses
 * it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#include "progs.h"

static void *loaded;

/* Load @path and call its lib_mid(@x); -1 when either fails. */
NOINLINE int loader_call(const char *path, int x)
{
	int (*mid)(int);

	if (!loaded)
		loaded = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!loaded) {
		printf("dlopen: %s\n", dlerror());
		return -1;
	}
	mid = (int (*)(int))dlsym(loaded, "lib_mid");
	return mid ? mid(x) : -1;
}

/* Close what loader_call() opened; 0 on success. */
NOINLINE int loader_close(void)
{
	int err = loaded ? dlclose(loaded) : 0;

	loaded = NULL;
	return err;
}
