"""Tests of runtime/: liblptrace.a patches a program's own __mcount_loc
sites, traces while other threads run, and writes text and JSON traces.

The programs under test are in tests/runtime/; each test builds them in
tmp_path with `-pg -mfentry` and gives them a __mcount_loc table one of
three ways:

  record    gcc -mrecord-mcount (per object, like the kernel used to)
  asm       clang has no -mrecord-mcount on x86: every `call __fentry__`
            in clang's assembly gets a label and a table entry; a stopgap
            that checks nothing, so only the runtime's own checks stand
  linkpass  the whole-image way: link with -q, `linkpass scan`, relink

Nothing here asserts on time: the stress test bounds its waits only to
turn a hang into a failure.
"""

import json
import os
import re
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

import lptest

REPO = Path(__file__).resolve().parent.parent
RUNTIME = REPO / "runtime"
PROGS = Path(__file__).resolve().parent / "runtime"
LIB = RUNTIME / "liblptrace.a"
NOPBENCH = REPO / "build" / "bench" / "nopbench"
LPTRACE = REPO / "lptrace" / "lptrace"



def insn_bytes(name, header=REPO / "include" / "x86-insn.h"):
    """`#define X86_<name> { 0x.., ... }` or `0x..` of include/x86-insn.h
    (the one home of the instruction bytes), as "xx xx ..." hex."""
    m = re.search(rf"^#define\s+X86_{name}\s+(\{{[^}}]*\}}|0x[0-9a-fA-F]+)",
                  header.read_text(), re.M)
    assert m, f"{header}: no X86_{name}"
    return " ".join(f"{int(b, 16):02x}" for b in re.findall(r"0x[0-9a-fA-F]+",
                                                            m.group(1)))


NOP5 = insn_bytes("NOP5_BYTES")
NOP6 = insn_bytes("NOP6_BYTES")
ENDBR64 = insn_bytes("ENDBR64_BYTES")
CALL = insn_bytes("OP_CALL")
CALL6 = insn_bytes("OP_ADDR32") + " " + CALL
INT3 = insn_bytes("OP_INT3")


# ---------------------------------------------------------------------------
# Running and building


def run(cmd, env=None, check=True, timeout=300, cwd=None):
    """lptest.run with every LPTRACE* variable of the caller's environment
    cleared, so a developer's settings cannot change a test."""
    return lptest.run(cmd, cwd=cwd, env=env, check=check, timeout=timeout,
                      clear_env=("LPTRACE",))


describe = lptest.describe


