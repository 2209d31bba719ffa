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
    if "uftrace" in ways:
        # a number, or "n/a" when the tiny run left uftrace's CPU time
        # at the floor's (it divided by zero before)
        assert re.search(r"^graph-stream: overhead over nopg "
                         r"([0-9.-]+|n/a .*) of uftrace's in wall time, "
                         r"([0-9.-]+|n/a .*) in CPU time$", table, re.M), table


def test_overhead_ratio_without_a_measurable_uftrace():
    """Our overhead as a fraction of uftrace's; no ratio (not a crash)
    when uftrace's time is not above the floor's."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import overhead
    finally:
        sys.path.pop(0)
    assert overhead.overhead_ratio([1.5, 1.2], [2.0], 1.0) == "0.35"
    assert overhead.overhead_ratio([1.5], [1.0], 1.0).startswith("n/a")
    assert overhead.overhead_ratio([1.5], [0.9], 1.0).startswith("n/a")


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
