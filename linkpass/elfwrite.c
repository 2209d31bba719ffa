// SPDX-License-Identifier: GPL-2.0
/* Writing ELF objects: new ones laid out here, copies through libelf. */
#include "elfwrite.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf32.h"
#include "mcount-table.h"

static size_t strbuf_add(struct strbuf *b, const char *s)
{
	size_t n = strlen(s) + 1, at = b->len;

	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return at;
}

static void strbuf_free(struct strbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static bool is64(const struct elfw *w)
{
	return w->arch->elfclass == ELFCLASS64;
}

int elfw_new(struct elfw *w, const char *path, const struct arch *arch,
	     uint8_t osabi)
{
	memset(w, 0, sizeof(*w));
	w->path = path;
	w->arch = arch;
	w->osabi = osabi;
	w->cap = 8;
	w->secs = xcalloc(w->cap, sizeof(*w->secs));
	w->nsecs = 1;		/* the null section */
	strbuf_add(&w->shstrtab, "");
	if (out_open(&w->of, path) < 0) {
		free(w->secs);
		strbuf_free(&w->shstrtab);
		return -1;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t n, const char *path)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t wr = write(fd, p, n);

		if (wr < 0 && errno == EINTR)
			continue;
		if (wr < 0)
			return lp_error(path, "write", "%s", strerror(errno));
		p += wr;
		n -= (size_t)wr;
	}
	return 0;
}

static int copy_file(int from, int to, const char *path)
{
	char buf[1 << 16];
	ssize_t n;

	if (lseek(from, 0, SEEK_SET) < 0)
		return lp_error(path, "copy", "seek: %s", strerror(errno));
	while ((n = read(from, buf, sizeof(buf))) > 0)
		if (write_all(to, buf, (size_t)n, path) < 0)
			return -1;
	return n < 0 ? lp_error(path, "copy", "read: %s", strerror(errno)) : 0;
}

/* A copy of @im's file next to it, with its mode, to replace it. */
static int copy_of(struct elfw *w, struct image *im)
{
	struct stat st;

	memset(w, 0, sizeof(*w));
	w->path = im->path;
	w->arch = im->arch;
	w->size = im->file_size;
	if (fstat(im->fd, &st) < 0)
		return lp_error(im->path, "stat", "%s", strerror(errno));
	if (out_open(&w->of, im->path) < 0)
		return -1;
	fchmod(w->of.fd, st.st_mode & 07777);
	if (copy_file(im->fd, w->of.fd, im->path) < 0) {
		out_abort(&w->of);
		return -1;
	}
	return 0;
}

int elfw_rewrite(struct elfw *w, struct image *im)
{
	if (copy_of(w, im) < 0)
		return -1;
	w->elf = elf_begin(w->of.fd, ELF_C_RDWR, NULL);
	if (!w->elf) {
		lp_elf_error(im->path, "copy", "cannot reopen it");
		out_abort(&w->of);
		return -1;
	}
	return 0;
}

int elfw_patch(struct elfw *w, struct image *im)
{
	if (copy_of(w, im) < 0)
		return -1;
	w->patching = true;
	return 0;
}

int elfw_put(struct elfw *w, uint64_t off, const void *bytes, size_t n)
{
	ssize_t wr;

	if (!w->patching || off > w->size || n > w->size - off)
		return lp_error(w->path, "write",
				"%zu bytes at file offset 0x%llx are not in the file",
				n, (unsigned long long)off);
	wr = pwrite(w->of.fd, bytes, n, (off_t)off);
	if (wr != (ssize_t)n)
		return lp_error(w->path, "write", "%s",
				wr < 0 ? strerror(errno) : "short write");
	return 0;
}

/*
 * Append @name to the section-name table of the copy; returns its
 * offset or -1.  The table's new buffer is kept in w->names until the
 * end, as libelf points at it.
 */
static long rewrite_add_name(struct elfw *w, const char *name)
{
	size_t shstrndx, len = strlen(name) + 1;
	Elf_Scn *scn;
	Elf_Data *d;
	char *buf;
	long at;

	scn = elf_getshdrstrndx(w->elf, &shstrndx) < 0 ? NULL :
	      elf_getscn(w->elf, shstrndx);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d)
		return lp_elf_error(w->path, "section name table", "cannot read");
	buf = xmalloc(d->d_size + len);
	memcpy(buf, d->d_buf, d->d_size);
	memcpy(buf + d->d_size, name, len);
	at = (long)d->d_size;
	free(w->names);
	w->names = buf;
	d->d_buf = buf;
	d->d_size += len;
	elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	return at;
}

