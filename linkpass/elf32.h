/* SPDX-License-Identifier: GPL-2.0 */
/* ELF32 objects (elf32.c): a 64-bit header or symbol narrowed into @out. */
#ifndef LINKPASS_ELF32_H
#define LINKPASS_ELF32_H

#include <elf.h>

void elf32_ehdr(void *out, const Elf64_Ehdr *e);
void elf32_shdr(void *out, const Elf64_Shdr *s);
void elf32_sym(void *out, const Elf64_Sym *s);

#endif
