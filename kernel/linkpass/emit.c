// SPDX-License-Identifier: GPL-2.0
/*
 * The table as assembler source, as kallsyms writes its own: the build
 * assembles it with $(CC) and links it in.  Each entry names a place the
 * linker can find again, so that the next link computes the address, and
 * in a relocatable kernel the relocation, itself.  The source needs no
 * preprocessor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkpass.h"

#define TEXT_BASE	"_text"
/* entries on one line of the table: fewer lines assemble faster */
#define PER_LINE	8

static bool plain_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '.' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

static void header(size_t n)
{
	printf("/* %zu ftrace call sites, written by scripts/linkpass */\n", n);
}

/* Did every write to stdout succeed? */
static int flushed(const struct image *im)
{
	if (fflush(stdout) || ferror(stdout))
		return error(im, NULL, "writing the table failed");
	return 0;
}

/*
 * A vmlinux entry is an offset from _text, the base kallsyms' offsets
 * have too: the links of link-vmlinux.sh differ only in what follows the
 * code, and the last kallsyms link has the final link's layout (kallsyms
 * relies on that as well, and its check after the link proves it), so
 * the table written from it is exact in vmlinux.
 */
int emit_vmlinux(struct image *im, const struct site *s, size_t n)
{
	const struct symbol *base = image_symbol(im, TEXT_BASE);
	size_t i;

	if (!base)
		return error(im, TEXT_BASE, "not defined");
	header(n);
	printf("\t.section %s, \"a\"\n\t.balign 8\n", MCOUNT_SECTION);
	for (i = 0; i < n; i++)
		printf("%s" TEXT_BASE "%c%#llx%s", i % PER_LINE ? ", " : "\t.quad\t",
		       s[i].addr >= base->value ? '+' : '-',
		       (unsigned long long)(s[i].addr >= base->value ?
					    s[i].addr - base->value :
					    base->value - s[i].addr),
		       i % PER_LINE == PER_LINE - 1 || i == n - 1 ? "\n" : "");
	return flushed(im);
}

/*
 * A module's entries are offsets from the start of their sections.  The
 * object is linked first into the module ("ld -r table.o module.ko"), so
 * the empty section of the same name it starts with a label is placed at
 * the start of the module's.
 */
int emit_module(struct image *im, const struct site *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!plain_name(im->secs[s[i].shndx].name))
			return error(im, im->secs[s[i].shndx].name,
				     "a section name the assembler cannot take");
	header(n);
	/* a module without a site gets no table, as a notrace object */
	if (!n)
		return flushed(im);
	for (i = 0; i < n; i++)
		if (!i || s[i].shndx != s[i - 1].shndx)
			printf("\t.section %s, \"ax\"\n.Lmcount_%u:\n",
			       im->secs[s[i].shndx].name, s[i].shndx);
	printf("\t.section %s, \"a\"\n\t.balign 8\n", MCOUNT_SECTION);
	for (i = 0; i < n; i++)
		printf("\t.quad\t.Lmcount_%u + 0x%llx\n", s[i].shndx,
		       (unsigned long long)s[i].addr);
	return flushed(im);
}
