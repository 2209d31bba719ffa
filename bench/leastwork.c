// SPDX-License-Identifier: GPL-2.0
/*
 * leastwork: the second yardstick for `linkpass scan` and `check`.
 * readrel (the first) reads the code relocations and the symbols once
 * and does nothing with them.  leastwork does the least work that can
 * still yield the table scan writes, on both cores, with none of the
 * checks linkpass makes:
 *
 *   - thread 1 marks the entry of every named function symbol in a
 *     bitmap over the code's addresses;
 *   - thread 0 reads the relocations of the traced code sections and
 *     keeps each one that names an mcount symbol and sits after an e8
 *     byte (a call: the opcode has to be read, as a reference to
 *     __fentry__ need not be a call), or inside the NOP that
 *     `linkpass nop` writes over such a call (a kernel built with its
 *     NOPs written at link time);
 *   - the calls at a function entry (or after an endbr64) are kept;
 *   - OUT gets as many bytes as scan's table object, 8 bytes and one
 *     Elf64_Rela an entry, written 128 KiB at a time into a temporary
 *     file renamed over OUT.  The bytes are not a valid object: this is
 *     the cost of writing the table, not a second writer of it.
 *
 * -c also reads every code byte once with SSE2 compares, counting the
 * 16-byte blocks with an e8, e9 or 0f byte: the read that scan's
 * stripped-objects check cannot avoid where dead bodies lie close
 * together, as in the bench samples (docs/design.md, "Discarded local
 * symbols"; on a kernel it reads only the objects around them, so -c
 * overstates the least work there).  Each thread reads a share of the
 * code after its own part, so that both read the same number of bytes
 * in all.
 *
 * -t compares the kept calls with the table linked into IMAGE (between
 * __start_mcount_loc and __stop_mcount_loc in a kernel, else the
 * __mcount_loc section), as `check` does, and writes nothing.
 *
 *   leastwork [-c] IMAGE OUT   prints "<entries> <branch blocks>"
 *   leastwork [-c] -t IMAGE    prints "<entries> <branch blocks> <differences>"
 *
 * Only what the bench images and the x86_64 kernels are: ELF64 x86_64
 * executables, Rela, __fentry__ called first thing.  It is a measuring
 * stick, not a tool: on other input it stops with a message, and it
 * never says a table is right or wrong beyond the count of differences.
 * Its entries equal scan's on every bench tree (bench/run.py and
 * bench/scancheck.py check) and on the test samples
 * (tests/test_leastwork.py).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <emmintrin.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CODE_FLAGS (SHF_ALLOC | SHF_EXECINSTR)
#define PIECE (128u << 10)
/* a candidate call with an endbr64 just before it (calls[] holds
 * offsets from the lowest code address, far below 2^63) */
#define AFTER_ENDBR (1ull << 63)

/* linkpass's default traced sections (linkpass/policy.c) */
static const char *const traced[] = {
	".text", ".text.*", ".init.text", ".ref.text", ".sched.text",
	".spinlock.text", ".irqentry.text", ".softirqentry.text",
	".kprobes.text", ".cpuidle.text", NULL,
};

static const char *const mcount_names[] = {
	"__fentry__", "mcount", "_mcount", NULL,
};

struct image {
	const char *path;
	const char *map;
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;
	const Elf64_Sym *syms;
	size_t nsyms, first_global;
	const char *strs;
	uint64_t code_lo, code_hi;	/* the span of all code sections */
	uint64_t *entries;		/* one bit a byte of that span */
	uint32_t mc_lo, mc_hi;		/* mcount symbol indices, [lo, hi] */
	uint32_t mc[3];			/* and each of them (up to three) */
	int nmc;
	uint64_t start, stop;		/* a kernel's __start_mcount_loc and
					 * __stop_mcount_loc, or 0 */
	uint64_t *calls;		/* candidate calls, then kept ones,
					 * as offsets from code_lo */
	size_t ncalls;
	int sweep;			/* -c */
	uint64_t split;			/* code bytes thread 0 reads */
};

/* One thread's share of the -c read: code bytes [from, to) of all. */
struct share {
	const struct image *im;
	uint64_t from, to;
	uint64_t branches;		/* 16-byte blocks with an e8, e9 or
					 * 0f byte */
};

static void die(const struct image *im, const char *what)
{
	fprintf(stderr, "leastwork: %s: %s\n", im->path, what);
	exit(2);
}

static int inside(const struct image *im, uint64_t off, uint64_t len)
{
	return off <= im->size && len <= im->size - off;
}

static const void *section_bytes(const struct image *im,
				 const Elf64_Shdr *s)
{
	if (!inside(im, s->sh_offset, s->sh_size))
		die(im, "a section lies outside the file");
	return im->map + s->sh_offset;
}

