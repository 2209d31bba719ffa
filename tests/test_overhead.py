# The run-time overhead harness (bench/overhead.py) in a tiny quick mode,
# so the harness itself stays tested.  It asserts the shape of the report
# and that every way computed the floor's checksum (overhead.py exits
# non-zero otherwise), never a timing.

import re
import shutil
import sys

from conftest import REPO, require_tools, run


def test_overhead_quick(tmp_path):
    require_tools("gcc", "make")
    md = tmp_path / "overhead.md"
    proc = run([sys.executable,
                REPO / "bench" / "overhead.py", "--units", "3", "--funcs",
                "8", "--rounds", "20", "--reps", "1", "--out",
                tmp_path / "work", "--markdown", md], timeout=600)
    table = md.read_text()
    ways = ["nopg", "call-ret", "nop", "traced", "stream", "graph-stream"]
    if shutil.which("clang"):
        # unpatched sleds, basic mode and FDR mode, each with its own row
        ways += ["xray", "xray-basic", "xray-fdr"]
    if shutil.which("uftrace"):
        ways.append("uftrace")
    for way in ways:
        assert re.search(rf"^\| {way} \| [0-9.]+ \| [0-9.]+–[0-9.]+ \| "
                         r"[0-9.]+× \|$", table, re.M), table
    assert "| nopg | " in proc.stdout
