#!/usr/bin/python3
"""Build-time, scan-time and memory comparison of the ways to make the
__mcount_loc table, on sample kernels from tests/samples/gen.py.

    bench/run.py --out DIR [--sizes 50,150,...] [--funcs 100] [--reps 3]
                 [--quick] [--work DIR] [--jobs 2] [--opt -O1]

Writes DIR/build.csv, DIR/scan.csv, DIR/callgrind.csv, DIR/memory.csv and
DIR/meta.json; bench/report.py turns them into tables and SVG plots.

Per size (U units of F functions each, plus main.c and two asm files):

  compile   every object compiled once with the floor flags and once with
            -mrecord-mcount (make -j2 compile), timed: the compile phase,
            the same command for floor, whole, obj and rmc
            (--compile-reps N: N times each, alternating; medians).
  post      for each repetition, in an order rotated per repetition: a
            fresh copy of the compiled objects, then `make -j2 post`: the
            per-object pass over every C object (obj, rmc) and the link
            (link-vmlinux.sh for whole).  full = compile + post.
  incr      for each repetition: touch one unit's source, then `make -j2`
            in every way's tree, rotated the same way: one compile (with
            its per-object pass) and the link.
  scan      `linkpass scan` of the image linked with -q against the floor
            of reading its code relocation bytes once (bench/readrel),
            and against the least work that yields the same table on two
            threads (bench/leastwork -c), interleaved; callgrind
            instruction counts of each.
  memory    each way's post step once more, every link, linkpass and
            recordmcount process under /usr/bin/time: peak RSS.

Times are wall clock (time.perf_counter) and CPU (user+sys of make and
all its children, from wait4).  Other work on the machine slows all ways
alike only when they run side by side, hence the interleaving.
"""

import argparse
import csv
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
WAYS = ["floor", "whole", "whole-keep", "obj", "rmc", "rec"]
WAYS_MK = TOP / "bench" / "ways.mk"
GEN = TOP / "tests" / "samples" / "gen.py"
LINKPASS = TOP / "linkpass" / "linkpass"
READREL = TOP / "build" / "bench" / "readrel"
RECORDMCOUNT = TOP / "build" / "bench" / "recordmcount"
LEASTWORK = TOP / "build" / "bench" / "leastwork"
PYTHON = "/usr/bin/python3"

