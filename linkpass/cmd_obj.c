// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass obj: the per-object mode, as recordmcount does it.  Each
 * relocatable object gets its own __mcount_loc section listing the call
 * sites of its traced functions, section-relative, with relocations
 * against a symbol that survives linking: the section's own STT_SECTION
 * symbol, else a non-weak symbol defined in that section (a weak one
 * could be replaced by another object's definition).  This is also the
 * mode for loadable modules, whose .ko is one relocatable object.
 *
 * The object is rewritten atomically: a copy next to it gets the new
 * sections through libelf, then replaces it.  An object that already
 * has __mcount_loc is left alone, so a second run never doubles it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "table_write.h"
#include "util.h"

/* One table entry: relocation symbol index and addend. */
struct obj_entry {
	uint32_t sym;
	int64_t addend;
};

static bool survives_link(const struct symbol *s, size_t shndx)
{
	if (s->shndx != shndx || s->bind == STB_WEAK)
		return false;
	return s->type == STT_SECTION || s->type == STT_FUNC ||
	       s->type == STT_NOTYPE || s->type == STT_OBJECT;
}

/* The symbol index entries of section @shndx are relocated against. */
static long reloc_symbol(const struct image *im, size_t shndx)
{
	long best = -1;
	size_t i;

	for (i = 1; i < im->nsyms; i++) {
		const struct symbol *s = &im->syms[i];

		if (!survives_link(s, shndx))
			continue;
		if (s->type == STT_SECTION)
			return (long)i;
		if (best < 0 || s->value < im->syms[best].value)
			best = (long)i;
	}
	return best;
}

static int plan_entries(struct image *im, const struct scan_result *r,
			struct obj_entry *e)
{
	long *sym_of = xcalloc(im->nsecs, sizeof(*sym_of));
	int ret = 0;
	size_t i;

	for (i = 0; i < im->nsecs; i++)
		sym_of[i] = -2;	/* not looked up yet */
	for (i = 0; i < r->nkept; i++) {
		uint32_t sh = r->kept[i].shndx;

		if (sym_of[sh] == -2)
			sym_of[sh] = reloc_symbol(im, sh);
		if (sym_of[sh] < 0) {
			ret = lp_error(im->path, im->secs[sh].name,
				       "no section symbol or non-weak symbol to relocate table entries against");
			break;
		}
		e[i].sym = (uint32_t)sym_of[sh];
		e[i].addend = (int64_t)(r->kept[i].addr -
					im->syms[sym_of[sh]].value);
	}
	free(sym_of);
	return ret;
}

static int copy_file(int from, int to, const char *path)
{
	char buf[1 << 16];
	ssize_t n;

	if (lseek(from, 0, SEEK_SET) < 0)
		return lp_error(path, "copy", "seek: %s", strerror(errno));
	while ((n = read(from, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (n > 0) {
			ssize_t w = write(to, p, (size_t)n);

			if (w < 0)
				return lp_error(path, "copy", "write: %s",
						strerror(errno));
			p += w;
			n -= w;
		}
	}
	return n < 0 ? lp_error(path, "copy", "read: %s", strerror(errno)) : 0;
}

/*
 * Append @name to the section name table of @e; returns its offset or
 * -1.  The new buffer is handed back in *@keep for the caller to free
 * after elf_end().
 */
static long add_name(Elf *e, const char *path, const char *name, char **keep)
{
	size_t shstrndx, len = strlen(name) + 1;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;
	char *buf;
	long at;

	if (elf_getshdrstrndx(e, &shstrndx) < 0 ||
	    !(scn = elf_getscn(e, shstrndx)) || !gelf_getshdr(scn, &sh) ||
	    !(d = elf_getdata(scn, NULL)))
		return lp_elf_error(path, "section name table", "cannot read");
	buf = xmalloc(d->d_size + len);
	memcpy(buf, d->d_buf, d->d_size);
	memcpy(buf + d->d_size, name, len);
	at = (long)d->d_size;
	free(*keep);
	*keep = buf;
	d->d_buf = buf;
	d->d_size += len;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	return at;
}

static int write_table(struct image *im, const struct scan_result *r,
		       const struct obj_entry *ent, struct outfile *of)
{
	const struct arch *arch = im->arch;
	bool is64 = arch->elfclass == ELFCLASS64;
	bool pic = false;
	size_t relsize, i, symidx = im->symtab->idx;
	char *names = NULL;
	void *table, *relocs;
	long name_tab, name_rel;
	Elf_Scn *tscn;
	GElf_Shdr sh;
	Elf *e;
	int ret = -1;

	relsize = is64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rel);
	table = xcalloc(r->nkept ? r->nkept : 1, arch->addr_size);
	relocs = xcalloc(r->nkept ? r->nkept : 1, relsize);
	for (i = 0; i < r->nkept; i++) {
		uint64_t where = i * arch->addr_size;

		/* code that calls through the GOT is position-independent */
		if (r->kept[i].form == CALL_GOT || r->kept[i].form == CALL_ADDR32)
			pic = true;
		if (is64) {
			Elf64_Rela rel = { .r_offset = where,
					   .r_info = ELF64_R_INFO(ent[i].sym, arch->abs_reloc),
					   .r_addend = ent[i].addend };

			memcpy((char *)relocs + i * relsize, &rel, relsize);
		} else {
			Elf32_Rel rel = { .r_offset = (Elf32_Addr)where,
					  .r_info = ELF32_R_INFO(ent[i].sym, arch->abs_reloc) };
			int32_t v = (int32_t)ent[i].addend;

			memcpy((char *)relocs + i * relsize, &rel, relsize);
			memcpy((char *)table + where, &v, sizeof(v));
		}
	}

	e = elf_begin(of->fd, ELF_C_RDWR, NULL);
	if (!e) {
		lp_elf_error(im->path, "copy", "cannot reopen it");
		goto out_free;
	}
	name_tab = add_name(e, im->path, MCOUNT_SECTION, &names);
	name_rel = name_tab < 0 ? -1 :
		   add_name(e, im->path, arch->rela ? ".rela" MCOUNT_SECTION :
			    ".rel" MCOUNT_SECTION, &names);
	if (name_rel < 0)
		goto out_end;

	memset(&sh, 0, sizeof(sh));
	sh.sh_name = (uint32_t)name_tab;
	sh.sh_type = SHT_PROGBITS;
	/* a PIC object's entries become dynamic relocations: keep them
	 * out of read-only data */
	sh.sh_flags = SHF_ALLOC | (pic ? SHF_WRITE : 0);
	sh.sh_entsize = arch->addr_size;
	tscn = table_add_section(e, im->path, &sh, table, r->nkept * arch->addr_size,
			   arch->addr_size);
	if (!tscn)
		goto out_end;

	memset(&sh, 0, sizeof(sh));
	sh.sh_name = (uint32_t)name_rel;
	sh.sh_type = arch->rela ? SHT_RELA : SHT_REL;
	sh.sh_flags = SHF_INFO_LINK;
	sh.sh_link = (uint32_t)symidx;
	sh.sh_info = (uint32_t)elf_ndxscn(tscn);
	sh.sh_entsize = relsize;
	if (!table_add_section(e, im->path, &sh, relocs, r->nkept * relsize,
			 arch->addr_size))
		goto out_end;
	if (elf_update(e, ELF_C_WRITE) < 0) {
		lp_elf_error(im->path, MCOUNT_SECTION, "cannot write the object");
		goto out_end;
	}
	ret = 0;
out_end:
	elf_end(e);
out_free:
	free(names);
	free(table);
	free(relocs);
	return ret;
}

/*
 * libelf lays the rewritten object out again, padding each section to
 * its alignment: a corrupt sh_addralign of 2^36 would have it write
 * 64 GiB of zeros.  Alignments must be powers of two (the ELF rule) and
 * at most MAX_REWRITE_ALIGN, far above what compilers emit (the
 * kernel's largest is 2 MiB).
 */
#define MAX_REWRITE_ALIGN (16u << 20)

static int check_alignments(const struct image *im)
{
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		uint64_t a = im->secs[i].sh.sh_addralign;

		if ((a & (a - 1)) || a > MAX_REWRITE_ALIGN)
			return lp_error(im->path, im->secs[i].name,
					"sh_addralign 0x%llx is not a power of two up to 0x%x, so the object cannot be rewritten",
					(unsigned long long)a, MAX_REWRITE_ALIGN);
	}
	return 0;
}

static int process(struct options *o, const char *path)
{
	struct obj_entry *ent = NULL;
	struct scan_result r;
	struct outfile of;
	struct image im;
	struct stat st;
	int ret = -1;

	if (image_open(&im, path, IMAGE_OBJECT) < 0)
		goto out_close;
	if (image_find_section(&im, MCOUNT_SECTION)) {
		/* a second run, or a compiler-made table: never double it */
		fprintf(stderr, "linkpass: %s: %s: already present; object left unchanged\n",
			path, MCOUNT_SECTION);
		ret = 0;
		goto out_close;
	}
	if (check_alignments(&im) < 0)
		goto out_close;
	if (!im.symtab) {
		lp_error(path, ".symtab", "the object has no symbol table");
		goto out_close;
	}
	if (scan_image(&im, &o->scan, &r) < 0)
		goto out_close;
	ent = xcalloc(r.nkept ? r.nkept : 1, sizeof(*ent));
	if (plan_entries(&im, &r, ent) < 0)
		goto out_free_scan;
	if (!r.nkept) {
		ret = 0;	/* nothing traced: leave the object as it is */
		goto out_free_scan;
	}
	if (fstat(im.fd, &st) < 0) {
		lp_error(path, "stat", "%s", strerror(errno));
		goto out_free_scan;
	}
	if (out_open(&of, path) < 0)
		goto out_free_scan;
	of.no_sync = true;
	fchmod(of.fd, st.st_mode & 07777);
	if (copy_file(im.fd, of.fd, path) < 0 ||
	    write_table(&im, &r, ent, &of) < 0) {
		out_abort(&of);
		goto out_free_scan;
	}
	ret = out_commit(&of);
	if (!ret && o->stats)
		printf("linkpass obj %s: %zu entries (%zu references, %zu dropped)\n",
		       path, r.nkept, r.stats.refs, r.ndropped);
out_free_scan:
	free(ent);
	scan_result_free(&r);
out_close:
	image_close(&im);
	return ret;
}

int cmd_obj(struct options *o)
{
	int i, failed = 0;

	/* every object is tried; all failures are reported */
	for (i = 0; i < o->nfiles; i++)
		if (process(o, o->files[i]) < 0)
			failed++;
	return failed ? EXIT_ERROR : EXIT_OK;
}
