# The scan rewrite for speed (issue 10) must not change a byte of what
# linkpass writes.  This builds the linkpass of commit 9fadb0e (the last
# one before the rewrite) from git, links a few samples with -q and no
# table (`make plain`), and compares both tools' table objects (ELF and
# assembler forms) and their `sites --dropped` listings byte for byte.
# It also compares `linkpass obj` on the sample's objects.  The scans are
# given one anchor (--anchor=main): the automatic choice of anchors
# changed on purpose afterwards.

import shutil
import subprocess

import pytest

from lptest import REPO, compiler_can_use_ld, require_tools, run

REF_COMMIT = "9fadb0e"
SAMPLES = REPO / "tests" / "samples"

# (id, make variables): toolchains, PIE, gc, IBT, the kernel layout,
# and one bigger sample where the scan takes its threaded path.
VARIANTS = [
    ("gcc-bfd", dict(CC="gcc", LD="bfd")),
    ("gcc-bfd-pie", dict(CC="gcc", LD="bfd", PIE=1)),
    ("clang-lld-pie-gc", dict(CC="clang", LD="lld", PIE=1, GC=1)),
    ("gcc-lld-ibt-pie", dict(CC="gcc", LD="lld", IBT=1, PIE=1)),
    ("gcc-bfd-kernel", dict(CC="gcc", LD="bfd", LAYOUT="kernel")),
    ("gcc-bfd-gc-big", dict(CC="gcc", LD="bfd", GC=1, UNITS=60, FUNCS=60,
                            SEED=3)),
]


@pytest.fixture(scope="session")
def ref_linkpass(tmp_path_factory):
    """linkpass as of REF_COMMIT, built from `git archive`."""
    require_tools("git", "gcc", "tar")
    if subprocess.run(["git", "-C", str(REPO), "cat-file", "-e",
                       REF_COMMIT + "^{commit}"],
                      capture_output=True).returncode != 0:
        pytest.skip(f"commit {REF_COMMIT} is not in this checkout")
    top = tmp_path_factory.mktemp("ref")
    arc = subprocess.run(["git", "-C", str(REPO), "archive", REF_COMMIT,
                          "linkpass", "include"], capture_output=True,
                         check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(top)], input=arc, check=True)
    exe = top / "linkpass-ref"
    srcs = sorted(str(p) for p in (top / "linkpass").glob("*.c"))
    run(["gcc", "-O2", "-std=gnu11", "-D_GNU_SOURCE", "-Iinclude",
         "-o", str(exe), *srcs, "-lelf", "-lz", "-lpthread"], cwd=top)
    return exe


def _plain(tmp_path, make_vars):
    cc, ld = make_vars["CC"], make_vars["LD"]
    require_tools("make", cc)
    if not compiler_can_use_ld(cc, ld):
        pytest.skip(f"{cc} cannot link with -fuse-ld={ld} here")
    out = tmp_path / "build"
    run(["make", "-C", str(SAMPLES), "-j2", "plain", f"O={out}",
         *("%s=%s" % kv for kv in make_vars.items())], timeout=900)
    return out


@pytest.mark.parametrize("name, make_vars", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_scan_output_unchanged(linkpass, ref_linkpass, tmp_path, name,
                               make_vars):
    out = _plain(tmp_path, make_vars)
    image = out / "sample.plain"
    # One anchor for both: the automatic choice changed on purpose
    # after REF_COMMIT (the nearest global at or below each section's
    # first site, docs/design.md; test_scan.py::test_anchor checks it),
    # and everything else must still be the same bytes.
    opts = ["--anchor=main"]
    if make_vars.get("LAYOUT") == "kernel":
        opts.append("--trace-section=.init.text")
    for fmt in ("elf", "asm"):
        new, old = tmp_path / f"new.{fmt}", tmp_path / f"old.{fmt}"
        linkpass.run("scan", image, "-o", new, f"--format={fmt}", *opts)
        run([str(ref_linkpass), "scan", str(image), "-o", str(old),
             f"--format={fmt}", *opts])
        assert new.read_bytes() == old.read_bytes(), (name, fmt)
    for threads in ("1", "3"):
        new = linkpass.run("sites", "--dropped", "-j", threads, image).stdout
        old = run([str(ref_linkpass), "sites", "--dropped", "-j", threads,
                   str(image)]).stdout
        assert new == old, (name, threads)
    new = linkpass.run("check", image, check=False)
    old = run([str(ref_linkpass), "check", str(image)], check=False)
    assert (new.returncode, new.stdout) == (old.returncode, old.stdout)


I386_C = """\
int f1(int x) { return x + 1; }
static __attribute__((noinline)) int f2(int x) { return x * 3; }
int main(void) { return f1(1) + f2(2); }
"""
I386_S = """\
	.globl __fentry__
__fentry__:
	ret
	.section .note.GNU-stack,"",@progbits
"""


def test_i386_unchanged(linkpass, ref_linkpass, tmp_path):
    require_tools("gcc", "ld")
    (tmp_path / "a.c").write_text(I386_C)
    (tmp_path / "s.S").write_text(I386_S)
    cflags = ["-m32", "-pg", "-mfentry", "-O2", "-fno-pie", "-c"]
    if run(["gcc", *cflags, "a.c"], cwd=tmp_path, check=False).returncode:
        pytest.skip("gcc -m32 does not compile here")
    run(["gcc", "-m32", "-c", "s.S"], cwd=tmp_path)
    run(["ld", "-m", "elf_i386", "-q", "-e", "main", "a.o", "s.o",
         "-o", "img"], cwd=tmp_path)
    linkpass.run("scan", "img", "-o", "new.o", cwd=tmp_path)
    run([str(ref_linkpass), "scan", "img", "-o", "old.o"], cwd=tmp_path)
    assert (tmp_path / "new.o").read_bytes() == (tmp_path / "old.o").read_bytes()
    for tool, d in ((str(linkpass), "n"), (str(ref_linkpass), "o")):
        (tmp_path / d).mkdir()
        (tmp_path / d / "a.o").write_bytes((tmp_path / "a.o").read_bytes())
        run([tool, "obj", "a.o"], cwd=tmp_path / d)
    assert ((tmp_path / "n" / "a.o").read_bytes() ==
            (tmp_path / "o" / "a.o").read_bytes())


@pytest.mark.parametrize("name, make_vars", VARIANTS[:3],
                         ids=[v[0] for v in VARIANTS[:3]])
def test_obj_output_unchanged(linkpass, ref_linkpass, tmp_path, name,
                              make_vars):
    out = _plain(tmp_path, make_vars)
    objs = sorted(out.rglob("unit*.o")) + sorted(out.rglob("main.o"))
    assert objs
    new_dir, old_dir = tmp_path / "new", tmp_path / "old"
    for d in (new_dir, old_dir):
        d.mkdir()
        for o in objs:
            shutil.copy(o, d / o.name)
    names = [o.name for o in objs]
    linkpass.run("obj", *names, cwd=new_dir)
    run([str(ref_linkpass), "obj", *names], cwd=old_dir)
    for n in names:
        assert (new_dir / n).read_bytes() == (old_dir / n).read_bytes(), n
