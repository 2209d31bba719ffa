#!/usr/bin/python3
"""Scan and check against the read floor, on the bench's sample images.

    bench/scancheck.py --work /var/tmp/lp-bench/work --sizes 50,150,400,...
                       [--reps 11] [--linkpass linkpass/linkpass]
                       [--ref OTHER_LINKPASS] [--out FILE.md]
                       [--leastwork build/bench/leastwork]

For each size, the floor tree built by `bench/run.py --only-scan`
(WORK/u<size>f100s1/run/floor: image.q and obj/) gives:

  image.q    the sample linked with -q and no table: scanned;
  image2.q   the same objects linked with -q and the scan's table object:
             checked (the table is stable when nothing moved).

Wall times are medians of REPS interleaved runs (order rotated each
repetition) of `readrel -s` (code relocations, .symtab and .strtab read
once: the floor), `linkpass scan` (default threads) and `scan -j1`, and
`linkpass check` (default threads) and `check -j1` of image2 with its own
floor (floor2).  Instruction counts
come from callgrind, peak RSS from /usr/bin/time.  The second yardstick,
`leastwork -c` (bench/leastwork.c: the least work that keeps the same
entries and writes as many bytes, on two threads, with the code read of
the stripped-objects check), runs in the same rotation, as does its
`-c -t` on image2 against check; a second table sets scan and check
against it.  --ref adds the same
figures for another linkpass binary (e.g. the one before a change), run
side by side.  Prints a markdown table (and writes it to --out).
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], check=True,
                          capture_output=True, text=True, **kw)


def wall(cmd):
    t = time.perf_counter()
    subprocess.run([str(c) for c in cmd], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def instructions(cmd, tmp):
    out = tmp / "cg.out"
    proc = run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                *cmd])
    for line in proc.stderr.splitlines():
        if "Collected" in line:
            return int(line.split()[-1].replace(",", ""))
    raise SystemExit("no callgrind total:\n" + proc.stderr)


def peak_rss_kb(cmd):
    proc = run(["/usr/bin/time", "-f", "%M", *cmd])
    return int(proc.stderr.strip().splitlines()[-1])


def prepare(tree, lp, readrel, leastwork):
    image = tree / "image.q"
    table = tree / "table-scancheck.o"
    image2 = tree / "image2.q"
    run([lp, "scan", image, "-o", table])
    objs = sorted((tree / "obj").glob("unit*.o")) + [
        tree / "obj" / n for n in ("main.o", "asm_fentry.o", "fentry_stub.o")]
    run(["gcc", "-O1", "-fuse-ld=bfd", "-no-pie", *objs, table, "-Wl,-q",
         "-o", image2])
    rc = subprocess.run([str(lp), "check", str(image2)],
                        capture_output=True, text=True)
    if rc.returncode != 0:
        raise SystemExit(f"{image2}: check failed:\n{rc.stdout}{rc.stderr}")
    # the yardstick must keep what scan keeps, or it measures other work
    n, _, diff = run([leastwork, "-c", "-t", image2]).stdout.split()
    if diff != "0":
        raise SystemExit(f"{image2}: leastwork finds {diff} differences "
                         f"in a table check passed")
    relbytes = int(run([readrel, "-s", image]).stdout.split()[0])
    relbytes2 = int(run([readrel, "-s", image2]).stdout.split()[0])
    return image, image2, relbytes, relbytes2, table.stat().st_size


def measure(size, a, tools, tmp):
    tree = a.work / f"u{size}f100s1" / "run" / "floor"
    lp = tools["new"]
    image, image2, rb, rb2, outbytes = prepare(tree, lp, a.readrel,
                                               a.leastwork)
    out = tmp / "t.o"
    cmds = {
        "floor": [a.readrel, "-s", image],
        "floor2": [a.readrel, "-s", image2],
        "least": [a.leastwork, "-c", image, tmp / "lw.o"],
        "least-nocode": [a.leastwork, image, tmp / "lw.o"],
        "leastcheck": [a.leastwork, "-c", "-t", image2],
    }
    for name, bin_ in tools.items():
        cmds[f"scan-j1:{name}"] = [bin_, "scan", image, "-o", out, "-j", "1"]
        cmds[f"scan:{name}"] = [bin_, "scan", image, "-o", out]
        cmds[f"check-j1:{name}"] = [bin_, "check", image2, "-j", "1"]
        cmds[f"check:{name}"] = [bin_, "check", image2]
    for c in cmds.values():      # warm the page cache
        wall(c)
    times = {k: [] for k in cmds}
    names = list(cmds)
    for rep in range(a.reps):
        k = rep % len(names)
        for n in names[k:] + names[:k]:
            times[n].append(wall(cmds[n]))
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    # instructions of the one-thread runs: the threaded ones add the
    # threads' start and nothing else
    ir = {k: instructions(cmds[k], tmp) for k in cmds
          if not k.startswith(("scan:", "check:", "least-nocode"))}
    rss = {k: peak_rss_kb(cmds[k])
           for k in ("floor", "scan-j1:new", "scan:new", "check:new",
                     "least")}
    return dict(size=size, rb=rb, rb2=rb2, out=outbytes, med=med, ir=ir,
                rss=rss)


def md_table(cols, rows):
    """Markdown lines: COLS is [(header, printf format)], ROWS value tuples."""
    lines = ["| " + " | ".join(h for h, _ in cols) + " |",
             "|---:" * len(cols) + "|"]
    for vals in rows:
        lines.append("| " + " | ".join(f % v for (_, f), v in zip(cols, vals))
                     + " |")
    return lines


def table(rows, tools):
    lines = md_table(
        [("units", "%d"), ("floor (ms)", "%.1f"), ("scan (ms)", "%.1f"),
         ("scan / floor", "%.2f"), ("scan -j1 (ms)", "%.1f"),
         ("scan -j1 / floor", "%.2f"), ("floor (M Ir)", "%.2f"),
         ("scan -j1 (M Ir)", "%.2f"), ("Ir ratio", "%.1f"),
         ("floor2 (ms)", "%.1f"), ("check (ms)", "%.1f"),
         ("check / floor2", "%.2f"), ("check -j1 / floor2", "%.2f"),
         ("check -j1 Ir ratio", "%.1f"), ("scan peak RSS (MB)", "%.1f"),
         ("floor peak RSS (MB)", "%.1f"),
         ("floor bytes + output (MB)", "%.1f")],
        [(r["size"], m["floor"], m["scan:new"], m["scan:new"] / m["floor"],
          m["scan-j1:new"], m["scan-j1:new"] / m["floor"],
          i["floor"] / 1e6, i["scan-j1:new"] / 1e6,
          i["scan-j1:new"] / i["floor"], m["floor2"], m["check:new"],
          m["check:new"] / m["floor2"], m["check-j1:new"] / m["floor2"],
          i["check-j1:new"] / i["floor2"], r["rss"]["scan:new"] / 1024,
          r["rss"]["floor"] / 1024, (r["rb"] + r["out"]) / 2**20)
         for r in rows for m, i in [(r["med"], r["ir"])]])
    if "ref" in tools:
        lines += ["", "The linkpass before the change, in the same runs:", ""]
        lines += md_table(
            [("units", "%d"), ("scan before (ms)", "%.1f"),
             ("scan now (ms)", "%.1f"), ("scan -j1 before (ms)", "%.1f"),
             ("scan -j1 now (ms)", "%.1f"), ("check before (ms)", "%.1f"),
             ("check now (ms)", "%.1f"), ("scan -j1 before (M Ir)", "%.2f"),
             ("now (M Ir)", "%.2f"), ("check -j1 before (M Ir)", "%.2f"),
             ("now (M Ir)", "%.2f")],
            [(r["size"], m["scan:ref"], m["scan:new"],
              m["scan-j1:ref"], m["scan-j1:new"],
              m["check:ref"], m["check:new"],
              i["scan-j1:ref"] / 1e6, i["scan-j1:new"] / 1e6,
              i["check-j1:ref"] / 1e6, i["check-j1:new"] / 1e6)
             for r in rows for m, i in [(r["med"], r["ir"])]])
    lines += ["", "Against the least work (`bench/leastwork -c`, two threads; "
              "`-c -t` for check):", ""]
    lines += md_table(
        [("units", "%d"), ("least work without the code read (ms)", "%.1f"),
         ("/ floor", "%.2f"), ("least work (ms)", "%.1f"),
         ("least work / floor", "%.2f"), ("scan (ms)", "%.1f"),
         ("scan / least work", "%.2f"), ("least check (ms)", "%.1f"),
         ("least check / floor2", "%.2f"), ("check (ms)", "%.1f"),
         ("check / least check", "%.2f"), ("least work (M Ir)", "%.2f"),
         ("scan -j1 / least work (Ir)", "%.1f"),
         ("least work peak RSS (MB)", "%.1f"),
         ("its ratio to the floor's bytes + output", "%.2f")],
        [(r["size"], m["least-nocode"], m["least-nocode"] / m["floor"],
          m["least"], m["least"] / m["floor"],
          m["scan:new"], m["scan:new"] / m["least"],
          m["leastcheck"], m["leastcheck"] / m["floor2"],
          m["check:new"], m["check:new"] / m["leastcheck"],
          i["least"] / 1e6, i["scan-j1:new"] / i["least"],
          r["rss"]["least"] / 1024,
          r["rss"]["least"] * 1024 / (r["rb"] + r["out"]))
         for r in rows for m, i in [(r["med"], r["ir"])]])
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/var/tmp/lp-bench/work"))
    ap.add_argument("--sizes", default="50,150,400,1000,2000")
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--linkpass", type=Path, default=TOP / "linkpass" / "linkpass")
    ap.add_argument("--readrel", type=Path, default=TOP / "build" / "bench" / "readrel")
    ap.add_argument("--leastwork", type=Path,
                    default=TOP / "build" / "bench" / "leastwork")
    ap.add_argument("--ref", type=Path)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    tools = {"new": a.linkpass.resolve()}
    if a.ref:
        tools["ref"] = a.ref.resolve()
    tmp = Path(subprocess.run(["mktemp", "-d"], capture_output=True,
                              text=True, check=True).stdout.strip())
    rows = []
    for size in (int(s) for s in a.sizes.split(",")):
        print(f"scancheck: {size} units", file=sys.stderr)
        rows.append(measure(size, a, tools, tmp))
    md = table(rows, tools)
    sys.stdout.write(md)
    if a.out:
        a.out.write_text(md)


if __name__ == "__main__":
    main()
