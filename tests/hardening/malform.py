#!/usr/bin/python3
# The malformed-input corpus: small real images built with gcc, then
# broken one way each.  Used by tests/test_malformed.py (into a pytest
# tmp_path) and by fuzz/make-seeds.sh (as seeds); nothing it makes is
# committed.
#
#   malform.py OUTDIR [LINKPASS]   build the images and write the corpus
#                                  into OUTDIR, one file per case, plus
#                                  OUTDIR/cases.txt (name, expectations)
#
# Each case says what every command must do with it:
#   2  an error: one line "linkpass: <file>: <place>: <cause>", where
#      <place> is the case's own (the header, the section, the entry that
#      is broken), no output, and for obj the object left as it was
#   0  a success: the breakage is harmless to that command (dump reads no
#      code relocations; compressed debug sections are never read; ...),
#      and its output is the output on the case's control image
# A command missing from a case's expectations is not run on it.
#
# Two base images: gcc + GNU ld (PIE, the distribution default) and
# clang + lld without PIE (cases named clang-*), and the relocatable
# object a.o for linkpass obj (cases named obj-*).

import random
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import lpfacts  # noqa: E402
from elfpatch import Elf, SHF_COMPRESSED, SHT_NOBITS, SHT_SYMTAB  # noqa: E402

COMMANDS = ("scan", "check", "dump", "sites", "obj")

# What each kind of damage breaks.
# (obj refuses every linked image, broken or not: Case.place_for.)
ALL_FAIL = dict(scan=2, check=2, dump=2, sites=2, obj=2)
# Code relocations: dump reads only the table and the symbol table.
RELOCS_FAIL = dict(scan=2, check=2, dump=0, sites=2, obj=2)
# The table linked into the image: scan and sites do not read it.
TABLE_FAIL = dict(scan=0, check=2, dump=2, sites=0, obj=2)
HARMLESS = dict(scan=0, check=0, dump=0, sites=0)

A_C = lpfacts.fill(r"""
extern char @LINKER_START@[] __attribute__((weak));
extern char @LINKER_STOP@[] __attribute__((weak));

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

static __attribute__((noinline)) int twice(int x)
{
	return leaf(x) * 2;
}

__attribute__((noinline)) int table_entries(void)
{
	return (int)((@LINKER_STOP@ - @LINKER_START@) / 8);
}

int main(int argc, char **argv)
{
	(void)argv;
	return twice(argc) + table_entries();
}
""")

B_C = r"""
int counter;

__attribute__((noinline)) void bump(int n)
{
	counter += n;
}

__attribute__((noinline)) int other(int x)
{
	bump(x);
	return counter;
}
"""

STUB_S = lpfacts.MCOUNT_STUBS_S


