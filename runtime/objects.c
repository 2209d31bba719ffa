// SPDX-License-Identifier: GPL-2.0
/*
 * objects.c - shared libraries with their own __mcount_loc table.
 *
 * A library linked through scripts/link-vmlinux.sh (-shared) carries a
 * table like the program's, found here by its section header in the
 * library's file, its entries read from memory (ld.so relocated them).
 * Its sites call the library's own hidden __fentry__ (a stub linked
 * into it: a library cannot reach ours by a direct call), and an
 * enabled site calls a thunk page mapped within rel32 reach of the
 * library, which jumps to our trampolines.  Its names come from its own
 * symbol table.
 *
 * Loading and unloading.  The tables of the objects loaded at start are
 * read at init, those of later dlopen()s, the libraries' included, by
 * control.c's dlopen() (right away, so their sites are NOPs from then
 * on) and, whatever loaded them, by the next lpt_enable()/lpt_disable().
 * Both go through one refresh
 * that walks dl_iterate_phdr: an object listed and unknown is added, a
 * known object no longer listed is marked gone and never looked at again
 * (its memory may hold another object's code now).
 *
 * Why rewriting a library's code is safe against a concurrent dlclose:
 * every rewrite runs inside a dl_iterate_phdr() callback
 * (lpt_objects_pinned).  glibc holds its dl_load_write_lock for the whole
 * iteration, and dlclose() unmaps an object and unlinks it from the list
 * while holding that same lock (elf/dl-close.c, _dl_close_worker).  So
 * an object the refresh found listed stays mapped until the rewrite is
 * done.  The lock is recursive: the refresh walks the list again inside
 * the callback.  Nothing we do inside takes a lock a dlopen/dlclose
 * could hold while waiting for ours (our own lock is always taken first).
 *
 * Chosen over r_debug/_dl_debug_state (a breakpoint-style hook meant for
 * debuggers; it would need an int3 of our own on ld.so's code) and over
 * rescanning only at enable time (a library opened later would keep
 * calling its __fentry__ stub until then; a dlopen() interposition is a
 * few lines and removes that cost).  control.c's dlclose() refreshes
 * right after the real one, so that the trap handler stops looking at
 * the sites of a gone object at once; without it (a library's own
 * dlclose call) the gone object's sites are still never rewritten,
 * since every rewrite starts with a refresh.
 */
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfread.h"
#include "entry.h"
#include "lock.h"
#include "mcount-table.h"
#include "msg.h"
#include "objects.h"
#include "sites.h"
#include "stream.h"
#include "symtab.h"

/* Thunk: jmp *0(%rip); .quad target (one per trampoline, 16 bytes apart). */
static const uint8_t lpt_jmp_abs[] = { 0xff, 0x25, 0x00, 0x00, 0x00, 0x00 };
#define LPT_THUNK_STRIDE	16
/* rel32 reach, less a page of margin for the thunks themselves. */
#define LPT_REACH		((1l << 31) - (1l << 16))

struct pin {
	int (*fn)(void *);
	void *arg;
	int ret;
	int ran;
};

static int pin_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct pin *p = data;

	(void)info;
	(void)size;
	p->ret = p->fn(p->arg);
	p->ran = 1;
	return 1;
}

/* Run @fn while no object can be unloaded (see the top of the file). */
int lpt_objects_pinned(int (*fn)(void *), void *arg)
{
	struct pin p = { .fn = fn, .arg = arg };

	dl_iterate_phdr(pin_cb, &p);
	return p.ran ? p.ret : fn(arg);
}

static uintptr_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Is [lo, hi) within rel32 reach of a call at any place of [start, end)? */
static int in_reach(uintptr_t lo, uintptr_t hi, uintptr_t start, uintptr_t end)
{
	return (intptr_t)(hi - start) < LPT_REACH &&
	       (intptr_t)(end - lo) < LPT_REACH;
}

/*
 * A page of thunks next to the object: just above it, else just below,
 * else further out in steps; only where nothing is mapped yet.  The page
 * is never unmapped: a thread may be inside a thunk when the object goes.
 */
