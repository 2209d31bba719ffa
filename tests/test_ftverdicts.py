# kernel/ftverdicts.py, the verdict comparison of make test-ftracetest,
# on a boot log captured from a real run (the stock 7.3 x86_64 gcc
# kernel, the 00basic and direct suites, LINKPASS_FTRACETEST_ONLY),
# without booting anything.  The ground truth is ftracetest's own
# count lines ("# of passed:  N", ...): the /init of that run printed
# ftracetest's whole output for every case file (today's prints it
# only where ftracetest failed); the xtrace lines of the failing cases'
# logs were left out of the file to keep it short.

import re
import subprocess
import sys
from collections import Counter

import pytest

from lptest import REPO

sys.path.insert(0, str(REPO / "kernel"))
import ftverdicts  # noqa: E402

LOG = REPO / "tests/fixtures/ftracetest-7.3-x86_64-stock-00basic-direct.log"
# ftracetest's summary words and our verdict names
COUNT_LINE = re.compile(r"^LPFT-LOG \S+ # of (\w+)(?:\(test bug\))?:\s+(\d+)$")
WORDS = {"passed": "PASS", "failed": "FAIL", "unresolved": "UNRESOLVED",
         "untested": "UNTESTED", "unsupported": "UNSUPPORTED",
         "xfailed": "XFAIL", "undefined": "UNDEFINED"}


def run(*args):
    return subprocess.run([sys.executable, REPO / "kernel/ftverdicts.py",
                           *map(str, args)],
                          capture_output=True, text=True)


def test_verdicts_match_ftracetests_own_counts():
    """Every verdict of the log, counted by kind, is what ftracetest
    said it counted, and each instance run is a case of its own."""
    text = LOG.read_text()
    want = Counter()
    for line in text.splitlines():
        m = COUNT_LINE.match(line)
        if m:
            want[WORDS[m.group(1)]] += int(m.group(2))
    got = ftverdicts.parse(text)
    assert sum(want.values()) == 24, want
    assert Counter(got.values()) == +want
    assert got["00basic/basic2.tc (instance)"] == "PASS"
    assert got["direct/ftrace-direct.tc"] == "PASS"


def test_same_log_agrees():
    """Stock against itself: nothing differs, the failures are stock's,
    and the output ends with the one summary line."""
    proc = run(LOG, LOG, "7.3", "x86_64")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "DIFFER" not in proc.stdout
    bad = [ln for ln in lines if ln.startswith("ftracetest: stock's ")]
    fails = [v for v in ftverdicts.parse(LOG.read_text()).values()
             if v in ftverdicts.BAD]
    assert len(bad) == len(fails) > 0
    assert all(ln.endswith("(the same on ours)") for ln in bad)
    assert lines[-1] == (f"ftracetest: version=7.3 arch=x86_64 cases=24 "
                         f"same=24 differ=0 stock_fail={len(fails)}")


def test_a_changed_verdict_fails(tmp_path):
    """One case passing on stock and failing on ours is a difference,
    named, and the comparison fails."""
    ours = tmp_path / "ours.log"
    text = LOG.read_text()
    line = "[1] Basic trace file check\t[PASS]"
    assert line in text
    ours.write_text(text.replace(line, line.replace("PASS", "FAIL")))
    proc = run(LOG, ours, "7.3", "x86_64")
    assert proc.returncode == 1
    assert "ftracetest: DIFFER 00basic/basic1.tc: stock PASS, ours FAIL" \
        in proc.stdout
    assert proc.stdout.splitlines()[-1].endswith(
        "cases=24 same=23 differ=1 stock_fail=4")


@pytest.mark.parametrize("how", ["killed", "guest stopped"])
def test_a_hang_is_a_verdict(tmp_path, how):
    """A case killed at its time limit (its verdict line cut short) or
    one the guest stopped in (no LPFT-END) is HANG; the cases never
    reached are NOTRUN; both differ from stock's verdicts."""
    text = LOG.read_text()
    head, _, _ = text.partition("LPFT-V 00basic/snapshot.tc")
    if how == "killed":
        head += ("LPFT-V 00basic/snapshot.tc [1] Snapshot and tracing "
                 "setting\nLPFT-HANG 00basic/snapshot.tc 300\n"
                 "LPFT-END 00basic/snapshot.tc 137 300\n")
    ours = tmp_path / "ours.log"
    ours.write_text(head)
    got = ftverdicts.parse(head)
    assert got["00basic/snapshot.tc"] == "HANG"
    proc = run(LOG, ours, "7.3", "x86_64")
    assert proc.returncode == 1
    assert "DIFFER 00basic/snapshot.tc: stock UNSUPPORTED, ours HANG" \
        in proc.stdout
    assert "DIFFER direct/kprobe-direct.tc: stock PASS, ours NOTRUN" \
        in proc.stdout
