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
        # trace files: their size, and ours their bytes per event
        size = (r"[0-9]+ \| [0-9.]+" if "stream" in way else
                r"[0-9]+ \| " if way == "uftrace" else r" \| ")
        assert re.search(rf"^\| {way} \| [0-9.]+ \| [0-9.]+–[0-9.]+ \| "
                         rf"[0-9.]+× \| [0-9.]+ \| {size} \|$", table,
                         re.M), table
    assert "| nopg | " in proc.stdout


def test_overhead_ways_and_reference(tmp_path):
    """--ways runs only those (and the floor); --ref-lib adds the graph
    stream linked with another build of the runtime (here our own)."""
    require_tools("gcc", "make")
    md = tmp_path / "overhead.md"
    run([sys.executable, REPO / "bench" / "overhead.py", "--units", "3",
         "--funcs", "8", "--rounds", "20", "--reps", "1", "--ways",
         "graph-stream", "--ref-lib", REPO / "runtime" / "liblptrace.a",
         "--out", tmp_path / "work", "--markdown", md], timeout=600)
    rows = re.findall(r"^\| ([a-z-]+) \| [0-9.]", md.read_text(), re.M)
    assert rows == ["nopg", "graph-stream", "graph-stream-ref"], rows