FULL_SIZES = [50, 150, 400, 1000, 2000]
QUICK_SIZES = [4, 8]


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def timed(cmd, cwd=None, env=None):
    """Run cmd; return (wall seconds, CPU seconds of it and its children).
    Its output goes to a log; a failure stops the benchmark."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                 stderr=subprocess.STDOUT)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.stderr.write(out.decode(errors="replace")[-4000:])
        raise SystemExit(f"bench: {' '.join(map(str, cmd))}: "
                 f"exit status {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime


def make(tree, src, way, target, opt, jobs, extra=()):
    cmd = ["make", "-s", "-j", str(jobs), "-f", str(WAYS_MK), "-C",
           str(tree), f"SRC={src}", f"WAY={way}", f"OPT={opt}",
           f"RECORDMCOUNT={RECORDMCOUNT}", f"LINKPASS={LINKPASS}",
           *extra, target]
    return timed(cmd)


def generate(work, units, funcs, seed, keep=False):
    """The sample's folder and sources, generated again when gen.py or
    the arguments changed (with keep: never, if there is one)."""
    d = work / f"u{units}f{funcs}s{seed}"
    src = d / "src"
    stamp = src / "gen-args"
    args = f"{units} {funcs} {seed} {GEN.stat().st_mtime_ns}\n"
    if keep and (src / "manifest.json").exists():
        return d, src
    if not (stamp.exists() and stamp.read_text() == args):
        log(f"generating {units} units x {funcs} functions")
        shutil.rmtree(d, ignore_errors=True)
        tmp = d / "src.tmp"
        subprocess.run([PYTHON, str(GEN), "--units", str(units),
                "--funcs-per-unit", str(funcs), "--seed", str(seed),
                "--out", str(tmp)], check=True)
        tmp.rename(src)
        stamp.write_text(args)
    return d, src


def fresh_copy(objs, tree):
    """tree/obj becomes a copy of objs, dated now: newer than every
    source, so make takes them as up to date even after a source was
    touched for an incremental build.  The old image goes."""
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    subprocess.run(["cp", "-r", str(objs), str(tree / "obj")], check=True)


def rotate(seq, n):
    n %= len(seq)
    return seq[n:] + seq[:n]


def maxrss_log(path):
    """{label: (max RSS kB, count)} from the /usr/bin/time log."""
    res = {}
    if not path.exists():
        return res
    for line in path.read_text().splitlines():
        m = re.match(r"^LPRSS (\S+) (\d+)$", line)
        if m:
            kb = int(m.group(2))
            old = res.get(m.group(1), (0, 0))
            res[m.group(1)] = (max(old[0], kb), old[1] + 1)
    return res


def write_wrappers(d):
    """Command prefixes that record peak RSS of links, passes and scans."""
    d.mkdir(parents=True, exist_ok=True)
    wraps = {}
    # The link driver: link-vmlinux.sh adds -Wl,--emit-relocs after the
    # first word of the link command, so the wrapper stands for gcc.
    for label, cmd in (("link", "gcc "), ("pass", "")):
        w = d / f"wrap-{label}"
        w.write_text("#!/bin/sh\nexec /usr/bin/time -a -o \"$LPRSS_LOG\" "
                 f"-f 'LPRSS {label} %M' {cmd}\"$@\"\n")
        w.chmod(0o755)
        wraps[label] = w
    # link-vmlinux.sh runs linkpass scan/check/dump: label by subcommand.
    w = d / "linkpass"
    w.write_text("#!/bin/sh\nexec /usr/bin/time -a -o \"$LPRSS_LOG\" "
             "-f \"LPRSS linkpass-$1 %M\" " f"{LINKPASS} \"$@\"\n")
    w.chmod(0o755)
    wraps["linkpass"] = w
    return wraps


def callgrind_ir(cmd, outfile):
    subprocess.run(["valgrind", "--tool=callgrind",
            f"--callgrind-out-file={outfile}", *map(str, cmd)],
               check=True, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
    for line in Path(outfile).read_text().splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise SystemExit(f"bench: {outfile}: no totals line")


def check_leastwork(image, table, least_table):
    """The yardstick must keep what scan keeps: the same entry count."""
    n = int(subprocess.run([str(LEASTWORK), str(image), str(least_table)],
                           check=True, capture_output=True,
                           text=True).stdout.split()[0])
    stats = subprocess.run([str(LINKPASS), "scan", str(image), "-o",
                            str(table), "--stats"], check=True,
                           capture_output=True, text=True).stdout
    m = re.search(r"^\s*table entries\s+(\d+)$", stats, re.M)
    kept = int(m.group(1)) if m else -1
    if n != kept:
        raise SystemExit(f"bench: {image}: leastwork keeps {n} calls, "
                         f"scan {kept}: the yardstick does other work")


def scan_size(a, w, files, out, units, nfuncs, src, run, trees, scan_reps):
    """Scan throughput and callgrind counts on the floor image, -q."""
    # Scan throughput on the floor image linked with -q.
    log(f"{units} units: scan")
    make(trees["floor"], src, "floor", "image.q", a.opt, a.jobs)
    image = trees["floor"] / "image.q"
    table = run / "table.o"
    least_table = run / "table-leastwork.o"
    relbytes = int(subprocess.run([str(READREL), str(image)],
                      check=True, capture_output=True,
                      text=True).stdout.split()[0])
    imgbytes = image.stat().st_size
    scans = {
        "readrel": [str(READREL), str(image)],
        "readrel-sym": [str(READREL), "-s", str(image)],
        "scan": [str(LINKPASS), "scan", str(image), "-o",
             str(table)],
        "scan-j1": [str(LINKPASS), "scan", str(image), "-o",
                str(table), "-j", "1"],
        "leastwork": [str(LEASTWORK), "-c", str(image), str(least_table)],
    }
    for cmd in scans.values():  # warm the page cache
        subprocess.run(cmd, check=True,
                   stdout=subprocess.DEVNULL)
    for rep in range(scan_reps):
        for tool in rotate(list(scans), rep):
            t = timed(scans[tool])
            w["scan"].writerow([units, nfuncs, tool, rep,
                        f"{t[0]:.6f}", relbytes,
                        imgbytes])
    files["scan"].flush()
    check_leastwork(image, table, least_table)
    for tool in ("readrel", "readrel-sym", "scan-j1", "leastwork"):
        ir = callgrind_ir(scans[tool],
                  out / f"callgrind.{tool}.u{units}")
        w["callgrind"].writerow([units, nfuncs, tool, ir])
    files["callgrind"].flush()


def machine():
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = Path("/proc/meminfo").read_text().split("\n")[0].split()[1]
    def ver(cmd):
        try:
            return subprocess.run(cmd, capture_output=True,
                          text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "?"
    return {
        "cpu": cpu, "cores": os.cpu_count(),
        "mem_gib": round(int(mem) / 2**20, 1),
        "kernel": platform.release(),
        "os": ver(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"]),
        "gcc": ver(["gcc", "--version"]),
        "ld": ver(["ld.bfd", "--version"]),
        "loadavg_start": Path("/proc/loadavg").read_text().split()[:3],
    }


def main():
    global LINKPASS, READREL, RECORDMCOUNT, LEASTWORK
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--work", type=Path, default=Path("/var/tmp/lp-bench/work"))
    ap.add_argument("--sizes", help="units per sample, comma-separated")
    ap.add_argument("--funcs", type=int, help="functions per unit (100)")
    ap.add_argument("--reps", type=int, help="repetitions (5)")
    ap.add_argument("--scan-reps", type=int, help="scan repetitions (11)")
    ap.add_argument("--compile-reps", type=int, default=1,
            help="compile phases per size, floor and "
            "-mrecord-mcount alternating (1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--opt", default="-O1")
    ap.add_argument("--only-scan", action="store_true",
            help="only the scan measurements (the build trees of "
            "an earlier run stay)")
    ap.add_argument("--quick", action="store_true",
            help="two tiny sizes, one repetition")
    a = ap.parse_args()

    if a.quick:
        sizes, funcs, reps, scan_reps = QUICK_SIZES, 10, 1, 3
    else:
        sizes, funcs, reps, scan_reps = FULL_SIZES, 100, 5, 11
    if a.sizes:
        sizes = [int(s) for s in a.sizes.split(",")]
    funcs = a.funcs or funcs
    reps = a.reps or reps
    scan_reps = a.scan_reps or scan_reps
    for tool in (LINKPASS, READREL, RECORDMCOUNT, LEASTWORK):
        if not os.access(tool, os.X_OK):
            raise SystemExit(f"bench: {tool}: missing (run make bench)")

    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    meta = machine()
    # The tools are copied first: linkpass/linkpass may be rebuilt by
    # someone else while the benchmark runs.
    tools = a.work.resolve() / "tools"
    tools.mkdir(parents=True, exist_ok=True)
    meta["tools"] = {}
    for name, tool in (("linkpass", LINKPASS), ("readrel", READREL),
               ("recordmcount", RECORDMCOUNT), ("leastwork", LEASTWORK)):
        shutil.copy2(tool, tools / name)
        meta["tools"][name] = subprocess.run(
            ["sha256sum", str(tool)], capture_output=True,
            text=True).stdout.split()[0]
    LINKPASS, READREL = tools / "linkpass", tools / "readrel"
    RECORDMCOUNT = tools / "recordmcount"
    LEASTWORK = tools / "leastwork"
    meta["git"] = subprocess.run(
        ["git", "-C", str(TOP), "describe", "--always", "--dirty"],
        capture_output=True, text=True).stdout.strip()
    meta.update(sizes=sizes, funcs_per_unit=funcs, reps=reps,
            scan_reps=scan_reps, jobs=a.jobs, opt=a.opt, seed=a.seed,
            compile_reps=a.compile_reps,
            started=time.strftime("%Y-%m-%d %H:%M:%S %Z"))
    files = {n: open(out / f"{n}.csv", "w", newline="")
         for n in ("build", "scan", "callgrind", "memory")}
    w = {n: csv.writer(f) for n, f in files.items()}
    w["build"].writerow(["units", "funcs", "way", "phase", "rep",
                 "wall_s", "cpu_s"])
    w["scan"].writerow(["units", "funcs", "tool", "rep", "wall_s",
                "reloc_bytes", "image_bytes"])
    w["callgrind"].writerow(["units", "funcs", "tool", "instructions"])
    w["memory"].writerow(["units", "funcs", "way", "process",
                  "maxrss_kb", "processes"])

    for units in sizes:
        d, src = generate(a.work.resolve(), units, funcs, a.seed,
                  keep=a.only_scan)
        nfuncs = len(json.loads((src / "manifest.json").read_text())
                 ["functions"])
        run = d / "run"
        trees = {way: run / way for way in WAYS}
        if a.only_scan:
            (run / "floor").mkdir(parents=True, exist_ok=True)
            scan_size(a, w, files, out, units, nfuncs, src, run,
                  trees, scan_reps)
            continue
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir()

        def row(way, phase, rep, t):
            w["build"].writerow([units, nfuncs, way, phase, rep,
                         f"{t[0]:.4f}", f"{t[1]:.4f}"])
            files["build"].flush()

        # Compile phase: the floor objects (shared by floor, whole, obj,
        # rmc) and the -mrecord-mcount objects, back to back.
        log(f"{units} units ({nfuncs} functions): compile")
        comp = {"floor": run / "compiled-floor",
            "rec": run / "compiled-rec"}
        for rep in range(a.compile_reps):
            for way in rotate(list(comp), rep):
                shutil.rmtree(comp[way], ignore_errors=True)
                comp[way].mkdir()
                row(way, "compile", rep,
                    make(comp[way], src, way, "compile", a.opt,
                     a.jobs))

        def objs_of(way):
            return comp["rec" if way == "rec" else "floor"] / "obj"

        for rep in range(reps):
            order = rotate(WAYS, rep)
            log(f"{units} units: repetition {rep + 1}/{reps}: post")
            for way in order:
                fresh_copy(objs_of(way), trees[way])
                row(way, "post", rep,
                    make(trees[way], src, way, "post", a.opt,
                     a.jobs))
            log(f"{units} units: repetition {rep + 1}/{reps}: incr")
            touched = src / f"unit{units // 2:04d}.c"
            os.utime(touched)
            for way in order:
                row(way, "incr", rep,
                    make(trees[way], src, way, "image", a.opt,
                     a.jobs))

        # Peak memory: the post step again, every process measured.
        log(f"{units} units: memory")
        wraps = write_wrappers(run / "wrap")
        for way in WAYS:
            rss = run / f"rss-{way}.log"
            env_extra = [f"LINK_CC={wraps['link']}",
                     f"PASS_WRAP={wraps['pass']}"]
            if way.startswith("whole"):
                env_extra.append(f"LINKPASS={wraps['linkpass']}")
            fresh_copy(objs_of(way), trees[way])
            os.environ["LPRSS_LOG"] = str(rss)
            make(trees[way], src, way, "post", a.opt, a.jobs,
                 env_extra)
            for proc, (kb, n) in sorted(maxrss_log(rss).items()):
                w["memory"].writerow([units, nfuncs, way, proc,
                              kb, n])
        files["memory"].flush()

        scan_size(a, w, files, out, units, nfuncs, src, run, trees,
              scan_reps)

    meta["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    meta["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3]
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    for f in files.values():
        f.close()
    log(f"done: {out}")


if __name__ == "__main__":
    main()