static size_t rewrite_add_section(struct elfw *w, const char *name,
				  const GElf_Shdr *tmpl, const void *buf,
				  size_t size, size_t align)
{
	long at = rewrite_add_name(w, name);
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;

	if (at < 0)
		return 0;
	scn = elf_newscn(w->elf);
	d = scn ? elf_newdata(scn) : NULL;
	if (!d) {
		lp_elf_error(w->path, "new section", "cannot add the section");
		return 0;
	}
	d->d_buf = (void *)buf;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = align;
	d->d_version = EV_CURRENT;
	sh = *tmpl;
	sh.sh_name = (uint32_t)at;
	sh.sh_size = size;
	sh.sh_addralign = align;
	if (!gelf_update_shdr(scn, &sh)) {
		lp_elf_error(w->path, "new section", "cannot update the section header");
		return 0;
	}
	return elf_ndxscn(scn);
}

size_t elfw_add_section(struct elfw *w, const char *name,
			const GElf_Shdr *tmpl, const void *buf, size_t size,
			size_t align)
{
	struct elfw_sec *s;

	if (w->elf)
		return rewrite_add_section(w, name, tmpl, buf, size, align);
	if (w->nsecs == w->cap) {
		w->cap *= 2;
		w->secs = xrealloc(w->secs, w->cap * sizeof(*w->secs));
	}
	s = &w->secs[w->nsecs];
	s->sh = *tmpl;
	s->sh.sh_name = (uint32_t)strbuf_add(&w->shstrtab, name);
	s->sh.sh_size = size;
	s->sh.sh_addralign = align;
	s->buf = buf;
	return w->nsecs++;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Place each section at its alignment after the header; returns e_shoff. */
static uint64_t layout(struct elfw *w)
{
	uint64_t off = is64(w) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t i;

	for (i = 1; i < w->nsecs; i++) {
		GElf_Shdr *sh = &w->secs[i].sh;

		off = align_up(off, sh->sh_addralign);
		sh->sh_offset = off;
		off += sh->sh_size;
	}
	return align_up(off, is64(w) ? 8 : 4);
}

/* The headers: a 64-bit one is the GElf one, a 32-bit one narrowed. */
static void put_ehdr(const struct elfw *w, uint8_t *out, uint64_t shoff)
{
	GElf_Ehdr e = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
			     w->arch->elfclass, ELFDATA2LSB, EV_CURRENT,
			     w->osabi },
		.e_type = ET_REL, .e_machine = w->arch->machine,
		.e_version = EV_CURRENT, .e_shoff = shoff,
		.e_flags = w->e_flags,
		.e_ehsize = sizeof(Elf64_Ehdr), .e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = (uint16_t)w->nsecs,
		.e_shstrndx = (uint16_t)(w->nsecs - 1),
	};

	if (is64(w))
		memcpy(out, &e, sizeof(e));
	else
		elf32_ehdr(out, &e);
}

static void put_shdr(const struct elfw *w, uint8_t *out, const GElf_Shdr *g)
{
	if (is64(w))
		memcpy(out, g, sizeof(*g));
	else
		elf32_shdr(out, g);
}

/*
 * A new object: the name table last, laid out, then written in file
 * order: the header, each section after its alignment padding, the
 * section headers.
 */
static int commit_new(struct elfw *w)
{
	static const uint8_t zeros[64];
	GElf_Shdr sh = { .sh_type = SHT_STRTAB };
	size_t ehsize = is64(w) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t shentsize = is64(w) ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint8_t *head, *shdrs;
	uint64_t shoff, at;
	size_t i;
	int ret;

	elfw_add_section(w, ".shstrtab", &sh, NULL, 0, 1);
	w->secs[w->nsecs - 1].buf = w->shstrtab.p;
	w->secs[w->nsecs - 1].sh.sh_size = w->shstrtab.len;
	shoff = layout(w);
	head = xcalloc(1, ehsize);
	shdrs = xcalloc(w->nsecs, shentsize);
	put_ehdr(w, head, shoff);
	ret = write_all(w->of.fd, head, ehsize, w->path);
	at = ehsize;
	for (i = 0; i < w->nsecs; i++) {
		const struct elfw_sec *s = &w->secs[i];

		put_shdr(w, shdrs + i * shentsize, &s->sh);
		if (!i || !s->sh.sh_size || ret)
			continue;
		if (s->sh.sh_offset - at > sizeof(zeros))
			ret = lp_error(w->path, "layout", "alignment %llu too large",
				       (unsigned long long)s->sh.sh_addralign);
		else
			ret = write_all(w->of.fd, zeros, s->sh.sh_offset - at,
					w->path);
		if (!ret)
			ret = s->write ? s->write(w, s) :
			      write_all(w->of.fd, s->buf, s->sh.sh_size, w->path);
		at = s->sh.sh_offset + s->sh.sh_size;
	}
	if (!ret)
		ret = write_all(w->of.fd, zeros, shoff - at, w->path);
	if (!ret)
		ret = write_all(w->of.fd, shdrs, w->nsecs * shentsize, w->path);
	free(shdrs);
	free(head);
	return ret;
}

