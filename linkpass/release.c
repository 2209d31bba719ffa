// SPDX-License-Identifier: GPL-2.0
/*
 * A lower peak memory for the quick scan (fastscan.c): once the symbol
 * pass is done, the pages of the global symbols and the string table go
 * back to the kernel.  They are the file's clean pages, so a later read
 * faults them in again, unchanged.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "image.h"

/*
 * The pages that hold nothing but bytes [@off, @off + @len) of @s.
 * Nothing when the bytes are not in the image's own mapping: libelf
 * read them into memory, and dropping those pages would zero them.
 */
static void release(const struct image *im, const struct section *s,
		    uint64_t off, uint64_t len)
{
	uintptr_t map = (uintptr_t)im->map, at, from, to, mask;
	long page = sysconf(_SC_PAGESIZE);

	if (!im->map || !s || !s->loaded || page <= 0 ||
	    off > s->sh.sh_size || len > s->sh.sh_size - off ||
	    (uintptr_t)s->bytes < map ||
	    (uintptr_t)s->bytes - map > im->file_size ||
	    s->sh.sh_size > im->file_size - ((uintptr_t)s->bytes - map))
		return;
	mask = (uintptr_t)page - 1;
	at = (uintptr_t)s->bytes + (uintptr_t)off;
	from = (at + mask) & ~mask;
	to = (at + (uintptr_t)len) & ~mask;
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_DONTNEED);
}

void image_release_names_pages(const struct image *im)
{
	if (im->strtab)
		release(im, im->strtab, 0, im->strtab->sh.sh_size);
}

/*
 * The local symbols stay: stripped.c looks up their values, which
 * relocations naming a section symbol or a static function need.
 */
void image_release_globals_pages(const struct image *im)
{
	const struct section *st = im->symtab;
	uint64_t esz, first;

	if (!st)
		return;
	esz = im->symin.is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	first = st->sh.sh_info < im->symin.n ? st->sh.sh_info : im->symin.n;
	if (first * esz <= st->sh.sh_size)
		release(im, st, first * esz, st->sh.sh_size - first * esz);
	image_release_names_pages(im);
}

