# The in-tree tool, kernel/linkpass/, at its edges: the command line,
# damaged files, calls that are not sites, pads that do not match their
# geometry, the table's text, the check's reports (and their limit), the
# link-time states on each architecture, and memory, under valgrind.
# Most of these tests were written for survivors of the mutation run
# (tests/mutation/mutate.py); each says what behaviour it holds.
#
# Inputs are built with the real toolchain and made once (ktooltest.py);
# damaged files are real images with one field changed
# (tests/hardening/elfpatch.py).

import re
import shutil
import struct
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import pytest

from ktooltest import (MCOUNT_LDS, SRC, STRONG, STUBS_S, TOOL, assembled, cc_c,
                       check_fails, compiled, ktool, ld_r, linked, made,
                       object_table, scanned, section_bytes,
                       pad_objs, theirs_obj, x86_objs)
from lptest import (describe, ground_truth, require_tools, run,
                    section_data, symbol_value, symbols, write)

sys.path.insert(0, str(Path(__file__).resolve().parent / "hardening"))
import elfpatch  # noqa: E402

# the fixtures this file takes from ktooltest
__all__ = ["ktool", "made"]

USAGE = ("usage: linkpass [--patchable=N,M [--lists=OBJECT]] FILE > TABLE.S\n"
         "       linkpass [--patchable=N,M] --check [--nop] FILE\n")
PAD_ERROR = "expected N,M with 0 < N <= 64, M <= N"
HEADER = "/* {} ftrace call sites, written by scripts/linkpass */\n"
X86_FLAGS = ["-pg", "-mfentry", "-O2", "-fno-pie"]
A64_CC = "aarch64-linux-gnu-gcc"
RV_CC = "riscv64-linux-gnu-gcc"
A64_MOV_X9_LR = 0xaa1e03e9
A64_NOP = 0xd503201f
A64_BTI_C = 0xd503245f
RV_NOP = 0x00000013


def asm_function(name, *body, section=".text"):
    """An x86 assembler source of one global function @name in @section."""
    lines = "".join(f"\t{insn}\n" for insn in body)
    return (f'\t.section .note.GNU-stack,"",@progbits\n'
            f'\t.section {section},"ax",@progbits\n'
            f"\t.globl {name}\n\t.type {name}, @function\n{name}:\n"
            f"{lines}\t.size {name}, .-{name}\n")


def table_of(ktool, made, tmp_path, objs, first, edit=None, cc="gcc",
             ld="bfd", q=True):
    """The second link of @objs: with the table of @first (edited by
    @edit) linked in."""
    table = ktool.table(first, tmp_path / "t.S")
    if edit:
        table.write_text(edit(table.read_text()))
    cc_c(made, cc, table, tmp_path / "t.o")
    return linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second",
                  cc, ld, q=q)


def x86_pair(ktool, made, tmp_path, extra=(), edit=None, q=True):
    """(objs, first, second) of the x86 program with @extra objects."""
    objs = [*x86_objs(made, tmp_path, "gcc"), *extra]
    first = linked(made, objs, tmp_path / "first")
    return objs, first, table_of(ktool, made, tmp_path, objs, first, edit,
                                 q=q)


def one_line_error(proc, path, tail):
    """@proc failed with exit status 2 and the one line
    "linkpass: PATH: TAIL"."""
    assert proc.returncode == 2 and proc.stdout == "", describe(proc)
    assert proc.stderr == f"linkpass: {path}: {tail}\n", describe(proc)


def entries(table):
    """The table's entries, as written: vmlinux's "_text+0x..." or a
    module's ".Lmcount_N + 0x..."."""
    return [e.strip() for line in table.splitlines()
            if line.startswith("\t.quad\t")
            for e in line[len("\t.quad\t"):].split(",")]


def quads(image, name="__mcount_loc"):
    _, data = section_data(image, name)
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


# ---------------------------------------------------------------------------
# The command line


@pytest.mark.parametrize("args", [[], ["--nop", "x"], ["a", "b"],
                                  ["--check"], ["--lists=o"]])
def test_usage_is_the_whole_message(ktool, args):
    """A wrong command line prints the usage, and nothing after it."""
    proc = ktool.run(*args, check=False)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert proc.stderr == USAGE, proc


def test_an_unknown_option_prints_the_usage(ktool):
    proc = ktool.run("--bogus", "x", check=False)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert proc.stderr.endswith(USAGE) and "bogus" in proc.stderr, proc
    assert proc.stderr.count("\n") == 3, proc


@pytest.mark.parametrize("pad", ["0", "65", "2,3", "4x", "4,2x", "", ",1"])
def test_patchable_out_of_bounds(ktool, tmp_path, pad):
    proc = ktool.run(f"--patchable={pad}", tmp_path / "x", check=False)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert proc.stderr == f"linkpass: --patchable={pad}: {PAD_ERROR}\n"


@pytest.mark.parametrize("pad", ["1", "64", "3,3", "64,64", "4,0"])
def test_patchable_in_bounds(ktool, tmp_path, pad):
    """A geometry at the bounds is taken: the error is the missing file."""
    missing = tmp_path / "x"
    one_line_error(ktool.run(f"--patchable={pad}", missing, check=False),
                   missing, "No such file or directory")


def test_runs_with_stdin_closed(ktool, made, tmp_path):
    """Build systems may start it with no standard input: the file it
    opens is then descriptor 0, a valid one."""
    _, first = x86_pair(ktool, made, tmp_path)[:2]
    want = ktool.run(first).stdout
    proc = run(["sh", "-c", 'exec 0<&-; exec "$@"', "sh", ktool.path, first])
    assert proc.stdout == want and proc.stderr == ""
    proc = run(["sh", "-c", 'exec 0<&-; exec "$@"', "sh", ktool.path,
                "--check", tmp_path / "second"])
    assert proc.stdout == "" and proc.stderr == ""


def test_a_directory_is_one_error(ktool, tmp_path):
    one_line_error(ktool.run(tmp_path, check=False), tmp_path,
                   "mmap: No such device")
    one_line_error(ktool.run("--check", "--nop", tmp_path, check=False),
                   tmp_path, "Is a directory")


# ---------------------------------------------------------------------------
# Damaged files: one field of a real image changed, one error line each

BSS = "char big[1 << 20];\n"   # NOBITS, larger than the file


@pytest.fixture
def image(ktool, made, tmp_path):
    """A linked x86 image with a table, and a .bss larger than itself."""
    bss = compiled(made, tmp_path, "bss.c", BSS, "gcc", ["-O2"])
    return x86_pair(ktool, made, tmp_path, [bss])[2]


def _shdr(name, **kw):
    return lambda e: e.set_shdr(e.index(name), **kw)


def _symbol(name, **kw):
    def edit(e):
        k, _ = e.symbol(name)
        e.set_symbol(k, **{f: v(e) if callable(v) else v
                           for f, v in kw.items()})
    return edit


def _end_of(name):
    return lambda e: e.shdr(e.index(name))["sh_addr"] + \
        e.shdr(e.index(name))["sh_size"]


def _ident(pos, value):
    def edit(e):
        e.data[pos] = value
    return edit


def _shoff_past_end(e):
    e.set_ehdr(e_shoff=e.ehdr["e_shoff"] + 8)


def _shstrndx_out(e):
    e.set_ehdr(e_shstrndx=e.nsecs)


def _symtab(**kw):
    def edit(e):
        kw2 = {f: v(e) if callable(v) else v for f, v in kw.items()}
        e.set_shdr(e.symtab(), **kw2)
    return edit


def _first_local_name_out(e):
    k = e.symbols()[1][0]
    strtab = e.shdr(e.shdr(e.symtab())["sh_link"])
    e.set_symbol(k, st_name=strtab["sh_size"])


