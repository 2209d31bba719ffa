#!/usr/bin/python3
"""Tables and SVG plots from the CSV files bench/run.py wrote.

    bench/report.py OUTDIR [--doc docs/benchmarks.md]

Writes OUTDIR/summary.md and OUTDIR/{build-full,build-incr,build-extra,
scan}.svg.  With --doc, the tables also replace the part of that file
between the lines `<!-- bench:begin -->` and `<!-- bench:end -->`.

Ratios are paired: within a repetition every way ran side by side with
the floor, so each repetition gives one ratio way/floor; the tables show
the median of those ratios and their min-max.  A full build is the compile
phase (measured once per size) plus the way's post step (measured in
every repetition).
"""

import argparse
import csv
import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

WAYS = ["floor", "whole", "whole-keep", "obj", "rmc", "rec"]
WAY_NAMES = {
    "floor": "no table (floor)",
    "whole": "whole-image (link-vmlinux.sh)",
    "whole-keep": "whole-image, --keep-relocs",
    "obj": "per-object, linkpass obj",
    "rmc": "per-object, recordmcount",
    "rec": "gcc -mrecord-mcount",
}
COLOURS = {"floor": "#444444", "whole": "#d62728", "whole-keep": "#e377c2",
       "obj": "#1f77b4",
       "rmc": "#2ca02c", "rec": "#9467bd", "scan": "#d62728",
       "scan-j1": "#ff7f0e", "readrel": "#444444",
       "readrel-sym": "#8c564b", "leastwork": "#17becf"}


