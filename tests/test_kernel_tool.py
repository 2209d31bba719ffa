# The in-tree tool, kernel/linkpass/ (scripts/linkpass/ of the 7.3
# series): built alone with the kernel's host warnings and with musl, its
# tables against the user-space tool's on real toolchain output (the
# tables linked into the image must be the same bytes), its check
# against wrong tables and rules, and its errors.

import re
import shutil
from pathlib import Path

import pytest

from lptest import (REPO, STUBS_S, assemble, compile_src, run,
                    require_compiler_ld, require_tools, section_data, write)

TOOL = REPO / "kernel" / "linkpass"
# KBUILD_HOSTCFLAGS' warnings, made errors
HOST_CFLAGS = ["-O2", "-Wall", "-Wmissing-prototypes", "-Wstrict-prototypes",
               "-std=gnu11", "-Werror"]
# What the kernel's linker script does for the table: MCOUNT_REC()
MCOUNT_LDS = ("SECTIONS { __mcount_loc : { __start_mcount_loc = .; "
              "KEEP(*(__mcount_loc)) __stop_mcount_loc = .; } } "
              "INSERT AFTER .rodata;\n")

SRC = r"""
int __attribute__((weak)) wf(int x) { return x + 1; }
static int __attribute__((noinline)) st(int x) { return x * 3; }
int leaf(int x) { return st(x) + wf(x); }
__attribute__((section(".init.text"))) int initf(int x) { return leaf(x); }
__attribute__((section(".exit.text"))) int exitf(int x) { return x - 1; }
__attribute__((no_instrument_function)) int nf(int x) { return x + 4; }
int main(void) { return initf(2) + exitf(1) + nf(0) == 23 ? 0 : 1; }
"""
STRONG = "int wf(int x) { return x + 10; }\n"


def sources():
    return sorted(TOOL.glob("*.c"))


def tool_lines():
    return sum(len(p.read_text().splitlines())
               for p in [*TOOL.glob("*.c"), *TOOL.glob("*.h")])


class Tool:
    def __init__(self, path):
        self.path = path

    def run(self, *args, check=True):
        return run([self.path, *args], check=check)

    def table(self, image, out, *opts):
        """The table of @image as assembler in @out; returns @out."""
        proc = self.run(*opts, image)
        Path(out).write_text(proc.stdout)
        return out


@pytest.fixture(scope="module")
def ktool(tmp_path_factory):
    """kernel/linkpass built as Kbuild builds a host program."""
    require_tools("gcc")
    exe = tmp_path_factory.mktemp("ktool") / "linkpass"
    run(["gcc", *HOST_CFLAGS, "-o", exe, *sources()])
    return Tool(exe)


def test_size_and_form():
    n = tool_lines()
    print(f"\nkernel/linkpass: {n} lines of C and headers")
    assert n <= 2000
    for p in [*TOOL.glob("*.c"), *TOOL.glob("*.h")]:
        text = p.read_text()
        assert not re.search(r"#include\s*[<\"](gelf|libelf)\.h", text), p
        for word in ("hook", "extras", "full tool"):
            assert word not in text.lower(), (p, word)
    objs = re.search(r"linkpass-objs := (.*)", (TOOL / "Makefile").read_text())
    assert sorted(objs.group(1).split()) == \
        sorted(p.stem + ".o" for p in sources())