DAMAGED = [
    # (what, edit, the error's tail: {n} sections, {k} the symbol)
    ("class", _ident(4, 1),
     "ELF header: not 64-bit little-endian (x86_64, arm64 and riscv64 only)"),
    ("data", _ident(5, 2),
     "ELF header: not 64-bit little-endian (x86_64, arm64 and riscv64 only)"),
    ("type", lambda e: e.set_ehdr(e_type=4),
     "ELF header: e_type 4 is not a linked image or an object"),
    ("machine", lambda e: e.set_ehdr(e_machine=3),
     "ELF header: e_machine 3 is not x86_64, aarch64 or riscv64"),
    ("machine0", lambda e: e.set_ehdr(e_machine=0),
     "ELF header: e_machine 0 is not x86_64, aarch64 or riscv64"),
    ("shentsize", lambda e: e.set_ehdr(e_shentsize=63),
     "ELF header: no valid section header table"),
    ("shnum", lambda e: e.set_ehdr(e_shnum=0),
     "ELF header: no valid section header table"),
    ("shoff", _shoff_past_end, "ELF header: no valid section header table"),
    ("shstrndx", _shstrndx_out, "ELF header: e_shstrndx {n} out of range"),
    ("offset", _shdr(".comment", sh_offset=1 << 40),
     "section headers: section {comment} lies outside the file"),
    ("size", _shdr(".comment", sh_size=1 << 40),
     "section headers: section {comment} lies outside the file"),
    ("name", lambda e: e.set_shdr(e.index(".comment"), sh_name=e.shdr(
        e.ehdr["e_shstrndx"])["sh_size"]),
     "section headers: section {comment} has no valid name"),
    ("stripped", _symtab(sh_type=1), "no symbol table (stripped?)"),
    ("entsize", _symtab(sh_entsize=23), ".symtab: not a valid symbol table"),
    ("link", _symtab(sh_link=lambda e: e.nsecs),
     ".symtab: not a valid symbol table"),
    ("link-to-code", _symtab(sh_link=lambda e: e.index(".text")),
     ".symtab: not a valid symbol table"),
    ("symbol-name", _first_local_name_out,
     ".symtab: symbol 1 has no valid name"),
    ("function", _symbol("main", st_value=lambda e: _end_of(".text")(e) + 1),
     "main: function lies outside its section .text"),
]


def damaged(image, tmp_path, edit):
    e = elfpatch.Elf(image.read_bytes())
    edit(e)
    out = tmp_path / "damaged"
    out.write_bytes(bytes(e.data))
    return out, e


@pytest.mark.parametrize("what,edit,tail", DAMAGED,
                         ids=[d[0] for d in DAMAGED])
def test_a_damaged_file_is_one_error(ktool, image, tmp_path, what, edit,
                                     tail):
    bad, _ = damaged(image, tmp_path, edit)
    e = elfpatch.Elf(image.read_bytes())
    tail = tail.format(n=e.nsecs, comment=e.index(".comment"))
    for args in ([bad], ["--check", bad]):
        one_line_error(ktool.run(*args, check=False), bad, tail)


@pytest.mark.parametrize("what,edit", [
    # an empty section that ends the file exactly
    ("empty-at-end", lambda e: e.set_shdr(
        e.index(".comment"), sh_offset=len(e.data), sh_size=0)),
    # a function that starts where its section ends (nf has no site)
    ("function-at-end", _symbol("nf", st_size=0,
                                st_value=_end_of(".text"))),
    # a function symbol in no section the file has
    ("function-shndx", _symbol("nf", st_shndx=lambda e: e.nsecs)),
])
def test_edges_a_file_may_have(ktool, image, tmp_path, what, edit):
    """What lies on a bound of a check is taken, and changes nothing."""
    want = ktool.run(image).stdout
    ok, _ = damaged(image, tmp_path, edit)
    assert ktool.run(ok).stdout == want
    assert ktool.run("--check", ok).returncode == 0


def test_relocations_of_another_size_are_an_error(ktool, image, tmp_path):
    bad, e = damaged(image, tmp_path, _shdr(".rela.text", sh_entsize=23))
    for args in ([bad], ["--check", "--nop", bad]):
        proc = ktool.run(*args, check=False)
        if args[0] == "--check":
            # the check reads code bytes; the NOPs need the relocations
            assert proc.returncode == 2
            assert proc.stderr.endswith(
                ".rela.text: not an array of Elf64_Rela\n"), proc
        else:
            one_line_error(proc, bad, ".rela.text: not an array of "
                           "Elf64_Rela")


# ---------------------------------------------------------------------------
# The scan: what is a call site, and what is an error


def test_a_pc32_call_is_a_site(linkpass, ktool, made, tmp_path):
    """binutils before 2.31 wrote R_X86_64_PC32 for a call: still a site,
    listed as the user-space tool lists it."""
    pc32 = assembled(made, tmp_path, "pc32.s", asm_function(
        "pc32", ".byte 0xe8", ".long __fentry__ - . - 4", "ret"))
    objs, first, second = x86_pair(ktool, made, tmp_path, [pc32])
    relocs = run(["readelf", "-rW", first]).stdout
    assert re.search(r"R_X86_64_PC32\s+\S+\s+__fentry__ - 4", relocs)
    pc32_at = symbol_value(first, "pc32")
    assert f"_text+{pc32_at - symbol_value(first, '_text'):#x}" in \
        entries(ktool.run(first).stdout)
    scanned(made, linkpass, first, tmp_path / "full.o")
    theirs = linked(made, [*objs, tmp_path / "full.o"], tmp_path / "full")
    assert section_bytes(second, "__mcount_loc") == \
        section_bytes(theirs, "__mcount_loc")
    assert ktool.run("--check", second).returncode == 0


def test_an_address_of_fentry_is_no_site(ktool, made, tmp_path):
    """An absolute reference to __fentry__ (R_X86_64_64) is not a call."""
    ref = assembled(made, tmp_path, "ref.s", asm_function(
        "ref", "movabs $__fentry__, %rax", "ret"))
    objs, first, second = x86_pair(ktool, made, tmp_path, [ref])
    assert len(entries(ktool.run(first).stdout)) == 5
    assert ktool.run("--check", second).returncode == 0


def test_a_jump_to_fentry_is_an_error(ktool, made, tmp_path):
    """A relocation of __fentry__ of a call's type that is not on a call
    is refused, in the table and in a module's check."""
    jmp = assembled(made, tmp_path, "jmp.s", asm_function(
        "jmp_away", "nop", "jmp __fentry__"))
    objs = [*x86_objs(made, tmp_path, "gcc"), jmp]
    first = linked(made, objs, tmp_path / "first")
    at = symbol_value(first, "jmp_away") + 1
    e = elfpatch.Elf(first.read_bytes())
    rs = e.index(".rela.text")
    j = next(j for j in range(e.shdr(rs)["sh_size"] // 24)
             if e.rela(rs, j)["r_offset"] == at + 1)
    one_line_error(ktool.run(first, check=False), first,
                   f".rela.text: entry {j}: the relocation of __fentry__ "
                   f"at .text+{at - e.shdr(e.index('.text'))['sh_addr']:#x} "
                   "is not on a call")
    ko = ld_r(made, "ld", tmp_path / "jmp.ko", [jmp])
    for args in ([ko], ["--check", ko]):
        one_line_error(ktool.run(*args, check=False), ko,
                       ".rela.text: entry 0: the relocation of __fentry__ "
                       "at .text+0x1 is not on a call")


# a call after the entry; "inside_start", a global of no size at the same
# address, must not hide the function that holds it
INSIDE = asm_function("inside", "nop", "call __fentry__", "ret").replace(
    "inside:\n", "\t.globl inside_start\n\t.type inside_start, @function\n"
    "inside_start:\ninside:\n")


def test_a_call_inside_a_function_is_an_error(ktool, made, tmp_path):
    """A call to __fentry__ after a function's entry is refused: in an
    image (the function first in .text) and in a module (its only one)."""
    inside = assembled(made, tmp_path, "inside.s", INSIDE)
    first = linked(made, [inside, *x86_objs(made, tmp_path, "gcc")],
                   tmp_path / "first")
    at = symbol_value(first, "inside") + 1
    one_line_error(ktool.run(first, check=False), first,
                   f".text: {at:#x}: a call to __fentry__ inside a "
                   "function, not at its entry")
    ko = ld_r(made, "ld", tmp_path / "inside.ko", [inside])
    one_line_error(ktool.run(ko, check=False), ko,
                   ".text: 0x1: a call to __fentry__ inside a function, "
                   "not at its entry")


def test_a_call_just_after_a_function_is_dropped(ktool, made, tmp_path):
    """A call right where a function ends belongs to no function (a dead
    body without its symbol): it is left out, not an error."""
    dead = assembled(made, tmp_path, "dead.s", asm_function(
        "before", "ret") + "\tcall __fentry__\n\tret\n" + asm_function(
        "after", "call __fentry__", "ret"))
    ko = ld_r(made, "ld", tmp_path / "dead.ko", [dead])
    assert entries(ktool.run(ko).stdout) == [".Lmcount_1 + 0x7"]


def many_functions(n):
    return "".join(f"int f{i}(int x) {{ return x * {i + 3}; }}\n"
                   for i in range(n)) + "int main(void) { return 0; }\n"


def test_more_sites_than_the_first_allocation(linkpass, ktool, made,
                                              tmp_path):
    """1,100 sites (the scan's arrays start at 1,024): the table is the
    user-space tool's, eight entries a line, and the check passes."""
    objs = [compiled(made, tmp_path, "many.c", many_functions(1099), "gcc",
                     X86_FLAGS),
            assembled(made, tmp_path, "stubs.S", STUBS_S)]
    first = linked(made, objs, tmp_path / "first")
    text = ktool.run(first).stdout
    assert text.startswith(HEADER.format(1100)) and text.endswith("\n")
    lines = text.splitlines()[3:]
    assert [len(ln.split(", ")) for ln in lines] == [8] * 137 + [4]
    second = table_of(ktool, made, tmp_path, objs, first)
    scanned(made, linkpass, first, tmp_path / "full.o")
    theirs = linked(made, [*objs, tmp_path / "full.o"], tmp_path / "full")
    assert section_bytes(second, "__mcount_loc") == \
        section_bytes(theirs, "__mcount_loc")
    assert ktool.run("--check", second).returncode == 0


# ---------------------------------------------------------------------------
# The table's text


# .init.text and main alone: main's site is the first found, initf's
# (lower, in a section numbered after .text) the second
INIT_AND_MAIN = """\
__attribute__((section(".init.text"))) int initf(int x) { return x + 7; }
int main(void) { return initf(2) - 9; }
"""


@pytest.mark.parametrize("program", ["SRC", "INIT_AND_MAIN"])
def test_vmlinux_entries_are_offsets_from_text(ktool, made, tmp_path,
                                               program):
    """Each entry is its site less _text, sorted by address though the
    sections are numbered in another order; a site before _text (an
    .init.text placed first) is written _text-0x....  Linked, the table
    passes the check."""
    src = SRC if program == "SRC" else INIT_AND_MAIN
    objs = [compiled(made, tmp_path, "prog.c", src, "gcc", X86_FLAGS),
            assembled(made, tmp_path, "stubs.S", STUBS_S)]
    low = ["-Wl,--section-start=.init.text=0x300000"]
    first = linked(made, objs, tmp_path / "first", extra=low)
    text = ktool.run(first).stdout
    sites = sorted(ground_truth(first, sections=(".text", ".init.text")))
    base = symbol_value(first, "_text")
    assert sites[0] < base <= sites[1]
    e = elfpatch.Elf(first.read_bytes())
    assert e.index(".init.text") > e.index(".text")
    head = HEADER.format(len(sites)) + \
        '\t.section __mcount_loc, "a"\n\t.balign 8\n'
    assert text.startswith(head) and text.endswith("\n")
    got = []
    for entry in entries(text[len(head):]):
        m = re.fullmatch(r"_text([+-])(0x[0-9a-f]+|0)", entry)
        assert m, text
        got.append(base + int(m.group(2), 16) * (-1 if m.group(1) == "-"
                                                 else 1))
    assert got == sites and text.count("\n") == 4, text
    ktool.table(first, tmp_path / "t.S")
    cc_c(made, "gcc", tmp_path / "t.S", tmp_path / "t.o")
    second = linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second",
                    extra=low)
    assert ktool.run("--check", second).returncode == 0


