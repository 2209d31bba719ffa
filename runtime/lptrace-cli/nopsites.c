// SPDX-License-Identifier: GPL-2.0
/*
 * nopsites.c - lptrace nop-sites IMAGE: at link time, write the runtime's
 * NOP over every `call __fentry__` the image's __mcount_loc table lists
 * (scripts/link-vmlinux.sh --nop-sites), for code from any compiler.
 *
 * The runtime then finds every site already in the state it would have
 * put it in at start, and only checks it: no text page is made writable
 * or copied until tracing is first enabled.  The table is not changed.
 *
 * Every site is checked before any is written, with the rule the runtime
 * applies (runtime/arch-x86_64.h): a direct call to the image's own
 * __fentry__ (5 bytes, or the linker's 6-byte `addr32 call`) becomes the
 * single NOP of the same length; our NOP is left as it is; anything else
 * is an error naming the site, and the image is not written at all.
 *
 * The image is written in place: the caller works on a copy (the link
 * script writes a temporary file and renames it).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <stdarg.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../arch-x86_64.h"
#include "cli.h"
#include "mcount-table.h"

struct nimage {
	const char *path;
	int fd;
	Elf *elf;
	size_t shnum;
	size_t shstrndx;
};

struct nsite {
	uint64_t addr;
	uint64_t off;		/* in the file */
	unsigned int len;	/* 0: already our NOP */
};

static int err_msg(const struct nimage *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int err_msg(const struct nimage *im, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lptrace: %s: ", im->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static Elf_Scn *find_section(struct nimage *im, const char *name,
			     GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(im->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(im->elf, im->shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * Value of symbol @name (defined) in .symtab, else .dynsym; or the name
 * of the function covering @addr when @name is NULL.  0 if none.
 */
static uint64_t sym_lookup(struct nimage *im, const char *name,
			   uint64_t addr, const char **found)
{
	static const Elf64_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	unsigned int t;

	for (t = 0; t < 2; t++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(im->elf, scn))) {
			Elf_Data *d;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != types[t] ||
			    !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			n = sh.sh_size / sh.sh_entsize;
			for (i = 1; d && i < n; i++) {
				GElf_Sym s;
				const char *sn;

				if (!gelf_getsym(d, i, &s) || s.st_shndx == SHN_UNDEF)
					continue;
				sn = elf_strptr(im->elf, sh.sh_link, s.st_name);
				if (!sn)
					continue;
				if (name && !strcmp(sn, name))
					return s.st_value;
				if (!name && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
				    addr >= s.st_value &&
				    addr < s.st_value + (s.st_size ? s.st_size : 1)) {
					*found = sn;
					return s.st_value;
				}
			}
		}
	}
	return 0;
}

/*
 * The table's entries.  In a PIE or a library the linker may leave the
 * values to dynamic relocations (lld writes zeros): apply RELATIVE ones,
 * and absolute ones against a symbol the image defines.
 */
static uint64_t *read_table(struct nimage *im, size_t *np)
{
	GElf_Shdr tsh, sh;
	Elf_Scn *scn;
	Elf_Data *d;
	uint64_t *v;
	size_t i, n;

	scn = find_section(im, MCOUNT_SECTION, &tsh);
	if (!scn) {
		err_msg(im, "no " MCOUNT_SECTION " section");
		return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || tsh.sh_type != SHT_PROGBITS || tsh.sh_size % 8 ||
	    d->d_size != tsh.sh_size) {
		err_msg(im, MCOUNT_SECTION ": not a table of 8-byte entries");
		return NULL;
	}
	n = tsh.sh_size / 8;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, d->d_buf, n * 8);
	scn = NULL;
	while ((scn = elf_nextscn(im->elf, scn))) {
		Elf_Data *rd, *symd;
		size_t nr;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_entsize)
			continue;
		rd = elf_getdata(scn, NULL);
		symd = elf_getdata(elf_getscn(im->elf, sh.sh_link), NULL);
		nr = sh.sh_size / sh.sh_entsize;
		for (i = 0; rd && i < nr; i++) {
			GElf_Rela r;
			GElf_Sym s;
			uint64_t k;

			if (!gelf_getrela(rd, i, &r) || r.r_offset < tsh.sh_addr ||
			    r.r_offset >= tsh.sh_addr + tsh.sh_size ||
			    (r.r_offset - tsh.sh_addr) % 8)
				continue;
			k = (r.r_offset - tsh.sh_addr) / 8;
			if (GELF_R_TYPE(r.r_info) == R_X86_64_RELATIVE)
				v[k] = r.r_addend;
			else if (GELF_R_TYPE(r.r_info) == R_X86_64_64 && symd &&
				 gelf_getsym(symd, GELF_R_SYM(r.r_info), &s) &&
				 s.st_shndx != SHN_UNDEF)
				v[k] = s.st_value + r.r_addend;
		}
	}
	*np = n;
	return v;
}

