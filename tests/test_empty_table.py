"""No silent empty table.

`linkpass scan` (and so scripts/link-vmlinux.sh) refuses an image that
names an mcount symbol but has no call site, in one line saying why and
what to do; `--allow-empty` accepts it.  An image that names no mcount
symbol still gets its empty table.  gcc -flto through the driver, the
way a user writes it, gives the exact table and no gmon.out; without
-pg on the link line, one line says to add it.

Truths used: what each program is built from (notrace functions only, a
__fentry__ only glibc defines, no -pg at all), readelf's symbol table,
the sites objdump finds (lptest.ground_truth), the runtime's own count
of the sites it found at start, and the files left in the folder.
"""

import re

import pytest

import lpfacts
import lptest
from lptest import STUBS_S, assemble, compile_src, link_driver, run
from test_runtime import runtime_lib  # noqa: F401

NOTRACE_C = """\
__attribute__((no_instrument_function)) int main(void) { return 0; }
"""

TRACED_C = """\
__attribute__((noinline)) int f(int x) { return x + 1; }
int main(void) { return f(1) - 2; }
"""

MATRIX = [pytest.param(cc, ld, id=f"{cc}-{ld}")
          for cc in ("gcc", "clang") for ld in ("bfd", "lld")]


def link_q(tmp_path, cc, ld, objs, name="img", flags=()):
    image = tmp_path / name
    run([cc, f"-fuse-ld={ld}", "-Wl,-q", *flags, *objs, "-o", image])
    return image


def notrace_objs(tmp_path, cc):
    """main() notrace, compiled with -pg -mfentry, and the stubs that
    define __fentry__ and mcount."""
    return [compile_src(tmp_path, "notrace.c", NOTRACE_C, cc,
                        ["-O2", "-pg", "-mfentry"]),
            assemble(tmp_path, "stubs.S", STUBS_S)]


def scan_fails(linkpass, image, out):
    proc = linkpass.run("scan", image, "-o", out, check=False)
    assert proc.returncode == 2, lptest.describe(proc)
    assert proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    assert not out.exists()
    assert not list(out.parent.glob(out.name + ".tmp*"))
    return proc.stderr


@pytest.mark.parametrize("cc,ld", MATRIX)
def test_no_call_to_a_defined_mcount_symbol(linkpass, tmp_path, cc, ld):
    """The stubs define __fentry__, no code calls it (gcc -flto without
    -pg on the link line looks the same): an error naming the fix."""
    lptest.require_compiler_ld(cc, ld)
    image = link_q(tmp_path, cc, ld, notrace_objs(tmp_path, cc))
    out = tmp_path / "t.o"
    err = scan_fails(linkpass, image, out)
    assert err == (f"linkpass: {image}: __fentry__: no call site: no code "
                   "calls __fentry__; with gcc -flto, -pg (and -mfentry) "
                   "must be on the link line too, or give --allow-empty "
                   "for an empty table\n")
    linkpass.run("scan", image, "-o", out, "--allow-empty")
    assert out.exists()
    assert lptest.table_object_entries(out, image) == []


@pytest.mark.parametrize("pie", [True, False], ids=["pie", "nopie"])
def test_mcount_symbol_only_in_glibc(linkpass, tmp_path, pie):
    """-pg -mfentry code linked with nothing that defines __fentry__:
    gcc calls glibc's through the GOT, and .symtab names it
    __fentry__@GLIBC_2.13.  No site: an error saying to link one."""
    lptest.require_compiler_ld("gcc", "bfd")
    pic = ["-fpie"] if pie else ["-fno-pie"]
    obj = compile_src(tmp_path, "traced.c", TRACED_C, "gcc",
                      ["-O2", "-pg", "-mfentry", *pic])
    image = link_q(tmp_path, "gcc", "bfd", [obj],
                   flags=["-pie" if pie else "-no-pie"])
    glibc = [s for s in run(["readelf", "-sW", image]).stdout.split()
             if s.startswith("__fentry__@")]
    assert glibc, "the image should name glibc's __fentry__"
    err = scan_fails(linkpass, image, tmp_path / "t.o")
    assert err == (f"linkpass: {image}: {glibc[0]}: no call site: __fentry__ "
                   "is not defined in the image, so the code calls a shared "
                   "library's through the GOT or PLT; link a definition "
                   "(runtime/liblptrace.a; with gcc -flto also "
                   "-Wl,-u,__fentry__), or give --allow-empty for an empty "
                   "table\n")