@pytest.mark.parametrize("first_symbol", ["leaf", "__fentry__",
                                          "__start_mcount_loc", "_text"])
def test_a_vmlinux_whose_first_symbol_is_global(ktool, made, tmp_path,
                                                first_symbol):
    """Linked by ld alone without local symbols (ld -x), a vmlinux's
    symbol 1 is a global; whichever it is, the check finds it."""
    objs = x86_objs(made, tmp_path, "gcc")

    def ld_x(out, inputs, *opts):
        def make(o):
            script = write(o.parent / "k.lds", MCOUNT_LDS)
            run(["ld", "-x", *opts, "-T", script, "-e", "main", *inputs,
                 "-o", o])
        return made.file(out, ("ld -x", MCOUNT_LDS, list(opts),
                               list(inputs)), make)
    first = ld_x(tmp_path / "first", objs, "-q")
    ktool.table(first, tmp_path / "t.S")
    cc_c(made, "gcc", tmp_path / "t.S", tmp_path / "t.o")
    second = ld_x(tmp_path / "second", [*objs, tmp_path / "t.o"])
    e = elfpatch.Elf(second.read_bytes())
    st = e.shdr(e.symtab())
    assert st["sh_info"] == 1   # no local symbol but the null one
    # symbols are in no order: move the one wanted to index 1
    k, sym = e.symbol(first_symbol)
    one = e.symbols()[1][2]
    e.set_symbol(1, **sym)
    e.set_symbol(k, **one)
    swapped = tmp_path / "swapped"
    swapped.write_bytes(bytes(e.data))
    assert elfpatch.Elf(swapped.read_bytes()).symbols()[1][1] == first_symbol
    assert ktool.run("--check", swapped).returncode == 0
    # main, leaf, wf and initf: st, a local, lost its symbol to -x
    assert len(entries((tmp_path / "t.S").read_text())) == 4


def test_vmlinux_needs_text(ktool, made, tmp_path):
    objs = x86_objs(made, tmp_path, "gcc")
    lds = "SECTIONS { __mcount_loc : { KEEP(*(__mcount_loc)) } } " \
          "INSERT AFTER .rodata;\n"

    def make(o):
        script = write(o.parent / "x.lds", lds)
        run(["gcc", "-no-pie", "-Wl,-q", f"-Wl,-T,{script}", *objs, "-o", o])
    image = made.file(tmp_path / "notext", ("link without _text", lds, objs),
                      make)
    one_line_error(ktool.run(image, check=False), image,
                   "_text: not defined")


def test_a_module_without_a_site_gets_no_table(ktool, made, tmp_path):
    """Only the header, no section; its check passes (no table, no site)."""
    obj = compiled(made, tmp_path, "plain.c", STRONG, "gcc", ["-O2"])
    ko = ld_r(made, "ld", tmp_path / "plain.ko", [obj])
    assert ktool.run(ko).stdout == HEADER.format(0)
    assert ktool.run("--check", ko).returncode == 0


def test_a_module_section_name_gas_cannot_take(ktool, made, tmp_path):
    """A traced section whose name the table's assembler cannot take."""
    src = '__attribute__((section(".text.a-b"))) int ab(int x) ' \
          '{ return x + 1; }\n'
    ko = ld_r(made, "ld", tmp_path / "ab.ko", [
        compiled(made, tmp_path, "ab.c", src, "gcc",
                 [*X86_FLAGS, "-mcmodel=kernel"])])
    one_line_error(ktool.run(ko, check=False), ko,
                   ".text.a-b: a section name the assembler cannot take")


@pytest.mark.parametrize("section,traced", [(".text.hot", True),
                                            (".text.A0z9Z_", True),
                                            (".text2", False),
                                            (".kprobes.text", True),
                                            (".entry.text", False)])
def test_section_rules_in_a_module(ktool, made, tmp_path, section, traced):
    """".text.*" is a prefix, ".text" a whole name: .text2 is unknown."""
    src = f'__attribute__((section("{section}"))) int sf(int x) ' \
          '{ return x + 5; }\n'
    objs = [compiled(made, tmp_path, "sf.c", src, "gcc",
                     [*X86_FLAGS, "-mcmodel=kernel"]),
            *x86_objs(made, tmp_path, "gcc", ["-mcmodel=kernel"])[:2]]
    ko = ld_r(made, "ld", tmp_path / "sf.ko", objs)
    text = ktool.run(ko).stdout
    assert (f"\t.section {section}, " in text) == traced
    assert len(entries(text)) == 5 + traced
    ktool.table(ko, tmp_path / "m.S")
    cc_c(made, "gcc", tmp_path / "m.S", tmp_path / "m.o")
    ours = ld_r(made, "ld", tmp_path / "ours.ko", [tmp_path / "m.o", ko],
                TOOL / "relink.lds")
    proc = ktool.run("--check", ours, check=False)
    if traced or section == ".entry.text":
        assert proc.returncode == 0, proc
    else:
        assert proc.returncode == 1
        assert f"{section}+0x0 (sf): holds an ftrace site in {section}, " \
            "which no rule names" in proc.stderr, proc


# ---------------------------------------------------------------------------
# The check's reports


def test_check_without_table_bounds(ktool, made, tmp_path):
    objs = x86_objs(made, tmp_path, "gcc")
    image = made.file(tmp_path / "nobounds", ("link, no table", objs),
                      lambda o: run(["gcc", "-no-pie", *objs, "-o", o]))
    one_line_error(ktool.run("--check", image, check=False), image,
                   "__start_mcount_loc: no valid table bounds")