static int is_traced(const char *name)
{
	int i;

	for (i = 0; traced[i]; i++)
		if (!fnmatch(traced[i], name, 0))
			return 1;
	return 0;
}

static int is_code(const Elf64_Shdr *s)
{
	return s->sh_type == SHT_PROGBITS &&
	       (s->sh_flags & CODE_FLAGS) == CODE_FLAGS;
}

static void open_image(struct image *im, const char *path)
{
	struct stat st;
	unsigned int i;
	int fd;

	memset(im, 0, sizeof(*im));
	im->path = path;
	im->code_lo = UINT64_MAX;
	im->mc_lo = 1;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		die(im, strerror(errno));
	im->size = (size_t)st.st_size;
	im->map = mmap(NULL, im->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (im->map == MAP_FAILED)
		die(im, strerror(errno));
	im->eh = (const Elf64_Ehdr *)im->map;
	if (im->size < sizeof(*im->eh) ||
	    memcmp(im->eh->e_ident, ELFMAG, SELFMAG) ||
	    im->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    im->eh->e_machine != EM_X86_64 ||
	    !inside(im, im->eh->e_shoff,
		    (uint64_t)im->eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    im->eh->e_shstrndx >= im->eh->e_shnum)
		die(im, "not an ELF64 x86_64 file with section headers");
	im->sh = (const Elf64_Shdr *)(im->map + im->eh->e_shoff);
	im->shstr = section_bytes(im, &im->sh[im->eh->e_shstrndx]);
	for (i = 0; i < im->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &im->sh[i];

		if (s->sh_type == SHT_SYMTAB && s->sh_link < im->eh->e_shnum) {
			im->syms = section_bytes(im, s);
			im->nsyms = s->sh_size / sizeof(Elf64_Sym);
			im->first_global = s->sh_info;
			im->strs = section_bytes(im, &im->sh[s->sh_link]);
		}
		if (is_code(s) && s->sh_size) {
			if (s->sh_addr < im->code_lo)
				im->code_lo = s->sh_addr;
			if (s->sh_addr + s->sh_size > im->code_hi)
				im->code_hi = s->sh_addr + s->sh_size;
		}
	}
	if (!im->syms || im->code_lo >= im->code_hi)
		die(im, "no symbol table or no code");
}

/*
 * The mcount symbols are globals: only the globals' names are read.  So
 * are the table's bounds in a kernel, which has no __mcount_loc section.
 */
static void find_mcount(struct image *im)
{
	size_t i;
	int j;

	for (i = im->first_global; i < im->nsyms; i++) {
		const char *name = im->strs + im->syms[i].st_name;

		if (!im->syms[i].st_name || (name[0] != '_' && name[0] != 'm'))
			continue;
		if (!strcmp(name, "__start_mcount_loc"))
			im->start = im->syms[i].st_value;
		else if (!strcmp(name, "__stop_mcount_loc"))
			im->stop = im->syms[i].st_value;
		for (j = 0; mcount_names[j]; j++) {
			if (strcmp(name, mcount_names[j]) || im->nmc == 3)
				continue;
			im->mc[im->nmc++] = (uint32_t)i;
			if (im->mc_lo > im->mc_hi)
				im->mc_lo = im->mc_hi = (uint32_t)i;
			if (i < im->mc_lo)
				im->mc_lo = (uint32_t)i;
			if (i > im->mc_hi)
				im->mc_hi = (uint32_t)i;
		}
	}
	if (im->mc_lo > im->mc_hi)
		die(im, "no mcount symbol");
}

/* Is code offset @o (from code_lo) a function's entry? */
static int is_entry(const struct image *im, uint64_t o)
{
	return o < im->code_hi - im->code_lo &&
	       (im->entries[o / 64] >> (o % 64) & 1);
}

/* Count the blocks with an e8, e9 or 0f byte in code bytes [from, to). */
static void read_code(struct share *sh)
{
	const struct image *im = sh->im;
	const __m128i e9 = _mm_set1_epi8((char)0xe9);
	const __m128i zf = _mm_set1_epi8(0x0f);
	uint64_t at = 0, start, k, lo, hi;
	unsigned int i;

	for (i = 0; i < im->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &im->sh[i];
		const uint8_t *c;

		if (!is_code(s))
			continue;
		/* this section's part of [from, to), in its own offsets */
		start = at;
		at += s->sh_size;
		lo = sh->from > start ? sh->from : start;
		hi = sh->to < at ? sh->to : at;
		if (lo >= hi)
			continue;
		lo -= start;
		hi -= start;
		c = section_bytes(im, s);
		for (k = lo; k + 16 <= hi; k += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(c + k));
			/* e8 | 1 == e9 */
			unsigned int m = (unsigned int)_mm_movemask_epi8(
				_mm_or_si128(_mm_cmpeq_epi8(
					_mm_or_si128(v, _mm_set1_epi8(1)), e9),
					     _mm_cmpeq_epi8(v, zf)));

			/* a count the compiler cannot drop, and no
			 * popcount call on a CPU without the insn */
			sh->branches += m != 0;
		}
	}
}

/* Thread 1: the entry bitmap, then (-c) its share of the code. */
static void *entries_and_code(void *arg)
{
	struct share *sh = arg;
	struct image *im = (struct image *)sh->im;
	uint64_t span = im->code_hi - im->code_lo;
	size_t i;

	for (i = 1; i < im->nsyms; i++) {
		const Elf64_Sym *s = &im->syms[i];
		uint64_t o = s->st_value - im->code_lo;

		if ((ELF64_ST_TYPE(s->st_info) == STT_FUNC ||
		     ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC) &&
		    s->st_name && o < span)
			im->entries[o / 64] |= 1ull << (o % 64);
	}
	if (im->sweep)
		read_code(sh);
	return NULL;
}

/*
 * How many code bytes thread 0 reads under -c: its relocations and its
 * share of the code make half of all the bytes the two threads read.
 */
static uint64_t code_split(const struct image *im)
{
	uint64_t rel = 0, code = 0, half;
	unsigned int i;

	for (i = 0; i < im->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &im->sh[i];

		if (is_code(s))
			code += s->sh_size;
		else if (s->sh_type == SHT_RELA && !(s->sh_flags & SHF_ALLOC) &&
			 s->sh_info < im->eh->e_shnum &&
			 is_code(&im->sh[s->sh_info]))
			rel += s->sh_size;
	}
	half = (rel + im->nsyms * sizeof(Elf64_Sym) + code) / 2;
	return half > rel ? (half - rel < code ? half - rel : code) : 0;
}

static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
/* x86_nops[5], what `linkpass nop` writes over a call */
static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* Is symbol @sym, inside [mc_lo, mc_hi], an mcount symbol? */
static int is_mcount(const struct image *im, uint64_t sym)
{
	int j;

	for (j = 0; j < im->nmc; j++)
		if (sym == im->mc[j])
			return 1;
	return 0;
}

/* Thread 0: the calls to mcount in traced code, in address order. */
static void find_calls(struct image *im)
{
	size_t cap = 1u << 16, i, k;

	im->calls = malloc(cap * sizeof(*im->calls));
	if (!im->calls)
		die(im, "out of memory");
	for (i = 0; i < im->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &im->sh[i], *t;
		const Elf64_Rela *r;
		const uint8_t *code;
		size_t n;

		if (s->sh_type != SHT_RELA || (s->sh_flags & SHF_ALLOC) ||
		    s->sh_info >= im->eh->e_shnum)
			continue;
		t = &im->sh[s->sh_info];
		if (!is_code(t) || !is_traced(im->shstr + t->sh_name))
			continue;
		r = section_bytes(im, s);
		code = section_bytes(im, t);
		n = s->sh_size / sizeof(*r);
		for (k = 0; k < n; k++) {
			uint64_t sym = ELF64_R_SYM(r[k].r_info);
			uint64_t off = r[k].r_offset - t->sh_addr;

			/* one compare rules out almost every relocation */
			if (sym - im->mc_lo > im->mc_hi - im->mc_lo ||
			    !is_mcount(im, sym) ||
			    off - 1 >= t->sh_size ||
			    (code[off - 1] != 0xe8 &&
			     (t->sh_size - (off - 1) < sizeof(nop5) ||
			      memcmp(code + off - 1, nop5, sizeof(nop5)))))
				continue;
			if (im->ncalls == cap) {
				cap *= 2;
				im->calls = realloc(im->calls,
						    cap * sizeof(*im->calls));
				if (!im->calls)
					die(im, "out of memory");
			}
			im->calls[im->ncalls++] =
				(r[k].r_offset - 1 - im->code_lo) |
				(off >= 5 && !memcmp(code + off - 5, endbr64, 4) ?
				 AFTER_ENDBR : 0);
		}
	}
}

static int before(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Keep the calls at an entry, or after an endbr64 at one. */
static void keep_entries(struct image *im)
{
	size_t i, n = 0;
	int sorted = 1;

	for (i = 0; i < im->ncalls; i++) {
		uint64_t a = im->calls[i] & ~AFTER_ENDBR;

		if (!is_entry(im, a) &&
		    !((im->calls[i] & AFTER_ENDBR) && is_entry(im, a - 4)))
			continue;
		if (n && a < im->calls[n - 1])
			sorted = 0;
		im->calls[n++] = a;
	}
	im->ncalls = n;
	if (!sorted)
		qsort(im->calls, n, sizeof(*im->calls), before);
}

/* OUT: the table's bytes, 128 KiB at a time, then renamed over OUT. */
static void write_table(const struct image *im, const char *out)
{
	static uint8_t piece[PIECE];
	Elf64_Rela *r = (Elf64_Rela *)piece;
	size_t per = PIECE / sizeof(*r), left, k, m, j;
	char tmp[4096];
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp%d", out, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(im, strerror(errno));
	ok = write(fd, piece, sizeof(Elf64_Ehdr)) == sizeof(Elf64_Ehdr);
	for (left = im->ncalls * 8; ok && left; left -= m) {
		m = left < PIECE ? left : PIECE;
		ok = write(fd, piece, m) == (ssize_t)m;
	}
	for (k = 0; ok && k < im->ncalls; k += m) {
		m = im->ncalls - k < per ? im->ncalls - k : per;
		for (j = 0; j < m; j++) {
			r[j].r_offset = (k + j) * 8;
			r[j].r_info = ELF64_R_INFO(1, R_X86_64_64);
			r[j].r_addend = (int64_t)im->calls[k + j];
		}
		ok = write(fd, piece, m * sizeof(*r)) ==
		     (ssize_t)(m * sizeof(*r));
	}
	if (close(fd) < 0 || !ok)
		die(im, "cannot write the table");
	/* as linkpass replaces a target (linkpass/util.c) */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_EXCHANGE) == 0)
		unlink(tmp);
	else if (rename(tmp, out) < 0)
		die(im, strerror(errno));
}