def read_csv(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def fmt_range(xs, digits=2):
    if not xs:
        return "–"
    return (f"{med(xs):.{digits}f} ({min(xs):.{digits}f}–"
        f"{max(xs):.{digits}f})")


class Build:
    """build.csv, indexed: t[(units, way, phase)][rep] = (wall, cpu)."""

    def __init__(self, rows):
        self.t = defaultdict(dict)
        self.funcs = {}
        for r in rows:
            u = int(r["units"])
            self.funcs[u] = int(r["funcs"])
            self.t[(u, r["way"], r["phase"])][int(r["rep"])] = (
                float(r["wall_s"]), float(r["cpu_s"]))
        self.sizes = sorted(self.funcs)

    def compile(self, u, way, k):
        """The compile phase time of a way (median if repeated)."""
        src = "rec" if way == "rec" else "floor"
        return med([v[k] for v in self.t[(u, src, "compile")].values()])

    def full(self, u, way, k):
        """{rep: full build time} = compile + post."""
        c = self.compile(u, way, k)
        return {rep: c + v[k]
            for rep, v in self.t[(u, way, "post")].items()}

    def incr(self, u, way, k):
        return {rep: v[k] for rep, v in self.t[(u, way, "incr")].items()}

    @staticmethod
    def ratios(a, b):
        return [a[r] / b[r] for r in sorted(a) if r in b and b[r] > 0]

    def extra(self, u, way, k):
        """Post step minus the floor's, per repetition (seconds)."""
        p = self.t[(u, way, "post")]
        f = self.t[(u, "floor", "post")]
        return [p[r][k] - f[r][k] for r in sorted(p) if r in f]


def build_tables(b, meta):
    out = []
    k = 0  # wall clock
    for title, get in (("Full build", b.full), ("Incremental build "
               "(one unit touched)", b.incr)):
        out.append(f"#### {title}: wall time, ratio to the floor, "
               "median (min–max)\n")
        out.append("| units | functions | floor (s) | " +
               " | ".join(WAY_NAMES[w] for w in WAYS[1:]) + " |")
        out.append("|---:|---:|---:|" + "---:|" * (len(WAYS) - 1))
        for u in b.sizes:
            fl = get(u, "floor", k)
            cells = [str(u), str(b.funcs[u]), f"{med(list(fl.values())):.2f}"]
            for w in WAYS[1:]:
                cells.append(fmt_range(b.ratios(get(u, w, k), fl), 3))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out.append("#### What each way adds after the compile (post step "
           "minus the floor's link), wall seconds, median (min–max)\n")
    out.append("| units | compile phase (s) | compile -mrecord-mcount (s) | "
           "floor link (s) | " +
           " | ".join(WAY_NAMES[w] for w in WAYS[1:]) + " |")
    out.append("|---:|---:|---:|---:|" + "---:|" * (len(WAYS) - 1))
    for u in b.sizes:
        fl = [v[k] for v in b.t[(u, "floor", "post")].values()]
        cells = [str(u), f"{b.compile(u, 'floor', k):.1f}",
             f"{b.compile(u, 'rec', k):.1f}", fmt_range(fl)]
        for w in WAYS[1:]:
            cells.append(fmt_range(b.extra(u, w, k)))
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    k = 1  # CPU
    out.append("#### CPU time (user+sys of make and its children), ratio "
           "to the floor, median (min–max)\n")
    out.append("| units | full: floor (s) | " +
           " | ".join(f"full: {w}" for w in WAYS[1:]) +
           " | incr: floor (s) | " +
           " | ".join(f"incr: {w}" for w in WAYS[1:]) + " |")
    out.append("|---:|---:|" + "---:|" * (2 * len(WAYS) - 1))
    for u in b.sizes:
        cells = [str(u)]
        for get in (b.full, b.incr):
            fl = get(u, "floor", k)
            cells.append(f"{med(list(fl.values())):.2f}")
            for w in WAYS[1:]:
                cells.append(fmt_range(b.ratios(get(u, w, k),
                                fl), 3))
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return out


def scan_tables(scan, cg):
    t = defaultdict(dict)
    info = {}
    for r in scan:
        u = int(r["units"])
        t[(u, r["tool"])][int(r["rep"])] = float(r["wall_s"])
        info[u] = (int(r["funcs"]), int(r["reloc_bytes"]),
               int(r["image_bytes"]))
    ir = {(int(r["units"]), r["tool"]): int(r["instructions"]) for r in cg}
    out = ["#### Scan time against reading the bytes once (wall, median "
           "(min–max) in ms; ratios paired per repetition)\n",
           "`read` reads the code relocation sections once; `read+sym` "
           "also the symbol and string tables (the floor); "
           "`least work` is `bench/leastwork -c`, the least work that "
           "keeps the same entries and writes as many bytes, on two "
           "threads, with the stripped-objects check's read of the "
           "code and none of linkpass's checks.\n",
           "| units | functions | image (MB) | code relocations (MB) | "
           "read (ms) | read+sym (ms) | least work (ms) | scan (ms) | "
           "scan -j1 (ms) | scan / read | scan -j1 / read | "
           "scan -j1 / read+sym | scan / read+sym | least work / read+sym | "
           "scan / least work |",
           "|---:" * 15 + "|"]
    for u in sorted(info):
        f, rb, ib = info[u]
        rd = t[(u, "readrel")]
        cells = [str(u), str(f), f"{ib / 1e6:.1f}", f"{rb / 1e6:.2f}"]
        rs, lw = t[(u, "readrel-sym")], t[(u, "leastwork")]
        for tool in ("readrel", "readrel-sym", "leastwork", "scan",
                     "scan-j1"):
            cells.append(fmt_range([x * 1e3 for x in
                        t[(u, tool)].values()], 1))
        cells.append(fmt_range(Build.ratios(t[(u, "scan")], rd), 1))
        cells.append(fmt_range(Build.ratios(t[(u, "scan-j1")], rd), 1))
        cells.append(fmt_range(Build.ratios(t[(u, "scan-j1")], rs), 1))
        cells.append(fmt_range(Build.ratios(t[(u, "scan")], rs), 2))
        cells.append(fmt_range(Build.ratios(lw, rs), 2))
        cells.append(fmt_range(Build.ratios(t[(u, "scan")], lw), 2))
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "#### Instructions (callgrind, Ir; `scan -j1`, one "
        "thread)\n",
        "| units | functions | code relocations | read (M) | "
        "read+sym (M) | least work (M) | scan -j1 (M) | scan / read | "
        "scan / least work | scan instructions per relocation |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for u in sorted(info):
        f, rb, ib = info[u]
        s_ir = ir.get((u, "scan-j1"))
        r_ir = ir.get((u, "readrel"))
        rs_ir = ir.get((u, "readrel-sym"))
        lw_ir = ir.get((u, "leastwork"))
        nrel = rb // 24
        out.append("| " + " | ".join([
            str(u), str(f), str(nrel),
            f"{r_ir / 1e6:.2f}" if r_ir else "–",
            f"{rs_ir / 1e6:.2f}" if rs_ir else "–",
            f"{lw_ir / 1e6:.2f}" if lw_ir else "–",
            f"{s_ir / 1e6:.1f}" if s_ir else "–",
            f"{s_ir / r_ir:.0f}" if s_ir and r_ir else "–",
            f"{s_ir / lw_ir:.1f}" if s_ir and lw_ir else "–",
            f"{s_ir / nrel:.0f}" if s_ir else "–"]) + " |")
    out.append("")
    return out, t, info, ir


def memory_table(mem):
    m = defaultdict(dict)
    for r in mem:
        m[int(r["units"])][(r["way"], r["process"])] = int(r["maxrss_kb"])
    out = ["#### Peak memory: max RSS of the heaviest process of the "
           "step (MiB; which process in brackets)\n",
           "| units | " + " | ".join(WAY_NAMES[w] for w in WAYS) + " |",
           "|---:|" + "---:|" * len(WAYS)]
    for u in sorted(m):
        cells = [str(u)]
        for w in WAYS:
            procs = {p: kb for (way, p), kb in m[u].items()
                 if way == w}
            if not procs:
                cells.append("–")
                continue
            p = max(procs, key=procs.get)
            rest = ", ".join(f"{q} {kb / 1024:.0f}"
                     for q, kb in sorted(procs.items())
                     if q != p)
            cells.append(f"{procs[p] / 1024:.0f} ({p}"
                     + (f"; {rest}" if rest else "") + ")")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return out


# ---- SVG ------------------------------------------------------------------

def svg_plot(path, title, xlabel, ylabel, series, logx=True, logy=False):
    """series: [(name, colour, [(x, y, lo, hi)])] -> a line chart."""
    W, H, L, R, T, B = 720, 430, 80, 230, 40, 60
    pts = [p for _, _, s in series for p in s if p[1] == p[1]]
    if not pts:
        return
    xs = [p[0] for p in pts]
    ys = [v for p in pts for v in (p[1], p[2], p[3]) if v == v]
    fx = math.log10 if logx else (lambda v: v)
    fy = math.log10 if logy else (lambda v: v)
    x0, x1 = fx(min(xs)), fx(max(xs))
    if x1 == x0:
        x1 = x0 + 1
    pad = (x1 - x0) * 0.04  # keep end points off the axes
    x0, x1 = x0 - pad, x1 + pad
    y0 = fy(min(ys)) if logy else min(0.0, min(ys))
    y1 = fy(max(ys))
    if logy:
        y0, y1 = math.floor(y0), math.ceil(y1)
    else:
        y1 = y1 * 1.05 if y1 > 0 else 1
    if y1 == y0:
        y1 = y0 + 1

    def X(v):
        return L + (fx(v) - x0) / (x1 - x0) * (W - L - R)

    def Y(v):
        return H - B - (fy(v) - y0) / (y1 - y0) * (H - T - B)

    e = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" '
         f'height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2 - R / 2}" y="22" text-anchor="middle" '
         f'font-size="15">{title}</text>',
         f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" '
         'stroke="black"/>',
         f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>',
         f'<text x="{(L + W - R) / 2}" y="{H - 18}" '
         f'text-anchor="middle">{xlabel}</text>',
         f'<text x="18" y="{(T + H - B) / 2}" text-anchor="middle" '
         f'transform="rotate(-90 18 {(T + H - B) / 2})">{ylabel}</text>']
    for x in sorted(set(xs)):
        e.append(f'<line x1="{X(x):.1f}" y1="{H - B}" x2="{X(x):.1f}" '
             f'y2="{H - B + 5}" stroke="black"/>')
        e.append(f'<text x="{X(x):.1f}" y="{H - B + 18}" '
             f'text-anchor="middle">{x:,}</text>')
    if logy:
        ticks = [10 ** k for k in range(int(y0), int(y1) + 1)]
    else:
        step = 10 ** math.floor(math.log10((y1 - y0) / 4))
        for m in (1, 2, 5, 10):
            if (y1 - y0) / (step * m) <= 6:
                step *= m
                break
        first = math.ceil(y0 / step) * step
        ticks = [round(first + i * step, 10)
             for i in range(int((y1 - first) / step) + 1)]
    for v in ticks:
        y = Y(v)
        e.append(f'<line x1="{L - 5}" y1="{y:.1f}" x2="{W - R}" '
             f'y2="{y:.1f}" stroke="#dddddd"/>')
        e.append(f'<text x="{L - 8}" y="{y + 4:.1f}" '
             f'text-anchor="end">{v:g}</text>')
    series = [(n, c, sorted(p for p in s if p[1] == p[1]))
          for n, c, s in series]
    series = [x for x in series if x[2]]
    for i, (name, colour, s) in enumerate(series):
        d = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y, _, _ in s)
        e.append(f'<polyline points="{d}" fill="none" stroke="{colour}" '
             'stroke-width="2"/>')
        for x, y, lo, hi in s:
            e.append(f'<line x1="{X(x):.1f}" y1="{Y(lo):.1f}" '
                 f'x2="{X(x):.1f}" y2="{Y(hi):.1f}" '
                 f'stroke="{colour}"/>')
            e.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3" '
                 f'fill="{colour}"/>')
        ly = T + 10 + 20 * i
        e.append(f'<line x1="{W - R + 15}" y1="{ly}" x2="{W - R + 40}" '
             f'y2="{ly}" stroke="{colour}" stroke-width="2"/>')
        e.append(f'<text x="{W - R + 46}" y="{ly + 4}">{name}</text>')
    e.append("</svg>")
    path.write_text("\n".join(e) + "\n")