@pytest.mark.parametrize("stop", [-8, 4])
def test_check_with_bad_table_bounds(ktool, made, tmp_path, stop):
    """The table's end before its start, or not a whole entry away."""
    second = x86_pair(ktool, made, tmp_path)[2]
    e = elfpatch.Elf(second.read_bytes())
    start = e.symbol("__start_mcount_loc")[1]["st_value"]
    e.set_symbol(e.symbol("__stop_mcount_loc")[0], st_value=start + stop)
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(e.data))
    one_line_error(ktool.run("--check", bad, check=False), bad,
                   "__start_mcount_loc: no valid table bounds")


def test_check_of_an_empty_table(ktool, made, tmp_path):
    """The first link's table is empty: every site is missing."""
    first = x86_pair(ktool, made, tmp_path)[1]
    err = check_fails(ktool, first)
    assert err.count("a traced function's site is not listed") == 5
    assert err.endswith("the ftrace table is not exact: 5 differences in "
                        "0 entries\n") and err.count("\n") == 6, err


def test_check_reports_twenty_differences(ktool, made, tmp_path):
    """25 differences: the first 20, then how many more."""
    objs = [compiled(made, tmp_path, "many.c", many_functions(24), "gcc",
                     X86_FLAGS),
            assembled(made, tmp_path, "stubs.S", STUBS_S)]
    first = linked(made, objs, tmp_path / "first")
    err = check_fails(ktool, first).splitlines()
    assert len(err) == 22, err
    assert all("a traced function's site is not listed" in ln
               for ln in err[:20]), err
    assert err[20] == f"linkpass: {first}: and 5 more differences"
    assert err[21] == f"linkpass: {first}: the ftrace table is not exact: " \
        "25 differences in 0 entries"


@pytest.mark.parametrize("bogus", [20, 21])
def test_check_reports_entries_in_no_section(ktool, made, tmp_path, bogus):
    """Entries that point nowhere (before the code, so that the table
    stays sorted): each named, at most twenty."""
    def edit(t):
        head, quads = t.split("\t.quad\t", 1)
        return head + "\t.quad\t" + ", ".join(
            f"{8 * (i + 1)}" for i in range(bogus)) + "\n\t.quad\t" + quads
    second = x86_pair(ktool, made, tmp_path, edit=edit)[2]
    err = check_fails(ktool, second).splitlines()
    lines = [f"linkpass: {second}: __mcount_loc: entry {i}: "
             f"{8 * (i + 1):#x} is in no section" for i in range(20)]
    more = [f"linkpass: {second}: and 1 more differences"] \
        if bogus == 21 else []
    assert err == lines + more + [
        f"linkpass: {second}: the ftrace table is not exact: "
        f"{bogus} differences in {5 + bogus} entries"]


def test_check_names_an_entry_of_untraced_code(ktool, made, tmp_path):
    """exitf's site is in .exit.text, which starts where the code before
    it ends: listed, it is refused by name."""
    end = assembled(made, tmp_path, "end.s", "\t.text\n\t.balign 16\n"
                    '\t.section .init.text,"ax",@progbits\n\t.balign 16\n')
    objs = [*x86_objs(made, tmp_path, "gcc"), end]
    first = linked(made, objs, tmp_path / "first")
    e = elfpatch.Elf(first.read_bytes())
    exit_at = e.shdr(e.index(".exit.text"))["sh_addr"]
    assert any(sh["sh_addr"] + sh["sh_size"] == exit_at and sh["sh_size"]
               for _, name, sh in e.sections() if name != ".exit.text")
    (exit_site,) = ground_truth(first, sections=(".exit.text",))
    base = symbol_value(first, "_text")
    second = table_of(ktool, made, tmp_path, objs, first, lambda t: t +
                      f"\t.quad\t_text+{exit_site - base:#x}\n")
    err = check_fails(ktool, second)
    assert f"linkpass: {second}: .exit.text+0x0 (exitf): listed, but its " \
        "section is not traced\n" in err, err


def test_check_reads_the_first_entry_and_function(ktool, made, tmp_path):
    """An entry before every site (at _init, which has none), and the
    first site left out: both found."""
    objs = x86_objs(made, tmp_path, "gcc")
    first = linked(made, objs, tmp_path / "first")
    base = symbol_value(first, "_text")
    init = symbol_value(first, "_init")
    assert init < base

    def edit(t):
        line = t.splitlines()[-1]
        return t.replace(line, f"\t.quad\t_text-{base - init:#x}, " +
                         ", ".join(entries(line)[1:]))
    second = table_of(ktool, made, tmp_path, objs, first, edit)
    first_fn = min(ground_truth(second).items())[1][0]
    err = check_fails(ktool, second)
    assert f"linkpass: {second}: .init+0x0 (no function): listed, but no " \
        "function's site is there\n" in err, err
    assert re.search(rf"\({first_fn}\): a traced function's site is not "
                     "listed\n", err), err
    assert err.count("\n") == 3, err


def test_check_refuses_an_entry_listed_twice_in_a_row(ktool, made,
                                                       tmp_path):
    def repeat_last(t):
        last = entries(t)[-1]
        return t.rstrip("\n") + f", {last}\n"
    second = x86_pair(ktool, made, tmp_path, edit=repeat_last)[2]
    err = check_fails(ktool, second)
    assert "listed out of order, or twice" in err and \
        "6 entries" in err and err.count("\n") == 2, err


ALIASES = """\
\t.section .note.GNU-stack,"",@progbits
\t.section .odd.text,"ax",@progbits
\t.type odd_local, @function
\t.globl odd
\t.type odd, @function
\t.weak odd_weak
\t.type odd_weak, @function
\t.globl odd_start
\t.type odd_start, @function
odd_local:
odd:
odd_weak:
odd_start:
\tcall __fentry__
\tret
\t.size odd_local, .-odd_local
\t.size odd, .-odd
\t.size odd_weak, .-odd_weak
\t.size odd_start, 0
\t.type two_local, @function
\t.weak two_weak
\t.type two_weak, @function
two_local:
two_weak:
\tcall __fentry__
\tret
\t.size two_local, .-two_local
\t.size two_weak, .-two_weak
"""


def test_a_function_is_named_by_its_best_symbol(ktool, made, tmp_path):
    """Of the symbols at a function's start, the widest names it, then
    a global, then a weak one, then a local."""
    aliases = assembled(made, tmp_path, "aliases.s", ALIASES)
    second = x86_pair(ktool, made, tmp_path, [aliases])[2]
    err = check_fails(ktool, second)
    assert ".odd.text+0x0 (odd): holds an ftrace site in .odd.text" in err
    assert ".odd.text+0x6 (two_weak): holds an ftrace site in .odd.text" \
        in err, err
    assert err.count("\n") == 3, err


def module_pair(ktool, made, tmp_path, edit=None, flags=()):
    """A module and its relink with its table (edited by @edit)."""
    objs = x86_objs(made, tmp_path, "gcc", ["-mcmodel=kernel", *flags])[:2]
    ko = ld_r(made, "ld", tmp_path / "mod.ko", objs)
    table = ktool.table(ko, tmp_path / "m.S")
    if edit:
        table.write_text(edit(table.read_text()))
    cc_c(made, "gcc", table, tmp_path / "m.o")
    return ko, ld_r(made, "ld", tmp_path / "ours.ko", [tmp_path / "m.o", ko],
                    TOOL / "relink.lds")


def test_a_module_table_names_the_sections_of_its_sites(linkpass, ktool,
                                                        made, tmp_path):
    """One label per section that holds a site, and no other; the
    entries are the user-space tool's."""
    ko, ours = module_pair(ktool, made, tmp_path)
    theirs = theirs_obj(made, linkpass, ko, tmp_path / "theirs.ko")
    text = (tmp_path / "m.S").read_text()
    labelled = re.findall(r'^\t\.section (\S+), "ax"\n\.Lmcount_\d+:$', text,
                          re.M)
    want = [sec for sec, _ in object_table(theirs)]
    assert sorted(labelled) == sorted(set(want)), text
    assert object_table(ours) == sorted(object_table(theirs))


