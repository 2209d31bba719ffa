#!/usr/bin/python3
"""linkpass scan against the same command built from a baseline commit.

    bench/scanbase.py [--base 70499bd] [--work /var/tmp/lp-bench/work/scanbase]
                      [--units 1000] [--funcs 100] [--pairs 9]
                      [--callgrind-runs 5] [--linkpass linkpass/linkpass]
                      [--out FILE.md]

1. The baseline's tool: `git worktree add` of BASE in a temporary folder,
   `make linkpass/linkpass` there, the binary kept as
   WORK/linkpass-<sha>, the worktree removed (a later run reuses the
   binary).
2. The image: tests/samples/gen.py's sample of UNITS x FUNCS functions,
   compiled with gcc -pg -mfentry and linked -q by lld without a table
   (`make -C tests/samples plain CC=gcc LD=lld`, into WORK/img; make
   keeps it for the next run).
3. `linkpass scan IMAGE -o TABLE` of both tools, with their default
   threads: PAIRS interleaved pairs (the order swapped every pair, one
   warm-up of each first), each run's CPU time (user + system of the
   process, from wait4) and wall time.  The ratio is the median of the
   pairs' ratios, tool over baseline.
4. The instructions of each under callgrind (all threads), the median of
   CALLGRIND_RUNS runs, interleaved: the count moves from run to run by
   how the threads took turns (a realloc in place, or a copy).

Both tables must be the same bytes, or the figures compare different
work.  Prints a markdown table (and writes it to --out).  Figures, not
a verdict: nothing here passes or fails on time.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
SAMPLES = TOP / "tests" / "samples"


def log(msg):
    print(f"scanbase: {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], check=True,
                          capture_output=True, text=True, **kw)


def baseline_tool(base, work):
    """The baseline commit's linkpass, built once in a temporary worktree."""
    sha = run(["git", "-C", TOP, "rev-parse", "--verify",
               f"{base}^{{commit}}"]).stdout.strip()
    out = work / f"linkpass-{sha[:12]}"
    if out.exists():
        return out, sha
    tmp = Path(tempfile.mkdtemp(prefix="lp-base-"))
    tree = tmp / "tree"
    log(f"building {base} ({sha[:12]}) in {tree}")
    run(["git", "-C", TOP, "worktree", "add", "--detach", tree, sha])
    try:
        run(["make", "-C", tree, "-j2", "linkpass/linkpass"])
        shutil.copy2(tree / "linkpass" / "linkpass", out)
    finally:
        run(["git", "-C", TOP, "worktree", "remove", "--force", tree])
        shutil.rmtree(tmp, ignore_errors=True)
    return out, sha


def sample_image(work, units, funcs):
    """The sample linked with -q by lld, without a table (make keeps it)."""
    img = work / "img"
    log(f"sample image: {units} x {funcs} functions in {img}")
    run(["make", "-C", SAMPLES, "-j2", "plain", "CC=gcc", "LD=lld",
         f"UNITS={units}", f"FUNCS={funcs}", f"O={img}"], timeout=3600)
    return img / "sample.plain"


def timed(cmd):
    """(CPU seconds, wall seconds) of one run of @cmd."""
    t0 = time.perf_counter()
    p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"scanbase: {' '.join(map(str, cmd))} failed")
    return ru.ru_utime + ru.ru_stime, wall


def pairs(cmd_a, cmd_b, n):
    """n interleaved pairs: each command's (cpu, wall) lists."""
    timed(cmd_a)
    timed(cmd_b)
    a, b = [], []
    for i in range(n):
        if i % 2:
            b.append(timed(cmd_b))
            a.append(timed(cmd_a))
        else:
            a.append(timed(cmd_a))
            b.append(timed(cmd_b))
    return a, b


def instructions(cmd, tmp):
    out = tmp / "cg.out"
    proc = run(["valgrind", "--tool=callgrind",
                f"--callgrind-out-file={out}", *cmd])
    for line in proc.stderr.splitlines():
        if "Collected" in line:
            return int(line.split()[-1].replace(",", ""))
    raise SystemExit("scanbase: no callgrind total:\n" + proc.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="70499bd")
    ap.add_argument("--work", type=Path,
                    default=Path("/var/tmp/lp-bench/work/scanbase"))
    ap.add_argument("--units", type=int, default=1000)
    ap.add_argument("--funcs", type=int, default=100)
    ap.add_argument("--pairs", type=int, default=9)
    ap.add_argument("--callgrind-runs", type=int, default=5)
    ap.add_argument("--linkpass", type=Path,
                    default=TOP / "linkpass" / "linkpass")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    base, sha = baseline_tool(a.base, a.work)
    image = sample_image(a.work, a.units, a.funcs)
    with tempfile.TemporaryDirectory(prefix="lp-scanbase-") as t:
        tmp = Path(t)
        cmd_new = [a.linkpass, "scan", image, "-o", tmp / "new.o"]
        cmd_base = [base, "scan", image, "-o", tmp / "base.o"]
        run(cmd_new)
        run(cmd_base)
        if (tmp / "new.o").read_bytes() != (tmp / "base.o").read_bytes():
            raise SystemExit("scanbase: the two tables differ: the tools "
                             "do different work")
        log(f"{a.pairs} interleaved pairs")
        new, old = pairs(cmd_new, cmd_base, a.pairs)
        log(f"callgrind, {a.callgrind_runs} runs of each")
        ir_new, ir_base = [], []
        for _ in range(a.callgrind_runs):
            ir_new.append(instructions(cmd_new, tmp))
            ir_base.append(instructions(cmd_base, tmp))
    med = statistics.median
    ir_new, ir_base = med(ir_new), med(ir_base)
    cpu_ratio = med(n[0] / o[0] for n, o in zip(new, old))
    wall_ratio = med(n[1] / o[1] for n, o in zip(new, old))
    rows = [
        f"`linkpass scan` of a {a.units * a.funcs:,}-function image "
        f"(gcc -pg -mfentry, lld -q), this tree against {a.base} "
        f"({sha[:12]}); {a.pairs} interleaved pairs (CPU, wall) and "
        f"{a.callgrind_runs} callgrind runs of each, medians:",
        "",
        "| | CPU ms | wall ms | instructions (callgrind) |",
        "|---|---:|---:|---:|",
        f"| this tree | {med(n[0] for n in new) * 1e3:.1f} | "
        f"{med(n[1] for n in new) * 1e3:.1f} | {ir_new:,.0f} |",
        f"| {a.base} | {med(o[0] for o in old) * 1e3:.1f} | "
        f"{med(o[1] for o in old) * 1e3:.1f} | {ir_base:,.0f} |",
        f"| ratio (median of the pairs' ratios) | {cpu_ratio:.2f} | "
        f"{wall_ratio:.2f} | {ir_new / ir_base:.3f} |",
    ]
    text = "\n".join(rows) + "\n"
    sys.stdout.write(text)
    if a.out:
        a.out.write_text(text)


if __name__ == "__main__":
    main()