def test_builds_with_musl(tmp_path):
    """Alpine and postmarketOS build kernels with musl as the host libc."""
    require_tools("musl-gcc")
    exe = tmp_path / "linkpass-musl"
    run(["musl-gcc", *HOST_CFLAGS, "-static", "-o", exe, *sources()])
    proc = run([exe], check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("usage:")


def link(objs, out, cc="gcc", ld="bfd", extra=()):
    """@objs linked -q (--emit-relocs) with the table placed as the
    kernel places it."""
    lds = write(Path(out).parent / "mcount.lds", MCOUNT_LDS)
    run([cc, f"-fuse-ld={ld}", "-no-pie", "-Wl,-q", f"-Wl,-T,{lds}",
         *extra, *objs, "-o", out])
    return out


def section_bytes(image, name):
    return section_data(image, name)[1]


def object_table(ko):
    """A relocatable object's table: (section, offset) of each entry's
    relocation (`readelf -rW`), sorted."""
    out = run(["readelf", "-rW", ko]).stdout.split(
        "'.rela__mcount_loc'")[1].split("\n\n")[0]
    return sorted(re.findall(r"R_\w+_64\s+[0-9a-f]+ (\S+) \+ ([0-9a-f]+)$",
                             out, re.M))


def x86_objs(tmp_path, cc, flags=()):
    f = ["-pg", "-mfentry", "-O2", "-fno-pie", *flags]
    return [compile_src(tmp_path, "prog.c", SRC, cc, f),
            compile_src(tmp_path, "strong.c", STRONG, cc, f),
            assemble(tmp_path, "stubs.S", STUBS_S)]


@pytest.mark.parametrize("cc,ld,flags", [
    ("gcc", "bfd", []),
    ("gcc", "bfd", ["-fcf-protection=branch"]),
    ("gcc", "lld", []),
    ("clang", "lld", ["-fcf-protection=branch"]),
    ("clang", "bfd", []),
])
def test_x86_64_image_like_the_user_space_tool(linkpass, ktool, tmp_path,
                                               cc, ld, flags):
    """Two links of vmlinux's kind: the first image's table, assembled
    and linked into the second, is stable, passes the check, and is byte
    for byte the table the user-space tool's object gives."""
    require_compiler_ld(cc, ld)
    objs = x86_objs(tmp_path, cc, flags)
    first = link(objs, tmp_path / "first", cc, ld)
    ours = ktool.table(first, tmp_path / "t.S")
    run([cc, "-c", ours, "-o", tmp_path / "t.o"])
    second = link([*objs, tmp_path / "t.o"], tmp_path / "second", cc, ld)
    assert ktool.table(second, tmp_path / "t2.S") and \
        (tmp_path / "t2.S").read_text() == ours.read_text()
    assert ktool.run("--check", second).returncode == 0
    # the user-space tool's table of the same image
    linkpass.scan(first, tmp_path / "full.o")
    theirs = link([*objs, tmp_path / "full.o"], tmp_path / "full", cc, ld)
    got = section_bytes(second, "__mcount_loc")
    assert got == section_bytes(theirs, "__mcount_loc")
    assert len(got) == 5 * 8   # main, leaf, st, wf (strong), initf
    # the NOPs, in place, with the calls' relocations made R_X86_64_NONE
    nopped = tmp_path / "nopped"
    shutil.copy(second, nopped)
    ktool.run("--check", "--nop", nopped)
    assert linkpass.check(nopped, "--sites=nop")[0] == 0
    relocs = run(["readelf", "-rW", nopped]).stdout
    assert "__fentry__" in relocs and "R_X86_64_NONE" in relocs


def test_module_like_the_user_space_tool(linkpass, ktool, tmp_path):
    """A module: the table linked first into a relink of the .ko lists
    the same sites as the user-space tool's obj, and --check --nop
    leaves the calls NOPs with R_X86_64_NONE relocations."""
    objs = x86_objs(tmp_path, "gcc", ["-mcmodel=kernel"])[:2]
    ko = tmp_path / "mod.ko"
    run(["ld", "-r", "-o", ko, *objs])
    theirs = tmp_path / "theirs.ko"
    shutil.copy(ko, theirs)
    linkpass.run("obj", theirs)
    ktool.table(ko, tmp_path / "m.S")
    run(["gcc", "-c", tmp_path / "m.S", "-o", tmp_path / "m.o"])
    ours = tmp_path / "ours.ko"
    run(["ld", "-r", "-T", TOOL / "relink.lds", "-o", ours,
         tmp_path / "m.o", ko])
    got = object_table(ours)
    assert got == object_table(theirs) and len(got) == 5, got
    ktool.run("--check", "--nop", ours)
    assert linkpass.check(ours, "--sites=nop")[0] == 0
    assert ".exit.text" not in [sec for sec, _ in got]


@pytest.mark.parametrize("arch,cc,flags,pad", [
    ("aarch64", "aarch64-linux-gnu-gcc", ["-mbranch-protection=bti"], "4,2"),
    ("aarch64", "aarch64-linux-gnu-gcc", [], "2"),
    ("riscv64", "riscv64-linux-gnu-gcc", ["-march=rv64gc"], "8,4"),
    ("riscv64", "riscv64-linux-gnu-gcc", ["-march=rv64g"], "4,2"),
])
def test_pads_like_the_user_space_tool(linkpass, ktool, tmp_path, arch, cc,
                                       flags, pad):
    """vmlinux with pads: linked without the compiler's lists, which the
    tool reads from the relocatable object (vmlinux.o)."""
    require_tools(cc)
    f = ["-O2", f"-fpatchable-function-entry={pad}", *flags]
    src = SRC.replace("no_instrument_function",
                      "patchable_function_entry(0, 0)")
    objs = [compile_src(tmp_path, "prog.c", src, cc, f),
            compile_src(tmp_path, "strong.c", STRONG, cc, f)]
    vmo = tmp_path / "vmlinux.o"
    run([cc.replace("gcc", "ld"), "-r", "-o", vmo, *objs])
    lds = write(tmp_path / "mcount.lds", MCOUNT_LDS)
    first = tmp_path / "first"
    run([cc, "-no-pie", "-Wl,-q", f"-Wl,-T,{lds}", *objs, "-o", first])
    ours = ktool.table(first, tmp_path / "t.S", f"--patchable={pad}",
                       f"--lists={vmo}")
    run([cc, "-c", ours, "-o", tmp_path / "t.o"])
    second = tmp_path / "second"
    run([cc, "-no-pie", f"-Wl,-T,{lds}", *objs, tmp_path / "t.o", "-o",
         second])
    assert ktool.run("--check", f"--patchable={pad}", second).returncode == 0
    full = tmp_path / "full.o"
    linkpass.scan(first, full, f"--patchable-entries={pad}")
    theirs = tmp_path / "theirs"
    run([cc, "-no-pie", f"-Wl,-T,{lds}", *objs, full, "-o", theirs])
    got = section_bytes(second, "__mcount_loc")
    assert got == section_bytes(theirs, "__mcount_loc")
    assert len(got) == 5 * 8
    # a module's table from its own lists
    ko = tmp_path / "mod.ko"
    run([cc.replace("gcc", "ld"), "-r", "-o", ko, *objs])
    mod = ktool.table(ko, tmp_path / "m.S", f"--patchable={pad}")
    assert mod.read_text().count(".quad") == 5   # not exitf


def check_fails(ktool, image, *opts):
    proc = ktool.run("--check", *opts, image, check=False)
    assert proc.returncode == 1, proc
    return proc.stderr


def test_check_fails_on_an_unknown_section(ktool, tmp_path):
    """A traced function the linker script put in an output section the
    rules do not name: the scan leaves it out, the check fails."""
    src = '__attribute__((section(".odd.text"))) int oddf(int x) ' \
          '{ return x + 3; }\nint main(void) { return oddf(1) - 4; }\n'
    objs = [compile_src(tmp_path, "u.c", src, "gcc",
                        ["-pg", "-mfentry", "-O2", "-fno-pie"]),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    first = link(objs, tmp_path / "first")
    ktool.table(first, tmp_path / "t.S")
    assert "oddf" not in (tmp_path / "t.S").read_text()
    run(["gcc", "-c", tmp_path / "t.S", "-o", tmp_path / "t.o"])
    second = link([*objs, tmp_path / "t.o"], tmp_path / "second")
    err = check_fails(ktool, second)
    assert ".odd.text+0x0 (oddf): holds an ftrace site in .odd.text, " \
        "which the rules do not name" in err, err


def wrong_table(ktool, tmp_path, edit):
    objs = x86_objs(tmp_path, "gcc")
    first = link(objs, tmp_path / "first")
    table = ktool.table(first, tmp_path / "t.S")
    table.write_text(edit(table.read_text()))
    run(["gcc", "-c", table, "-o", tmp_path / "t.o"])
    return link([*objs, tmp_path / "t.o"], tmp_path / "second")


def test_check_fails_on_a_missing_entry(ktool, tmp_path):
    image = wrong_table(ktool, tmp_path,
                        lambda t: "".join(t.splitlines(True)[:-1]))
    err = check_fails(ktool, image)
    assert "a traced function's site is not listed" in err, err
    assert err.count("\n") == 2


def test_check_fails_on_a_repeated_entry(ktool, tmp_path):
    image = wrong_table(ktool, tmp_path,
                        lambda t: t + t.splitlines()[-1] + "\n")
    err = check_fails(ktool, image)
    assert "listed out of order, or twice" in err, err


def test_check_fails_on_a_dead_body(linkpass, ktool, tmp_path):
    """The overridden weak wf keeps its body and its call, not its
    symbol: an entry there is refused."""
    objs = x86_objs(tmp_path, "gcc")
    first = link(objs, tmp_path / "first")
    dropped = linkpass.run("sites", "--dropped", first).stdout
    dead = [int(ln.split()[1], 16) for ln in dropped.splitlines()
            if ln.startswith("dropped") and "dead function body" in ln]
    assert len(dead) == 1, dropped
    main = int(run(["nm", first]).stdout.split(" T main")[0]
               .splitlines()[-1].split()[0], 16)
    table = ktool.table(first, tmp_path / "t.S")
    table.write_text(table.read_text() +
                     f"\t.quad\tmain + {dead[0] - main:#x}\n")
    run(["gcc", "-c", table, "-o", tmp_path / "t.o"])
    image = link([*objs, tmp_path / "t.o"], tmp_path / "second")
    err = check_fails(ktool, image)
    assert "(no function): listed, but no function's site is there" in err


@pytest.mark.parametrize("content,cause", [
    (b"", "empty file"),
    (b"\x7fELF" + b"\x02\x01\x01" + b"\0" * 57, "e_type 0 is not"),
    (b"not an elf file at all, but long enough to be read as one" * 2,
     "not an ELF file"),
])
def test_bad_input_is_one_line(ktool, tmp_path, content, cause):
    bad = tmp_path / "bad"
    bad.write_bytes(content)
    for args in ([bad], ["--check", bad]):
        proc = ktool.run(*args, check=False)
        assert proc.returncode == 2 and proc.stdout == "", proc
        assert proc.stderr == f"linkpass: {bad}: " + \
            proc.stderr.split(f"{bad}: ", 1)[1], proc
        assert cause in proc.stderr and proc.stderr.count("\n") == 1, proc


def test_usage_errors(ktool, tmp_path):
    for args in ([], ["--nop", "x"], ["--patchable=0", "x"],
                 ["--patchable=2,3", "x"], ["a", "b"]):
        proc = ktool.run(*args, check=False)
        assert proc.returncode == 2 and proc.stdout == "", (args, proc)


def test_image_without_relocations_is_an_error(ktool, tmp_path):
    objs = x86_objs(tmp_path, "gcc")
    lds = write(tmp_path / "mcount.lds", MCOUNT_LDS)
    image = tmp_path / "norel"
    run(["gcc", "-no-pie", f"-Wl,-T,{lds}", *objs, "-o", image])
    proc = ktool.run(image, check=False)
    assert proc.returncode == 2
    assert "no relocations of code: link it with --emit-relocs" in proc.stderr


def test_module_with_a_table_already_is_an_error(ktool, tmp_path):
    objs = x86_objs(tmp_path, "gcc", ["-mrecord-mcount"])[:2]
    ko = tmp_path / "mod.ko"
    run(["ld", "-r", "-o", ko, *objs])
    proc = ktool.run(ko, check=False)
    assert proc.returncode == 2
    assert "__mcount_loc: the module has a table already" in proc.stderr


def test_pads_need_their_geometry_and_lists(ktool, tmp_path):
    cc = "aarch64-linux-gnu-gcc"
    require_tools(cc)
    obj = compile_src(tmp_path, "p.c", SRC, cc,
                      ["-O2", "-fpatchable-function-entry=4,2"])
    image = tmp_path / "img"
    run([cc, obj, "-o", image])
    proc = ktool.run(image, check=False)
    assert proc.returncode == 2 and "--patchable=N,M" in proc.stderr
    proc = ktool.run("--patchable=4,2", image, check=False)
    assert proc.returncode == 2 and "--lists=vmlinux.o" in proc.stderr
