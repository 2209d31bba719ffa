/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scripts/linkpass: the ftrace call-site table (__mcount_loc) of a linked
 * vmlinux or module, made from what the link produced.
 *
 * One struct image owns a file: its mapping, section headers, symbols and
 * function index.  The passes take it: sites_find() lists the call sites,
 * emit_*() writes them as assembler for the next link, check_image()
 * audits a linked table against the image's bytes, nop_sites() writes the
 * ftrace NOPs in place.
 */
#ifndef LINKPASS_H
#define LINKPASS_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define MCOUNT_SECTION		"__mcount_loc"
#define PATCHABLE_SECTION	"__patchable_function_entries"
#define TABLE_START		"__start_mcount_loc"
#define TABLE_STOP		"__stop_mcount_loc"

/* What the rules of sections.c say about code in an output section. */
enum section_rule {
	SEC_OTHER,	/* not code, or code the rules do not know */
	SEC_TRACED,	/* its functions' sites go into the table */
	SEC_UNTRACED,	/* its functions are never traced */
};

struct arch;

struct section {
	const char *name;
	Elf64_Shdr sh;
	const uint8_t *data;	/* NULL for SHT_NOBITS */
	enum section_rule rule;
	struct section *rela;	/* the SHT_RELA section applying to it */
};

struct symbol {
	const char *name;
	uint64_t value;
	uint64_t size;
	uint32_t shndx;
	uint8_t type;
	uint8_t bind;
};

/* A function: the widest, best-named symbol of its start address. */
struct func {
	uint32_t shndx;
	uint64_t start;
	uint64_t end;
	const struct symbol *sym;
};

/*
 * A call site: its section and address (a relocatable object's addresses
 * are offsets in their section), its function, and for a call the file
 * offset of the relocation that names the callee (0: none).
 */
struct site {
	uint32_t shndx;
	uint64_t addr;
	const struct func *fn;
	size_t rela;
};

/* The pad geometry of -fpatchable-function-entry=N,M (N = 0: calls). */
struct pad {
	unsigned int n;
	unsigned int m;
};

struct image {
	const char *path;
	int fd;
	uint8_t *map;
	size_t size;
	Elf64_Ehdr eh;
	bool rel;		/* ET_REL: a module; else a linked vmlinux */
	const struct arch *arch;
	struct section *secs;
	size_t nsecs;
	struct symbol *syms;
	size_t nsyms;
	struct func *funcs;	/* sorted by (shndx, start), no aliases */
	size_t nfuncs;
	struct pad pad;
	const struct symbol *caller;	/* ftrace_caller; NULL in a module */
};

/* One relocation, read from its section by rela_get(). */
struct reloc {
	uint64_t offset;
	uint32_t type;
	uint32_t sym;
	int64_t addend;
};

/* elf.c */
int error(const struct image *im, const char *place, const char *fmt, ...);
int image_open(struct image *im, const char *path, bool writable);
void image_close(struct image *im);
struct section *image_section(const struct image *im, const char *name);
struct section *image_section_at(const struct image *im, uint64_t addr);
const uint8_t *image_bytes(const struct image *im, uint32_t shndx,
			   uint64_t addr, uint64_t len);
const struct symbol *image_symbol(const struct image *im, const char *name);
struct section *image_relocs_for(const struct image *im, uint32_t shndx);
int rela_count(const struct image *im, const struct section *rsec,
	       size_t *n);
void rela_get(const struct section *rsec, size_t i, struct reloc *r);
const struct func *func_after(const struct image *im, uint32_t shndx,
			      uint64_t addr);
const struct func *func_from(const struct image *im, uint32_t shndx,
			     uint64_t addr);

/* arch.c: one table per architecture, chosen by e_machine */
struct arch {
	const char *name;
	uint16_t machine;
	uint32_t r_abs64;	/* a table entry's relocation */
	uint32_t r_relative;	/* its dynamic form in a relocatable vmlinux */
	uint32_t r_none;
	const char *mcount;	/* called at each entry, or NULL: pads only */
	/* the call's relocation types and length */
	uint32_t r_call[2];
	unsigned int call_len;
	/* a landing pad at a function's entry (endbr64, bti c): its size */
	unsigned int (*landing_pad)(const uint8_t *p, uint64_t avail);
	/* one nop of a patchable pad at @p: its size, or 0 */
	unsigned int (*pad_nop)(const uint8_t *p, uint64_t avail);
	/*
	 * The bytes ftrace_init_nop() leaves at site @s, for nop.c to write
	 * at link time: their address and length, or 0 where the link cannot
	 * know them.
	 */
	unsigned int (*init_state)(const struct image *im, const struct site *s,
				   uint64_t *addr, uint8_t *buf);
	/* the pad's nops that state replaces (0: all at the entry) */
	unsigned int init_nops;
};

/* The longest state init_state() writes. */
#define INIT_STATE_MAX	8

const struct arch *arch_find(uint16_t machine);
uint64_t func_entry(const struct image *im, const struct func *fn);
bool call_bytes(const struct image *im, uint32_t shndx, uint64_t addr,
		uint64_t target);
bool pad_at(const struct image *im, const struct func *fn, uint64_t *site,
	    bool init);

/* sections.c */
void sections_classify(struct image *im);

/* sites.c */
int sites_find(struct image *im, const char *lists, struct site **out,
	       size_t *n);
int mcount_calls(struct image *im, struct site **out, size_t *n);
int patchable_list(struct image *im, struct site **out, size_t *n);
void sites_sort(const struct image *im, struct site *v, size_t *n);
const struct site *site_find(const struct image *im, const struct site *v,
			     size_t n, uint32_t shndx, uint64_t addr);

/* emit.c */
int emit_vmlinux(struct image *im, const struct site *s, size_t n);
int emit_module(struct image *im, const struct site *s, size_t n);

/* check.c: 0 exact, 1 differences (each reported), -1 error */
int check_image(struct image *im, struct site **table, size_t *n);

/* nop.c */
int nop_sites(struct image *im, const struct site *s, size_t n);

#endif /* LINKPASS_H */
