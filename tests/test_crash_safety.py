# Crash safety of linkpass's writes: SIGKILL `linkpass scan` (writing a
# big table over an existing previous output) and `linkpass obj`
# (rewriting a big object in place) at random points, most of them while
# the file is being written.  Afterwards the file must be byte for byte
# either the old one or the complete new one -- never a truncated or
# partial file.  (A kill may leave a stray FILE.tmpXXXXXX next to it;
# that is allowed and counted, and is the evidence that the kill hit the
# write.)
#
# The kill times are drawn from a seeded generator: LINKPASS_CRASH_SEED
# (default 1) makes a failure reproducible, and the seed is in every
# failure message.

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


SEED = int(os.environ.get("LINKPASS_CRASH_SEED", "1"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    for tool in ("as", "ld"):
        if not subprocess.run(["which", tool], capture_output=True).stdout:
            pytest.skip(f"not installed: {tool}")
    work = tmp_path_factory.mktemp("crash")
    return scalegen.generate(work / "build", NFUNCS)


@pytest.fixture(scope="module")
def image(built):
    return built[0]


def _tmp_files(d, name):
    return [p for p in os.listdir(d) if p.startswith(name + ".tmp")]


def _more_kills(k, seen):
    """KILLS kills, then more (at most 8 x KILLS in all) until one landed
    inside the write and one left the old file: on a loaded machine a
    short write is easy to miss, and each kill is checked either way."""
    if k < KILLS:
        return True
    return k < 8 * KILLS and (not seen["mid-write"] or not seen["old"])


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
    rnd = random.Random(f"{SEED}-scan-{fmt}")
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
    # the previous output: a real but different table (nothing traced,
    # which an image with mcount calls gets only with --allow-empty)
    proc = harness.run_linkpass(["scan", image, "-o", ref_dir / "old.o",
                                 fmt_opt, "--no-trace-section=.text",
                                 "--allow-empty"])
    assert proc.returncode == 0, harness.describe(proc)
    old = (ref_dir / "old.o").read_bytes()
    assert old != new and len(new) > 1_000_000

    work = tmp_path / "out"
    work.mkdir()
    out = work / "table.o"
    seen = {"old": 0, "new": 0, "mid-write": 0, "finished": 0}
    k = 0
    while _more_kills(k, seen):
        for p in work.iterdir():
            p.unlink()
        out.write_bytes(old)
        mode = "anytime" if k % 3 == 0 else "write"
        # --fsync keeps the temp file around longer, so more kills land
        # inside the write; the bytes written are the same
        rc, mid = _kill_at(["scan", image, "-o", out, fmt_opt, "--fsync"],
                           str(out), rnd, mode, wall, write)
        got = out.read_bytes()
        assert got in (old, new), (
            f"LINKPASS_CRASH_SEED={SEED}: kill {k} ({mode}, exit {rc}): "
            f"output is {len(got)} bytes, neither the old ({len(old)}) nor "
            f"the new ({len(new)}) file")
        seen["old" if got == old else "new"] += 1
        seen["mid-write"] += mid
        seen["finished"] += rc == 0
        # whatever is left is the target and at most one temp file
        assert len(_tmp_files(work, "table.o")) <= 1
        k += 1
    print(f"\ncrash safety ({fmt}): {k} kills: {seen}")
    # the kills must really have landed inside the write
    assert seen["mid-write"] >= 1, seen
    assert seen["old"] >= 1, seen


def test_sigkill_during_obj_rewrite(built, tmp_path):
    """linkpass obj rewrites an object in place: killed at any point, the
    object is the original or the complete new one, and a later run
    finishes the job (or finds it done)."""
    _, objs = built
    src = max(objs, key=lambda o: o.stat().st_size)
    rnd = random.Random(f"{SEED}-obj")
    old = src.read_bytes()

    ref = tmp_path / "ref.o"
    ref.write_bytes(old)
    t0 = time.monotonic()
    proc = harness.run_linkpass(["obj", ref])
    wall = time.monotonic() - t0
    assert proc.returncode == 0, harness.describe(proc)
    new = ref.read_bytes()
    again = tmp_path / "again.o"
    again.write_bytes(old)
    harness.run_linkpass(["obj", again])
    assert again.read_bytes() == new and new != old

    work = tmp_path / "out"
    work.mkdir()
    obj = work / "piece.o"
    seen = {"old": 0, "new": 0, "mid-write": 0, "finished": 0}
    k = 0
    while _more_kills(k, seen):
        for p in work.iterdir():
            p.unlink()
        obj.write_bytes(old)
        mode = "anytime" if k % 3 == 0 else "write"
        rc, mid = _kill_at(["obj", obj], str(obj), rnd, mode, wall,
                           wall / 2)
        got = obj.read_bytes()
        assert got in (old, new), (
            f"LINKPASS_CRASH_SEED={SEED}: kill {k} ({mode}, exit {rc}): "
            f"object is {len(got)} bytes, neither the original "
            f"({len(old)}) nor the rewritten ({len(new)}) one")
        seen["old" if got == old else "new"] += 1
        seen["mid-write"] += mid
        seen["finished"] += rc == 0
        assert len(_tmp_files(work, "piece.o")) <= 1
        # a new run completes it
        proc = harness.run_linkpass(["obj", obj])
        assert proc.returncode == 0, harness.describe(proc)
        assert obj.read_bytes() == new
        k += 1
    print(f"\ncrash safety (obj): {k} kills: {seen}")
    assert seen["mid-write"] >= 1, seen
    assert seen["old"] >= 1, seen
