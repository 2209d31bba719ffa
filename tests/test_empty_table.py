"""No silent empty table.

`linkpass scan` refuses an image that
names an mcount symbol but has no call site, in one line saying why and
what to do; `--allow-empty` accepts it.  An image that names no mcount
symbol still gets its empty table.

Truths used: what each program is built from (notrace functions only, a
__fentry__ only glibc defines, no -pg at all), readelf's symbol table,
and the files left in the folder.
"""

import re

import pytest

import lptest
from lptest import STUBS_S, assemble, compile_src, run

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