def test_check_of_a_module_counts_past_twenty(ktool, made, tmp_path):
    """Twenty entries where no site is, and a repeat: the repeat is the
    21st difference, counted, not shown."""
    def edit(t):
        head, rest = t.split("\t.quad\t", 1)
        quads = ["\t.quad\t" + q for q in rest.split("\t.quad\t")]
        text1 = [q for q in quads if q.startswith("\t.quad\t.Lmcount_1 ")]
        bogus = [f"\t.quad\t.Lmcount_1 + {2 * k + 1:#x}\n" for k in range(20)]
        key = lambda q: int(q.rsplit("+ ", 1)[1], 16)  # noqa: E731
        first = sorted(text1 + bogus, key=key)
        assert first[0] == text1[0]
        return head + first[0] + "".join(first) + "".join(
            q for q in quads if q not in text1)
    ours = module_pair(ktool, made, tmp_path, edit)[1]
    err = check_fails(ktool, ours).splitlines()
    assert len(err) == 22, err
    assert all("listed, but no function's site is there" in ln
               for ln in err[:20]), err
    assert err[20:] == [f"linkpass: {ours}: and 1 more differences",
                        f"linkpass: {ours}: the ftrace table is not exact: "
                        "21 differences in 26 entries"]


def test_check_of_a_module_without_its_table(ktool, made, tmp_path):
    ko = module_pair(ktool, made, tmp_path)[0]
    err = check_fails(ktool, ko)
    assert err.count("a traced function's site is not listed") == 5, err


def test_check_of_a_module_listing_a_site_twice(ktool, made, tmp_path):
    """A module's table lists each site once."""
    def repeat_first(t):
        first = next(ln for ln in t.splitlines() if ".quad" in ln)
        return t.replace(first, first + "\n" + first, 1)
    ours = module_pair(ktool, made, tmp_path, repeat_first)[1]
    err = check_fails(ktool, ours)
    assert err == f"linkpass: {ours}: __mcount_loc: lists 1 sites twice\n" \
        f"linkpass: {ours}: the ftrace table is not exact: 1 differences " \
        "in 6 entries\n", err


def test_check_of_a_module_with_an_empty_table(ktool, made, tmp_path):
    """An empty __mcount_loc reads as no table."""
    ours = module_pair(ktool, made, tmp_path, lambda t: re.sub(
        r"\t\.quad.*\n", "", t))[1]
    assert section_data(ours, "__mcount_loc")[1] == b""
    err = check_fails(ktool, ours)
    assert err.count("a traced function's site is not listed") == 5, err


def test_check_of_a_module_entry_in_no_section(ktool, made, tmp_path):
    """An entry whose symbol is in no section the module has."""
    ours = module_pair(ktool, made, tmp_path)[1]
    e = elfpatch.Elf(ours.read_bytes())
    r = e.rela(e.index(".rela__mcount_loc"), 0)
    e.set_symbol(r["r_info"] >> 32, st_shndx=e.nsecs)
    bad = tmp_path / "bad.ko"
    bad.write_bytes(bytes(e.data))
    err = check_fails(ktool, bad)
    assert re.search(r": __mcount_loc: entry 0: 0x[0-9a-f]+ is in no "
                     r"section\n", err), err


def test_check_of_a_module_table_of_another_entry_size(ktool, made,
                                                       tmp_path):
    ours = module_pair(ktool, made, tmp_path)[1]
    e = elfpatch.Elf(ours.read_bytes())
    e.set_shdr(e.index(".rela__mcount_loc"), sh_entsize=23)
    bad = tmp_path / "bad.ko"
    bad.write_bytes(bytes(e.data))
    proc = ktool.run("--check", bad, check=False)
    assert proc.returncode == 2 and proc.stderr.startswith(
        f"linkpass: {bad}: .rela__mcount_loc: not an array of Elf64_Rela\n")


@pytest.mark.parametrize("what,edit,tail", [
    ("type", lambda e, rs: e.set_rela(rs, 1, r_info=(e.rela(rs, 1)["r_info"]
                                                     & ~0xffffffff) | 2),
     ".rela__mcount_loc: entry 1 is not an address"),
    ("symbol", lambda e, rs: e.set_rela(rs, 2, r_info=(len(e.symbols()) << 32)
                                        | 1),
     ".rela__mcount_loc: entry 2 is not an address"),
    ("count", lambda e, rs: e.set_shdr(rs, sh_size=e.shdr(rs)["sh_size"] - 24),
     "__mcount_loc: not one relocation per 8-byte entry"),
])
def test_check_of_a_module_table_that_is_no_table(ktool, made, tmp_path,
                                                   what, edit, tail):
    ours = module_pair(ktool, made, tmp_path)[1]
    e = elfpatch.Elf(ours.read_bytes())
    edit(e, e.index(".rela__mcount_loc"))
    bad = tmp_path / "bad.ko"
    bad.write_bytes(bytes(e.data))
    one_line_error(ktool.run("--check", bad, check=False), bad, tail)


# ---------------------------------------------------------------------------
# Pads: their geometry and the compiler's lists

def a64_objs(made, tmp_path, pad, flags=()):
    f = ["-O2", f"-fpatchable-function-entry={pad}", *flags]
    src = SRC.replace("no_instrument_function",
                      "patchable_function_entry(0, 0)")
    return [compiled(made, tmp_path, "prog.c", src, A64_CC, f),
            compiled(made, tmp_path, "strong.c", STRONG, A64_CC, f)]


def test_pads_sorted_across_sections_out_of_address_order(ktool, made,
                                                          tmp_path):
    """arm64 with .init.text placed below .text but numbered after it:
    the table is in address order, and passes the check."""
    require_tools(A64_CC)
    objs = a64_objs(made, tmp_path, "2")
    vmo = ld_r(made, "aarch64-linux-gnu-ld", tmp_path / "vmlinux.o", objs)
    low = ["-Wl,--section-start=.init.text=0x300000"]
    first = linked(made, objs, tmp_path / "first", A64_CC, None, extra=low)
    e = elfpatch.Elf(first.read_bytes())
    assert e.index(".init.text") > e.index(".text")
    assert e.shdr(e.index(".init.text"))["sh_addr"] < \
        e.shdr(e.index(".text"))["sh_addr"]
    text = ktool.table(first, tmp_path / "t.S", "--patchable=2",
                       f"--lists={vmo}").read_text()
    offsets = [int(m.group(2), 16) * (-1 if m.group(1) == "-" else 1)
               for m in (re.fullmatch(r"_text([+-])(0x[0-9a-f]+|0)", x)
                         for x in entries(text))]
    assert len(offsets) == 5 and offsets == sorted(offsets), text
    cc_c(made, A64_CC, tmp_path / "t.S", tmp_path / "t.o")
    second = linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second",
                    A64_CC, None, extra=low, q=False)
    assert ktool.run("--check", "--patchable=2", second).returncode == 0


def test_a_pad_of_another_geometry_is_an_error(ktool, made, tmp_path):
    """A module's listed pad that does not hold the pad --patchable says."""
    require_tools(A64_CC)
    ko = ld_r(made, "aarch64-linux-gnu-ld", tmp_path / "mod.ko",
              a64_objs(made, tmp_path, "2"))
    assert len(entries(ktool.run("--patchable=2", ko).stdout)) == 5
    proc = ktool.run("--patchable=3", ko, check=False)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert re.fullmatch(rf"linkpass: {re.escape(str(ko))}: \.text(\.\w+)?: "
                        r"0x[0-9a-f]+: the listed pad of the function there "
                        r"does not hold 3,0 nops\n", proc.stderr), proc


def test_lists_must_be_a_relocatable_object_of_the_arch(ktool, made,
                                                        tmp_path):
    require_tools(A64_CC)
    objs = a64_objs(made, tmp_path, "2")
    first = linked(made, objs, tmp_path / "first", A64_CC, None)
    missing = tmp_path / "missing.o"
    one_line_error(ktool.run("--patchable=2", f"--lists={missing}", first,
                             check=False), missing,
                   "No such file or directory")
    one_line_error(ktool.run("--patchable=2", f"--lists={first}", first,
                             check=False), first,
                   "not a relocatable object of arm64")
    x86 = x86_objs(made, tmp_path, "gcc")[0]
    one_line_error(ktool.run("--patchable=2", f"--lists={x86}", first,
                             check=False), x86,
                   "not a relocatable object of arm64")


