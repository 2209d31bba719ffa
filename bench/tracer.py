#!/usr/bin/python3
"""The tracer on real programs: SQLite and Lua against uftrace.

Debian's own sources of SQLite (sqlite3) and Lua (lua5.4), fetched with
`apt-get source` through a private apt configuration
(scripts/apt-private.sh: bookworm's deb-src, the archive URI read from
the machine's own entry), are built three ways:

  nopg     -O2, no -pg: the floor
  pg       -O2 -pg -mfentry, linked through scripts/link-vmlinux.sh
           with runtime/liblptrace.a (NOPs written at link time)
  uf       the same objects linked plainly: __fentry__ resolves to
           glibc's, which uftrace's preloaded libmcount replaces

and each runs a fixed workload (SQLite: 100,000 rows inserted,
indexed, queried, updated, in an in-memory database; Lua: recursion,
a table sort, string work) these ways, interleaved within every
repetition:

  nopg          the floor
  nop           pg, tracing off (start-up verifies the NOPs)
  rt            pg with LPTRACE_FILTER='*' LPTRACE_DATA=FILE: the
                runtime alone, entry-only, streamed to a file
  rt-graph      the same with LPTRACE_GRAPH=1 (entries and exits)
  record        lptrace record -o FILE (entry-only)
  record-graph  lptrace record --graph -o FILE
  uftrace       uftrace record -d DIR on uf (entries and exits)

Each run goes through /usr/bin/time (wall, user + system CPU, peak
RSS), after a sync so that no earlier trace is still being written
back; every run's output must equal the floor's.  A first repetition
warms the caches and is not counted.  Then the readers on
the graph traces, interleaved: lptrace report against uftrace report.
Call counts: lptrace report of the graph trace against uftrace report,
function by function.

The table goes to stdout (and --markdown FILE); the last line per
program is

  bench-tracer: program=P calls=N calls_equal=0|1 record_vs_runtime=R
  ns_per_call=E ns_per_call_graph=G report_mib=M report_vs_uftrace=Q

record_vs_runtime: record's wall time over rt's; ns_per_call: (CPU of
rt - CPU of nop) / calls, and the same for graph mode; report_mib: the
peak RSS of lptrace report on the graph trace; report_vs_uftrace: its
wall time over uftrace report's.  Ratios are medians of the
per-repetition ratios.

Usage: bench/tracer.py [--reps 5] [--work /var/tmp/lp-tracer]
                       [--programs sqlite,lua] [--markdown FILE]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys

from compile import compile_parallel, sh

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LPTRACE = os.path.join(TOP, "lptrace", "lptrace")
DRIVER = os.path.join(TOP, "scripts", "link-vmlinux.sh")
RUNTIME = os.path.join(TOP, "runtime", "liblptrace.a")
CFLAGS = ["-O2"]
PG = ["-pg", "-mfentry"]

SQL = """PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100000)
  INSERT INTO t SELECT x, (x * 7919) % 100003, printf('row %d %x', x, x * 31) FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(b) FROM t WHERE b BETWEEN 1000 AND 50000;
