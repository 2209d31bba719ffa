// SPDX-License-Identifier: GPL-2.0
/*
 * ELF32 objects, for i386: elfwrite.c makes every header and symbol 64
 * bits wide; these narrow them for a 32-bit class.
 */
#include "elf32.h"

#include <string.h>

void elf32_ehdr(void *out, const Elf64_Ehdr *e)
{
	Elf32_Ehdr h = {
		.e_type = e->e_type, .e_machine = e->e_machine,
		.e_version = e->e_version, .e_shoff = (Elf32_Off)e->e_shoff,
		.e_flags = e->e_flags,
		.e_ehsize = sizeof(h), .e_shentsize = sizeof(Elf32_Shdr),
		.e_shnum = e->e_shnum, .e_shstrndx = e->e_shstrndx,
	};

	memcpy(h.e_ident, e->e_ident, EI_NIDENT);
	memcpy(out, &h, sizeof(h));
}

void elf32_shdr(void *out, const Elf64_Shdr *g)
{
	Elf32_Shdr s = {
		g->sh_name, g->sh_type, (Elf32_Word)g->sh_flags,
		(Elf32_Addr)g->sh_addr, (Elf32_Off)g->sh_offset,
		(Elf32_Word)g->sh_size, g->sh_link, g->sh_info,
		(Elf32_Word)g->sh_addralign, (Elf32_Word)g->sh_entsize,
	};

	memcpy(out, &s, sizeof(s));
}

void elf32_sym(void *out, const Elf64_Sym *e)
{
	Elf32_Sym s = { .st_name = e->st_name, .st_info = e->st_info,
			.st_other = e->st_other, .st_shndx = e->st_shndx };

	memcpy(out, &s, sizeof(s));
}
