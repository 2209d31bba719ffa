# bench/leastwork, the bench's second yardstick for scan and check
# (docs/benchmarks.md): it is only worth quoting if it keeps exactly the
# entries scan keeps on the sample kernels, and if its table comparison
# sees a wrong table.  Each case builds a small sample with the real
# toolchain and compares leastwork with linkpass.

import re

import pytest

from conftest import REPO
from lptest import require_compiler_ld, run

SAMPLES = REPO / "tests" / "samples"
LEASTWORK = REPO / "build" / "bench" / "leastwork"


@pytest.fixture(scope="module")
def leastwork():
    run(["make", "-C", str(REPO), "-s", "build/bench/leastwork"])
    return LEASTWORK


def build_plain(tmp, linkpass, cc, ibt, units=4, funcs=30):
    """A sample linked with -q and no table (tests/samples 'plain')."""
    require_compiler_ld(cc, "bfd")
    out = tmp / f"{cc}-ibt{ibt}-{units}x{funcs}"
    run(["make", "-C", str(SAMPLES), "-j2", "plain", f"O={out}",
         f"CC={cc}", "LD=bfd", f"IBT={ibt}", f"UNITS={units}",
         f"FUNCS={funcs}", f"LINKPASS={linkpass}"], timeout=300)
    return out


def table_entries(linkpass, image, table):
    stats = linkpass.run("scan", image, "-o", table, "--stats").stdout
    return int(re.search(r"^\s*table entries\s+(\d+)$", stats, re.M)[1])


def relink(out, table, image):
    """The plain sample's objects linked again with @table, -q kept."""
    objs = sorted(str(p) for p in (out / "obj").glob("*.o"))
    run(["gcc", "-fuse-ld=bfd", "-no-pie", "-Wl,-q", *objs, str(table),
         "-o", str(image)])


def stable_image(linkpass, out, table, image):
    """Relink with the table of the last link until linkpass check
    passes: the objects' order here is not the sample Makefile's, so
    the first relink moves code."""
    for _ in range(3):
        relink(out, table, image)
        if linkpass.run("check", image, check=False).returncode == 0:
            return
        linkpass.run("scan", image, "-o", table)
    pytest.fail(f"{image}: no stable link in three")


@pytest.mark.parametrize("cc,ibt", [("gcc", 0), ("gcc", 1), ("clang", 0),
                                    ("clang", 1)])
def test_keeps_what_scan_keeps(tmp_path, linkpass, leastwork, cc, ibt):
    out = build_plain(tmp_path, linkpass, cc, ibt)
    plain = out / "sample.plain"
    kept = table_entries(linkpass, plain, tmp_path / "t.o")
    assert kept > 100
    for opts in ([], ["-c"]):
        got = run([leastwork, *opts, plain, tmp_path / "lw.o"]).stdout
        assert int(got.split()[0]) == kept, (opts, got)
    # as many bytes as scan's table object, but for its few headers
    lw, t = (tmp_path / "lw.o").stat().st_size, (tmp_path / "t.o").stat().st_size
    assert abs(lw - t) < 4096 and lw >= kept * 32, (lw, t)
    # -t: the linked table is the kept calls, in order
    stable_image(linkpass, out, tmp_path / "t.o", tmp_path / "image2")
    got = run([leastwork, "-c", "-t", tmp_path / "image2"]).stdout.split()
    assert got[0] == str(kept) and got[2] == "0", got
    assert int(got[1]) > kept, "the -c sweep found fewer branch bytes than calls"


def test_nopped_image(tmp_path, linkpass, leastwork):
    """An image whose sites linkpass nop turned into NOPs (a kernel with
    its NOPs written at link time): -t still finds every entry in place,
    as check --sites=nop does."""
    out = build_plain(tmp_path, linkpass, "gcc", 1)
    kept = table_entries(linkpass, out / "sample.plain", tmp_path / "t.o")
    image = tmp_path / "image2"
    stable_image(linkpass, out, tmp_path / "t.o", image)
    linkpass.run("nop", image)
    assert linkpass.check(image, "--sites=nop")[0] == 0
    got = run([leastwork, "-c", "-t", image]).stdout.split()
    assert got[0] == str(kept) and got[2] == "0", got


def test_sees_a_wrong_table(tmp_path, linkpass, leastwork):
    """A table made before the code moved: the objects linked again in
    another order than the sample Makefile's, with the first table."""
    out = build_plain(tmp_path, linkpass, "gcc", 0)
    linkpass.run("scan", out / "sample.plain", "-o", tmp_path / "t.o")
    relink(out, tmp_path / "t.o", tmp_path / "moved")
    assert linkpass.check(tmp_path / "moved")[0] == 1
    got = run([leastwork, "-t", tmp_path / "moved"]).stdout.split()
    assert int(got[2]) > 0, got


def test_refuses_what_it_cannot_measure(tmp_path, linkpass, leastwork):
    out = build_plain(tmp_path, linkpass, "gcc", 0, units=2, funcs=20)
    proc = run([leastwork, "-t", out / "sample.plain"], check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == \
        f"leastwork: {out / 'sample.plain'}: no __mcount_loc section"
    notelf = tmp_path / "notelf"
    notelf.write_text("hello\n")
    proc = run([leastwork, notelf, tmp_path / "o"], check=False)
    assert proc.returncode == 2 and "not an ELF64 x86_64 file" in proc.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("cf", ["none", "branch"])
def test_kernel_layout(tmp_path, linkpass, leastwork, cf):
    """Kernel addresses (0xffffffff81000000 up) and the table between
    __start_mcount_loc and __stop_mcount_loc, as in the kernel test."""
    from lptest import link_driver, require_tools, write
    from test_driver import (KERNEL_CFLAGS, KERNEL_LDS, KERNEL_TABLE_OPTS,
                             LINKERS, kernel_objects)
    require_tools("gcc", "ld", "as")
    lds = write(tmp_path / "kernel.lds", KERNEL_LDS)
    objs = kernel_objects(tmp_path, "gcc",
                          [*KERNEL_CFLAGS, f"-fcf-protection={cf}"])
    out = tmp_path / "vmlinux"
    link_driver(out, [*LINKERS["bfd"], "-T", lds, *objs], "--keep-relocs",
                *KERNEL_TABLE_OPTS, linkpass=linkpass)
    kept = len(linkpass.dump(out, *KERNEL_TABLE_OPTS))
    assert kept >= 6
    got = run([leastwork, "-c", "-t", out]).stdout.split()
    assert got[0] == str(kept) and got[2] == "0", got
