# Reading and patching a little-endian ELF64 file in memory, for the
# malformed-input corpus and the fuzz seeds.  Only what the corpus needs:
# the header, section headers, section names and .symtab entries.

import struct

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
SHDR = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")

EHDR_FIELDS = ("e_ident", "e_type", "e_machine", "e_version", "e_entry",
               "e_phoff", "e_shoff", "e_flags", "e_ehsize", "e_phentsize",
               "e_phnum", "e_shentsize", "e_shnum", "e_shstrndx")
SHDR_FIELDS = ("sh_name", "sh_type", "sh_flags", "sh_addr", "sh_offset",
               "sh_size", "sh_link", "sh_info", "sh_addralign", "sh_entsize")
SYM_FIELDS = ("st_name", "st_info", "st_other", "st_shndx", "st_value",
              "st_size")
RELA_FIELDS = ("r_offset", "r_info", "r_addend")

SHT_SYMTAB = 2
SHT_RELA = 4
SHT_NOBITS = 8
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_COMPRESSED = 0x800


class Elf:
    """A mutable ELF64 little-endian image: patch fields, then .data."""

    def __init__(self, data):
        self.data = bytearray(data)
        if self.data[:4] != b"\x7fELF" or self.data[4] != 2 or self.data[5] != 1:
            raise ValueError("not a little-endian ELF64 file")

    def copy(self):
        return Elf(bytes(self.data))

    # -- ELF header
    @property
    def ehdr(self):
        return dict(zip(EHDR_FIELDS, EHDR.unpack_from(self.data, 0)))

    def set_ehdr(self, **kw):
        h = self.ehdr
        h.update(kw)
        EHDR.pack_into(self.data, 0, *(h[f] for f in EHDR_FIELDS))

    # -- section headers
    def shdr_offset(self, idx):
        h = self.ehdr
        return h["e_shoff"] + idx * h["e_shentsize"]

    def shdr(self, idx):
        return dict(zip(SHDR_FIELDS,
                        SHDR.unpack_from(self.data, self.shdr_offset(idx))))

    def set_shdr(self, idx, **kw):
        s = self.shdr(idx)
        s.update(kw)
        SHDR.pack_into(self.data, self.shdr_offset(idx),
                       *(s[f] for f in SHDR_FIELDS))

    @property
    def nsecs(self):
        return self.ehdr["e_shnum"]

    def name(self, idx):
        strndx = self.ehdr["e_shstrndx"]
        off = self.shdr(strndx)["sh_offset"] + self.shdr(idx)["sh_name"]
        end = self.data.index(b"\0", off)
        return self.data[off:end].decode()

    def index(self, name):
        for i in range(1, self.nsecs):
            if self.name(i) == name:
                return i
        raise KeyError(name)

    def sections(self):
        """[(index, name, shdr)] for every section but the null one."""
        return [(i, self.name(i), self.shdr(i)) for i in range(1, self.nsecs)]

    def section_bytes(self, idx):
        s = self.shdr(idx)
        return bytes(self.data[s["sh_offset"]:s["sh_offset"] + s["sh_size"]])

    # -- symbols
    def symtab(self):
        for i, _, s in self.sections():
            if s["sh_type"] == SHT_SYMTAB:
                return i
        raise KeyError(".symtab")

    def symbols(self):
        """[(index, name, sym)] of .symtab."""
        st = self.shdr(self.symtab())
        strtab = self.shdr(st["sh_link"])
        out = []
        for k in range(st["sh_size"] // SYM.size):
            sym = dict(zip(SYM_FIELDS, SYM.unpack_from(
                self.data, st["sh_offset"] + k * SYM.size)))
            off = strtab["sh_offset"] + sym["st_name"]
            name = self.data[off:self.data.index(b"\0", off)].decode()
            out.append((k, name, sym))
        return out

    def symbol(self, name):
        for k, n, sym in self.symbols():
            if n == name and sym["st_shndx"] != 0:
                return k, sym
        raise KeyError(name)

    def set_symbol(self, k, **kw):
        st = self.shdr(self.symtab())
        off = st["sh_offset"] + k * SYM.size
        sym = dict(zip(SYM_FIELDS, SYM.unpack_from(self.data, off)))
        sym.update(kw)
        SYM.pack_into(self.data, off, *(sym[f] for f in SYM_FIELDS))

    # -- relocations
    def rela(self, idx, k):
        off = self.shdr(idx)["sh_offset"] + k * RELA.size
        return dict(zip(RELA_FIELDS, RELA.unpack_from(self.data, off)))

    def set_rela(self, idx, k, **kw):
        off = self.shdr(idx)["sh_offset"] + k * RELA.size
        r = dict(zip(RELA_FIELDS, RELA.unpack_from(self.data, off)))
        r.update(kw)
        RELA.pack_into(self.data, off, *(r[f] for f in RELA_FIELDS))