/* The linked table: the bytes between a kernel's bounds, or the section. */
static const uint64_t *linked_table(const struct image *im, size_t *n)
{
	unsigned int i;

	for (i = 0; i < im->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &im->sh[i];

		if (im->start && im->stop >= im->start &&
		    s->sh_type == SHT_PROGBITS && (s->sh_flags & SHF_ALLOC) &&
		    im->start >= s->sh_addr &&
		    im->stop <= s->sh_addr + s->sh_size) {
			*n = (im->stop - im->start) / 8;
			return (const uint64_t *)((const char *)section_bytes(im, s) +
						  (im->start - s->sh_addr));
		}
		if (!im->start && !strcmp(im->shstr + s->sh_name, "__mcount_loc")) {
			*n = s->sh_size / 8;
			return section_bytes(im, s);
		}
	}
	die(im, "no __mcount_loc section");
	return NULL;
}

/* -t: how many kept calls the linked table does not hold in place. */
static size_t compare_table(const struct image *im)
{
	size_t n, i, diff;
	const uint64_t *t = linked_table(im, &n);

	diff = n > im->ncalls ? n - im->ncalls : im->ncalls - n;
	for (i = 0; i < n && i < im->ncalls; i++)
		diff += t[i] != im->code_lo + im->calls[i];
	return diff;
}

