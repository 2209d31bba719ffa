# Issue 15: an image whose local symbols were discarded (ld -x,
# --discard-all, strip -x) has no symbol for its static functions, so
# their call sites look like code no function covers.  linkpass must not
# drop them silently: scan, check and sites refuse such an image with
# one line naming the cause.

import pytest

from lptest import STUBS_S, assemble, compile_src, require_tools, run

SRC = """\
int g;
static __attribute__((noinline)) int twice(int x) { g += x; return 2 * x; }
int f1(int x) { return twice(x) + 1; }
int main(void) { return f1(1) - 3; }
"""


@pytest.fixture
def objs(tmp_path):
    require_tools("gcc", "strip")
    return [compile_src(tmp_path, "a.c", SRC, "gcc",
                        ["-pg", "-mfentry", "-O2", "-fno-pie"]),
            assemble(tmp_path, "stubs.S", STUBS_S)]


def link(tmp_path, objs, name, *flags):
    out = tmp_path / name
    run(["gcc", "-no-pie", "-Wl,-q", *flags, *objs, "-o", out])
    return out


def discarded(tmp_path, objs, how):
    if how == "strip -x":
        image = link(tmp_path, objs, "img-strip")
        run(["strip", "-x", image])
        return image
    return link(tmp_path, objs, "img" + how, "-Wl," + how)


@pytest.mark.parametrize("how", ["-x", "--discard-all", "strip -x"])
@pytest.mark.parametrize("cmd", ["scan", "check", "sites"])
def test_discarded_locals_are_refused(linkpass, tmp_path, objs, how, cmd):
    image = discarded(tmp_path, objs, how)
    args = [cmd, image] + (["-o", tmp_path / "t.o"] if cmd == "scan" else [])
    proc = linkpass.run(*args, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"linkpass: {image}: .symtab: no local "
                                  "function symbols"), proc.stderr
    assert "1 call site in traced sections" in proc.stderr
    assert not (tmp_path / "t.o").exists()


def test_same_program_with_local_symbols_is_scanned(linkpass, tmp_path, objs):
    image = link(tmp_path, objs, "img")
    names = {ln.split()[1].split("+")[0]
             for ln in linkpass.run("sites", image).stdout.splitlines()}
    assert {"main", "f1"} <= names
    assert any(n.startswith("twice") for n in names), names
