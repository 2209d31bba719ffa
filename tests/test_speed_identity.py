# The scan rewrite for speed (issue 10) must not change a byte of what
# linkpass writes.  This builds the linkpass of commit 9fadb0e (the last
# one before the rewrite) from git, links a few samples with -q and no
# table (`make plain`), and compares both tools' table objects (ELF and
# assembler forms) and their `sites --dropped` listings byte for byte.
# It also compares `linkpass obj` on the sample's objects.

import shutil
import subprocess

import pytest

from conftest import REPO, compiler_can_use_ld, require_tools, run

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
    opts = []
    if make_vars.get("LAYOUT") == "kernel":
        opts = ["--trace-section=.init.text"]
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