SELECT c FROM t WHERE b = 4242;
UPDATE t SET c = upper(c) WHERE a % 3 = 0;
SELECT count(*) FROM t WHERE c LIKE 'ROW%';
SELECT b % 10, sum(length(c)) FROM t GROUP BY b % 10;
DELETE FROM t WHERE a % 5 = 0;
SELECT count(*), max(b) FROM t;
"""

LUA = """local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(fib(25))
local t = {}
for i = 1, 100000 do t[i] = (i * 7919) % 100003 end
table.sort(t)
print(t[1], t[#t])
local s = {}
for i = 1, 40000 do s[#s + 1] = string.format("%d:%s", i, string.rep("x", i % 7)) end
local j = table.concat(s, ",")
print(#j, select(2, j:gsub("x", "y")))
local words = {}
for w in j:gmatch("%d+") do words[#words + 1] = tonumber(w) end
print(#words)
"""


def say(msg):
    print(f"bench-tracer: {msg}", flush=True)


def fetch(work):
    """Debian's sources of sqlite3 and lua5.4, unpacked (once)."""
    src = os.path.join(work, "src")
    os.makedirs(src, exist_ok=True)
    dirs = {"sqlite": os.path.join(src, "sqlite3"),
            "lua": os.path.join(src, "lua")}
    if all(os.path.isdir(d) for d in dirs.values()):
        return dirs
    say("apt-get source sqlite3 lua5.4 (bookworm, private apt lists)")
    sh([os.path.join(TOP, "scripts", "apt-private.sh"),
        os.path.join(work, "apt"), "deb-src", "bookworm", "-q", "source",
        "--download-only", "sqlite3", "lua5.4"], cwd=src)
    for pkg, d in (("sqlite3", dirs["sqlite"]), ("lua5.4", dirs["lua"])):
        dsc = sorted(f for f in os.listdir(src)
                     if f.startswith(pkg + "_") and f.endswith(".dsc"))
        if not dsc:
            sys.exit(f"bench-tracer: no {pkg} .dsc in {src}")
        shutil.rmtree(d, ignore_errors=True)
        sh(["dpkg-source", "-q", "-x", dsc[-1], d], cwd=src)
    return dirs


def version(d):
    """The Debian version of an unpacked source (debian/changelog)."""
    return sh(["dpkg-parsechangelog", "-l",
               os.path.join(d, "debian", "changelog"), "-S", "Version"]
              ).stdout.strip()


def compile_all(srcs, objdir, flags, incs):
    """Compile srcs into objdir, one compiler per CPU; the objects."""
    os.makedirs(objdir, exist_ok=True)
    return compile_parallel(
        [(["gcc", *CFLAGS, *flags, *incs, "-c", s,
           "-o", os.path.join(objdir, os.path.basename(s)[:-2] + ".o")],
          os.path.join(objdir, os.path.basename(s)[:-2] + ".o"))
         for s in srcs],
        f"bench-tracer: compiling for {objdir} failed")


def sources(name, d, work):
    """(C files, include flags, libraries, defines) of a program."""
    if name == "sqlite":
        gen = os.path.join(work, "sqlite-gen")
        if not os.path.exists(os.path.join(gen, "sqlite3.c")):
            say("generating SQLite's amalgamation (configure; make sqlite3.c shell.c)")
            os.makedirs(gen, exist_ok=True)
            sh([os.path.join(d, "configure"), "--disable-tcl",
                "--disable-readline"], cwd=gen)
            sh(["make", "-j2", "sqlite3.c", "shell.c"], cwd=gen)
        return ([os.path.join(gen, "sqlite3.c"), os.path.join(gen, "shell.c")],
                ["-I", gen], ["-lpthread", "-ldl", "-lm"],
                ["-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION"])
    s = os.path.join(d, "src")
    files = sorted(os.path.join(s, f) for f in os.listdir(s)
                   if f.endswith(".c") and f not in ("luac.c", "onelua.c"))
    # Debian's luaconf.h patch includes this header, which its
    # debian/rules writes at configure time
    gen = os.path.join(work, "lua-gen")
    os.makedirs(gen, exist_ok=True)
    arch = sh(["gcc", "-print-multiarch"]).stdout.strip()
    with open(os.path.join(gen, "lua5.4-deb-multiarch.h"), "w") as f:
        f.write("#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n"
                f'#define DEB_HOST_MULTIARCH "{arch}"\n#endif\n')
    # A fixed string-hash seed: Lua's default mixes the time and
    # addresses in, so its tables, and the calls that probe them, would
    # differ from run to run.  One row in the API's string cache: its
    # row is chosen by the C string's address, so with the default 53
    # the calls to luaS_newlstr differ between two links of the same
    # objects (callgrind, untraced: 228 against 224 in one pair).
    return (files, ["-I", s, "-I", gen], ["-lm", "-ldl"],
            ["-DLUA_USE_LINUX", "-std=gnu99", "-Dluai_makeseed(L)=0u",
             "-DSTRCACHE_N=1", "-DSTRCACHE_M=2"])


def build(name, d, work):
    """The three executables of a program: {nopg, pg, uf}."""
    out = os.path.join(work, "build", name)
    exes = {k: os.path.join(out, k) for k in ("nopg", "pg", "uf")}
    srcs, incs, libs, defs = sources(name, d, work)
    # built before with the same flags: kept (a stamp holds them)
    stamp = os.path.join(out, "flags")
    flags = " ".join(CFLAGS + PG + defs + incs + libs)
    if (all(os.path.exists(e) for e in exes.values())
            and os.path.exists(stamp) and open(stamp).read() == flags):
        return exes
    shutil.rmtree(out, ignore_errors=True)
    say(f"building {name} without -pg and with -pg -mfentry")
    plain = compile_all(srcs, os.path.join(out, "obj-nopg"), defs, incs)
    traced = compile_all(srcs, os.path.join(out, "obj-pg"), defs + PG, incs)
    sh(["gcc", "-o", exes["nopg"], *plain, *libs])
    sh(["bash", DRIVER, exes["pg"], "--", "gcc", *traced, RUNTIME, *libs])
    sh(["gcc", "-o", exes["uf"], *traced, *libs])
    # the driver strips the relocations and writes the NOPs: the audit
    sh([os.path.join(TOP, "linkpass", "linkpass"), "check", "--byte-audit",
        "--sites=nop", exes["pg"]])
    with open(stamp, "w") as f:
        f.write(flags)
    return exes


def timed(argv, env, cwd, stdout_file):
    """Run argv under /usr/bin/time; (wall, cpu, peak KiB, output)."""
    tfile = os.path.join(cwd, ".time")
    full = {**os.environ, **env}
    # the previous way's trace, still being written back, must not slow
    # this one: each way starts with the page cache clean
    os.sync()
    with open(stdout_file, "w") as out:
        p = subprocess.run(["/usr/bin/time", "-o", tfile, "-f",
                            "%e %U %S %M", *argv], env=full, cwd=cwd,
                           stdout=out, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.exit(f"bench-tracer: {' '.join(argv)}: exit {p.returncode}: "
                 f"{p.stderr.strip()[-300:]}")
    wall, user, sys_, kib = open(tfile).read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(kib), open(stdout_file).read()


def ways_of(exes, run, workload):
    """name -> (argv, env, trace path) of every way."""
    d = run
    args = workload
    ways = {
        "nopg": ([exes["nopg"], *args], {}, None),
        "nop": ([exes["pg"], *args], {}, None),
        "rt": ([exes["pg"], *args],
               {"LPTRACE_FILTER": "*",
                "LPTRACE_DATA": os.path.join(d, "rt.data")},
               os.path.join(d, "rt.data")),
        "rt-graph": ([exes["pg"], *args],
                     {"LPTRACE_FILTER": "*", "LPTRACE_GRAPH": "1",
                      "LPTRACE_DATA": os.path.join(d, "rt-graph.data")},
                     os.path.join(d, "rt-graph.data")),
        "record": ([LPTRACE, "record", "-o", os.path.join(d, "record.data"),
                    "--", exes["pg"], *args], {},
                   os.path.join(d, "record.data")),
        "record-graph": ([LPTRACE, "record", "--graph", "-o",
                          os.path.join(d, "record-graph.data"), "--",
                          exes["pg"], *args], {},
                         os.path.join(d, "record-graph.data")),
    }
    if shutil.which("uftrace"):
        # --no-libcall: the library calls through the PLT, which
        # uftrace also traces by default, are not sites of the table
        ways["uftrace"] = (["uftrace", "record", "--no-libcall", "-d",
                            os.path.join(d, "uftrace.data"), exes["uf"],
                            *args], {}, os.path.join(d, "uftrace.data"))
    return ways


def du(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(r, f))
                   for r, _, fs in os.walk(path) for f in fs)
    return os.path.getsize(path)


def counts(text):
    """function -> calls from a report of lptrace or uftrace: both print
    "TOTAL UNIT SELF UNIT CALLS NAME" lines."""
    out = {}
    for ln in text.splitlines():
        f = ln.split()
        # (uftrace's "linux:schedule" lines are kernel events, not calls)
        if (len(f) >= 6 and f[4].isdigit() and not ln.startswith("#")
                and not f[5].startswith("linux:")):
            out[" ".join(f[5:])] = int(f[4])
    return out


def ratio_med(a, b):
    return statistics.median(x / y for x, y in zip(a, b) if y > 0)


def bench(name, exes, work, reps, ver):
    run = os.path.join(work, "run", name)
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run)
    if name == "sqlite":
        with open(os.path.join(run, "workload.sql"), "w") as f:
            f.write(SQL)
        workload = [":memory:", ".read workload.sql"]
    else:
        with open(os.path.join(run, "workload.lua"), "w") as f:
            f.write(LUA)
        workload = ["workload.lua"]
    ways = ways_of(exes, run, workload)
    wall = {w: [] for w in ways}
    cpu = {w: [] for w in ways}
    peak = {w: [] for w in ways}
    size = {}
    floor_out = None
    # one repetition more, first, not counted: caches and page cache warm
    for rep in range(-1, reps):
        for w, (argv, env, trace) in ways.items():
            if trace and os.path.isdir(trace):
                shutil.rmtree(trace)
            elif trace and os.path.exists(trace):
                os.remove(trace)
            t, c, k, out = timed(argv, env, run,
                                 os.path.join(run, f"{w}.out"))
            if w.startswith("record"):
                # lptrace record prints its summary line after the program's
                out = "\n".join(ln for ln in out.splitlines()
                                if not ln.startswith("lptrace: record:")) + "\n"
            if floor_out is None:
                floor_out = out
            elif out != floor_out:
                sys.exit(f"bench-tracer: {name}: way {w}: output differs "
                         f"from the floor's (see {run}/{w}.out)")
            if trace:
                size[w] = du(trace)
            if rep < 0:
                continue
            wall[w].append(t)
            cpu[w].append(c)
            peak[w].append(k)
        say(f"{name}: repetition {rep + 1} of {reps} done"
            if rep >= 0 else f"{name}: warm-up repetition done")
    # the readers, interleaved
    rd = {"lptrace report": [LPTRACE, "report", "-i",
                             os.path.join(run, "rt-graph.data")]}
    if "uftrace" in ways:
        rd["uftrace report"] = ["uftrace", "report", "-d",
                                os.path.join(run, "uftrace.data")]
    rwall = {r: [] for r in rd}
    rcpu = {r: [] for r in rd}
    rpeak = {r: [] for r in rd}
    rout = {}
    for _ in range(reps):
        for r, argv in rd.items():
            t, c, k, out = timed(argv, {}, run,
                                 os.path.join(run, r.replace(" ", "-") + ".out"))
            rwall[r].append(t)
            rcpu[r].append(c)
            rpeak[r].append(k)
            rout[r] = out
    ours = counts(rout["lptrace report"])
    calls = sum(ours.values())
    equal = None
    diff = []
    if "uftrace report" in rout:
        theirs = counts(rout["uftrace report"])
        equal = ours == theirs
        diff = sorted(set(ours.items()) ^ set(theirs.items()))[:5]
    med = {w: (statistics.median(wall[w]), statistics.median(cpu[w]),
               max(peak[w]) / 1024) for w in ways}
    floor_w, floor_c = med["nopg"][0], med["nopg"][1]
    rows = []
    for w in ways:
        b = size.get(w)
        rows.append([w, f"{med[w][0]:.3f}", f"{med[w][1]:.3f}",
                     f"{ratio_med(wall[w], wall['nopg']):.2f}x",
                     f"{ratio_med(cpu[w], cpu['nopg']):.2f}x",
                     f"{med[w][2]:.1f}",
                     f"{b / 1048576:.1f}" if b else "",
                     f"{b / calls:.1f}" if b and calls else ""])
    ns = (med["rt"][1] - med["nop"][1]) / calls * 1e9 if calls else 0
    ns_g = (med["rt-graph"][1] - med["nop"][1]) / calls * 1e9 if calls else 0
    rec = ratio_med(wall["record"], wall["rt"])
    rec_g = ratio_med(wall["record-graph"], wall["rt-graph"])
    rec_c = ratio_med(cpu["record"], cpu["rt"])
    rec_gc = ratio_med(cpu["record-graph"], cpu["rt-graph"])
    rmib = max(rpeak["lptrace report"]) / 1024
    rq = (ratio_med(rwall["lptrace report"], rwall["uftrace report"])
          if "uftrace report" in rwall else 0)
    text = [f"### {name} (Debian source {ver})",
            "",
            f"{calls:,} calls traced per run; {reps} interleaved "
            f"repetitions; medians; ratios are medians of the "
            f"per-repetition ratios to nopg (floor {floor_w:.3f} s wall, "
            f"{floor_c:.3f} s CPU).",
            "",
            "| way | wall s | CPU s | wall / nopg | CPU / nopg | peak MiB | trace MiB | trace bytes / call |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    text += ["| " + " | ".join(r) + " |" for r in rows]
    text += ["", "| reader (graph trace) | wall s | CPU s | peak MiB |",
             "|---|---:|---:|---:|"]
    for r in rd:
        text.append(f"| `{r}` | {statistics.median(rwall[r]):.3f} | "
                    f"{statistics.median(rcpu[r]):.3f} | "
                    f"{max(rpeak[r]) / 1024:.1f} |")
    text += ["",
             f"record over the runtime alone: wall entry {rec:.2f}x, "
             f"graph {rec_g:.2f}x; CPU entry {rec_c:.2f}x, graph "
             f"{rec_gc:.2f}x; ns per traced call (CPU over nop): "
             f"entry {ns:.1f}, graph {ns_g:.1f}; call counts "
             + ("equal uftrace's for every function" if equal else
                "n/a (no uftrace)" if equal is None else
                f"differ from uftrace's (first: {diff})") + ".", ""]
    line = (f"bench-tracer: program={name} calls={calls} "
            f"calls_equal={1 if equal else 0} record_vs_runtime={rec:.2f} "
            f"ns_per_call={ns:.1f} ns_per_call_graph={ns_g:.1f} "
            f"report_mib={rmib:.1f} report_vs_uftrace={rq:.2f}")
    return "\n".join(text), line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--work", default="/var/tmp/lp-tracer")
    ap.add_argument("--programs", default="sqlite,lua")
    ap.add_argument("--markdown", help="also write the tables here")
    args = ap.parse_args()
    work = os.path.abspath(args.work)
    sh(["make", "-C", TOP, "-s", "all"])
    dirs = fetch(work)
    parts, lines = [], []
    for name in args.programs.split(","):
        if name not in dirs:
            sys.exit(f"bench-tracer: unknown program {name} (sqlite, lua)")
        exes = build(name, dirs[name], work)
        text, line = bench(name, exes, work, args.reps,
                           version(dirs[name]))
        parts.append(text)
        lines.append(line)
        print(text, flush=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(parts) + "\n")
    for ln in lines:
        print(ln)


if __name__ == "__main__":
    main()
