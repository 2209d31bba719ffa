# The in-tree tool, kernel/linkpass/ (scripts/linkpass/ of the 7.3
# series): built alone with the kernel's host warnings and with musl, its
# tables against the user-space tool's on real toolchain output (the
# tables linked into the image must be the same bytes), its check
# against wrong tables and rules, and its errors.
# The edges (errors, damaged files, limits) are test_kernel_tool_edges.py's;
# the tool under test and the inputs made once are ktooltest.py's (KTOOL,
# KTOOL_CACHE).

import re
import shutil

import pytest

from ktooltest import (HOST_CFLAGS, SRC, STUBS_S, TOOL,
                       assembled, cc_c, check_fails, compiled, ktool, ld_r,
                       linked, made, object_table, scanned, section_bytes,
                       pad_objs, sources, theirs_obj, tool_lines, x86_objs)
from lptest import REPO, require_compiler_ld, require_tools, run

# the fixtures this file takes from ktooltest
__all__ = ["ktool", "made"]


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


def test_builds_with_musl(made, tmp_path):
    """Alpine and postmarketOS build kernels with musl as the host libc."""
    require_tools("musl-gcc")
    exe = made.file(tmp_path / "linkpass-musl",
                    ("musl-gcc", HOST_CFLAGS, sources()),
                    lambda o: run(["musl-gcc", *HOST_CFLAGS, "-static",
                                   "-o", o, *sources()]))
    proc = run([exe], check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("usage:")


@pytest.mark.parametrize("cc,ld,flags", [
    ("gcc", "bfd", []),
    ("gcc", "bfd", ["-fcf-protection=branch"]),
    ("gcc", "lld", []),
    ("clang", "lld", ["-fcf-protection=branch"]),
    ("clang", "bfd", []),
])
def test_x86_64_image_like_the_user_space_tool(linkpass, ktool, made,
                                               tmp_path, cc, ld, flags):
    """Two links of vmlinux's kind: the first image's table, assembled
    and linked into the second, is stable, passes the check, and is byte
    for byte the table the user-space tool's object gives."""
    # the probe too is made once: it links a program
    made.file(tmp_path / "links", ("links", cc, ld),
              lambda o: (require_compiler_ld(cc, ld), o.write_text("yes")))
    objs = x86_objs(made, tmp_path, cc, flags)
    first = linked(made, objs, tmp_path / "first", cc, ld)
    ours = ktool.table(first, tmp_path / "t.S")
    cc_c(made, cc, ours, tmp_path / "t.o")
    second = linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second",
                    cc, ld)
    assert ktool.table(second, tmp_path / "t2.S") and \
        (tmp_path / "t2.S").read_text() == ours.read_text()
    assert ktool.run("--check", second).returncode == 0
    # the user-space tool's table of the same image
    scanned(made, linkpass, first, tmp_path / "full.o")
    theirs = linked(made, [*objs, tmp_path / "full.o"], tmp_path / "full",
                    cc, ld)
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