int elfw_commit(struct elfw *w)
{
	int ret = 0;

	if (w->elf) {
		/*
		 * Mark the whole file dirty: libelf 0.188 otherwise may write
		 * the section headers from the array it read, sized for the
		 * old count, past its end (found by fuzz/fuzz_obj.c).
		 */
		elf_flagelf(w->elf, ELF_C_SET, ELF_F_DIRTY);
		if (elf_update(w->elf, ELF_C_WRITE) < 0)
			ret = lp_elf_error(w->path, MCOUNT_SECTION,
					   "cannot write the object");
		elf_end(w->elf);
		w->elf = NULL;
	} else if (!w->patching) {	/* a patched copy is complete */
		ret = commit_new(w);
	}
	if (!ret)
		ret = out_commit(&w->of);
	elfw_abort(w);		/* frees the rest */
	return ret;
}

void elfw_abort(struct elfw *w)
{
	if (w->elf)
		elf_end(w->elf);
	out_abort(&w->of);
	free(w->names);
	free(w->secs);
	strbuf_free(&w->shstrtab);
	w->elf = NULL;
	w->names = NULL;
	w->secs = NULL;
}

void elfw_syms_init(struct elfw_syms *s, uint8_t elfclass)
{
	memset(s, 0, sizeof(*s));
	s->elfclass = elfclass;
	strbuf_add(&s->str, "");
	elfw_sym_add(s, NULL, 0, STV_DEFAULT, SHN_UNDEF);
}

size_t elfw_sym_add(struct elfw_syms *s, const char *name, uint8_t info,
		    uint8_t other, uint16_t shndx)
{
	size_t size = s->elfclass == ELFCLASS64 ? sizeof(Elf64_Sym) :
			sizeof(Elf32_Sym);
	Elf64_Sym e = { .st_info = info, .st_other = other, .st_shndx = shndx };
	char *p;

	e.st_name = name ? (uint32_t)strbuf_add(&s->str, name) : 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->buf = xrealloc(s->buf, s->cap * size);
	}
	p = (char *)s->buf + s->n * size;
	if (s->elfclass == ELFCLASS64)
		memcpy(p, &e, sizeof(e));
	else
		elf32_sym(p, &e);
	return s->n++;
}

void elfw_syms_free(struct elfw_syms *s)
{
	free(s->buf);
	strbuf_free(&s->str);
	memset(s, 0, sizeof(*s));
}

size_t elfw_add_symtab(struct elfw *w, struct elfw_syms *s,
		       size_t first_global)
{
	size_t size = s->elfclass == ELFCLASS64 ? sizeof(Elf64_Sym) :
			sizeof(Elf32_Sym);
	GElf_Shdr sh = {
		.sh_type = SHT_SYMTAB,
		.sh_info = (uint32_t)first_global,
		.sh_entsize = size,
	};
	size_t idx = elfw_add_section(w, ".symtab", &sh, s->buf, s->n * size,
				      w->arch->addr_size);
	GElf_Shdr str = { .sh_type = SHT_STRTAB };
	size_t stridx = elfw_add_section(w, ".strtab", &str, s->str.p,
					 s->str.len, 1);

	if (!idx || !stridx)
		return 0;
	w->secs[idx].sh.sh_link = (uint32_t)stridx;
	return idx;
}

void addr_table_init(struct addr_table *t, const struct arch *arch, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->layout = reloc_layout_pick(arch->elfclass, arch->rela);
	t->width = arch->addr_size;
	t->type = arch->abs_reloc;
	t->bytes_size = n * t->width;
	t->relocs_size = n * reloc_entsize(t->layout);
	t->bytes = xcalloc(1, t->bytes_size);
	/* every entry is written by addr_table_put() */
	t->relocs = xmalloc(t->relocs_size ? t->relocs_size : 1);
}

void addr_table_put(struct addr_table *t, size_t i, uint64_t sym,
		    int64_t addend)
{
	addr_reloc_put(t->layout, t->width, t->type, t->relocs, i, i, sym,
		       addend);
	addr_value_put(t->layout, t->width, t->bytes, i, addend);
}

void addr_table_free(struct addr_table *t)
{
	free(t->bytes);
	free(t->relocs);
	memset(t, 0, sizeof(*t));
}