def _run(cmd, **kw):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True,
                          text=True, timeout=120, **kw)
    if proc.returncode != 0:
        raise RuntimeError(f"$ {' '.join(map(str, cmd))}\n"
                           f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
    return proc


def _link_with_table(work, objs, out, linkpass, ldflags=("-Wl,-q",),
                     cc=("gcc",)):
    """Link objs with the command cc, make the table with linkpass from a
    -q link, link again with it until linkpass check agrees (two links
    for gcc + GNU ld)."""
    first = work / (out.name + ".pass1")
    table = work / (out.name + ".table.o")
    _run([*cc, "-Wl,-q", *objs, "-o", first])
    _run([linkpass, "scan", first, "-o", table])
    for _ in range(3):
        _run([*cc, *ldflags, *objs, table, "-o", out])
        if "-Wl,-q" not in ldflags:
            return out
        proc = subprocess.run([str(linkpass), "check", str(out)],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode == 0:
            return out
        _run([linkpass, "scan", out, "-o", table])
    raise RuntimeError(f"{out}: table did not settle")


def build_images(work, linkpass, cc="gcc", ld="bfd", pie=True):
    """Build the base images in work; returns {name: path}:
      table    -q image with a table linked in and start/stop symbols
      debug    the same built with -g (debug sections to compress)
      noq      the same objects and table linked without -q
      object   a relocatable object (ET_REL)"""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    (work / "a.c").write_text(A_C)
    (work / "b.c").write_text(B_C)
    (work / "stub.S").write_text(STUB_S)
    flags = ["-pg", "-mfentry", "-O2", "-fpie" if pie else "-fno-pie"]
    link = [cc, f"-fuse-ld={ld}", "-pie" if pie else "-no-pie"]
    objs, gobjs = [], []
    for src in ("a", "b"):
        _run([cc, *flags, "-c", work / f"{src}.c", "-o", work / f"{src}.o"])
        _run([cc, *flags, "-g", "-c", work / f"{src}.c",
              "-o", work / f"{src}-g.o"])
        objs.append(work / f"{src}.o")
        gobjs.append(work / f"{src}-g.o")
    _run([cc, "-c", work / "stub.S", "-o", work / "stub.o"])
    objs.append(work / "stub.o")
    gobjs.append(work / "stub.o")
    images = {
        "table": _link_with_table(work, objs, work / "img", linkpass,
                                  cc=link),
        "debug": _link_with_table(work, gobjs, work / "img-g", linkpass,
                                  cc=link),
        "object": work / "a.o",
    }
    images["noq"] = work / "img-noq"
    _run([*link, *objs, work / "img.table.o", "-o", images["noq"]])
    return images


class Case:
    def __init__(self, name, place, path, expect, why, group, control,
                 unnamed=False):
        self.name = name
        self.unnamed = unnamed      # no symbols: dump shows <none> for all
        self.place = place          # what an error must name
        self.path = Path(path)
        self.expect = dict(expect)
        self.why = why
        self.group = group
        self.control = control      # the case whose output a success gives

    def place_for(self, cmd):
        """The place an error of cmd must name: obj refuses a linked image
        by its ELF header before it reads anything else."""
        if cmd == "obj" and self.place not in ("open",) and \
                not self.name.startswith("obj-"):
            return "ELF header"
        return self.place

    def __repr__(self):
        return f"Case({self.name})"


class Corpus:
    def __init__(self, outdir):
        self.outdir = Path(outdir)
        self.outdir.mkdir(parents=True, exist_ok=True)
        self.cases = []
        self.group = "misc"
        self.prefix = ""
        self.control = "control"

    def add(self, name, place, data, expect, why, control=None,
            unnamed=False):
        name = self.prefix + name
        path = self.outdir / name
        if isinstance(data, Elf):
            data = data.data
        path.write_bytes(bytes(data))
        self.cases.append(Case(name, place, path, expect, why, self.group,
                               control or self.control, unnamed))

    def add_path(self, name, place, path, expect, why):
        self.cases.append(Case(self.prefix + name, place, path, expect, why,
                               self.group, self.control))


def _truncations(corpus, base, expect=None):
    """Cut the file at the header boundaries, then inside each section's
    data: for a cut inside a section, that section is moved to the end of
    the file and the file ends half-way through it, so every other part
    of the file is whole and the error must name that section."""
    expect = expect or ALL_FAIL
    data = bytes(base.data)
    h = base.ehdr
    cuts = {
        16: ("ELF header", "inside the ELF header (e_ident only)"),
        40: ("ELF header", "inside the ELF header"),
        63: ("ELF header", "one byte short of the ELF header"),
        h["e_shoff"] + h["e_shentsize"] * (h["e_shnum"] // 2):
            ("section header table",
             "in the middle of the section header table"),
        len(data) - 1: ("section header table",
                        "one byte short of the end (last section header)"),
    }
    if h["e_phnum"]:
        cuts[h["e_phoff"] + h["e_phentsize"] * (h["e_phnum"] // 2) + 3] = (
            "section header table", "inside the program headers")
    for off, (place, why) in sorted(cuts.items()):
        if 0 < off < len(data):
            corpus.add(f"trunc-{off:06x}", place, data[:off], expect,
                       f"truncated at 0x{off:x}: {why}")

    for i, name, s in base.sections():
        if s["sh_type"] == SHT_NOBITS or s["sh_size"] < 2:
            continue
        e = Elf(data + base.section_bytes(i)[:s["sh_size"] // 2])
        e.set_shdr(i, sh_offset=len(data))
        # the section names themselves cut: no name to give it
        place = "section name table" if i == h["e_shstrndx"] else name
        corpus.add(f"cut-{name.lstrip('.') or 'null'}", place, e, expect,
                   f"the file ends half-way through {name}'s data (moved "
                   "to the end); everything else whole")


def _patched(base, **kw):
    e = base.copy()
    e.set_ehdr(**kw)
    return e


def _ident(base, pos, value):
    e = base.copy()
    e.data[pos] = value
    return e


def _shdr(base, name, **kw):
    e = base.copy()
    e.set_shdr(e.index(name), **kw)
    return e


def _image_cases(c, base, rnd):
    """The cases made by breaking one linked base image."""
    n = base.nsecs
    size = len(base.data)
    rt = base.index(".rela.text")
    text = base.index(".text")
    symtab = base.symtab()
    strtab = base.shdr(symtab)["sh_link"]
    table = base.index(lpfacts.SECTION)

    # -- truncations
    c.group = "truncated"
    _truncations(c, base)

    # -- ELF header
    c.group = "header"
    c.add("class-32", "ELF header", _ident(base, 4, 1), ALL_FAIL,
          "EI_CLASS says 32-bit on a 64-bit file")
    c.add("class-garbage", "ELF header", _ident(base, 4, 0x7f), ALL_FAIL,
          "EI_CLASS is not a known class")
    c.add("big-endian", "ELF header", _ident(base, 5, 2), ALL_FAIL,
          "EI_DATA says big-endian")
    # (AArch64 and RISC-V are supported: a machine no arch table has)
    c.add("machine-ppc64", "ELF header",
          _patched(base, e_machine=21), ALL_FAIL,
          "e_machine is PowerPC64")
    c.add("type-core", "ELF header", _patched(base, e_type=4), ALL_FAIL,
          "e_type is ET_CORE")
    c.add("shoff-past-eof", "section header table",
          _patched(base, e_shoff=size + 0x1000),
          ALL_FAIL, "section header table starts past the end of the file")
    c.add("shoff-straddles-eof", "section header table",
          _patched(base, e_shoff=size - 100),
          ALL_FAIL, "section header table runs past the end of the file")
    c.add("shnum-huge", "section header table",
          _patched(base, e_shnum=0xfeff), ALL_FAIL,
          "e_shnum far larger than the table in the file")
    c.add("shentsize-wrong", "ELF header",
          _patched(base, e_shentsize=32), ALL_FAIL,
          "e_shentsize is not the size of a section header")
    c.add("shstrndx-out-of-range", "ELF header",
          _patched(base, e_shstrndx=n + 5),
          ALL_FAIL, "e_shstrndx beyond the section count")
    c.add("shstrndx-not-strtab", "ELF header", _patched(base, e_shstrndx=text),
          ALL_FAIL, "e_shstrndx names .text, not a string table")
    e = _patched(base, e_shnum=0)
    e.set_shdr(0, sh_size=0xffffffff)
    c.add("shnum-extended-huge", "section header table", e, ALL_FAIL,
          "extended section count (e_shnum 0) of 2^32-1 sections")
    e = _patched(base, e_shstrndx=0xffff)
    e.set_shdr(0, sh_link=0xffffff)
    c.add("shstrndx-extended-out-of-range", "ELF header", e, ALL_FAIL,
          "extended e_shstrndx (SHN_XINDEX) out of range")

    # -- section headers
    c.group = "sections"
    c.add("sh-name-out-of-range", f"section header {text}",
          _shdr(base, ".text", sh_name=0xfffffff),
          ALL_FAIL, "sh_name of .text beyond the section name table")
    c.add("sh-type-garbage", ".rela.text",
          _shdr(base, ".rela.text", sh_type=0x12345678),
          ALL_FAIL, "sh_type of .rela.text is no known section type")
    c.add("sh-offset-garbage", ".rela.text",
          _shdr(base, ".rela.text", sh_offset=0xdeadbeefdeadbeef),
          ALL_FAIL, "sh_offset of .rela.text points far past the file")
    e = base.copy()
    e.data[e.shdr_offset(rt):e.shdr_offset(rt) + 64] = bytes(
        rnd.getrandbits(8) for _ in range(64))
    c.add("sh-random-bytes", f"section header {rt}", e, ALL_FAIL,
          "the .rela.text section header overwritten with random bytes")
    c.add("sh-size-huge", ".rela.text", _shdr(base, ".rela.text",
                                sh_size=0x7ffffffffffffff8),
          ALL_FAIL, "sh_size of .rela.text near 2^63")
    c.add("sh-size-huge-text", ".text", _shdr(base, ".text",
                                     sh_size=0xffffffffffff0000),
          ALL_FAIL, "sh_size of .text near 2^64 (offset + size wraps)")
    c.add("sh-size-past-eof-symtab", ".symtab",
          _shdr(base, ".symtab", sh_size=base.shdr(symtab)["sh_size"] +
                size),
          ALL_FAIL, ".symtab runs past the end of the file")
    s = base.shdr(symtab)
    c.add("overlap-rela-symtab", ".rela.text",
          _shdr(base, ".rela.text", sh_offset=s["sh_offset"] + 24),
          ALL_FAIL, ".rela.text overlaps .symtab in the file")
    c.add("overlap-text-rela", ".rela.text",
          _shdr(base, ".text", sh_offset=base.shdr(rt)["sh_offset"]),
          ALL_FAIL, ".text overlaps .rela.text in the file")

    # -- the code relocation section
    c.group = "relocs"
    c.add("rela-link-out-of-range", ".rela.text",
          _shdr(base, ".rela.text", sh_link=n + 7),
          RELOCS_FAIL, "sh_link of .rela.text beyond the section count")
    c.add("rela-link-not-symtab", ".rela.text",
          _shdr(base, ".rela.text", sh_link=strtab),
          RELOCS_FAIL, "sh_link of .rela.text names .strtab")
    c.add("rela-info-out-of-range", ".rela.text",
          _shdr(base, ".rela.text", sh_info=n + 7),
          RELOCS_FAIL, "sh_info of .rela.text beyond the section count")
    c.add("rela-entsize-zero", ".rela.text",
          _shdr(base, ".rela.text", sh_entsize=0),
          RELOCS_FAIL, "sh_entsize of .rela.text is 0")
    c.add("rela-entsize-wrong", ".rela.text",
          _shdr(base, ".rela.text", sh_entsize=16),
          RELOCS_FAIL, "sh_entsize of .rela.text is 16 (Rel, not Rela)")
    c.add("rela-size-ragged", ".rela.text",
          _shdr(base, ".rela.text", sh_size=base.shdr(rt)["sh_size"] - 5),
          RELOCS_FAIL, "sh_size of .rela.text is not a whole number of entries")
    c.add("rela-compressed", ".rela.text",
          _shdr(base, ".rela.text",
                sh_flags=base.shdr(rt)["sh_flags"] | SHF_COMPRESSED),
          RELOCS_FAIL, ".rela.text flagged SHF_COMPRESSED by hand")
    e = base.copy()
    r = e.rela(rt, 0)
    e.set_rela(rt, 0, r_info=(0xffffff << 32) | (r["r_info"] & 0xffffffff))
    c.add("reloc-symbol-out-of-range", ".rela.text entry 0", e, RELOCS_FAIL,
          "a .rela.text entry names symbol 0xffffff")
    e = base.copy()
    e.set_rela(rt, 1, r_offset=0x10)
    c.add("reloc-offset-outside", ".rela.text entry 1", e, RELOCS_FAIL,
          "a .rela.text entry points before .text")
    e = base.copy()
    t = e.shdr(text)
    e.set_rela(rt, 2, r_offset=t["sh_addr"] + t["sh_size"] + 0x1000)
    c.add("reloc-offset-after", ".rela.text entry 2", e, RELOCS_FAIL,
          "a .rela.text entry points after .text")
    c.add("text-nobits", ".rela.text",
          _shdr(base, ".text", sh_type=SHT_NOBITS),
          RELOCS_FAIL, ".text is SHT_NOBITS but has relocations")

    # -- the symbol table
    c.group = "symtab"
    c.add("symtab-entsize-zero", ".symtab",
          _shdr(base, ".symtab", sh_entsize=0),
          ALL_FAIL, "sh_entsize of .symtab is 0")
    c.add("symtab-entsize-wrong", ".symtab",
          _shdr(base, ".symtab", sh_entsize=16),
          ALL_FAIL, "sh_entsize of .symtab is 16")
    c.add("symtab-size-ragged", ".symtab",
          _shdr(base, ".symtab", sh_size=s["sh_size"] - 7),
          ALL_FAIL, "sh_size of .symtab is not a whole number of entries")
    c.add("symtab-link-out-of-range", ".symtab",
          _shdr(base, ".symtab", sh_link=n + 3),
          ALL_FAIL, "sh_link of .symtab beyond the section count")
    c.add("symtab-link-not-strtab", ".symtab",
          _shdr(base, ".symtab", sh_link=text),
          ALL_FAIL, "sh_link of .symtab names .text")
    c.add("symtab-compressed", ".symtab",
          _shdr(base, ".symtab", sh_flags=SHF_COMPRESSED),
          ALL_FAIL, ".symtab flagged SHF_COMPRESSED")
    c.add("two-symtabs", ".symtab",
          _shdr(base, ".comment", sh_type=SHT_SYMTAB),
          ALL_FAIL, ".comment retyped as a second SHT_SYMTAB")
    e = base.copy()
    k, _ = e.symbol("main")
    e.set_symbol(k, st_name=0xfffffff)
    c.add("sym-name-out-of-range", f".symtab entry {k}", e, ALL_FAIL,
          "st_name of main beyond .strtab")
    e = base.copy()
    e.set_symbol(k, st_shndx=0xfe00)
    c.add("sym-shndx-out-of-range", f".symtab entry {k}", e, ALL_FAIL,
          "st_shndx of main beyond the section count")

    # -- the table linked into the image
    c.group = "table"
    bounds = f"{lpfacts.LINKER_START}..{lpfacts.LINKER_STOP}"
    ks, start = base.symbol(lpfacts.LINKER_START)
    kp, stop = base.symbol(lpfacts.LINKER_STOP)
    e = base.copy()
    e.set_symbol(ks, st_value=stop["st_value"])
    e.set_symbol(kp, st_value=start["st_value"])
    c.add("table-start-after-stop", bounds,
          e, TABLE_FAIL,
          "__start___mcount_loc > __stop___mcount_loc")
    e = base.copy()
    e.set_symbol(kp, st_value=stop["st_value"] - 3)
    c.add("table-odd-size-symbols", bounds,
          e, TABLE_FAIL,
          "__stop___mcount_loc - __start___mcount_loc is not a multiple of 8")
    e = base.copy()
    e.set_symbol(ks, st_shndx=0)
    e.set_symbol(kp, st_shndx=0)
    e.set_shdr(table, sh_size=e.shdr(table)["sh_size"] - 3)
    c.add("table-odd-size-section", f"section {lpfacts.SECTION}",
          e, TABLE_FAIL,
          "no start/stop symbols; __mcount_loc size not a multiple of 8")
    e = base.copy()
    e.set_symbol(kp, st_value=stop["st_value"] + 0x100000)
    c.add("table-stop-outside", bounds,
          e, TABLE_FAIL,
          "__stop___mcount_loc far past the end of __mcount_loc")
    e = base.copy()
    e.set_symbol(ks, st_value=0x10)
    e.set_symbol(kp, st_value=0x18)
    c.add("table-not-in-section", bounds,
          e, TABLE_FAIL,
          "start/stop symbols in no allocated section")
    c.add("table-nobits", bounds,
          _shdr(base, lpfacts.SECTION, sh_type=SHT_NOBITS),
          TABLE_FAIL, "__mcount_loc is SHT_NOBITS")
    c.add("table-compressed", lpfacts.SECTION,
          _shdr(base, lpfacts.SECTION,
                sh_flags=base.shdr(table)["sh_flags"] | SHF_COMPRESSED),
          TABLE_FAIL, "__mcount_loc flagged SHF_COMPRESSED")
    if ".rela.dyn" in {nm for _, nm, _ in base.sections()}:
        c.add("rela-dyn-entsize-wrong", ".rela.dyn",
              _shdr(base, ".rela.dyn", sh_entsize=7), TABLE_FAIL,
              "sh_entsize of .rela.dyn (read for PIE tables) is 7")


def make_corpus(images, outdir, seed=1, clang=None):
    """Write every case into outdir and return the list of Case: the
    gcc base images, the clang/lld ones (clang, optional) and the
    object."""
    rnd = random.Random(seed)
    c = Corpus(outdir)
    base = Elf(Path(images["table"]).read_bytes())

    # -- not an image at all
    c.group = "file"
    c.add("empty", "ELF header", b"", ALL_FAIL, "an empty file")
    c.add("not-elf", "ELF header",
          b"this is a text file, not an ELF image\n" * 4, ALL_FAIL,
          "plain text")
    c.add("elf-magic-only", "ELF header", b"\x7fELF", ALL_FAIL,
          "just the ELF magic")
    d = c.outdir / "a-directory"
    d.mkdir(exist_ok=True)
    c.add_path("directory", "open", d, ALL_FAIL, "a directory")
    c.add_path("missing", "open", c.outdir / "does-not-exist", ALL_FAIL,
               "a path that does not exist")
    # check takes objects too (a module's .ko): this one has no table,
    # so it reports every call site missing (exit 1)
    c.add("object-file", "ELF header", Path(images["object"]).read_bytes(),
          dict(scan=2, check=1, dump=2, sites=2),
          "a relocatable object (ET_REL), not a linked image",
          control="object-file")

    _image_cases(c, base, rnd)

    # -- other images
    c.group = "images"
    c.add("no-q", ".text", Path(images["noq"]).read_bytes(),
          dict(scan=2, check=2, dump=0, sites=2, obj=2),
          "linked without -q: no code relocations (dump needs none)")
    stripped = c.outdir / "stripped.tmp"
    shutil.copyfile(images["table"], stripped)
    _run(["strip", "--strip-all", stripped])
    c.add("stripped", ".symtab", stripped.read_bytes(),
          dict(scan=2, check=2, dump=0, sites=2, obj=2),
          "strip --strip-all: no .symtab, no relocations; dump finds the "
          "table by its section", unnamed=True)
    stripped.unlink()
    for how in ("zlib", "zstd"):
        z = c.outdir / f"debug-{how}.tmp"
        proc = subprocess.run(["objcopy", f"--compress-debug-sections={how}",
                               str(images["debug"]), str(z)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            continue	# this objcopy lacks the method: nothing to test
        c.add(f"debug-compressed-{how}", None, z.read_bytes(), HARMLESS,
              f"debug sections compressed with {how} (SHF_COMPRESSED): "
              "never read, so harmless", control="debug-uncompressed")
        z.unlink()
    c.add("debug-uncompressed", None,
          Path(images["debug"]).read_bytes(), HARMLESS,
          "the -g image as linked: the control for the compressed cases")
    c.add("control", None,
          bytes(base.data), HARMLESS, "the base image unchanged")

    if clang:
        c.prefix, c.control = "clang-", "clang-control"
        cbase = Elf(Path(clang["table"]).read_bytes())
        _image_cases(c, cbase, rnd)
        c.group = "images"
        c.add("control", None, bytes(cbase.data), HARMLESS,
              "the clang/lld base image unchanged")

    c.prefix, c.control = "obj-", "obj-control"
    c.group = "object"
    _object_cases(c, Elf(Path(images["object"]).read_bytes()))
    c.prefix, c.control = "", "control"
    return c.cases


# What each kind of damage to a relocatable object breaks: only obj
# reads objects (scan, dump and sites refuse ET_REL, see object-file;
# check's reading of objects is tested in tests/test_check_modes.py).
OBJ_FAIL = dict(obj=2)
OBJ_OK = dict(obj=0)


def _object_cases(c, base):
    """linkpass obj on a broken relocatable object."""
    rt = base.index(".rela.text")
    n = base.nsecs
    c.group = "object"
    _truncations(c, base, OBJ_FAIL)
    c.add("rela-link-out-of-range", ".rela.text",
          _shdr(base, ".rela.text", sh_link=n + 7), OBJ_FAIL,
          "sh_link of .rela.text beyond the section count")
    c.add("rela-info-out-of-range", ".rela.text",
          _shdr(base, ".rela.text", sh_info=n + 7), OBJ_FAIL,
          "sh_info of .rela.text beyond the section count")
    c.add("rela-entsize-wrong", ".rela.text",
          _shdr(base, ".rela.text", sh_entsize=16), OBJ_FAIL,
          "sh_entsize of .rela.text is 16 (Rel, not Rela)")
    e = base.copy()
    r = e.rela(rt, 0)
    e.set_rela(rt, 0, r_info=(0xffffff << 32) | (r["r_info"] & 0xffffffff))
    c.add("reloc-symbol-out-of-range", ".rela.text entry 0", e, OBJ_FAIL,
          "a .rela.text entry names symbol 0xffffff")
    c.add("symtab-entsize-wrong", ".symtab",
          _shdr(base, ".symtab", sh_entsize=16), OBJ_FAIL,
          "sh_entsize of .symtab is 16")
    c.add("symtab-link-out-of-range", ".symtab",
          _shdr(base, ".symtab", sh_link=n + 3), OBJ_FAIL,
          "sh_link of .symtab beyond the section count")
    c.add("sh-name-out-of-range", f"section header {rt}",
          _shdr(base, ".rela.text", sh_name=0xfffffff), OBJ_FAIL,
          "sh_name of .rela.text beyond the section name table")
    c.add("shstrndx-out-of-range", "ELF header",
          _patched(base, e_shstrndx=n + 5), OBJ_FAIL,
          "e_shstrndx beyond the section count")
    c.add("control", None, bytes(base.data), OBJ_OK,
          "the object unchanged")


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: malform.py OUTDIR [LINKPASS]\n")
        return 2
    out = Path(argv[1])
    linkpass = argv[2] if len(argv) > 2 else str(
        Path(__file__).resolve().parents[2] / "linkpass" / "linkpass")
    work = out / "build"
    images = build_images(work, linkpass)
    clang = build_images(out / "build-clang", linkpass, cc="clang", ld="lld",
                         pie=False)
    cases = make_corpus(images, out / "cases", clang=clang)
    with open(out / "cases.txt", "w") as f:
        for cs in cases:
            exp = " ".join(f"{k}={v}" for k, v in cs.expect.items())
            f.write(f"{cs.name}\t{cs.place}\t{exp}\t{cs.group}: "
                    f"{cs.why}\n")
    print(f"{len(cases)} cases in {out / 'cases'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