def test_module_like_the_user_space_tool(linkpass, ktool, made, tmp_path):
    """A module: the table linked first into a relink of the .ko lists
    the same sites as the user-space tool's obj, and --check --nop
    leaves the calls NOPs with R_X86_64_NONE relocations."""
    objs = x86_objs(made, tmp_path, "gcc", ["-mcmodel=kernel"])[:2]
    ko = ld_r(made, "ld", tmp_path / "mod.ko", objs)
    theirs = theirs_obj(made, linkpass, ko, tmp_path / "theirs.ko")
    ktool.table(ko, tmp_path / "m.S")
    cc_c(made, "gcc", tmp_path / "m.S", tmp_path / "m.o")
    ours = ld_r(made, "ld", tmp_path / "ours.ko", [tmp_path / "m.o", ko],
                TOOL / "relink.lds")
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
def test_pads_like_the_user_space_tool(linkpass, ktool, made, tmp_path, arch,
                                       cc, flags, pad):
    """vmlinux with pads: linked without the compiler's lists, which the
    tool reads from the relocatable object (vmlinux.o)."""
    objs = pad_objs(made, tmp_path, cc, flags, pad)
    ld = cc.replace("gcc", "ld")
    vmo = ld_r(made, ld, tmp_path / "vmlinux.o", objs)
    first = linked(made, objs, tmp_path / "first", cc, None)
    ours = ktool.table(first, tmp_path / "t.S", f"--patchable={pad}",
                       f"--lists={vmo}")
    cc_c(made, cc, ours, tmp_path / "t.o")
    second = linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second",
                    cc, None, q=False)
    assert ktool.run("--check", f"--patchable={pad}", second).returncode == 0
    full = scanned(made, linkpass, first, tmp_path / "full.o",
                   f"--patchable-entries={pad}")
    theirs = linked(made, [*objs, full], tmp_path / "theirs", cc, None,
                    q=False)
    got = section_bytes(second, "__mcount_loc")
    assert got == section_bytes(theirs, "__mcount_loc")
    assert len(got) == 5 * 8
    # the state ftrace_init_nop() leaves, written in place: the image
    # then passes the check again (arm64: mov x9, x30 at each entry;
    # riscv: auipc t0 to ftrace_caller, which this program lacks, so
    # nothing is written), and the module's entries are not touched
    init = tmp_path / "init"
    shutil.copy(second, init)
    ktool.run("--check", "--nop", f"--patchable={pad}", init)
    movs = run([cc.replace("gcc", "objdump"), "-d", init]).stdout.count(
        "mov\tx9, x30")
    assert movs == (5 if arch == "aarch64" else 0)
    assert ktool.run("--check", f"--patchable={pad}", init).returncode == 0
    # a module's table from its own lists
    ko = ld_r(made, ld, tmp_path / "mod.ko", objs)
    mod = ktool.table(ko, tmp_path / "m.S", f"--patchable={pad}")
    assert mod.read_text().count(".quad") == 5   # not exitf


def test_check_fails_on_an_unknown_section(ktool, made, tmp_path):
    """A traced function the linker script put in an output section the
    rules do not name: the scan leaves it out, the check fails."""
    src = '__attribute__((section(".odd.text"))) int oddf(int x) ' \
          '{ return x + 3; }\nint main(void) { return oddf(1) - 4; }\n'
    objs = [compiled(made, tmp_path, "u.c", src, "gcc",
                     ["-pg", "-mfentry", "-O2", "-fno-pie"]),
            assembled(made, tmp_path, "stubs.S", STUBS_S)]
    first = linked(made, objs, tmp_path / "first")
    ktool.table(first, tmp_path / "t.S")
    assert "oddf" not in (tmp_path / "t.S").read_text()
    cc_c(made, "gcc", tmp_path / "t.S", tmp_path / "t.o")
    second = linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second")
    err = check_fails(ktool, second)
    assert ".odd.text+0x0 (oddf): holds an ftrace site in .odd.text, " \
        "which no rule names" in err, err


# A call to __fentry__ inside the last function of .text, a section that
# other code follows: no entry, so an error, never a silent drop.
LAST_MID_CALL_S = r"""
	.text
	.globl	last
	.type	last, @function
last:
	nop
	call	__fentry__
	ret
	.size	last, .-last
	.section .init.text, "ax"
	.globl	main
	.type	main, @function
main:
	call	__fentry__
	xorl	%eax, %eax
	ret
	.size	main, .-main
"""


def test_a_call_inside_a_sections_last_function_is_an_error(ktool, made,
                                                           tmp_path):
    # the stubs first, so that nothing follows "last" in .text
    objs = [assembled(made, tmp_path, "stubs.S", STUBS_S),
            assembled(made, tmp_path, "last.S", LAST_MID_CALL_S)]
    image = linked(made, objs, tmp_path / "img")
    proc = ktool.run(image, check=False)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert "a call to __fentry__ inside a function, not at its entry" \
        in proc.stderr, proc.stderr


def wrong_table(ktool, made, tmp_path, edit):
    objs = x86_objs(made, tmp_path, "gcc")
    first = linked(made, objs, tmp_path / "first")
    table = ktool.table(first, tmp_path / "t.S")
    table.write_text(edit(table.read_text()))
    cc_c(made, "gcc", table, tmp_path / "t.o")
    return linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second")


def test_check_fails_on_a_missing_entry(ktool, made, tmp_path):
    def drop_last(t):
        """The table without its last entry (entries share lines)."""
        head, last = t.rstrip("\n").rsplit("\n", 1)
        entries = last.split(", ")
        return head + "\n" + (", ".join(entries[:-1]) + "\n"
                              if len(entries) > 1 else "")
    image = wrong_table(ktool, made, tmp_path, drop_last)
    err = check_fails(ktool, image)
    assert "a traced function's site is not listed" in err, err
    assert err.count("\n") == 2


