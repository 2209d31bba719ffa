#!/usr/bin/python3
"""Run-time overhead of the table's consumers on a call-heavy workload.

The sample kernel's workload (tests/samples/gen.py: thousands of tiny
functions, each called a known number of times per round) is built and run
several ways, side by side in one run (the ways are interleaved within
every repetition), and reported as ratios of wall time to the first way:

  nopg        compiled without -pg: the floor
  call-ret    -pg -mfentry, every site calls a __fentry__ that just returns
  nop         -pg -mfentry + runtime/liblptrace.a: every site NOP'd at start
  traced      the same binary with LPTRACE_FILTER='*': every call recorded
              (entry only) in rings big enough to keep them all
  stream      the same, streamed to a file by the writer thread
              (LPTRACE_DATA), rings of the default size
  graph-stream  function-graph mode (entry and exit of every call)
              streamed to a file
peers, when their tools exist:
  mnop-mcount gcc -mnop-mcount: the compiler's own 5-byte NOPs
  xray        clang -fxray-instrument -fxray-instruction-threshold=1, sleds
              left unpatched
  xray-basic  the same binary, sleds patched at start, XRay's basic mode
              logging every entry and exit to a file
              (func_duration_threshold_us=0)
  xray-fdr    the same objects with a constructor that selects XRay's
              flight-data-recorder mode (threshold 0) and patches, and a
              destructor that writes its buffers to a file (compiler-rt 14
              starts FDR mode only through its API)
  uftrace     `uftrace record`: built with plain -pg (mcount resolved
              from libc.so, which uftrace's preloaded libmcount replaces)

Every run's checksum line must equal the floor's, so no way is faster by
doing less.  Every run goes through /usr/bin/time: the table also gives
the median CPU-seconds (user + system, the writer thread's included)
and the trace's size (ours: also bytes per event).

  --ways A,B,...   run only these ways (nopg, the floor, always runs)
  --ref-lib LIB    also a way graph-stream-ref: the graph-stream way
                   linked with another liblptrace.a (an older commit's
                   build), so a change to the runtime is measured
                   beside its reference in the same interleaved run

Usage:
  bench/overhead.py [--units 40] [--funcs 100] [--rounds R] [--reps 7]
                    [--ways A,B] [--ref-lib LIB]
                    [--out build/overhead] [--markdown FILE]
"""

import argparse
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time

from compile import compile_parallel, sh

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = ["-O2", "-mgeneral-regs-only", "-fno-pie", "-fcf-protection=none"]


def build(out, src, name, cc, cflags, extra_objs=(), ldflags=()):
    """Compile every generated C file with cflags; link name."""
    objdir = os.path.join(out, "obj-" + name)
    os.makedirs(objdir, exist_ok=True)
    units = sorted(f for f in os.listdir(src) if f.endswith(".c"))
    objs = compile_parallel(
        [([cc, *BASE, *cflags, "-I", src, "-c", os.path.join(src, u),
           "-o", os.path.join(objdir, u[:-2] + ".o")],
          os.path.join(objdir, u[:-2] + ".o")) for u in units],
        f"overhead: compiling for {name} failed")
    asm = os.path.join(objdir, "asm_fentry.o")
    sh([cc, "-fno-pie", "-c", os.path.join(src, "asm_fentry.S"), "-o", asm])
    exe = os.path.join(out, name)
    sh([cc, "-no-pie", *ldflags, *objs, asm, *extra_objs, "-o", exe])
    return exe


FDR_START = """\
int __xray_log_select_mode(const char *mode);
int __xray_log_init_mode(const char *mode, const char *config);
int __xray_patch(void);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);

__attribute__((constructor)) static void fdr_start(void)
{
	__xray_log_select_mode("xray-fdr");
	__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0");
	__xray_patch();
}

__attribute__((destructor)) static void fdr_flush(void)
{
	__xray_log_finalize();
	__xray_log_flushLog();
}
"""