def test_calls_all_dropped(linkpass, tmp_path):
    """Calls there are, but in no traced section: the error counts them
    and points at `linkpass sites --dropped`."""
    image = lptest.small_image(tmp_path, TRACED_C)
    proc = linkpass.run("scan", image, "-o", tmp_path / "t.o",
                        "--sections=.nothing", check=False)
    assert proc.returncode == 2 and not (tmp_path / "t.o").exists()
    err = proc.stderr
    assert re.fullmatch(
        rf"linkpass: {re.escape(str(image))}: __fentry__: no call site: none "
        r"of the [1-9]\d* calls to an mcount symbol opens a traced function "
        r"\(see 'linkpass sites --dropped'\); give --allow-empty for an "
        r"empty table\n", err), err


@pytest.mark.parametrize("cc,ld", MATRIX)
def test_no_mcount_symbol_keeps_its_empty_table(linkpass, tmp_path, cc, ld):
    """No -pg anywhere: the image names no mcount symbol, and scan writes
    its empty table as before (exit 0, nothing on stderr)."""
    lptest.require_compiler_ld(cc, ld)
    obj = compile_src(tmp_path, "plain.c", TRACED_C, cc, ["-O2"])
    image = link_q(tmp_path, cc, ld, [obj])
    out = tmp_path / "t.o"
    proc = linkpass.run("scan", image, "-o", out)
    assert proc.stderr == "" and out.exists()
    assert lptest.table_object_entries(out, image) == []


# ---------------------------------------------------------------------------
# The driver


def test_driver_fails_and_allow_empty(linkpass, tmp_path):
    """The driver stops at the scan's line, with its status (2), and
    writes no OUTPUT; --allow-empty passes the option on to scan."""
    lptest.require_compiler_ld("gcc", "bfd")
    objs = notrace_objs(tmp_path, "gcc")
    out = tmp_path / "prog"
    proc = link_driver(out, ["gcc", *objs], linkpass=linkpass.path,
                       cwd=tmp_path, check=False)
    assert proc.returncode == 2, lptest.describe(proc)
    assert re.search(r"^linkpass: \S+/\.tmp_image1: __fentry__: no call "
                     r"site: no code calls __fentry__; with gcc -flto, -pg "
                     r"\(and -mfentry\) must be on the link line too, or "
                     r"give --allow-empty for an empty table$",
                     proc.stderr, re.M), proc.stderr
    assert not out.exists()
    assert not list(tmp_path.glob(".link-vmlinux.*"))
    assert not list(tmp_path.glob(".prog.*"))

    link_driver(out, ["gcc", *objs], "--allow-empty", linkpass=linkpass.path,
                cwd=tmp_path)
    assert linkpass.dump(out) == []
    assert run([out]).returncode == 0


# gcc -flto: the code, and its calls to __fentry__, are generated at link
# time.  Three files, so that code crosses units; noinline keeps each
# function (LTO would inline them all).
LTO_MAIN = """\
#include <stdio.h>
extern int other(int x);
__attribute__((noinline)) int leaf(int x) { return x * 3; }
static __attribute__((noinline)) int mid(int x) { return leaf(x) + other(x); }
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\\n", mid(argc));
	return 0;
}
"""
LTO_OTHER = "__attribute__((noinline)) int other(int x) { return x + 7; }\n"
LTO_NOTRACE = """\
__attribute__((no_instrument_function, noinline)) int quiet(int x)
{
	return x - 1;
}
"""