int main(int argc, char **argv)
{
	int sweep = 0, table = 0, a = 1;
	struct share share[2];
	uint64_t branches;
	struct image im;
	pthread_t tid;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-c"))
			sweep = 1;
		else if (!strcmp(argv[a], "-t"))
			table = 1;
		else
			break;
	}
	if (argc - a != (table ? 1 : 2)) {
		fprintf(stderr, "usage: leastwork [-c] IMAGE OUT | "
			"leastwork [-c] -t IMAGE\n");
		return 2;
	}
	open_image(&im, argv[a]);
	im.sweep = sweep;
	im.split = code_split(&im);
	share[0] = (struct share){ &im, 0, im.split, 0 };
	share[1] = (struct share){ &im, im.split, UINT64_MAX, 0 };
	find_mcount(&im);
	im.entries = calloc((im.code_hi - im.code_lo) / 64 + 1, 8);
	if (!im.entries)
		die(&im, "out of memory");
	/* no locking: thread 1 writes only the bitmap and its share's
	 * count, which thread 0 reads only after the join */
	if (pthread_create(&tid, NULL, entries_and_code, &share[1]))
		die(&im, "cannot start a thread");
	find_calls(&im);
	if (sweep)
		read_code(&share[0]);
	pthread_join(tid, NULL);
	branches = share[0].branches + share[1].branches;
	keep_entries(&im);
	if (table) {
		printf("%zu %" PRIu64 " %zu\n", im.ncalls, branches,
		       compare_table(&im));
		return 0;
	}
	write_table(&im, argv[a + 1]);
	printf("%zu %" PRIu64 "\n", im.ncalls, branches);
	return 0;
}
