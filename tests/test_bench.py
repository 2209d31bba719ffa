# The build-time benchmark harness (bench/, mk/bench.mk) in its quick
# mode: two tiny samples, one repetition.  Checks that every way is built
# and timed, that the images really differ the way the ways say (a table
# or not), and that the report renders tables and SVG plots.

import csv
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import REPO

WAYS = ("floor", "whole", "whole-keep", "obj", "rmc", "rec")
QUICK_UNITS = (4, 8)
KSRC_TAR = Path("/usr/src/linux-source-6.1.tar.xz")


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    for tool in ("gcc", "make", "valgrind", "readelf"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed")
    if not (KSRC_TAR.exists() or
        (REPO / "build" / "bench" / "recordmcount").exists()):
        pytest.skip(f"{KSRC_TAR} missing (Debian linux-source-6.1), "
                "needed for the kernel's recordmcount")
    tmp = tmp_path_factory.mktemp("bench")
    proc = subprocess.run(
        ["make", "-C", str(REPO), "bench-quick",
         f"BENCH_QUICK_OUT={tmp}/res", f"BENCH_WORK={tmp}/work"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return tmp / "res", tmp / "work-quick"


def test_every_way_timed(quick):
    res, _ = quick
    build = rows(res / "build.csv")
    seen = {(int(r["units"]), r["way"], r["phase"]) for r in build}
    for u in QUICK_UNITS:
        assert (u, "floor", "compile") in seen
        assert (u, "rec", "compile") in seen
        for way in WAYS:
            assert (u, way, "post") in seen
            assert (u, way, "incr") in seen
    for r in build:
        assert float(r["wall_s"]) > 0 and float(r["cpu_s"]) >= 0


def test_images_have_the_table_their_way_makes(quick):
    _, work = quick
    run = work / f"u{QUICK_UNITS[-1]}f10s1" / "run"
    for way in WAYS:
        image = run / way / "image.out"
        sections = subprocess.run(["readelf", "-SW", str(image)],
                      capture_output=True, text=True,
                      check=True).stdout
        assert ("__mcount_loc" in sections) == (way != "floor"), way
        # Every image is the sample program: it runs and prints its line.
        out = subprocess.run([str(image)], capture_output=True,
                     text=True, timeout=30)
        assert out.returncode == 0, (way, out.stderr)


def test_scan_callgrind_memory(quick):
    res, _ = quick
    scan = rows(res / "scan.csv")
    assert {r["tool"] for r in scan} == {"readrel", "readrel-sym", "scan",
                         "scan-j1", "leastwork"}
    assert all(int(r["reloc_bytes"]) > 0 for r in scan)
    cg = rows(res / "callgrind.csv")
    assert {(int(r["units"]), r["tool"]) for r in cg} == {
        (u, t) for u in QUICK_UNITS
        for t in ("readrel", "readrel-sym", "scan-j1", "leastwork")}
    assert all(int(r["instructions"]) > 0 for r in cg)
    mem = {(r["way"], r["process"]) for r in rows(res / "memory.csv")}
    for way in WAYS:
        assert (way, "link") in mem
    assert ("whole", "linkpass-scan") in mem
    assert ("whole-keep", "linkpass-scan") in mem
    assert ("obj", "pass") in mem and ("rmc", "pass") in mem


def test_report(quick):
    res, _ = quick
    summary = (res / "summary.md").read_text()
    for heading in ("Full build", "Incremental build", "Scan time",
            "Peak memory"):
        assert heading in summary
    for name in ("build-full", "build-incr", "build-extra", "scan",
             "scan-instructions"):
        root = ET.parse(res / f"{name}.svg").getroot()
        assert root.tag.endswith("svg")
        assert root.findall(".//{http://www.w3.org/2000/svg}polyline")


def test_pairtime_runs_every_binary_interleaved(tmp_path):
    """bench/pairtime.py runs the template with each binary in place of
    {} and prints a line per binary, the first at ratio 1.000."""
    log = tmp_path / "log"
    bins = []
    for name in ("a", "b"):
        p = tmp_path / name
        p.write_text(f"#!/bin/sh\necho {name} \"$@\" >> {log}\n")
        p.chmod(0o755)
        bins.append(str(p))
    out = subprocess.run(
        ["/usr/bin/python3", str(REPO / "bench" / "pairtime.py"), "3",
         "{} x y", *bins], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(bins[0] + ": wall ") and "(1.000)" in lines[0]
    assert lines[1].startswith(bins[1] + ": wall ")
    # rotated order: a b, b a, a b
    assert log.read_text().split("\n")[:-1] == [
        "a x y", "b x y", "b x y", "a x y", "a x y", "b x y"]
    bad = subprocess.run(
        ["/usr/bin/python3", str(REPO / "bench" / "pairtime.py"), "1",
         "true", bins[0]], capture_output=True, text=True)
    assert bad.returncode != 0 and "no {}" in bad.stderr