def plots(outdir, b, scan_t, scan_info, scan_ir):
    for name, get, title in (
            ("build-full", b.full, "Full build, ratio to the floor"),
            ("build-incr", b.incr,
             "Incremental build, ratio to the floor")):
        series = []
        for w in WAYS:
            s = []
            for u in b.sizes:
                r = b.ratios(get(u, w, 0), get(u, "floor", 0))
                if r:
                    s.append((b.funcs[u], med(r), min(r), max(r)))
            series.append((w, COLOURS[w], s))
        svg_plot(outdir / f"{name}.svg", title, "functions in the sample",
             "wall time / floor (median, min-max)", series)
    series = []
    for w in WAYS[1:]:
        s = []
        for u in b.sizes:
            x = b.extra(u, w, 0)
            if x:
                s.append((b.funcs[u], med(x), min(x), max(x)))
        series.append((w, COLOURS[w], s))
    svg_plot(outdir / "build-extra.svg", "Added after the compile "
         "(post step - floor link)", "functions in the sample",
         "seconds (median, min-max)", series)
    series = []
    for tool in ("readrel", "readrel-sym", "leastwork", "scan", "scan-j1"):
        s = []
        for u in sorted(scan_info):
            if not scan_t[(u, tool)]:
                continue
            v = [x * 1e3 for x in scan_t[(u, tool)].values()]
            if v:
                s.append((scan_info[u][0], med(v), min(v), max(v)))
        series.append(({"readrel": "read relocs",
                "readrel-sym": "read relocs+syms",
                "leastwork": "least work"}.get(tool, tool),
                   COLOURS[tool], s))
    svg_plot(outdir / "scan.svg", "Scan time against reading the "
         "relocations", "functions in the sample",
         "ms (median, min-max)", series, logy=True)
    series = []
    for tool, name in (("readrel", "read relocs"),
               ("readrel-sym", "read relocs+syms"),
               ("leastwork", "least work"),
               ("scan-j1", "scan -j1")):
        s = [(scan_info[u][0], v / 1e6, v / 1e6, v / 1e6)
             for u in sorted(scan_info)
             for v in [scan_ir.get((u, tool))] if v]
        series.append((name, COLOURS[tool], s))
    svg_plot(outdir / "scan-instructions.svg", "Instructions (callgrind)",
         "functions in the sample", "millions of instructions",
         series, logy=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--doc", type=Path)
    a = ap.parse_args()
    d = a.outdir
    meta = json.loads((d / "meta.json").read_text()) \
        if (d / "meta.json").exists() else {}
    b = Build(read_csv(d / "build.csv"))
    lines = []
    if meta:
        # the machine and options, not the date: the run's date and
        # times stay in OUTDIR/meta.json (a page keeps no logbook)
        lines.append(f"Machine: {meta.get('cpu')}, "
                 f"{meta.get('cores')} cores, {meta.get('mem_gib')} GiB, "
                 f"Linux {meta.get('kernel')}, {meta.get('os')}; "
                 f"{meta.get('gcc')}; {meta.get('ld')}; "
                 f"load average {' '.join(meta.get('loadavg_start', []))}"
                 f" at the start, {' '.join(meta.get('loadavg_end', []))}"
                 f" at the end; OPT={meta.get('opt')}, make "
                 f"-j{meta.get('jobs')}, {meta.get('reps')} repetitions,"
                 f" {meta.get('funcs_per_unit')} functions per unit.\n")
    lines += build_tables(b, meta)
    st, scan_t, scan_info, scan_ir = scan_tables(read_csv(d / "scan.csv"),
                        read_csv(d / "callgrind.csv"))
    lines += st
    lines += memory_table(read_csv(d / "memory.csv"))
    text = "\n".join(lines)
    (d / "summary.md").write_text(text)
    plots(d, b, scan_t, scan_info, scan_ir)
    if a.doc:
        doc = a.doc.read_text()
        begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
        i, j = doc.find(begin), doc.find(end)
        if i < 0 or j < i:
            raise SystemExit(f"report.py: {a.doc}: no {begin} ... "
                     f"{end} block")
        doc = doc[:i + len(begin)] + "\n\n" + text + "\n" + doc[j:]
        a.doc.write_text(doc)
    print(f"report.py: wrote {d}/summary.md and the SVG plots")


if __name__ == "__main__":
    main()