/* File offset of [addr, addr + len) in an executable section; 0 if none. */
static int code_offset(struct nimage *im, uint64_t addr, uint64_t *off,
		       size_t *avail)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(im->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || addr < sh.sh_addr ||
		    addr >= sh.sh_addr + sh.sh_size)
			continue;
		*off = sh.sh_offset + (addr - sh.sh_addr);
		*avail = sh.sh_addr + sh.sh_size - addr;
		return 0;
	}
	return -1;
}

/* Check one site; 0 (*s filled) or -1 with the reason told. */
static int check_site(struct nimage *im, uint64_t addr, uint64_t fentry,
		      struct nsite *s)
{
	uint8_t bytes[LPT_SITE_MAX] = { 0 };
	const char *fn = "?";
	char hex[3 * LPT_SITE_MAX + 1] = "";
	size_t avail, i;
	uint64_t start;
	unsigned int len;

	s->addr = addr;
	if (code_offset(im, addr, &s->off, &avail))
		return err_msg(im, "site %#llx: not in an executable section",
			       (unsigned long long)addr);
	if (avail > LPT_SITE_MAX)
		avail = LPT_SITE_MAX;
	if (pread(im->fd, bytes, avail, s->off) != (ssize_t)avail)
		return err_msg(im, "site %#llx: read: %s",
			       (unsigned long long)addr, strerror(errno));
	len = lpt_match_call(bytes, addr, fentry);
	if (len && len <= avail) {
		s->len = len;
		return 0;
	}
	len = lpt_match_nop(bytes);
	if (len && len <= avail) {
		s->len = 0;
		return 0;
	}
	start = sym_lookup(im, NULL, addr, &fn);
	for (i = 0; i < avail; i++)
		sprintf(hex + 3 * i, "%02x ", bytes[i]);
	if (avail)
		hex[3 * avail - 1] = '\0';
	return err_msg(im, "site %#llx (%s+0x%llx): holds %s, expected call __fentry__; image not written",
		       (unsigned long long)addr, fn,
		       (unsigned long long)(start ? addr - start : 0), hex);
}

static int nop_sites(struct nimage *im, int verbose)
{
	size_t i, n = 0, k = 0, nbad = 0, already = 0;
	struct nsite *v;
	uint64_t *addrs, fentry;
	int err = -1;

	addrs = read_table(im, &n);
	if (!addrs)
		return -1;
	fentry = sym_lookup(im, "__fentry__", 0, NULL);
	if (!fentry) {
		err_msg(im, "defines no __fentry__: its sites cannot be checked");
		goto out_free_addrs;
	}
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		goto out_free_addrs;
	/* Check all, then write: a refused site leaves the image as it was. */
	for (i = 0; i < n; i++) {
		if (!addrs[i])		/* a dead entry zeroed by the linker step */
			continue;
		if (check_site(im, addrs[i], fentry, &v[k]))
			nbad++;
		else if (!v[k].len)
			already++;
		else
			k++;
	}
	if (nbad) {
		err_msg(im, "%zu sites refused", nbad);
		goto out_free_v;
	}
	for (i = 0; i < k; i++) {
		if (pwrite(im->fd, lpt_nop_bytes(v[i].len), v[i].len,
			   v[i].off) != (ssize_t)v[i].len) {
			err_msg(im, "site %#llx: write: %s",
				(unsigned long long)v[i].addr, strerror(errno));
			goto out_free_v;
		}
	}
	if (verbose)
		printf("lptrace: %s: %zu sites: %zu nopped, %zu already nop\n",
		       im->path, k + already, k, already);
	err = 0;
out_free_v:
	free(v);
out_free_addrs:
	free(addrs);
	return err;
}

int cmd_nop_sites(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct nimage im = { 0 };
	GElf_Ehdr eh;
	int c, verbose = 0, err;

	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		if (c != 'v')
			return 2;
		verbose = 1;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: lptrace nop-sites [-v] IMAGE\n");
		return 2;
	}
	im.path = argv[optind];
	elf_version(EV_CURRENT);
	im.fd = open(im.path, O_RDWR | O_CLOEXEC);
	if (im.fd < 0) {
		fprintf(stderr, "lptrace: %s: open: %s\n", im.path,
			strerror(errno));
		return 1;
	}
	err = -1;
	im.elf = elf_begin(im.fd, ELF_C_READ, NULL);
	if (!im.elf || elf_kind(im.elf) != ELF_K_ELF ||
	    gelf_getclass(im.elf) != ELFCLASS64 ||
	    elf_getshdrnum(im.elf, &im.shnum) ||
	    elf_getshdrstrndx(im.elf, &im.shstrndx)) {
		err_msg(&im, "not a 64-bit ELF image (%s)", elf_errmsg(-1));
		goto out_close;
	}
	if (!gelf_getehdr(im.elf, &eh) || eh.e_machine != EM_X86_64) {
		err_msg(&im, "not an x86-64 image: its sites are not ours to rewrite");
		goto out_close;
	}
	err = nop_sites(&im, verbose);
out_close:
	if (im.elf)
		elf_end(im.elf);
	if (close(im.fd) && !err)
		err = err_msg(&im, "close: %s", strerror(errno));
	return err ? 1 : 0;
}