def lto_objs(tmp_path, pie=True):
    lptest.require_compiler_ld("gcc", "bfd")
    if not lptest.links_trivial_program(["gcc", "-flto"]):
        pytest.skip("gcc -flto cannot link here: "
                    + lptest.links_trivial_program.stderr)
    flags = ["-O2", "-flto", "-pg", "-mfentry", "-fpie" if pie else "-fno-pie"]
    return [compile_src(tmp_path, name, src, "gcc", flags)
            for name, src in (("main.c", LTO_MAIN), ("other.c", LTO_OTHER),
                              ("quiet.c", LTO_NOTRACE))]


@pytest.mark.parametrize("pie", [True, False], ids=["pie", "nopie"])
def test_gcc_lto_the_natural_way(linkpass, tmp_path, runtime_lib, pie):
    """`link-vmlinux.sh OUT -- gcc -O2 -flto -pg -mfentry *.o
    liblptrace.a -lpthread -ldl` gives the exact table (objdump truth),
    NOP'd at link time as the runtime is linked, and the program writes
    no gmon.out: the driver pulls the archive's __fentry__ before LTO
    code generation (-u) and keeps gprof's gcrt1.o out (-specs)."""
    objs = lto_objs(tmp_path, pie)
    cmd = ["gcc", "-O2", "-flto", "-pg", "-mfentry",
           "-pie" if pie else "-no-pie", *objs, runtime_lib, "-lpthread",
           "-ldl"]
    calls = tmp_path / "prog.calls"
    link_driver(calls, cmd, "--no-nop-sites", linkpass=linkpass.path,
                cwd=tmp_path)
    truth = lptest.ground_truth(calls)
    names = {name for name, _ in truth.values()}
    assert {"main", "mid", "leaf", "other"} <= names and "quiet" not in names
    assert linkpass.dump(calls) == sorted(truth)
    assert {len(raw) for _, raw in truth.values()} == {6 if pie else 5}

    prog = tmp_path / "prog"
    link_driver(prog, cmd, linkpass=linkpass.path, cwd=tmp_path)
    assert linkpass.dump(prog) == sorted(truth)
    for addr, (name, raw) in truth.items():
        nop = lpfacts.NOP6 if len(raw) == 6 else lpfacts.NOP5
        assert lptest.read_bytes(prog, addr, len(raw)) == nop, name
    # the check the message of `linkpass check prog` names passes
    rc, proc = linkpass.check(prog, "--byte-audit", "--sites=nop")
    assert rc == 0, proc.stdout

    n = len(truth)
    for exe, nopped, already in ((calls, n, 0), (prog, 0, n)):
        proc = run([exe], cwd=tmp_path, env={"LPTRACE_VERBOSE": "1"})
        assert proc.stdout == "11\n"
        assert re.search(rf"\b{n} sites: {nopped} nopped, {already} already "
                         r"nop, 0 refused\b", proc.stderr), proc.stderr
    assert not (tmp_path / "gmon.out").exists()
    assert not list(tmp_path.glob(".link-vmlinux.*"))


def test_gcc_lto_without_pg_on_the_link_line(linkpass, tmp_path, runtime_lib):
    """gcc instruments -flto code only with -pg on the link line: without
    it the table would be empty, and the driver says what to add."""
    objs = lto_objs(tmp_path)
    out = tmp_path / "prog"
    cmd = ["gcc", "-O2", "-flto", *objs, runtime_lib, "-lpthread", "-ldl"]
    proc = link_driver(out, cmd, linkpass=linkpass.path, cwd=tmp_path,
                       check=False)
    assert proc.returncode == 1, lptest.describe(proc)
    assert proc.stderr == (
        f"link-vmlinux.sh: {out}: empty table: gcc -flto generates code at "
        "link time and instruments it only with -pg there: add -pg (and "
        "-mfentry) to the link command, or give --allow-empty\n")
    assert not out.exists()
    link_driver(out, cmd, "--allow-empty", linkpass=linkpass.path,
                cwd=tmp_path)
    assert linkpass.dump(out) == []
