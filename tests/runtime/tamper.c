/*
 * tamper.c - overwrite the site of victim() before lpt_init() (run with
 * LPTRACE=off), then check that lpt_init() refuses it, never writes it,
 * and that everything still runs.  late-*: overwrite it after
 * lpt_init(), before the first enable (the records of an image whose
 * sites were all our NOP at start are built then, checking them again).
 *
 *	tamper [late-]nops|call TRACE.txt
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lptrace.h"
#include "progs.h"

void mcount(void);

NOINLINE int victim(int x)
{
	return x * 3;
}

NOINLINE int bystander(int x)
{
	return x + 7;
}

/* Replace the call at @fn with other bytes of the same length. */
static void tamper(void *fn, const char *how)
{
	uint8_t *p = fn, buf[6];
	/* 6 bytes: `67 e8 rel32`, or the NOP --nop-sites wrote over it */
	unsigned int len = p[0] == 0x67 || (p[0] == 0x66 && p[1] == 0x0f) ?
			   6 : 5, i = 0;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *start = (uint8_t *)((uintptr_t)p & ~(page - 1));

	if (!strcmp(how, "nops")) {
		/* A valid NOP, but not ours: prefixes then 90. */
		memset(buf, 0x66, len - 1);
		buf[len - 1] = 0x90;
	} else {
		/* A call, but to mcount instead of __fentry__. */
		int32_t rel = (int32_t)((uintptr_t)mcount - ((uintptr_t)p + len));

		if (len == 6)
			buf[i++] = 0x67;
		buf[i++] = 0xe8;
		memcpy(buf + i, &rel, 4);
	}
	mprotect(start, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC);
	memcpy(p, buf, len);
	mprotect(start, 2 * page, PROT_READ | PROT_EXEC);
	printf("tampered %#lx\n", (unsigned long)p);
}

int main(int argc, char **argv)
{
	struct lpt_stats st;
	int errors = 0, late, rc, n;

	if (argc < 3)
		return 2;
	late = !strncmp(argv[1], "late-", 5);
	if (late)
		rc = lpt_init();
	tamper((void *)victim, argv[1] + (late ? 5 : 0));
	print_entry("victim-before", (void *)victim);

	if (!late)
		rc = lpt_init();
	lpt_stats(&st);
	printf("init=%d sites=%llu nopped=%llu already=%llu refused=%llu\n",
	       rc, (unsigned long long)st.sites, (unsigned long long)st.nopped,
	       (unsigned long long)st.already, (unsigned long long)st.refused);
	errors += victim(5) != 15;
	errors += bystander(5) != 12;

	n = lpt_enable(NULL);
	lpt_stats(&st);
	printf("enabled=%d refused=%llu\n", n, (unsigned long long)st.refused);
	errors += victim(6) != 18;
	errors += bystander(6) != 13;
	print_entry("victim-after", (void *)victim);
	lpt_disable(NULL);
	errors += victim(7) != 21;

	if (lpt_write_text(argv[2]))
		errors++;
	printf("errors=%d\n", errors);
	return errors ? 1 : 0;
}