def test_check_fails_on_a_repeated_entry(ktool, made, tmp_path):
    image = wrong_table(ktool, made, tmp_path,
                        lambda t: t + t.splitlines()[-1] + "\n")
    err = check_fails(ktool, image)
    assert "listed out of order, or twice" in err, err


def test_check_fails_on_a_dead_body(linkpass, ktool, made, tmp_path):
    """The overridden weak wf keeps its body and its call, not its
    symbol: an entry there is refused."""
    objs = x86_objs(made, tmp_path, "gcc")
    first = linked(made, objs, tmp_path / "first")
    dropped = made.file(
        tmp_path / "dropped.txt", ("sites --dropped", linkpass.path, first),
        lambda o: o.write_text(
            linkpass.run("sites", "--dropped", first).stdout)).read_text()
    dead = [int(ln.split()[1], 16) for ln in dropped.splitlines()
            if ln.startswith("dropped") and "dead function body" in ln]
    assert len(dead) == 1, dropped
    main = int(run(["nm", first]).stdout.split(" T main")[0]
               .splitlines()[-1].split()[0], 16)
    table = ktool.table(first, tmp_path / "t.S")
    table.write_text(table.read_text() +
                     f"\t.quad\tmain + {dead[0] - main:#x}\n")
    cc_c(made, "gcc", table, tmp_path / "t.o")
    image = linked(made, [*objs, tmp_path / "t.o"], tmp_path / "second")
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


def test_image_without_relocations_is_an_error(ktool, made, tmp_path):
    objs = x86_objs(made, tmp_path, "gcc")
    image = linked(made, objs, tmp_path / "norel", ld=None, q=False)
    proc = ktool.run(image, check=False)
    assert proc.returncode == 2
    assert "no relocations of code: link it with --emit-relocs" in proc.stderr


def test_module_with_a_table_already_is_an_error(ktool, made, tmp_path):
    objs = x86_objs(made, tmp_path, "gcc", ["-mrecord-mcount"])[:2]
    ko = ld_r(made, "ld", tmp_path / "mod.ko", objs)
    proc = ktool.run(ko, check=False)
    assert proc.returncode == 2
    assert "__mcount_loc: the module has a table already" in proc.stderr


def test_pads_need_their_geometry_and_lists(ktool, made, tmp_path):
    cc = "aarch64-linux-gnu-gcc"
    require_tools(cc)
    obj = compiled(made, tmp_path, "p.c", SRC, cc,
                   ["-O2", "-fpatchable-function-entry=4,2"])
    image = made.file(tmp_path / "img", ("link", cc, obj),
                      lambda o: run([cc, obj, "-o", o]))
    proc = ktool.run(image, check=False)
    assert proc.returncode == 2 and "--patchable=N,M" in proc.stderr
    proc = ktool.run("--patchable=4,2", image, check=False)
    assert proc.returncode == 2 and "--lists=vmlinux.o" in proc.stderr


def patch_new_files(patch):
    """{path: text} of the files a git format-patch adds whole."""
    files, cur, lines = {}, None, []
    for ln in patch.read_text().splitlines(keepends=True):
        if ln.startswith("diff --git "):
            if cur:
                files[cur] = "".join(lines)
            cur, lines = ln.split()[3][2:], []
        elif cur and ln.startswith("+") and not ln.startswith("+++"):
            lines.append(ln[1:])
        elif ln.startswith("-- \n"):
            break
    if cur:
        files[cur] = "".join(lines)
    return files


@pytest.mark.parametrize("version", ["7.3", "6.12", "6.1"])
def test_the_series_carries_the_tool_as_it_is(version):
    """kernel/linkpass/ is the source of truth: each series (7.3 and its
    backports) adds it as scripts/linkpass/ byte for byte, in one patch,
    nothing more, nothing less."""
    series = sorted((REPO / "kernel" / "series" / version).glob("0*.patch"))
    added, carriers = {}, []
    for p in series:
        tool = {k: v for k, v in patch_new_files(p).items()
                if k.startswith("scripts/linkpass/")}
        if tool:
            carriers.append(p.name)
        added.update(tool)
    assert len(carriers) == 1, carriers
    tracked = run(["git", "-C", TOOL, "ls-files", "."]).stdout.split()
    assert sorted(added) == sorted(f"scripts/linkpass/{f}" for f in tracked)
    for f in tracked:
        assert added[f"scripts/linkpass/{f}"] == (TOOL / f).read_text(), f
