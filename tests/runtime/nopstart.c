/*
 * nopstart.c - what start-up did to the program's code: the copied
 * pages (Anonymous in smaps: a written private file page becomes one)
 * of its executable mappings, before and after the first enable.  An
 * image linked with --nop-sites must have none before.  (Not
 * Private_Dirty: it also counts a page the linker has just written
 * that is not yet on disk.)
 *
 * Prints `phase=NAME copied_kb=N nopped=N already=N refused=N enabled=N`.
 */
#include <stdio.h>
#include <string.h>

#include "lptrace.h"
#include "progs.h"

NOINLINE int work(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* Anonymous (copied) kB of the r-xp mappings of the program's own file. */
static long text_copied_kb(void)
{
	char line[512], self[256] = "";
	int in_text = 0;
	long kb, sum = 0;
	FILE *f;

	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char perms[8], path[256] = "";

		if (sscanf(line, "%*x-%*x %7s %*s %*s %*s %255s", perms, path) >= 1 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (!*self && *path == '/')
				strcpy(self, path);	/* the first mapping: the program */
			in_text = !strcmp(perms, "r-xp") && !strcmp(path, self);
			continue;
		}
		if (in_text && sscanf(line, "Anonymous: %ld kB", &kb) == 1)
			sum += kb;
	}
	fclose(f);
	return sum;
}

static void phase(const char *name)
{
	struct lpt_stats st;
	long copied = text_copied_kb();

	lpt_stats(&st);
	printf("phase=%s copied_kb=%ld nopped=%llu already=%llu refused=%llu enabled=%llu\n",
	       name, copied, (unsigned long long)st.nopped,
	       (unsigned long long)st.already, (unsigned long long)st.refused,
	       (unsigned long long)st.enabled);
}

int main(void)
{
	int sum = 0;

	phase("start");
	sum += work(1);
	printf("enable=%d\n", lpt_enable("work"));
	sum += work(2);
	phase("enabled");
	printf("sum=%d events=%llu\n", sum,
	       (unsigned long long)lpt_trace_count());
	return 0;
}