static int map_thunks(struct lpt_obj *o)
{
	uintptr_t page = page_size(), hint;
	uint8_t *t = MAP_FAILED;
	unsigned int i, k;
	uintptr_t targets[2] = { (uintptr_t)lpt_tramp5, (uintptr_t)lpt_tramp6 };

	for (k = 0; k < 64 && t == MAP_FAILED; k++) {
		hint = k % 2 ? (o->start & ~(page - 1)) - (k / 2 + 1) * (1ul << 20)
			     : ((o->end + page - 1) & ~(page - 1)) + (k / 2) * (1ul << 20);
		t = mmap((void *)hint, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (t != MAP_FAILED &&
		    !in_reach((uintptr_t)t, (uintptr_t)t + page, o->start, o->end)) {
			munmap(t, page);
			t = MAP_FAILED;
		}
	}
	if (t == MAP_FAILED)
		return -ENOMEM;
	for (i = 0; i < 2; i++) {
		memcpy(t + i * LPT_THUNK_STRIDE, lpt_jmp_abs, sizeof(lpt_jmp_abs));
		memcpy(t + i * LPT_THUNK_STRIDE + sizeof(lpt_jmp_abs),
		       &targets[i], sizeof(targets[i]));
		o->tramp[i] = (uintptr_t)t + i * LPT_THUNK_STRIDE;
	}
	if (mprotect(t, page, PROT_READ | PROT_EXEC)) {
		int err = -errno;

		munmap(t, page);	/* nothing can run it yet */
		return err;
	}
	return 0;
}

/* The __mcount_loc section header of the file @path: 0, or -errno. */
static int find_table(const char *path, Elf64_Shdr *table)
{
	const Elf64_Shdr *sec;
	struct lpt_elf f;
	int err;

	err = lpt_elf_open(&f, path);
	if (err)
		return err;
	sec = lpt_elf_section(&f, MCOUNT_SECTION);
	if (sec)
		*table = *sec;
	lpt_elf_close(&f);
	return sec ? 0 : -ENOENT;
}

static void extent(struct lpt_obj *o, const struct dl_phdr_info *info)
{
	unsigned int i;

	o->start = UINTPTR_MAX;
	o->end = 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < o->start)
			o->start = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > o->end)
			o->end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
}

/*
 * The table of a library: its sites checked (they must call the
 * library's own __fentry__), thunks within reach.  0, or -errno with
 * the reason told; the object is then kept without a table.
 */
static int load_table(struct lpt_obj *o, const Elf64_Shdr *sec,
		      struct lpt_stats *st)
{
	uintptr_t start = o->bias + sec->sh_addr, *copy;
	const uintptr_t *addrs;
	size_t n;
	int err;

	if (sec->sh_size % sizeof(uintptr_t) || start < o->start ||
	    start + sec->sh_size > o->end) {
		lpt_msg("%s: " MCOUNT_SECTION " [%#lx, +%#lx) is not a table of 8-byte entries inside the object",
			o->path, (unsigned long)start,
			(unsigned long)sec->sh_size);
		return -EINVAL;
	}
	lpt_symtab_open(&o->syms, o->path, o->bias);
	if (lpt_symtab_addr(&o->syms, "__fentry__", &o->fentry))
		o->fentry = 0;	/* every site is refused, saying why */
	err = map_thunks(o);
	if (err) {
		lpt_msg("%s: no page for trampolines within reach (%s); its sites are not used",
			o->path, strerror(-err));
		return err;
	}
	addrs = lpt_table_read((const char *)start,
			       (const char *)start + sec->sh_size, &n, &copy);
	if (!addrs)
		return -ENOMEM;
	return lpt_sites_check(o, addrs, n, copy, st);
}

static struct lpt_obj *add_object(const struct dl_phdr_info *info,
				  struct lpt_stats *st)
{
	struct lpt_obj *o;
	Elf64_Shdr sec = { 0 };

	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->path = strdup(info->dlpi_name);
	if (!o->path) {
		free(o);
		return NULL;
	}
	o->bias = info->dlpi_addr;
	o->phdr = (const uint8_t *)info->dlpi_phdr;
	extent(o, info);
	if (!find_table(o->path, &sec) && sec.sh_size &&
	    !load_table(o, &sec, st)) {
		o->fresh = 1;
		lpt_stream_object(o);	/* its names, for the file */
		if (lpt_verbose)
			lpt_msg("%s: %zu sites", o->path, o->nsites);
	}
	o->seen = 1;
	lpt_obj_publish(o);
	return o;
}

static int same(const struct lpt_obj *o, const struct dl_phdr_info *info)
{
	return o->bias == info->dlpi_addr &&
	       o->phdr == (const uint8_t *)info->dlpi_phdr &&
	       !strcmp(o->path, info->dlpi_name);
}

struct refresh {
	struct lpt_stats *st;
	unsigned int index;
	int err;
};

static int refresh_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct refresh *r = data;
	struct lpt_obj *o;

	(void)size;
	/* The first is the program (sites.c); nameless ones have no file. */
	if (!r->index++ || !info->dlpi_name || !*info->dlpi_name)
		return 0;
	for (o = lpt_objs->next; o; o = o->next) {
		if (!o->gone && same(o, info)) {
			o->seen = 1;
			return 0;
		}
	}
	if (!add_object(info, r->st))
		r->err = -ENOMEM;
	return 0;
}

/* Caller holds our lock and runs inside lpt_objects_pinned(). */
int lpt_objects_refresh(struct lpt_stats *st)
{
	struct refresh r = { .st = st };
	struct lpt_obj *o;

	if (!lpt_objs)
		return 0;
	for (o = lpt_objs->next; o; o = o->next)
		o->seen = 0;
	dl_iterate_phdr(refresh_cb, &r);
	for (o = lpt_objs->next; o; o = o->next) {
		if (o->seen || o->gone)
			continue;
		__atomic_store_n(&o->gone, 1, __ATOMIC_RELEASE);
		st->sites -= o->nsites;
		if (lpt_verbose && o->nsites)
			lpt_msg("%s: unloaded; its %zu sites are forgotten",
				o->path, o->nsites);
	}
	return r.err;
}