@pytest.mark.parametrize("cc,pad,flags", [
    (A64_CC, "4,2", ["-mbranch-protection=bti"]),
    (RV_CC, "8,4", ["-march=rv64gc"]),
])
def test_a_pads_module_table_links_and_checks(linkpass, ktool, made,
                                              tmp_path, cc, pad, flags):
    """A module's table from its own lists, assembled and linked first
    into its relink, passes the check, as the user-space tool's does."""
    objs = pad_objs(made, tmp_path, cc, flags, pad)
    ld = cc.replace("gcc", "ld")
    ko = ld_r(made, ld, tmp_path / "mod.ko", objs)
    ktool.table(ko, tmp_path / "m.S", f"--patchable={pad}")
    cc_c(made, cc, tmp_path / "m.S", tmp_path / "m.o")
    ours = ld_r(made, ld, tmp_path / "ours.ko", [tmp_path / "m.o", ko],
                TOOL / "relink.lds")
    relocs = run(["readelf", "-rW", ours]).stdout.split(
        "'.rela__mcount_loc'")[1].split("\n\n")[0]
    got = re.findall(r" R_\w+\s+[0-9a-f]+ (\S+) \+ [0-9a-f]+$", relocs, re.M)
    assert len(got) == 5 and ".exit.text" not in got, relocs
    assert ktool.run("--check", f"--patchable={pad}", ours).returncode == 0
    assert "__patchable_function_entries" not in \
        run(["readelf", "-SW", ours]).stdout


# ---------------------------------------------------------------------------
# The states written at link time (--check --nop)


def words(data, at, n):
    return struct.unpack_from(f"<{n}I", data, at)


def changed_words(before, after):
    """{file offset: (old, new)} of every 4-byte word that changed."""
    return {i: (words(before, i, 1)[0], words(after, i, 1)[0])
            for i in range(0, len(before) - 3, 4)
            if before[i:i + 4] != after[i:i + 4]}


def file_offset(image, addr):
    out = run(["readelf", "-SW", image]).stdout
    for m in re.finditer(r"^\s*\[\s*\d+\]\s+\S+\s+PROGBITS\s+([0-9a-f]+)\s+"
                         r"([0-9a-f]+)\s+([0-9a-f]+)", out, re.M):
        base, off, size = (int(m.group(i), 16) for i in (1, 2, 3))
        if base <= addr < base + size:
            return off + addr - base
    raise AssertionError(f"{addr:#x} in no section of {image}")


def test_nops_need_the_relocations(ktool, made, tmp_path):
    """An image linked without --emit-relocs passes the check, but the
    NOPs are refused, and the file is left as it was."""
    second = x86_pair(ktool, made, tmp_path, q=False)[2]
    assert ktool.run("--check", second).returncode == 0
    before = second.read_bytes()
    one_line_error(ktool.run("--check", "--nop", second, check=False),
                   second, "no relocations of code: link it with "
                   "--emit-relocs")
    assert second.read_bytes() == before


def test_nops_need_every_call_relocated(ktool, made, tmp_path):
    """A site whose call lost its relocation: nothing is written."""
    second = x86_pair(ktool, made, tmp_path)[2]
    e = elfpatch.Elf(second.read_bytes())
    rs = e.index(".rela.text")
    k, sym = e.symbol("leaf")
    fentry = e.symbols()
    fentry = next(i for i, n, s in fentry if n == "__fentry__")
    j = next(j for j in range(e.shdr(rs)["sh_size"] // 24)
             if e.rela(rs, j)["r_offset"] == sym["st_value"] + 1 and
             e.rela(rs, j)["r_info"] >> 32 == fentry)
    e.set_rela(rs, j, r_info=fentry << 32)   # R_X86_64_NONE
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(e.data))
    assert ktool.run("--check", bad).returncode == 0
    one_line_error(ktool.run("--check", "--nop", bad, check=False), bad,
                   f".text: {sym['st_value']:#x}: the site of leaf does not "
                   "hold its call")
    assert bad.read_bytes() == bytes(e.data)


def pads_pair(ktool, made, tmp_path, cc, pad, flags, extra=(), pie=False,
              ldflags=()):
    """(objs, vmlinux.o, first, second) of a vmlinux with pads (and
    @extra objects, linked with @ldflags)."""
    require_tools(cc)
    f = ["-O2", f"-fpatchable-function-entry={pad}", *flags]
    src = SRC.replace("no_instrument_function",
                      "patchable_function_entry(0, 0)")
    objs = [compiled(made, tmp_path, "prog.c", src, cc, f),
            compiled(made, tmp_path, "strong.c", STRONG, cc, f), *extra]
    vmo = ld_r(made, cc.replace("gcc", "ld"), tmp_path / "vmlinux.o", objs)
    opts = ["-nostdlib", "-pie", "-Wl,--no-dynamic-linker", "-Wl,-e,main"] \
        if pie else []
    opts += ldflags
    first = linked(made, objs, tmp_path / "first", cc, None, extra=opts)
    ktool.table(first, tmp_path / "t.S", f"--patchable={pad}",
                f"--lists={vmo}")
    cc_c(made, cc, tmp_path / "t.S", tmp_path / "t.o")
    second = linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second", cc,
                    None, extra=opts, q=False)
    return objs, vmo, first, second


def traced_functions(image):
    """The functions whose sites the table must list: main, leaf, st, wf
    (the strong one), initf."""
    return {s["name"]: s["value"] for s in symbols(image)
            if s["type"] == "FUNC" and
            s["name"] in ("main", "leaf", "st", "wf", "initf")}


# a hidden function and a weak alias of it: vmlinux.o's index names the
# address by the global; ld.lld makes hidden symbols local in vmlinux,
# whose index then names it by the weak alias (as ThinLTO's arm64 build
# names sys_ni_syscall's COND_SYSCALL stubs)
ALIASED = r"""
__attribute__((visibility("hidden"), noinline)) int ni_fn(int x)
{ return x ^ 5; }
int stub_fn(int x) __attribute__((weak, alias("ni_fn")));
const int ro_word = 7;	/* a .rodata for the table to follow */
"""


def test_a_listed_function_is_found_by_any_of_its_names(ktool, made,
                                                        tmp_path):
    """vmlinux.o and vmlinux name one padded function by two of its
    aliases: its site is listed all the same."""
    require_tools("clang", "ld.lld", A64_CC)
    objs = [*pad_objs(made, tmp_path, A64_CC, [], "2"),
            compiled(made, tmp_path, "alias.c", ALIASED, A64_CC,
                     ["-O2", "-fpatchable-function-entry=2"])]
    vmo = ld_r(made, "aarch64-linux-gnu-ld", tmp_path / "vmlinux.o", objs)
    lld = ["--target=aarch64-linux-gnu", "-nostdlib", "-Wl,-e,main"]
    first = linked(made, objs, tmp_path / "first", "clang", "lld", lld)
    at = {s["name"]: (s["bind"], s["value"]) for s in symbols(first)}
    assert at["ni_fn"][0] == "LOCAL" and at["stub_fn"][0] == "WEAK"
    assert at["ni_fn"][1] == at["stub_fn"][1]
    assert ("GLOBAL", "ni_fn") in {(s["bind"], s["name"])
                                   for s in symbols(vmo)}
    ktool.table(first, tmp_path / "t.S", "--patchable=2", f"--lists={vmo}")
    assert len(entries((tmp_path / "t.S").read_text())) == 6
    cc_c(made, A64_CC, tmp_path / "t.S", tmp_path / "t.o")
    second = linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second",
                    "clang", "lld", lld, q=False)
    assert ktool.run("--check", "--patchable=2", second).returncode == 0


# a listed function with a label (no type) at its start, and elsewhere a
# local function of the label's name whose entry looks like a pad but is
# in no list
LABELLED = """\t.text
\t.p2align 3
\t.globl padded
\t.type padded, %function
lookalike:
padded:
\tnop
\tnop
\tret
\t.size padded, .-padded
\t.section __patchable_function_entries, "awo", @progbits, padded
\t.p2align 3
\t.8byte padded
"""
LOOKALIKE = """\t.text
\t.p2align 3
\t.type lookalike, %function
lookalike:
\tnop
\tnop
\tret
\t.size lookalike, .-lookalike
"""


def test_only_function_names_at_a_listed_site_count(ktool, made, tmp_path):
    """A label at a listed function's start names no function: a
    function elsewhere that has the label's name and pad-like nops is
    not listed."""
    objs = [*pad_objs(made, tmp_path, A64_CC, [], "2"),
            compiled(made, tmp_path, "labelled.s", LABELLED, A64_CC, []),
            compiled(made, tmp_path, "lookalike.s", LOOKALIKE, A64_CC, [])]
    vmo = ld_r(made, "aarch64-linux-gnu-ld", tmp_path / "vmlinux.o", objs)
    first = linked(made, objs, tmp_path / "first", A64_CC, None)
    at = {(s["name"], s["type"]): s["value"] for s in symbols(first)}
    text = ktool.run("--patchable=2", f"--lists={vmo}", first).stdout
    got = {int(x.split("+")[1], 16) for x in entries(text)}
    base = at[("_text", "NOTYPE")]
    assert at[("padded", "FUNC")] - base in got
    assert at[("lookalike", "FUNC")] - base not in got
    assert len(got) == 6, text


