# Crash safety of scan's output: SIGKILL `linkpass scan` at random points,
# most of them while it writes a big table, over an existing previous
# output.  Afterwards the output must be byte for byte either the old
# file or the complete new one -- never a truncated or partial table.
# (A kill may leave a stray out.o.tmpXXXXXX next to it; that is allowed
# and counted, and is the evidence that the kill hit the write.)

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hardening"))
import harness  # noqa: E402
import scalegen  # noqa: E402

# 100,000 functions: about 1,000,000 relocations, a 0.8 MB table and
# 2.4 MB of table relocations, built in a few seconds.
NFUNCS = 100_000
KILLS = 24


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    for tool in ("as", "ld"):
        if not subprocess.run(["which", tool], capture_output=True).stdout:
            pytest.skip(f"not installed: {tool}")
    work = tmp_path_factory.mktemp("crash")
    img, _ = scalegen.generate(work / "build", NFUNCS)
    return img


def _tmp_files(d, name):
    return [p for p in os.listdir(d) if p.startswith(name + ".tmp")]


def _kill_at(args, out, rnd, mode, wall, write):
    """Start scan, SIGKILL it; returns (exit status, killed while the
    temp file existed)."""
    d, name = os.path.dirname(out), os.path.basename(out)
    proc = subprocess.Popen([str(harness.linkpass_bin()), *map(str, args)],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=harness.run_env())
    if mode == "anytime":
        time.sleep(rnd.uniform(0, wall * 1.2))
    else:
        # wait for the temp file, then kill somewhere inside the write
        deadline = time.monotonic() + wall * 3 + 5
        while not _tmp_files(d, name) and proc.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.0005)
        time.sleep(rnd.uniform(0, write * 1.5))
    mid_write = bool(_tmp_files(d, name))
    proc.send_signal(signal.SIGKILL)
    rc = proc.wait(timeout=harness.TIMEOUT)
    return rc, mid_write


@pytest.mark.parametrize("fmt", ["elf", "asm"])
def test_sigkill_leaves_old_or_new_output(image, tmp_path, fmt):
    rnd = random.Random(int(os.environ.get("LINKPASS_CRASH_SEED", "0")) or
                        None)
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    fmt_opt = f"--format={fmt}"

    # the complete new output, twice: it must be deterministic
    t0 = time.monotonic()
    proc = harness.run_linkpass(["scan", image, "-o", ref_dir / "new.o",
                                 fmt_opt, "--stats"])
    wall = time.monotonic() - t0
    assert proc.returncode == 0, harness.describe(proc)
    m = re.search(r"time: write table\s+([0-9.]+) ms", proc.stdout)
    assert m, proc.stdout
    write = float(m.group(1)) / 1000
    new = (ref_dir / "new.o").read_bytes()
    proc = harness.run_linkpass(["scan", image, "-o", ref_dir / "again.o",
                                 fmt_opt])
    assert (ref_dir / "again.o").read_bytes() == new
    # the previous output: a real but different table (nothing traced)
    proc = harness.run_linkpass(["scan", image, "-o", ref_dir / "old.o",
                                 fmt_opt, "--no-trace-section=.text"])
    assert proc.returncode == 0, harness.describe(proc)
    old = (ref_dir / "old.o").read_bytes()
    assert old != new and len(new) > 1_000_000

    work = tmp_path / "out"
    work.mkdir()
    out = work / "table.o"
    seen = {"old": 0, "new": 0, "mid-write": 0, "finished": 0}
    for k in range(KILLS):
        for p in work.iterdir():
            p.unlink()
        out.write_bytes(old)
        mode = "anytime" if k % 3 == 0 else "write"
        rc, mid = _kill_at(["scan", image, "-o", out, fmt_opt], str(out),
                           rnd, mode, wall, write)
        got = out.read_bytes()
        assert got in (old, new), (
            f"kill {k} ({mode}, exit {rc}): output is {len(got)} bytes, "
            f"neither the old ({len(old)}) nor the new ({len(new)}) file")
        seen["old" if got == old else "new"] += 1
        seen["mid-write"] += mid
        seen["finished"] += rc == 0
        # whatever is left is the target and at most one temp file
        assert len(_tmp_files(work, "table.o")) <= 1
    print(f"\ncrash safety ({fmt}): {KILLS} kills: {seen}")
    # the kills must really have landed inside the write
    assert seen["mid-write"] >= 1, seen
    assert seen["old"] >= 1, seen
