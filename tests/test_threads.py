# The threaded relocation scan: an image past the parallel threshold
# (300,000 relocations) scanned with 1, 2, 3 and 8 workers and the
# default must give byte-identical tables, equal to the generator's own
# list of sites once linked, and the relinked image must check clean.
# `make tsan` runs this file against a ThreadSanitizer build
# ($LINKPASS_BIN), `make sanitize` against ASan + UBSan.

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hardening"))
import harness  # noqa: E402
import scalegen  # noqa: E402
from lptest import parse_sites, symbols  # noqa: E402

NFUNCS = 30_000


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    for tool in ("as", "ld"):
        if subprocess.run(["which", tool], capture_output=True).returncode:
            pytest.skip(f"not installed: {tool}")
    work = tmp_path_factory.mktemp("threads")
    img, objs = scalegen.generate(work / "build", NFUNCS)
    return work, img, objs


def test_thread_counts_agree(build):
    work, img, objs = build
    tables = {}
    for j in (None, 1, 2, 3, 8):
        out = work / f"t{j}.o"
        opts = ["-j", str(j)] if j else []
        proc = harness.run_linkpass(["scan", img, "-o", out, "--stats",
                                     *opts])
        assert proc.returncode == 0, harness.describe(proc)
        assert proc.stderr == "", harness.describe(proc)
        m = re.search(r"^\s+threads\s+(\d+)$", proc.stdout, re.M)
        assert m, proc.stdout
        want = min(j or os.cpu_count() or 1, 8)
        assert int(m.group(1)) == want, proc.stdout
        tables[j] = out.read_bytes()
    assert len(set(tables.values())) == 1, "thread counts disagree"

    # ... and right: linked in, the table is exactly the generator's
    # sites (every traced f<i> and odd x<i> begins with its call), in
    # address order, read with readelf rather than linkpass
    img2 = scalegen.link(objs, work / "img2", extra=[work / "t1.o"])
    truth = sorted(s["value"] for s in symbols(img2)
                   if s["type"] == "FUNC" and re.fullmatch(r"[fx]\d+",
                                                          s["name"]))
    assert len(truth) == NFUNCS + len(range(0, NFUNCS, 1000))
    proc = harness.run_linkpass(["dump", img2])
    assert proc.returncode == 0, harness.describe(proc)
    assert parse_sites(proc.stdout) == truth
    for j in ("1", "4"):
        proc = harness.run_linkpass(["check", img2, "-j", j])
        assert proc.returncode == 0, harness.describe(proc)