def test_arm64_states_are_mov_x9_x30(ktool, made, tmp_path):
    """arm64: "mov x9, x30" over the first nop at each entry, after the
    BTI landing pad; nothing else changes."""
    _, _, _, second = pads_pair(ktool, made, tmp_path, A64_CC, "4,2",
                                ["-mbranch-protection=bti"])
    before = second.read_bytes()
    ktool.run("--check", "--nop", "--patchable=4,2", second)
    changed = changed_words(before, second.read_bytes())
    want = {}
    for start in traced_functions(second).values():
        at = file_offset(second, start)
        if words(before, at, 1)[0] == A64_BTI_C:
            at += 4
        want[at] = (A64_NOP, A64_MOV_X9_LR)
    assert len(want) == 5 and changed == want
    dis = run(["aarch64-linux-gnu-objdump", "-d", second]).stdout
    assert dis.count("mov\tx9, x30") == 5
    # checked again: the state and the nop after it are the pad; without
    # that nop, it is not
    assert ktool.run("--check", "--patchable=4,2", second).returncode == 0
    data = bytearray(second.read_bytes())
    at = max(want) + 4
    assert words(data, at, 1)[0] == A64_NOP
    data[at:at + 4] = struct.pack("<I", A64_BTI_C)
    broken = tmp_path / "broken"
    broken.write_bytes(bytes(data))
    err = check_fails(ktool, broken, "--patchable=4,2")
    assert "listed, but no function's site is there" in err, err
    assert "1 differences in 5 entries" in err, err


def rv_objs_with_caller(made, tmp_path):
    """ftrace_caller 0x900 bytes after the code: every site's distance
    has bit 11 set, so the auipc's upper bits are rounded up."""
    caller = "\t.text\n\t.skip 0x900\n\t.globl ftrace_caller\n" \
             "\t.type ftrace_caller, @function\nftrace_caller:\n\tret\n" \
             "\t.size ftrace_caller, .-ftrace_caller\n"
    return [compiled(made, tmp_path, "caller.s", caller, RV_CC, [])]


def test_riscv_states_reach_ftrace_caller(ktool, made, tmp_path):
    """riscv vmlinux: "auipc t0" and "nop" over the first two nops at each
    function's start, the auipc's upper bits such that a jalr's signed
    12 bits reach ftrace_caller from there; from main, ftrace_caller is
    exactly 0x800 away, where the upper bits must be rounded up."""
    _, _, _, second = pads_pair(
        ktool, made, tmp_path, RV_CC, "4,2", ["-march=rv64g"],
        ldflags=["-Wl,--defsym=ftrace_caller=main+0x800"])
    caller = elfpatch.Elf(second.read_bytes()).symbol(
        "ftrace_caller")[1]["st_value"]
    before = second.read_bytes()
    ktool.run("--check", "--nop", "--patchable=4,2", second)
    after = second.read_bytes()
    changed = changed_words(before, after)
    funcs = traced_functions(second)
    assert len(funcs) == 5 and len(changed) == 5, changed
    assert caller - funcs["main"] == 0x800
    for name, start in funcs.items():
        at = file_offset(second, start)
        auipc, nop = words(after, at, 2)
        assert auipc & 0xfff == 0x297 and nop == RV_NOP, name
        hi = auipc & 0xfffff000
        hi = hi - (1 << 32) if hi >> 31 else hi
        lo = caller - start - hi
        assert -2048 <= lo < 2048, (name, lo)
        assert changed[at] == (RV_NOP, auipc)
    # checked again: the state is the pad; a state that does not reach
    # ftrace_caller is not
    assert ktool.run("--check", "--patchable=4,2", second).returncode == 0
    data = bytearray(after)
    at = file_offset(second, funcs["main"])
    data[at:at + 4] = struct.pack("<I", words(after, at, 1)[0] + 0x1000)
    broken = tmp_path / "broken"
    broken.write_bytes(bytes(data))
    err = check_fails(ktool, broken, "--patchable=4,2")
    assert "listed, but no function's site is there" in err, err
    assert "1 differences in 5 entries" in err, err


def test_riscv_states_need_ftrace_caller(ktool, made, tmp_path):
    """Where the link does not know ftrace_caller (a module, an image
    without it), nothing is written, and that is no error."""
    _, vmo, _, second = pads_pair(ktool, made, tmp_path, RV_CC, "4,2",
                                  ["-march=rv64g"])
    ld = "riscv64-linux-gnu-ld"
    ko = ld_r(made, ld, tmp_path / "mod.ko", [vmo])
    ktool.table(ko, tmp_path / "m.S", "--patchable=4,2")
    cc_c(made, RV_CC, tmp_path / "m.S", tmp_path / "m.o")
    ours = ld_r(made, ld, tmp_path / "ours.ko", [tmp_path / "m.o", ko],
                TOOL / "relink.lds")
    for image in (second, ours):
        before = image.read_bytes()
        proc = ktool.run("--check", "--nop", "--patchable=4,2", image)
        assert proc.stderr == "" and image.read_bytes() == before


def test_riscv_states_stay_in_their_section(ktool, made, tmp_path):
    """A one-nop pad (a c.nop) is shorter than the eight bytes of the
    state: at the end of .text they would run past it.  Refused, and
    nothing is written."""
    require_tools(RV_CC)
    src = "int main(void) { return 0; }\nvoid last(void) {}\n"
    obj = compiled(made, tmp_path, "last.c", src, RV_CC,
                   ["-O2", "-march=rv64gc", "-fpatchable-function-entry=1"])
    vmo = ld_r(made, "riscv64-linux-gnu-ld", tmp_path / "vmlinux.o", [obj])
    opts = ["-nostdlib", "-Wl,-e,main",
            "-Wl,--defsym=ftrace_caller=main+0x40"]
    first = linked(made, [obj], tmp_path / "first", RV_CC, None, extra=opts)
    ktool.table(first, tmp_path / "t.S", "--patchable=1", f"--lists={vmo}")
    cc_c(made, RV_CC, tmp_path / "t.S", tmp_path / "t.o")
    second = linked(made, [obj, tmp_path / "t.o"], tmp_path / "second",
                    RV_CC, None, extra=opts, q=False)
    e = elfpatch.Elf(second.read_bytes())
    last = e.symbol("last")[1]["st_value"]
    text = e.shdr(e.index(".text"))
    assert last + 4 == text["sh_addr"] + text["sh_size"]
    before = second.read_bytes()
    one_line_error(ktool.run("--check", "--nop", "--patchable=1", second,
                             check=False), second,
                   f".text: {last:#x}: out of the section")
    assert second.read_bytes() == before


def rv_pie(ktool, made, tmp_path):
    """A riscv vmlinux linked -pie, as a relocatable kernel."""
    return pads_pair(ktool, made, tmp_path, RV_CC, "4,2", ["-march=rv64g"],
                     rv_objs_with_caller(made, tmp_path), pie=True)[3]


def test_a_relocatable_kernel_table_is_in_its_relocations(ktool, made,
                                                           tmp_path):
    """riscv vmlinux linked -pie: the table's words are zero, its entries
    the addends of RELATIVE relocations; the check reads them, and the
    states are written from them."""
    second = rv_pie(ktool, made, tmp_path)
    assert set(quads(second)) == {0}
    relocs = run(["readelf", "-rW", second]).stdout
    assert relocs.count("R_RISCV_RELATIVE") >= 5
    assert ktool.run("--check", "--patchable=4,2", second).returncode == 0
    before = second.read_bytes()
    ktool.run("--check", "--nop", "--patchable=4,2", second)
    assert len(changed_words(before, second.read_bytes())) == 5


def test_a_relocatable_kernel_table_read_to_its_relocations_end(
        ktool, made, tmp_path):
    """Only the relocations the section holds are read: the last of the
    table's, left just past .rela.dyn's end, is not; a .rela.dyn of
    another entry size is an error."""
    second = rv_pie(ktool, made, tmp_path)
    e = elfpatch.Elf(second.read_bytes())
    rs = e.index(".rela.dyn")
    start = e.symbol("__start_mcount_loc")[1]["st_value"]
    stop = e.symbol("__stop_mcount_loc")[1]["st_value"]
    table = [k for k in range(e.shdr(rs)["sh_size"] // 24)
             if start <= e.rela(rs, k)["r_offset"] < stop]
    last = table[-1]
    assert last == max(table) and len(table) == 5
    e.set_shdr(rs, sh_size=last * 24)
    short = tmp_path / "short"
    short.write_bytes(bytes(e.data))
    err = check_fails(ktool, short, "--patchable=4,2")
    entry = (e.rela(rs, last)["r_offset"] - start) // 8
    assert f": __mcount_loc: entry {entry}: 0x0 is in no section\n" in err
    e = elfpatch.Elf(second.read_bytes())
    e.set_shdr(rs, sh_entsize=23)
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(e.data))
    one_line_error(ktool.run("--check", "--patchable=4,2", bad, check=False),
                   bad, ".rela.dyn: not an array of Elf64_Rela")