@pytest.fixture(scope="session")
def runtime_lib():
    """liblptrace.a, lptrace and nopbench, built once per session."""
    if not shutil.which("make"):
        pytest.skip("not installed: make")
    proc = subprocess.run(["make", "-s", "-C", str(REPO),
                           "runtime/liblptrace.a", "build/bench/nopbench",
                           "lptrace/lptrace"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail("building runtime failed:\n" + describe(proc))
    return LIB


@dataclass(frozen=True)
class Toolchain:
    id: str
    cc: str
    pie: bool
    table: str                  # record | asm | linkpass
    ld: str = "bfd"
    cflags: tuple = ()

    @property
    def site_len(self):
        """Length of the sites the compiler and linker produce."""
        if "-mnop-mcount" in self.cflags:
            return 5
        # Debian's gcc calls __fentry__ through the GOT in a PIE; both
        # linkers relax that into the 6-byte `67 e8 rel32`.
        return 6 if self.cc == "gcc" and self.pie else 5


TOOLCHAINS = {tc.id: tc for tc in [
    Toolchain("gcc-pie", "gcc", True, "record"),
    Toolchain("gcc-nopie", "gcc", False, "record"),
    # gcc's __mcount_loc is read-only, which lld refuses in a PIE without -z notext
    Toolchain("gcc-pie-lld", "gcc", True, "record", ld="lld"),
    Toolchain("gcc-nopie-O0-endbr", "gcc", False, "record",
              cflags=("-O0", "-fcf-protection=branch")),
    # gcc emits its own 5-byte NOPs (not in a PIE); the runtime takes them as they are
    Toolchain("gcc-nopie-nopmcount", "gcc", False, "record",
              cflags=("-mnop-mcount",)),
    Toolchain("clang-pie", "clang", True, "asm"),
    Toolchain("clang-nopie", "clang", False, "asm"),
    Toolchain("gcc-pie-linkpass", "gcc", True, "linkpass"),
    Toolchain("clang-nopie-linkpass", "clang", False, "linkpass"),
]}


def toolchains(*ids):
    return [pytest.param(TOOLCHAINS[i], id=i) for i in ids]


ALL_TOOLCHAINS = toolchains(*TOOLCHAINS)
# One of each site length and table source, for the slower tests.
MAIN_TOOLCHAINS = toolchains("gcc-pie", "gcc-nopie", "clang-nopie")

_CALL_FENTRY = re.compile(r"^\s*call[lq]?\s+__fentry__(@PLT)?\s*(#.*)?$")


def label_fentry_calls(asm):
    """Give every `call __fentry__` of asm a label and a __mcount_loc entry."""
    out, n = [], 0
    for line in asm.splitlines():
        if _CALL_FENTRY.match(line):
            out += [f".Llp_site{n}:", line,
                    '\t.pushsection __mcount_loc, "aw", @progbits',
                    f"\t.quad .Llp_site{n}",
                    "\t.popsection"]
            n += 1
        else:
            out.append(line)
    assert n, "no call __fentry__ in the compiler's assembly"
    return "\n".join(out) + "\n"


class Builder:
    """Builds tests/runtime/NAME.c for one toolchain, in tmp_path."""

    def __init__(self, tc, tmp_path, request):
        self.tc, self.dir, self.request = tc, tmp_path, request
        missing = [t for t in (tc.cc, "ld.lld" if tc.ld == "lld" else None)
                   if t and not shutil.which(t)]
        if missing:
            pytest.skip("not installed: " + ", ".join(missing))

    def cflags(self, pg=True):
        flags = ["-O2", "-g", *self.tc.cflags, f"-I{RUNTIME}", f"-I{PROGS}",
                 "-fpie" if self.tc.pie else "-fno-pie"]
        return flags + (["-pg", "-mfentry"] if pg else [])

    def ldflags(self):
        flags = ["-pie" if self.tc.pie else "-no-pie"]
        if self.tc.ld == "lld":
            flags += ["-fuse-ld=lld", "-Wl,-z,notext"]
        return flags

    def link(self, objs, exe, extra=()):
        run([self.tc.cc, *self.ldflags(), *extra, *objs, LIB, "-lpthread",
             "-o", exe])

    def compile(self, name, pg=True, extra=()):
        src = PROGS / f"{name}.c"
        obj = self.dir / f"{name}.o"
        flags = self.cflags(pg) + list(extra)
        if not pg or self.tc.table == "linkpass":
            run([self.tc.cc, *flags, "-c", src, "-o", obj])
        elif self.tc.table == "record":
            run([self.tc.cc, *flags, "-mrecord-mcount", "-c", src, "-o", obj])
        else:
            asm = self.dir / f"{name}.s"
            run([self.tc.cc, *flags, "-S", src, "-o", asm])
            labelled = self.dir / f"{name}.lp.s"
            labelled.write_text(label_fentry_calls(asm.read_text()))
            run([self.tc.cc, *flags, "-c", labelled, "-o", obj])
        return obj

    def build(self, name, pg=True, extra=()):
        """Compile, give the program its table, link; returns the path."""
        obj = self.compile(name, pg, extra)
        exe = self.dir / name
        if not pg or self.tc.table != "linkpass":
            self.link([obj], exe, extra)
            return exe
        lp = self.request.getfixturevalue("linkpass")
        table = self.dir / f"{name}.table.o"
        self.link([obj], exe, [*extra, "-Wl,-q"])
        for _ in range(3):
            lp.scan(exe, table)
            self.link([obj, table], exe, [*extra, "-Wl,-q"])
            status, _ = lp.check(exe)
            if status == 0:
                return exe
        pytest.fail(f"{exe}: linkpass table not stable after 3 links")


@pytest.fixture
def builder(request, tmp_path, runtime_lib):
    return Builder(request.param, tmp_path, request)


# ---------------------------------------------------------------------------
# Reading what the programs print


def entries(stdout):
    """{name: bytes-as-hex} from `entry NAME: xx xx ...` lines, after endbr64."""
    found = {}
    for m in re.finditer(r"^entry (\S+): ([0-9a-f ]+)$", stdout, re.M):
        hexes = m.group(2)
        if hexes.startswith(ENDBR64):
            hexes = hexes[len(ENDBR64) + 1:]
        found[m.group(1)] = hexes
    return found


def phase_entries(stdout):
    """Entries per `phase NAME` block of basic.c's output."""
    blocks = re.split(r"^phase (\S+).*$", stdout, flags=re.M)
    return {blocks[i]: entries(blocks[i + 1]) for i in range(1, len(blocks), 2)}


def key_values(line_prefix, stdout):
    """{key: value} of the `key=value ...` words on the line that starts
    with line_prefix (the prefix itself may be a key=value word)."""
    m = re.search(rf"^{re.escape(line_prefix)}(.*)$", stdout, re.M)
    assert m, f"no line starting {line_prefix!r} in:\n{stdout}"
    words = (line_prefix + m.group(1)).split()
    return dict(w.split("=", 1) for w in words if "=" in w)


def is_nop(hexes, length):
    return hexes.startswith(NOP6 if length == 6 else NOP5)


def is_call(hexes, length):
    return hexes.startswith(CALL6 if length == 6 else CALL)


_TRACE_LINE = re.compile(
    r"^\s*(?P<comm>.*)-(?P<tid>\d+)\s+\[(?P<cpu>\d{3,}|\?\?\?)\]\s+"
    r"(?P<sec>\d+)\.(?P<usec>\d{6}): (?P<func>\S+) <-(?P<caller>\S+)$")


def read_trace(path):
    """Events of an ftrace-style text trace; every line must parse, and
    timestamps must not go backwards (the writer merges threads)."""
    events, last = [], None
    for line in Path(path).read_text().splitlines():
        if line.startswith("#"):
            continue
        m = _TRACE_LINE.match(line)
        assert m, f"{path}: bad trace line {line!r}"
        ev = m.groupdict()
        ts = (int(ev["sec"]), int(ev["usec"]))
        assert last is None or ts >= last, f"{path}: time goes back at {line!r}"
        last = ts
        ev["tid"] = int(ev["tid"])
        events.append(ev)
    return events


def read_json_trace(path):
    """Chrome trace-event JSON: check the shape Perfetto needs."""
    doc = json.loads(Path(path).read_text())
    evs = doc["traceEvents"]
    assert isinstance(evs, list) and evs
    for ev in evs:
        assert {"ph", "pid", "tid", "name"} <= ev.keys(), ev
        if ev["ph"] == "i":
            assert isinstance(ev["ts"], (int, float)) and ev["ts"] > 0, ev
            assert ev["s"] == "t" and "caller" in ev["args"], ev
        else:
            assert ev["ph"] == "M", ev
    return [ev for ev in evs if ev["ph"] == "i"]


def table_entries(exe):
    """Number of 8-byte entries in the image's __mcount_loc section."""
    out = run(["readelf", "-SW", exe]).stdout
    m = re.search(r"\]\s+__mcount_loc\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)",
                  out)
    assert m, f"{exe}: no __mcount_loc section"
    return int(m.group(1), 16) // 8


# ---------------------------------------------------------------------------
# Start: every site NOP'd, none refused; then enabled and disabled


BASIC_FUNCS = ["f_int6", "f_stack", "f_fp", "f_var", "f_big", "f_static",
               "f_fib"]


@pytest.mark.parametrize("builder", ALL_TOOLCHAINS, indirect=True)
def test_basic_sites_nopped_traced_and_restored(builder, tmp_path):
    tc = builder.tc
    exe = builder.build("basic")
    txt, js = tmp_path / "trace.txt", tmp_path / "trace.json"
    proc = run([exe, txt, js], env={"LPTRACE_VERBOSE": "1"})
    assert "errors=0" in proc.stdout and "FAIL" not in proc.stdout

    stats = key_values("stats ", proc.stdout)
    sites = int(stats["sites"])
    assert sites == table_entries(exe)
    assert stats["refused"] == "0"
    assert stats["enabled"] == "0"
    assert stats["sync"] == "membarrier-sync-core"
    if "-mnop-mcount" in tc.cflags:
        # the compiler's own NOPs are accepted as they are, and traceable
        assert (stats["nopped"], stats["already"]) == ("0", str(sites))
    else:
        assert (stats["nopped"], stats["already"]) == (str(sites), "0")
    assert re.search(rf"lptrace: basic: {sites} sites: {stats['nopped']} nopped, "
                     rf"{stats['already']} already nop, 0 refused in [0-9.]+ ms",
                     proc.stderr), proc.stderr

    phases = phase_entries(proc.stdout)
    for fn in BASIC_FUNCS:
        assert is_nop(phases["nop"][fn], tc.site_len), (fn, phases["nop"][fn])
        assert is_call(phases["call"][fn], tc.site_len), (fn, phases["call"][fn])
        assert is_nop(phases["nop-again"][fn], tc.site_len), fn

    events = read_trace(txt)
    assert {e["func"] for e in events} >= set(BASIC_FUNCS) | {"run_all"}
    for e in events:
        if e["func"] in BASIC_FUNCS:
            want = {"run_all", "f_fib"} if e["func"] == "f_fib" else {"run_all"}
            assert e["caller"] in want, e

    jev = read_json_trace(js)
    assert len(jev) == len(events)
    assert {e["name"] for e in jev} == {e["func"] for e in events}


# ---------------------------------------------------------------------------
# A site with unexpected bytes is refused, reported and never written


@pytest.mark.parametrize("how", ["nops", "call"])
@pytest.mark.parametrize("builder", MAIN_TOOLCHAINS, indirect=True)
def test_tampered_site_refused(builder, tmp_path, how):
    exe = builder.build("tamper")
    txt = tmp_path / "trace.txt"
    proc = run([exe, how, txt], env={"LPTRACE": "off"})
    assert "errors=0" in proc.stdout

    addr = re.search(r"^tampered (0x[0-9a-f]+)$", proc.stdout, re.M).group(1)
    ent = entries(proc.stdout)
    before, after = ent["victim-before"], ent["victim-after"]
    assert after == before, "a refused site was written"
    stats = key_values("init=", proc.stdout)
    assert stats["refused"] == "1"
    assert int(stats["nopped"]) == int(stats["sites"]) - 1

    found = " ".join(before.split()[:6])
    want = (f"lptrace: tamper: site {addr} (victim+0x0): unexpected bytes, "
            f"expected call __fentry__: {found}; not patched")
    assert want in proc.stderr.splitlines(), proc.stderr

    funcs = {e["func"] for e in read_trace(txt)}
    assert "bystander" in funcs and "victim" not in funcs


# ---------------------------------------------------------------------------
# The int3 emulation, deterministically: int3 put on a site by hand


@pytest.mark.parametrize("builder", MAIN_TOOLCHAINS, indirect=True)
def test_int3_emulation(builder, tmp_path):
    tc = builder.tc
    exe = builder.build("trapemu")
    txt = tmp_path / "trace.txt"
    proc = run([exe, txt])
    assert "errors=0" in proc.stdout
    ent = entries(proc.stdout)
    # a rewrite that fails after its int3 step leaves int3, runs correctly
    assert "half-enable=-13" in proc.stdout          # -EACCES from mprotect
    assert ent["call-int3"].startswith(INT3)
    assert "traps after call emulation=1" in proc.stdout
    assert "half-disable=-13" in proc.stdout
    assert ent["nop-int3"].startswith(INT3)
    assert "traps after nop emulation=1" in proc.stdout
    assert "making text writable: Permission denied; sites left behind int3" \
        in proc.stderr
    # and the next calls complete it
    assert "enable=1" in proc.stdout and is_call(ent["enabled"], tc.site_len)
    assert "disable=1" in proc.stdout and is_nop(ent["disabled"], tc.site_len)
    # one emulated call, one real: both recorded, with the right caller
    calls = [(e["func"], e["caller"]) for e in read_trace(txt)
             if e["func"] == "target"]
    assert calls == [("target", "main")] * 2


# ---------------------------------------------------------------------------
# Control from the environment alone


@pytest.mark.parametrize("builder", MAIN_TOOLCHAINS, indirect=True)
def test_env_filter_and_outputs(builder, tmp_path):
    exe = builder.build("envonly")
    txt, js = tmp_path / "t.txt", tmp_path / "t.json"
    run([exe], env={"LPTRACE_FILTER": "alpha_*", "LPTRACE_OUT": txt,
                    "LPTRACE_JSON": js})
    events = read_trace(txt)
    assert {e["func"] for e in events} == {"alpha_one", "alpha_two"}
    assert len(events) == 2 * 2 * 100           # 2 threads, 2 functions, 100 calls
    assert len({e["tid"] for e in events}) == 2
    jev = read_json_trace(js)
    assert sorted((e["name"], e["tid"]) for e in jev) == \
        sorted((e["func"], e["tid"]) for e in events)


def private_null(path):
    """A character device node like /dev/null at @path (root only), so
    that a test of writing to a device cannot break the real one."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root")
    return path


@pytest.mark.parametrize("builder", toolchains("gcc-pie"), indirect=True)
def test_env_outputs_to_a_device_or_pipe(builder, tmp_path):
    """LPTRACE_OUT naming a device is written in place: the node stays a
    device (renaming a temp file over /dev/null would replace it, for
    root); a pipe gets the text a file would."""
    exe = builder.build("envonly")
    dev = private_null(tmp_path / "null")
    run([exe], env={"LPTRACE_FILTER": "alpha_*", "LPTRACE_OUT": dev})
    assert stat.S_ISCHR(os.lstat(dev).st_mode)
    assert list(tmp_path.glob("null.*")) == []      # no temp file left

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader, got = lptest.read_fifo_later(fifo, text=True)
    run([exe], env={"LPTRACE_FILTER": "alpha_*", "LPTRACE_OUT": fifo})
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    txt = tmp_path / "t.txt"
    txt.write_text(got[0])
    assert len(read_trace(txt)) == 2 * 2 * 100


@pytest.mark.parametrize("builder", toolchains("gcc-pie"), indirect=True)
def test_env_off_and_no_match(builder, tmp_path):
    exe = builder.build("envonly")
    txt = tmp_path / "t.txt"
    proc = run([exe], env={"LPTRACE": "off", "LPTRACE_FILTER": "alpha_*",
                           "LPTRACE_OUT": txt, "LPTRACE_VERBOSE": "1"})
    assert "errors=0" in proc.stdout and proc.stderr == ""
    assert not txt.exists()

    proc = run([exe], env={"LPTRACE_FILTER": "nosuch*", "LPTRACE_OUT": txt})
    assert "lptrace: envonly: LPTRACE_FILTER=nosuch* matches no function" in proc.stderr
    assert read_trace(txt) == []


# ---------------------------------------------------------------------------
# SIGTRAPs that are not ours, a program without a table, fork


@pytest.mark.parametrize("builder", toolchains("gcc-pie"), indirect=True)
def test_foreign_sigtraps(builder):
    exe = builder.build("trapchain")
    proc = run([exe, "chain"], env={"LPTRACE": "off"})
    assert "init=0" in proc.stdout and "enable=1" in proc.stdout
    assert "chained=2" in proc.stdout          # raise() and a stray int3

    proc = run([exe, "default"], check=False)
    assert proc.returncode == -5, describe(proc)   # killed by SIGTRAP, as without us
    assert "survived" not in proc.stdout

    # A handler installed after ours is chained to, and patching goes on:
    # through sigaction() (ours stays), or behind our back (signal()),
    # noticed and undone before the next rewrite.
    proc = run([exe, "replaced"])
    assert "enable=1 chained=1" in proc.stdout, proc.stdout
    assert "again=1 plain=1" in proc.stdout, proc.stdout
    assert proc.stderr.count("SIGTRAP handler replaced behind our back; "
                             "chaining to it and putting ours back") == 1


@pytest.mark.parametrize("builder", toolchains("gcc-pie"), indirect=True)
def test_program_without_table(builder):
    exe = builder.build("notable", pg=False)
    proc = run([exe], env={"LPTRACE_VERBOSE": "1"})
    assert "init=0 sites=0 enable=0" in proc.stdout
    assert "lptrace: notable: no __mcount_loc table" in proc.stderr


@pytest.mark.parametrize("builder", toolchains("gcc-nopie"), indirect=True)
def test_fork_child_writes_own_trace(builder, tmp_path):
    exe = builder.build("forks")
    txt = tmp_path / "t.txt"
    proc = run([exe], env={"LPTRACE_FILTER": "in_*", "LPTRACE_OUT": txt})
    child = re.search(r"child=(\d+)", proc.stdout).group(1)
    assert [e["func"] for e in read_trace(txt)] == ["in_parent"]
    assert [e["func"] for e in read_trace(f"{txt}.{child}")] == ["in_child"]


# ---------------------------------------------------------------------------
# Stress: patching while 4 threads run the sites


STRESS_FUNCS = {"work_a1", "work_a2", "work_b1", "work_b2", "work_c1",
                "work_c2"}
STRESS_ALL = STRESS_FUNCS | {"work_sig", "worker", "on_alarm", "expect",
                             "wait_progress", "fail"}


def check_stress(proc, txt, min_toggles):
    assert "FAIL" not in proc.stdout, proc.stdout
    assert re.search(r"^errors=0$", proc.stdout, re.M)
    summary = key_values("toggles=", proc.stdout)
    assert int(summary["toggles"]) >= min_toggles

    expected = set(re.search(r"^expected (.*)$", proc.stdout, re.M).group(1).split())
    assert expected == STRESS_FUNCS
    workers = [int(t) for t in re.findall(r"^worker \d+ tid (\d+)$", proc.stdout, re.M)]
    assert len(workers) >= 4

    by_tid = {}
    for e in read_trace(txt):
        # never a wrong or unknown address: every name is one of ours
        assert e["func"] in STRESS_ALL, e
        if e["func"] in STRESS_FUNCS:
            want = {"worker", "work_c2"} if e["func"] == "work_c2" else {"worker"}
            assert e["caller"] in want, e
        if e["func"] == "work_sig":
            assert e["caller"] == "on_alarm", e
        by_tid.setdefault(e["tid"], set()).add(e["func"])
    # every function that ran while enabled is in every worker's trace
    for tid in workers:
        missing = expected - by_tid.get(tid, set())
        assert not missing, f"worker {tid}: never traced {sorted(missing)}"
    return summary


# Each 4 rounds of stress.c make 11 enable/disable calls.
STRESS_ROUNDS = 376     # 1,034 calls


@pytest.mark.parametrize("builder,sync", [
    pytest.param(TOOLCHAINS["gcc-pie"], "sync_core", id="gcc-pie-sync_core"),
    pytest.param(TOOLCHAINS["clang-nopie"], "sync_core", id="clang-nopie-sync_core"),
], indirect=["builder"])
def test_stress_enable_disable_while_running(builder, tmp_path, sync):
    exe = builder.build("stress")
    txt = tmp_path / "trace.txt"
    # Small buffers keep the trace file small; events past them are
    # dropped and counted.  Each function's first enabled runs come early.
    # Small buffers keep the trace file small; they keep their first
    # events (rings would keep the last ones), and each function's first
    # enabled runs come early.  Events past them are dropped and counted.
    proc = run([exe, 4, STRESS_ROUNDS, txt], timeout=600,
               env={"LPTRACE_BUFSIZE": "20000", "LPTRACE_KEEP": "first",
                    "LPTRACE_SYNC": sync})
    summary = check_stress(proc, txt, min_toggles=1000)
    assert summary["sync"] == {"sync_core": "membarrier-sync-core"}[sync]


def tsan_works(cc):
    return lptest.links_trivial_program([cc, "-fsanitize=thread"])


@pytest.mark.parametrize("builder", toolchains("gcc-pie"), indirect=True)
def test_stress_under_thread_sanitizer(builder, tmp_path):
    """The program (not the library) under TSan.  No timer signal: TSan
    runs deferred signal handlers with every signal blocked, and an int3
    hit with SIGTRAP blocked kills the process (docs/runtime.md)."""
    if not tsan_works(builder.tc.cc):
        pytest.skip(f"{builder.tc.cc} cannot link -fsanitize=thread here")
    exe = builder.build("stress", extra=("-fsanitize=thread",))
    txt = tmp_path / "trace.txt"
    proc = run([exe, 4, 80, txt, "notimer"], timeout=600,
               env={"LPTRACE_BUFSIZE": "5000", "LPTRACE_KEEP": "first"})
    assert "ThreadSanitizer" not in proc.stderr, proc.stderr
    check_stress(proc, txt, min_toggles=220)


# ---------------------------------------------------------------------------
# nopbench


def test_nopbench_table(runtime_lib):
    proc = run([NOPBENCH, "-n", "20000", "-r", "3"])
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("CPU: ") and len(lines[0]) > 5
    rows = [ln for ln in lines if ln.startswith("| ") and not ln.startswith("| entry")]
    names = [r.split("|")[1].strip() for r in rows]
    assert names == ["empty", "jmp +3 (2 bytes)", "jmp +0 (5 bytes)", "3+2 NOPs",
                     "66 66 66 66 90", "0f 1f 44 00 00", "call mcount (ret)"]
    for r in rows:
        ticks, low, ratio = (float(c) for c in r.split("|")[3:6])
        assert 0 < low <= ticks and ratio > 0
    assert rows[0].endswith("| 1.00 |")

    bad = run([NOPBENCH, "-n", "0"], check=False)
    assert bad.returncode == 2 and "must be positive" in bad.stderr