def xray_fdr(out, stub):
    """The xray objects linked again with FDR_START (not instrumented)."""
    objdir = os.path.join(out, "obj-xray")
    objs = sorted(os.path.join(objdir, f) for f in os.listdir(objdir))
    src = os.path.join(out, "xray_fdr_start.c")
    with open(src, "w") as f:
        f.write(FDR_START)
    obj = os.path.join(out, "xray_fdr_start.o")
    sh(["clang", "-O2", "-fno-pie", "-c", src, "-o", obj])
    exe = os.path.join(out, "xray-fdr")
    sh(["clang", "-no-pie", "-fxray-instrument", *objs, stub, obj, "-o", exe])
    return exe


def overhead_ratio(ours, theirs, floor):
    """Our overhead over the floor as a fraction of theirs, formatted.
    A tiny run (the test's quick mode) can leave uftrace's CPU time equal
    to the floor's at getrusage's resolution: no ratio then."""
    base = statistics.median(theirs) - floor
    if base <= 0:
        return "n/a (uftrace's overhead not measurable in this run)"
    return f"{(statistics.median(ours) - floor) / base:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--units", type=int, default=40)
    ap.add_argument("--funcs", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=0,
                    help="workload rounds per run (default: ~0.5 s for nopg)")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--out", default=os.path.join(TOP, "build", "overhead"))
    ap.add_argument("--markdown", help="also write the table to this file")
    ap.add_argument("--ways", help="comma-separated ways to run (and nopg)")
    ap.add_argument("--ref-lib", help="another liblptrace.a: adds the way "
                    "graph-stream-ref")
    args = ap.parse_args()
    only = set(args.ways.split(",")) | {"nopg"} if args.ways else None
    if only and args.ref_lib:
        only.add("graph-stream-ref")

    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    src = os.path.join(out, "src")
    sh(["/usr/bin/python3", os.path.join(TOP, "tests/samples/gen.py"),
        "--units", str(args.units), "--funcs-per-unit", str(args.funcs),
        "--seed", "1", "--out", src])
    sh(["make", "-C", TOP, "-s", "all"])
    stub = os.path.join(out, "fentry_stub.o")
    sh(["gcc", "-fno-pie", "-c", os.path.join(src, "fentry_stub.S"),
        "-o", stub])
    table = os.path.join(out, "table")
    rt = os.path.join(TOP, "runtime", "liblptrace.a")
    lv = os.path.join(TOP, "scripts", "link-vmlinux.sh")

    ways = {}  # name -> (argv prefix, env)
    logs = {}  # name -> prefix of the files a run leaves (removed after it)
    ways["nopg"] = ([build(out, src, "nopg", "gcc", [], [stub])], {})
    ways["call-ret"] = ([build(out, src, "call-ret", "gcc",
                               ["-pg", "-mfentry"], [stub])], {})
    # the runtime build goes through the driver so it carries the table
    objdir = os.path.join(out, "obj-call-ret")
    objs = sorted(os.path.join(objdir, f) for f in os.listdir(objdir))
    nop_exe = os.path.join(out, "nop")
    # --no-nop-sites: this way measures the NOPs written at start
    sh(["bash", lv, "--no-nop-sites", nop_exe, "--", "gcc", "-no-pie", *objs,
        rt, "-lpthread"])
    ways["nop"] = ([nop_exe], {"LPTRACE": "on"})
    # LPTRACE_BUFSIZE is set below, once the number of calls is known,
    # so that every call is recorded, none dropped
    ways["traced"] = ([nop_exe], {"LPTRACE_FILTER": "*"})
    ways["stream"] = ([nop_exe], {"LPTRACE_FILTER": "*", "LPTRACE_DATA":
                                   os.path.join(out, "stream.data")})
    ways["graph-stream"] = ([nop_exe], {"LPTRACE_FILTER": "*",
                                        "LPTRACE_GRAPH": "1",
                                        "LPTRACE_DATA":
                                        os.path.join(out, "graph.data")})
    if args.ref_lib:
        ref_exe = os.path.join(out, "nop-ref")
        sh(["bash", lv, "--no-nop-sites", ref_exe, "--", "gcc", "-no-pie",
            *objs,
            os.path.abspath(args.ref_lib), "-lpthread"])
        ways["graph-stream-ref"] = ([ref_exe], {
            "LPTRACE_FILTER": "*", "LPTRACE_GRAPH": "1",
            "LPTRACE_DATA": os.path.join(out, "graph-ref.data")})
    if shutil.which("gcc") and (not only or "mnop-mcount" in only):
        ways["mnop-mcount"] = ([build(out, src, "mnop", "gcc",
                                      ["-pg", "-mfentry", "-mnop-mcount"],
                                      [stub])], {})
    if shutil.which("clang") and (not only or only & {"xray", "xray-basic",
                                                       "xray-fdr"}):
        try:
            xray = build(out, src, "xray", "clang",
                         ["-fxray-instrument",
                          "-fxray-instruction-threshold=1"],
                         [stub], ["-fxray-instrument"])
            ways["xray"] = ([xray], {"XRAY_OPTIONS": "patch_premain=false"})
            logs["xray-basic"] = os.path.join(out, "xray-basic.")
            ways["xray-basic"] = ([xray], {
                "XRAY_OPTIONS": "patch_premain=true xray_mode=xray-basic "
                                f"xray_logfile_base={logs['xray-basic']}",
                "XRAY_BASIC_OPTIONS": "func_duration_threshold_us=0"})
            logs["xray-fdr"] = os.path.join(out, "xray-fdr.")
            ways["xray-fdr"] = ([xray_fdr(out, stub)], {
                "XRAY_OPTIONS": "patch_premain=false "
                                f"xray_logfile_base={logs['xray-fdr']}"})
        except subprocess.CalledProcessError as e:
            print(f"overhead: xray build failed, skipped: {e.stderr[-300:]}")
    if shutil.which("uftrace") and (not only or "uftrace" in only):
        # Not tests/mcount-stubs.S: with plain -pg the program must call
        # glibc's mcount, which uftrace hooks, so only __fentry__ here.
        only_fentry = os.path.join(out, "fentry_only.o")
        with open(os.path.join(out, "fentry_only.S"), "w") as f:
            f.write("\t.globl __fentry__\n__fentry__:\n\tret\n"
                    "\t.section .note.GNU-stack,\"\",@progbits\n")
        sh(["gcc", "-c", os.path.join(out, "fentry_only.S"), "-o",
            only_fentry])
        ways["uftrace"] = (["uftrace", "record", "-d",
                            os.path.join(out, "uftrace.data"),
                            build(out, src, "pg-libc", "gcc", ["-pg"],
                                  [only_fentry])], {})

    if only:
        for name in list(ways):
            if name not in only:
                del ways[name]

    # the END record of a trace file (runtime/lptrace-data.h): its last
    # 48 bytes, {type 6, len 40} then events, dropped, overwritten,
    # recursed, signo, waits
    losses = {}

    def end_record(path):
        with open(path, "rb") as f:
            f.seek(-48, os.SEEK_END)
            rec = f.read()
        rtype, _ = struct.unpack("<II", rec[:8])
        if rtype != 6:
            sys.exit(f"overhead: {path}: no END record")
        events, dropped, _, _, _, waits = struct.unpack("<QQQQiI", rec[8:])
        return events, dropped, waits

    cpu_s = {}      # name -> [user + system seconds]
    sizes = {}      # name -> [bytes of the trace file or directory]
    per_event = {}  # name -> [the same per event, for ours]
    tfile = os.path.join(out, "time.out")

    def du(path):
        if os.path.isfile(path):
            return os.path.getsize(path)
        return sum(os.path.getsize(os.path.join(d, f))
                   for d, _, fs in os.walk(path) for f in fs)

    def run(name, rounds):
        argv, env = ways[name]
        full = dict(os.environ, LPTRACE_VERBOSE="0", **env)
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S", "-o", tfile,
                            *argv, str(rounds)], capture_output=True,
                           text=True, env=full)
        dt = time.perf_counter() - t0
        if p.returncode:
            sys.exit(f"overhead: {name} failed:\n{p.stderr}")
        with open(tfile) as f:
            user, system = f.read().split()[-2:]
        cpu_s.setdefault(name, []).append(float(user) + float(system))
        if name == "uftrace":
            udata = os.path.join(out, "uftrace.data")
            sizes.setdefault(name, []).append(du(udata))
            shutil.rmtree(udata)
        line = [l for l in p.stdout.splitlines() if l.startswith("checksum=")]
        if name in logs:
            d, base = os.path.split(logs[name])
            for f in os.listdir(d):
                if f.startswith(base):
                    os.remove(os.path.join(d, f))
        data = env.get("LPTRACE_DATA")
        if data:                # files of gigabytes: counted, then removed
            losses.setdefault(name, []).append(end_record(data))
            sizes.setdefault(name, []).append(du(data))
            per_event.setdefault(name, []).append(
                du(data) / max(losses[name][-1][0], 1))
            os.remove(data)
        return dt, line[0] if line else p.stdout

    calls = 1
    rounds = args.rounds
    if not rounds:
        run("nopg", 50)                 # warm the page cache
        dt, _ = run("nopg", 200)
        rounds = max(50, int(200 * 0.5 / max(dt, 1e-3)))
    want = run("nopg", rounds)[1]
    calls = int(want.split("calls=")[1].split()[0])
    if "traced" in ways:
        ways["traced"][1]["LPTRACE_BUFSIZE"] = str(calls + 4096)
    cpu_s.clear()               # the calibration runs do not count
    times = {name: [] for name in ways}
    for rep in range(args.reps):
        for name in ways:
            if name in ("uftrace", "xray-basic") and rep >= 3 and not only:
                continue        # far slower: three runs are enough
            dt, check = run(name, rounds)
            if check != want:
                sys.exit(f"overhead: {name} computed {check}, not {want}")
            times[name].append(dt)

    floor = statistics.median(times["nopg"])
    cpu = next((l.split(":", 1)[1].strip() for l in
                open("/proc/cpuinfo") if l.startswith("model name")), "?")
    lines = [f"Workload: {args.units} units x {args.funcs} functions, "
             f"{rounds} rounds per run ({calls} calls); "
             f"{len(times['nopg'])} runs per way, interleaved; "
             f"CPU: {cpu}, {os.cpu_count()} cores.", "",
             "| way | median s | min–max s | ratio to nopg | "
             "median CPU s | trace MB | bytes/event |",
             "|---|---|---|---|---|---|---|"]
    for name, ts in times.items():
        med = statistics.median(ts)
        bpe = (f"{statistics.median(per_event[name]):.1f}"
               if name in per_event else "")
        mb = (f"{statistics.median(sizes[name]) / 1e6:.0f}"
              if name in sizes else "")
        lines.append(f"| {name} | {med:.3f} | {min(ts):.3f}–{max(ts):.3f} | "
                     f"{med / floor:.2f}× | "
                     f"{statistics.median(cpu_s[name]):.2f} | {mb} | {bpe} |")
    if losses:
        lines.append("")
    for name, runs in losses.items():
        events, dropped, waits = sorted(runs,
                                        key=lambda r: r[1])[len(runs) // 2]
        lines.append(f"{name}: {events} events written, {dropped} dropped, "
                     f"{waits} waits for the writer "
                     f"(the run with the median loss)")
    if "uftrace" in times:
        lines.append("")
        cfloor = statistics.median(cpu_s["nopg"])
        for name in ("graph-stream", "graph-stream-ref"):
            if name not in times:
                continue
            wall = overhead_ratio(times[name], times["uftrace"], floor)
            cpus = overhead_ratio(cpu_s[name], cpu_s["uftrace"], cfloor)
            lines.append(f"{name}: overhead over nopg {wall} of "
                         f"uftrace's in wall time, {cpus} in CPU time")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