def a64_module(made, tmp_path):
    require_tools(A64_CC)
    return ld_r(made, "aarch64-linux-gnu-ld", tmp_path / "mod.ko",
                a64_objs(made, tmp_path, "2"))


def list_edit(ko, tmp_path, name, k=0, **kw):
    """@ko with entry @k of its list's relocations changed (or, without
    an entry's fields, the relocation section's header)."""
    e = elfpatch.Elf(ko.read_bytes())
    rs = e.index(".rela__patchable_function_entries")
    if "r_info" in kw:
        e.set_rela(rs, k, **kw)
    else:
        e.set_shdr(rs, **kw)
    out = tmp_path / name
    out.write_bytes(bytes(e.data))
    return out


def test_a_list_entry_the_link_dropped_is_left_out(ktool, made, tmp_path):
    """An entry the link made R_AARCH64_NONE, or one that names no
    symbol, is code the link dropped: not listed, not an error."""
    ko = a64_module(made, tmp_path)
    assert len(entries(ktool.run("--patchable=2", ko).stdout)) == 5
    for name, r_info in (("none", 1 << 32), ("nosym", 257)):
        edited = list_edit(ko, tmp_path, name, r_info=r_info)
        assert len(entries(ktool.run("--patchable=2", edited).stdout)) == 4


def test_a_damaged_list_is_an_error(ktool, made, tmp_path):
    """A list entry that is no absolute address (R_AARCH64_PREL32), and
    a list of relocations of another size; from the lists of vmlinux.o
    too."""
    ko = a64_module(made, tmp_path)
    prel = list_edit(ko, tmp_path, "prel.o", 2, r_info=(1 << 32) | 261)
    size = list_edit(ko, tmp_path, "size.o", sh_entsize=23)
    tails = {prel: ".rela__patchable_function_entries: entry 2: not an "
             "address in code",
             size: ".rela__patchable_function_entries: not an array of "
             "Elf64_Rela"}
    first = linked(made, a64_objs(made, tmp_path, "2"), tmp_path / "first",
                   A64_CC, None)
    for bad, tail in tails.items():
        one_line_error(ktool.run("--patchable=2", bad, check=False), bad,
                       tail)
        one_line_error(ktool.run("--patchable=2", f"--lists={bad}", first,
                                 check=False), bad, tail)


# ---------------------------------------------------------------------------
# Memory: every mode, and the error paths, under valgrind


def test_no_memory_errors_or_leaks(linkpass, ktool, made, tmp_path):
    """valgrind finds no read or write out of bounds, no use of memory
    not set, and nothing left allocated, whatever the tool does: tables,
    checks, NOPs, and each kind of error.  The cases run two at a time;
    the first that fails stops the others."""
    require_tools("valgrind")
    cases = []

    def case(name, *args, rc=0):
        cases.append((name, [str(a) for a in args], rc))

    def folder(name):
        (tmp_path / name).mkdir()
        return tmp_path / name

    _, first, second = x86_pair(ktool, made, folder("x86"))
    case("table", first)
    case("check and nop", "--check", "--nop", second)
    nowhere = x86_pair(ktool, made, folder("nowhere"), edit=lambda t:
                       t.replace("\t.quad\t", "\t.quad\t8, ", 1))[2]
    case("check, an entry in no section", "--check", nowhere, rc=1)
    ko, ours = module_pair(ktool, made, folder("mod"))
    case("module table", ko)
    case("module check and nop", "--check", "--nop", ours)
    case("module check, no table", "--check", ko, rc=1)
    twice = module_pair(ktool, made, folder("twice"), lambda t: t.replace(
        "\t.quad", "\t.quad\t.Lmcount_1 + 0x0\n\t.quad", 1))[1]
    case("module check, a repeat", "--check", twice, rc=1)
    e = elfpatch.Elf(ours.read_bytes())
    rs = e.index(".rela__mcount_loc")
    e.set_rela(rs, 1, r_info=e.rela(rs, 1)["r_info"] & ~0xffffffff | 2)
    (tmp_path / "mod" / "pc32.ko").write_bytes(bytes(e.data))
    case("module check, a wrong entry", "--check", tmp_path / "mod" /
         "pc32.ko", rc=2)
    e.set_shdr(rs, sh_entsize=23)
    (tmp_path / "mod" / "size.ko").write_bytes(bytes(e.data))
    case("module check, relocations of another size", "--check",
         tmp_path / "mod" / "size.ko", rc=2)
    d = folder("a64")
    if shutil.which(A64_CC):
        _, vmo, a_first, a_second = pads_pair(ktool, made, d, A64_CC, "4,2",
                                              ["-mbranch-protection=bti"])
        case("pads table", "--patchable=4,2", f"--lists={vmo}", a_first)
        case("pads module table", "--patchable=4,2", vmo)
        case("pads check and nop", "--check", "--nop", "--patchable=4,2",
             a_second)
        case("pads of another geometry", "--patchable=5,2", vmo, rc=2)
        case("lists missing", "--patchable=4,2", f"--lists={d / 'no'}",
             a_first, rc=2)
        # every listed pad with its function (no dead body)
        one = [a64_objs(made, d, "2")[0]]
        case("pads table, no dead body", "--patchable=2",
             f"--lists={ld_r(made, 'aarch64-linux-gnu-ld', d / 'one.o', one)}",
             linked(made, one, d / "one", A64_CC, None))
        case("a damaged list", "--patchable=2", list_edit(
            a64_module(made, d), d, "prel.ko", 2, r_info=(1 << 32) | 261),
            rc=2)
    if shutil.which(RV_CC):
        # a relocation of the table's just past its end
        pie = rv_pie(ktool, made, folder("pie"))
        e = elfpatch.Elf(pie.read_bytes())
        rs = e.index(".rela.dyn")
        stop = e.symbol("__stop_mcount_loc")[1]["st_value"]
        e.set_rela(rs, e.shdr(rs)["sh_size"] // 24 - 1, r_offset=stop)
        pie.write_bytes(bytes(e.data))
        case("pie, a relocation at the table's end", "--check",
             "--patchable=4,2", pie)
    d = folder("errors")
    inside = assembled(made, d, "inside.s", INSIDE)
    case("a call inside", ld_r(made, "ld", d / "inside.ko", [inside]), rc=2)
    jmp = assembled(made, d, "jmp.s", asm_function(
        "good", "call __fentry__", "ret") + asm_function(
        "j", "jmp __fentry__"))
    case("a jump", ld_r(made, "ld", d / "jmp.ko", [jmp]), rc=2)
    for what, edit in (("stripped", _symtab(sh_type=1)),
                       ("symtab link", _symtab(sh_link=lambda e: e.nsecs)),
                       ("function", _symbol("main", st_value=lambda e:
                                            _end_of(".text")(e) + 1))):
        bad = damaged(first, d, edit)[0].rename(d / f"damaged-{what}")
        case(f"damaged {what}", bad, rc=2)
    # fields just out of range, which the tool must not follow
    e = elfpatch.Elf(first.read_bytes())
    e.set_symbol(e.symbol("nf")[0], st_shndx=e.nsecs)
    e.set_shdr(e.index(".rela.init.text"), sh_info=e.nsecs)
    rs = e.index(".rela.text")
    e.set_rela(rs, 0, r_info=(len(e.symbols()) << 32) |
               (e.rela(rs, 0)["r_info"] & 0xffffffff))
    (d / "ranges").write_bytes(bytes(e.data))
    case("out of range", d / "ranges")

    def vg(c):
        name, args, rc = c
        proc = run(["valgrind", "-q", "--error-exitcode=99",
                    "--leak-check=full", "--show-leak-kinds=all",
                    "--errors-for-leak-kinds=all", ktool.path, *args],
                   check=False, timeout=300)
        return name, rc, proc

    pool = ThreadPoolExecutor(2)
    try:
        for done in as_completed([pool.submit(vg, c) for c in cases]):
            name, rc, proc = done.result()
            assert proc.returncode == rc and "==" not in proc.stderr, \
                f"{name}:\n{describe(proc)}"
    finally:
        pool.shutdown(cancel_futures=True)
