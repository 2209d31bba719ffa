"""Tests of the tracer's recording modes and of the lptrace tool
(lptrace/): stream files, function-graph mode and its
filters, fatal-signal dumps, report/graph/dump, and errors on files
that are not whole or not ours.

Call counts are checked against independent truths: the sample
generator's manifest (tests/samples/gen.py) and, for tests/runtime/
graph.c, the calls its main() makes.  Nothing here asserts on time.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import threading

import pytest

from test_runtime import (LPTRACE, REPO, TOOLCHAINS, Builder, describe, run,
                          runtime_lib)  # noqa: F401 (fixture)

GRAPH_LOOPS = 5


@pytest.fixture(scope="module", params=["gcc-pie", "clang-nopie"])
def graph_prog(request, tmp_path_factory, runtime_lib):
    tc = TOOLCHAINS[request.param]
    return Builder(tc, tmp_path_factory.mktemp(tc.id), request).build("graph")


def lptrace(*args, check=True, env=None, cwd=None):
    return run([LPTRACE, *args], check=check, env=env, cwd=cwd)


def record(tmp_path, exe, *opts, args=(), check=True):
    data = tmp_path / "t.data"
    proc = lptrace("record", "-o", data, *opts, "--", exe, *args, check=check)
    return proc, data


def report(data, *opts):
    """{name: [calls, ...]} (statics may share a name) and the header."""
    out = lptrace("report", "-i", data, *opts).stdout.splitlines()
    header = dict(kv.split("=") for kv in out[0].split() if "=" in kv)
    rows = {}
    for line in out[3:]:
        parts = line.split()
        rows.setdefault(parts[-1], []).append(int(parts[-2]))
    return rows, header, out[0]


def graph_lines(data):
    """The function_graph text: (tid, depth, kind, name) per line."""
    text = lptrace("dump", "--text", "-i", data).stdout
    assert text.startswith("# tracer: function_graph (lptrace)\n")
    lines = []
    pat = re.compile(r"^\s*\d+\.\d{6} \| +\S+-(\d+) \| [ +!#*@$]? *(?:[\d.]+ us)? \| ( *)(.*)$")
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = pat.match(line)
        assert m, f"bad line {line!r}"
        tid, indent, body = int(m.group(1)), len(m.group(2)), m.group(3)
        depth = (indent - 2) // 2
        if body.endswith("() {"):
            lines.append((tid, depth, "open", body[:-4]))
        elif body.endswith("();"):
            lines.append((tid, depth, "leaf", body[:-3]))
        else:
            m2 = re.match(r"^\}  /\* (\S+) \*/$", body)
            assert m2, f"bad line {line!r}"
            lines.append((tid, depth, "close", m2.group(1)))
    return lines


def check_balanced(lines):
    """Every open is closed by its own name at its own depth."""
    stacks = {}
    for tid, depth, kind, name in lines:
        st = stacks.setdefault(tid, [])
        if kind == "open":
            assert depth == len(st), (tid, depth, name, st)
            st.append(name)
        elif kind == "close":
            assert st and st[-1] == name and depth == len(st) - 1, (name, st)
            st.pop()
        else:
            assert depth == len(st), (tid, depth, name, st)
    assert all(not st for st in stacks.values()), stacks


# ---------------------------------------------------------------------------
# Function-graph mode


def test_graph_mode_returns_right(graph_prog, tmp_path):
    """Every hijacked return lands where it should (the sums), the text
    nests, and the counts are the calls main() makes."""
    proc, data = record(tmp_path, graph_prog, "--graph")
    m = re.search(r"^sum=(-?\d+) expect=(\d+)$", proc.stdout, re.M)
    assert m and m.group(1) == m.group(2), describe(proc)
    rows, header, _ = report(data, "-s", "name")
    assert header["dropped"] == "0"
    n = GRAPH_LOOPS
    for name, calls in {"main": 1, "g_tail1": n, "g_tail2": n, "g_on_usr1": n,
                        "g_on_usr2": n, "g_float": n, "g_ldouble": n,
                        "g_jump": None, "g_deep": None, "g_rec": None,
                        # disabled from inside, while both are on the stack
                        "g_dis_outer": 1, "g_disabler": 1}.items():
        assert name in rows, (name, rows)
        if calls is not None:
            assert rows[name] == [calls], (name, rows[name])
    lines = graph_lines(data)
    check_balanced(lines)
    names = [(d, k, nm) for _, d, k, nm in lines]
    # the tail call nests in its caller; both close together
    i = names.index((1, "open", "g_tail1"))
    assert names[i + 1] == (2, "open", "g_tail2")
    # siglongjmp out of g_on_usr2 (alternate stack) closed g_deep before
    # the next call of main's
    j = names.index((1, "leaf", "g_float"))
    before = [nm for d, k, nm in names[:j] if d == 1 and k in ("close", "leaf")]
    assert before[-1] == "g_deep", names[:j][-8:]


def test_graph_fast_path_matches_general(graph_prog, tmp_path):
    """The trampolines' own common entry and exit (entry.S, taken
    without filters) record what lpt_graph_entry/exit record for the
    same calls: a depth filter deeper than the program goes (-D 4096)
    turns the fast path off and must change nothing in the tree."""
    trees = []
    for opts in ((), ("-D", "4096")):
        sub = tmp_path / ("general" if opts else "fast")
        sub.mkdir()
        proc, data = record(sub, graph_prog, "--graph", *opts)
        m = re.search(r"^sum=(-?\d+) expect=(\d+)$", proc.stdout, re.M)
        assert m and m.group(1) == m.group(2), describe(proc)
        lines = graph_lines(data)
        check_balanced(lines)
        trees.append([(d, k, nm) for _, d, k, nm in lines])
    assert len(trees[0]) > 50
    assert trees[0] == trees[1]


def test_graph_chrome_complete_events(graph_prog, tmp_path):
    _, data = record(tmp_path, graph_prog, "--graph")
    doc = json.loads(lptrace("dump", "--chrome", "-i", data).stdout)
    evs = [e for e in doc["traceEvents"] if e["ph"] != "M"]
    assert evs and {e["ph"] for e in evs} == {"X"}
    assert all(e["dur"] >= 0 and e["ts"] > 0 for e in evs)
    assert sum(e["name"] == "g_tail1" for e in evs) == GRAPH_LOOPS


def test_graph_depth_filter(graph_prog, tmp_path):
    _, data = record(tmp_path, graph_prog, "--graph", "-D", "1")
    rows, _, _ = report(data)
    assert set(rows) == {"main"}
    _, data = record(tmp_path, graph_prog, "--graph", "-D", "2")
    lines = graph_lines(data)
    check_balanced(lines)
    assert max(d for _, d, _, _ in lines) == 1
    assert {nm for _, d, _, nm in lines if d == 1} >= {"g_tail1", "g_float"}


def test_graph_min_duration_filter(graph_prog, tmp_path):
    """Calls shorter than the threshold leave nothing, callees
    included; g_slow (nanosleep 300 ms) and main, around it, stay."""
    _, data = record(tmp_path, graph_prog, "--graph", "-t", "200ms")
    rows, _, _ = report(data)
    assert rows == {"main": [1], "g_slow": [1]}


def test_glob_filter(graph_prog, tmp_path):
    _, data = record(tmp_path, graph_prog, "--graph", "-F", "g_tail*")
    rows, _, _ = report(data)
    # main() itself enables g_dis* once
    assert rows == {"g_tail1": [GRAPH_LOOPS], "g_tail2": [GRAPH_LOOPS],
                    "g_dis_outer": [1], "g_disabler": [1]}


def test_entry_only_report_and_graph(graph_prog, tmp_path):
    _, data = record(tmp_path, graph_prog)
    rows, header, _ = report(data)
    assert rows["g_float"] == [GRAPH_LOOPS] and rows["main"] == [1]
    out = lptrace("graph", "-i", data, "g_tail1").stdout
    assert re.search(rf"^# callers of g_tail1 \(calls\)\n +{GRAPH_LOOPS}  main$", out, re.M)
    # time needs exits
    bad = lptrace("report", "-i", data, "-s", "self", check=False)
    assert bad.returncode == 2 and "no times (record with --graph)" in bad.stderr


def test_graph_command_tree(graph_prog, tmp_path):
    _, data = record(tmp_path, graph_prog, "--graph")
    out = lptrace("graph", "-i", data, "g_tail1").stdout.splitlines()
    assert out[0] == "# function graph of g_tail1: total time, calls"
    calls = [(ln.split(":")[0].split()[-1], ln.split(":")[1].strip()) for ln in out[1:]]
    assert calls == [(str(GRAPH_LOOPS), "g_tail1"), (str(GRAPH_LOOPS), "+-g_tail2"),
                     (str(GRAPH_LOOPS), "+-g_leaf")]


# ---------------------------------------------------------------------------
# Fatal signals


def test_crash_leaves_stream(graph_prog, tmp_path):
    proc, data = record(tmp_path, graph_prog, "--graph", args=("crash",),
                        check=False)
    assert proc.returncode == 128 + 11, describe(proc)
    assert "the program died of a signal" in proc.stderr
    rows, header, line = report(data)
    assert line.endswith("(ended by a fatal signal)")
    assert rows["g_tail1"] == [GRAPH_LOOPS]
    assert rows["g_crash"] == [1] and rows["main"] == [1]   # entered, never left


def test_crash_leaves_stream_small_rings(graph_prog, tmp_path):
    """The same with rings of 16 events, so the program waits for the
    writer all along: the handler still writes every event and the END."""
    data = tmp_path / "small.data"
    proc = run([graph_prog, "crash"], check=False,
               env={"LPTRACE_FILTER": "*", "LPTRACE_GRAPH": "1",
                    "LPTRACE_BUFSIZE": "16", "LPTRACE_DATA": data})
    assert proc.returncode == -11, describe(proc)
    rows, header, line = report(data)
    assert line.endswith("(ended by a fatal signal)")
    assert header["dropped"] == "0"
    assert rows["g_tail1"] == [GRAPH_LOOPS]
    assert rows["g_crash"] == [1] and rows["main"] == [1]
    assert end_record(data)[5] > 0        # it did wait


def test_crash_dumps_rings(graph_prog, tmp_path):
    """Ring mode (no stream): the handler writes LPTRACE_CRASH whole."""
    dump = tmp_path / "crash.data"
    proc = run([graph_prog, "crash"], check=False,
               env={"LPTRACE_FILTER": "*", "LPTRACE_CRASH": dump})
    assert proc.returncode == -11, describe(proc)
    rows, _, line = report(dump)
    assert line.endswith("(ended by a fatal signal)")
    assert rows["g_float"] == [GRAPH_LOOPS]


# ---------------------------------------------------------------------------
# Files that are not whole or not ours: one line each


def one_error(path, *cmd):
    proc = lptrace(*cmd, "-i", path, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_bad_files(graph_prog, tmp_path):
    _, data = record(tmp_path, graph_prog, "--graph")
    raw = data.read_bytes()
    cut = tmp_path / "cut.data"
    for size in (len(raw) // 2, len(raw) - 3, 12):
        cut.write_bytes(raw[:size])
        for cmd in (("report",), ("dump", "--text"), ("graph", "main")):
            line = one_error(cut, *cmd)
            assert re.match(rf"^lptrace: {re.escape(str(cut))}: truncated at byte \d+: ", line), line
    for foreign in (graph_prog, REPO / "README.md"):
        line = one_error(foreign, "report")
        assert line == f"lptrace: {foreign}: not an lptrace data file (no LPTDATA1 magic)"
    empty = tmp_path / "empty.data"
    empty.write_bytes(b"")
    assert "not an lptrace data file" in one_error(empty, "report")
    # version 1 (32-byte events, before the packed format) and version 2
    # (packed, without the one-word EXIT): refused
    for version, size in ((1, 32), (2, 16)):
        old = tmp_path / f"v{version}.data"
        old.write_bytes(raw[:16] + struct.pack("<I", version) + raw[20:28] +
                        struct.pack("<I", size) + raw[32:])
        assert one_error(old, "report") == (
            f"lptrace: {old}: version {version} with {size}-byte events; "
            "this lptrace reads version 3 with 16-byte events")
    # an EVENTS record whose first event has a reserved bit set
    off, bad = 8, None
    while bad is None:
        rtype, rlen = struct.unpack_from("<II", raw, off)
        if rtype == 3:
            bad = bytearray(raw)
            bad[off + 16 + 7] |= 0x80       # bit 63 of word 0
        off += 8 + (rlen + 7 & ~7)
    corrupt = tmp_path / "corrupt.data"
    corrupt.write_bytes(bytes(bad))
    assert re.match(rf"^lptrace: {re.escape(str(corrupt))}: corrupt EVENTS record at byte {off - 8 - (rlen + 7 & ~7)}: event 0 of \d+ is not a packed event$",
                    one_error(corrupt, "report"))


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_packed_events_round_trip(tmp_path, cc):
    """The file's packed events (runtime/lptrace-data.h) decode to the
    very events packed, field by field, including every case that needs
    an extension word and the one-word EXIT (each one occurs; the
    generator makes sure)."""
    if not shutil.which(cc):
        pytest.skip(f"{cc} not installed")
    exe = tmp_path / "pack"
    run([cc, "-O2", "-Wall", "-Wextra", "-Werror", "-I", REPO / "runtime",
         REPO / "tests/runtime/pack.c", "-o", exe])
    out = run([exe]).stdout
    m = re.match(r"^ok 100000 events in (\d+) words; extension words: "
                 r"func (\d+) tsc (\d+) arg (\d+) cpu (\d+); "
                 r"one-word exits (\d+)$", out.strip())
    assert m, out
    assert all(int(n) > 0 for n in m.groups()[1:]), out


def test_record_without_runtime(tmp_path):
    proc, _ = record(tmp_path, "true", check=False)
    assert proc.returncode == 2
    assert "wrote no" in proc.stderr and "liblptrace.a" in proc.stderr


# ---------------------------------------------------------------------------
# The demo's program: counts against the sample's manifest


@pytest.fixture(scope="module")
def demo_prog(tmp_path_factory, runtime_lib):
    out = tmp_path_factory.mktemp("demo")
    subprocess.run(["make", "-s", "-C", str(REPO), "linkpass/linkpass"],
                   check=True, capture_output=True)
    run(["/usr/bin/python3", REPO / "tests/samples/gen.py", "--units", "6",
         "--funcs-per-unit", "40", "--seed", "7", "--out", out / "src"])
    (out / "obj").mkdir()
    for goal in ("objects", "link"):
        run(["make", "-s", "-f", REPO / "demo/demo.mk", f"TOP={REPO}",
             f"OUT={out}", "CC=gcc", "LD=bfd", goal])
    return out


def manifest_calls(demo_prog, rounds):
    """{name: calls} the demo makes in @rounds, from the generator's
    manifest (not from the tracer)."""
    man = json.loads((demo_prog / "src/manifest.json").read_text())
    want = {}
    for f in man["functions"]:
        if f["trace"] != "never" and f["calls_per_round"]:
            want[f["name"]] = want.get(f["name"], 0) + rounds * f["calls_per_round"]
    want["workload"] = 1
    return want


@pytest.mark.parametrize("mode", [(), ("--graph",)], ids=["entry", "graph"])
def test_report_counts_match_manifest(demo_prog, tmp_path, mode):
    rounds = 3
    _, data = record(tmp_path, demo_prog / "demo", *mode,
                     args=("--count", str(rounds)))
    rows, header, _ = report(data, "-s", "name")
    got = {name: sum(calls) for name, calls in rows.items()}
    want = manifest_calls(demo_prog, rounds)
    assert got == want
    assert header["dropped"] == "0" and int(header["calls"]) == sum(want.values())


# ---------------------------------------------------------------------------
# Stream mode when the writer falls behind: threads wait, nothing is lost


def end_record(data):
    """(events, dropped, overwritten, recursed, signo, waits): the END
    record, the file's last 48 bytes (runtime/lptrace-data.h)."""
    raw = data.read_bytes()[-48:]
    assert struct.unpack("<II", raw[:8]) == (6, 40)
    return struct.unpack("<QQQQiI", raw[8:])


@pytest.mark.parametrize("mode", [(), ("LPTRACE_GRAPH",)], ids=["entry", "graph"])
def test_stream_full_ring_waits(demo_prog, tmp_path, mode):
    """Rings of 16 events: every thread fills its ring long before the
    writer's next poll.  By default it waits for the writer: every call
    is in the file, none dropped.  With LPTRACE_FULL=drop the same run
    loses events, and counts each one."""
    rounds = 3
    want = manifest_calls(demo_prog, rounds)
    per_call = 2 if mode else 1
    env = {"LPTRACE_FILTER": "*", "LPTRACE_BUFSIZE": "16",
           **{m: "1" for m in mode}}
    data = tmp_path / "wait.data"
    run([demo_prog / "demo", "--count", str(rounds)],
        env={**env, "LPTRACE_DATA": data})
    rows, header, _ = report(data, "-s", "name")
    assert {name: sum(calls) for name, calls in rows.items()} == want
    events, dropped, _, _, _, waits = end_record(data)
    assert (events, dropped) == (per_call * sum(want.values()), 0)
    assert waits > 0
    data = tmp_path / "drop.data"
    run([demo_prog / "demo", "--count", str(rounds)],
        env={**env, "LPTRACE_DATA": data, "LPTRACE_FULL": "drop"})
    events, dropped, _, _, _, waits = end_record(data)
    assert dropped > 0 and waits == 0
    if not mode:        # entry only: each call is one event, kept or lost
        assert events + dropped == sum(want.values())


def test_stream_writer_gone_never_hangs(demo_prog, tmp_path):
    """The file is a pipe whose reader leaves after the first bytes: the
    writer's next write fails (EPIPE) and it stops.  Threads with full
    rings must not wait for it: the program ends normally, says why
    events were lost, and neither the exit nor a traced call hangs.
    On a loaded machine the reader may leave only after the writer's
    last write: then the exiting thread's final write is the one that
    fails, and it must not die of SIGPIPE either."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def reader():
        with open(fifo, "rb") as f:
            f.read(8)   # the magic: the prologue is written; leave

    t = threading.Thread(target=reader)
    t.start()
    proc = run([demo_prog / "demo", "--count", "3"], check=False, timeout=120,
               env={"LPTRACE_FILTER": "*", "LPTRACE_BUFSIZE": "16",
                    "LPTRACE_DATA": fifo, "LPTRACE_VERBOSE": "1"})
    t.join()
    assert proc.returncode == 0, describe(proc)
    assert f"{fifo}: Broken pipe" in proc.stderr, proc.stderr
    m = re.search(r": (\d+) events written, (\d+) dropped, \d+ waits", proc.stderr)
    assert m, proc.stderr
    if "events from now on are dropped" in proc.stderr:   # the writer's
        assert int(m.group(2)) > 0, proc.stderr


# ---------------------------------------------------------------------------
# C++ names, demangled by the toolchain's own demangler


def test_report_demangles_cxx(tmp_path, runtime_lib):
    import shutil
    if not shutil.which("g++"):
        pytest.skip("not installed: g++")
    obj, exe = tmp_path / "cxx.o", tmp_path / "cxx"
    run(["g++", "-O2", "-fno-pie", "-pg", "-mfentry", "-mrecord-mcount",
         "-c", REPO / "tests/runtime/cxx.cc", "-o", obj])
    run(["g++", "-no-pie", obj, REPO / "runtime/liblptrace.a", "-lpthread",
         "-o", exe])
    _, data = record(tmp_path, exe)
    out = lptrace("report", "-i", data, "-s", "name").stdout.splitlines()[3:]
    rows = [re.match(r"^ +(\d+)  (.*)$", ln).groups() for ln in out]
    assert rows == [("3", "int ns::add<int>(int, int)"), ("1", "main"),
                    ("3", "ns::counter::bump(int)"), ("3", "ns::twice(int)"),
                    ("3", "ns::twice(long)")]


# ---------------------------------------------------------------------------
# The command line: one option table, exit codes 0 / 2, one error line


def test_cli_help_and_errors(tmp_path):
    for cmd in ("record", "report", "graph", "dump", "replay", "info"):
        out = lptrace(cmd, "--help").stdout
        assert out.startswith(f"usage: lptrace {cmd} "), out
    assert "--graph" in lptrace("record", "--help").stdout
    assert "--graph" not in lptrace("report", "--help").stdout
    missing = tmp_path / "nonexistent"
    for args, line in (
            (("report", "-i", missing),
             f"lptrace: {missing}: No such file or directory"),
            (("report", "-x"),
             "lptrace: report: unrecognized option '-x' (see 'lptrace report --help')"),
            # record's option, its argument the next word: the option named
            (("report", "-o", "x"),
             "lptrace: report: unrecognized option '-o' (see 'lptrace report --help')"),
            (("record", "-N", "a*", "--", "true"),
             "lptrace: record: the runtime has no exclude list: filter when "
             "reading (report -N GLOB) (see 'lptrace record --help')"),
            (("dump", "-i", missing),
             "lptrace: dump: expected --text, --chrome or --folded (see 'lptrace dump --help')")):
        proc = lptrace(*args, check=False)
        assert proc.returncode == 2 and proc.stdout == "", describe(proc)
        assert proc.stderr.splitlines() == [line]


# ---------------------------------------------------------------------------
# Read-time filters, replay, info, folded stacks


def rows_of(data, *opts):
    return report(data, "-s", "name", *opts)[0]


def test_record_filter_list(graph_prog, tmp_path):
    """record -F takes several globs, repeated or as a comma list, and the
    runtime (LPTRACE_FILTER) enables the functions any of them matches,
    and only those (the program itself enables g_dis*, whose one call
    disables them again: tests/runtime/graph.c)."""
    n = GRAPH_LOOPS
    want = {"g_tail1": [n], "g_float": [n], "g_dis_outer": [1],
            "g_disabler": [1]}
    for i, opts in enumerate((("-F", "g_tail1,g_fl*"),
                              ("-F", "g_tail1", "-F", "g_float"))):
        (tmp_path / str(i)).mkdir()
        _, data = record(tmp_path / str(i), graph_prog, *opts)
        assert rows_of(data) == want


def test_read_filters(graph_prog, tmp_path):
    """-F keeps a function and what it calls, -N drops both, -D counts
    from the -F function, -t keeps the long calls; each against the
    calls main() makes (tests/runtime/graph.c)."""
    _, data = record(tmp_path, graph_prog, "--graph")
    n = GRAPH_LOOPS
    full = rows_of(data)
    tail = {"g_tail1": [n], "g_tail2": [n], "g_leaf": [n]}
    assert rows_of(data, "-F", "g_tail1") == tail
    both = {**tail, "g_float": [n]}
    assert rows_of(data, "-F", "g_tail1,g_float") == both
    assert rows_of(data, "-F", "g_tail1", "-F", "g_float") == both
    assert rows_of(data, "-F", "g_tail*,g_fl*") == both
    assert rows_of(data, "-F", "g_tail1", "-D", "2") == {"g_tail1": [n], "g_tail2": [n]}
    assert rows_of(data, "-D", "1") == {"main": [1]}
    assert rows_of(data, "-t", "200ms") == {"main": [1], "g_slow": [1]}
    no_tail = rows_of(data, "-N", "g_tail1")
    assert "g_tail1" not in no_tail and "g_tail2" not in no_tail
    assert no_tail["g_leaf"] == [full["g_leaf"][0] - n]
    assert {k: v for k, v in no_tail.items() if k != "g_leaf"} == \
        {k: v for k, v in full.items() if k not in ("g_tail1", "g_tail2", "g_leaf")}
    # the filtered function's tree, and the same under -N of a callee
    out = lptrace("graph", "-i", data, "-N", "g_leaf", "g_tail1").stdout.splitlines()
    assert [ln.split(":")[1].strip() for ln in out[1:]] == ["g_tail1", "+-g_tail2"]


REPLAY_LINE = re.compile(r"^ *(?:[\d.]+ [nmu ]s)? +\[ *(\d+)\] \| ( *)(.*)$")


def replay_lines(data, *opts):
    """replay's lines as (tid, depth, kind, name), like graph_lines."""
    out = lptrace("replay", "-i", data, *opts).stdout.splitlines()
    assert out[0] == "# DURATION     TID     FUNCTION"
    lines = []
    for line in out[1:]:
        m = REPLAY_LINE.match(line)
        assert m, f"bad line {line!r}"
        tid, depth, body = int(m.group(1)), len(m.group(2)) // 2, m.group(3)
        if body.endswith("() {"):
            lines.append((tid, depth, "open", body[:-4]))
        elif body.endswith("();"):
            lines.append((tid, depth, "leaf", body[:-3]))
        else:
            m2 = re.match(r"^\} // (\S+)$", body)
            assert m2, f"bad line {line!r}"
            lines.append((tid, depth, "close", m2.group(1)))
    return lines


def test_replay(graph_prog, tmp_path):
    """replay nests as the program called (the same calls, in the same
    order, as the ftrace text, which the tests above hold to the
    program), and -F shows a function's own subtree from depth 0."""
    _, data = record(tmp_path, graph_prog, "--graph")
    lines = replay_lines(data)
    check_balanced(lines)
    assert lines == graph_lines(data)
    names = [(d, k, nm) for _, d, k, nm in lines]
    i = names.index((1, "open", "g_tail1"))
    assert names[i:i + 4] == [(1, "open", "g_tail1"), (2, "open", "g_tail2"),
                              (3, "leaf", "g_leaf"), (2, "close", "g_tail2")]
    sub = [(d, k, nm) for _, d, k, nm in replay_lines(data, "-F", "g_tail1")]
    assert sub == [(0, "open", "g_tail1"), (1, "open", "g_tail2"),
                   (2, "leaf", "g_leaf"), (1, "close", "g_tail2"),
                   (0, "close", "g_tail1")] * GRAPH_LOOPS


def test_info(graph_prog, tmp_path):
    proc, data = record(tmp_path, graph_prog, "--graph")
    out = lptrace("info", "-i", data).stdout
    fields = dict(re.findall(r"^(\w[\w ]*?):\s+(.*)$", out, re.M))
    events = end_record(data)[0]
    assert fields["program"] == str(graph_prog)
    assert fields["mode"] == "function graph (entries and exits)"
    assert fields["events"] == f"{events} (END record: {events})"
    assert fields["losses"].startswith("dropped 0, overwritten 0, recursed 0")
    assert fields["ended"] == "normally" and fields["threads"] == "1"
    m = re.search(r"^ +(\d+)  (\S+) +(\d+) events$", out, re.M)
    assert m and int(m.group(3)) == events
    assert re.search(rf"^lptrace: {re.escape(str(data))}: {events} events from 1 threads, 0 dropped$",
                     proc.stderr, re.M)
    assert int(fields["functions"].split()[0]) >= 15


def test_folded(graph_prog, tmp_path):
    """Folded stacks: main's paths, and their self times add up to the
    time of main (its "X" event in the Chrome JSON, to the ns)."""
    _, data = record(tmp_path, graph_prog, "--graph")
    out = lptrace("dump", "--folded", "-i", data).stdout.splitlines()
    stacks = {}
    for line in out:
        stack, ns = line.rsplit(" ", 1)
        assert stack not in stacks
        stacks[stack] = int(ns)
    assert "main;g_tail1;g_tail2;g_leaf" in stacks
    assert all(s == "main" or s.startswith("main;") for s in stacks)
    doc = json.loads(lptrace("dump", "--chrome", "-i", data).stdout)
    main = [e for e in doc["traceEvents"] if e.get("name") == "main"]
    assert len(main) == 1 and main[0]["ph"] == "X"
    assert sum(stacks.values()) == round(main[0]["dur"] * 1000)
    no_tail2 = lptrace("dump", "--folded", "-N", "g_tail2", "-i", data).stdout
    assert "g_tail2" not in no_tail2 and "\nmain;g_tail1 " in no_tail2


def test_chrome_time_range(graph_prog, tmp_path):
    """-r keeps the calls that start in the window, as counted from the
    whole dump."""
    _, data = record(tmp_path, graph_prog, "--graph")
    def events(*opts):
        doc = json.loads(lptrace("dump", "--chrome", "-i", data, *opts).stdout)
        return [e for e in doc["traceEvents"] if e["ph"] != "M"]
    full = events()
    t0 = min(e["ts"] for e in full)
    # g_slow sleeps 300 ms: the window before it and the one after
    slow = next(e for e in full if e["name"] == "g_slow")
    cut = (slow["ts"] - t0) / 1000 + 1          # ms, just after g_slow starts
    early = events("-r", f"0ns~{int(cut)}ms")
    late = events("-r", f"{int(cut)}ms~")
    want_early = [e for e in full if e["ts"] - t0 < int(cut) * 1000]
    assert len(early) == len(want_early) and len(early) + len(late) == len(full)
    assert "g_slow" in {e["name"] for e in early}
    assert all(e["ts"] - t0 >= int(cut) * 1000 for e in late)


def test_tid_filter_and_memory(demo_prog, tmp_path):
    """The demo's four worker threads: each thread's report adds up to
    the whole, replay --tid shows one thread, and report's peak memory
    stays small (it holds functions and open calls, not the events)."""
    data = tmp_path / "mt.data"
    run([demo_prog / "demo"], env={"LPTRACE_FILTER": "*", "LPTRACE_GRAPH": "1",
                                   "LPTRACE_DATA": data})
    info = lptrace("info", "-i", data).stdout
    tids = [int(t) for t, _ in re.findall(r"^ +(\d+)  \S+ +(\d+) events$", info, re.M)]
    assert len(tids) >= 4
    total = {k: sum(v) for k, v in rows_of(data).items()}
    summed = {}
    for tid in tids:
        for k, v in rows_of(data, "--tid", str(tid)).items():
            summed[k] = summed.get(k, 0) + sum(v)
    assert summed == total
    lines = replay_lines(data, "--tid", str(tids[1]))
    assert lines and {t for t, _, _, _ in lines} == {tids[1]}
    if not shutil.which("/usr/bin/time"):
        return
    events = end_record(data)[0]
    proc = run(["/usr/bin/time", "-f", "maxrss_kb=%M", LPTRACE, "report",
                "-i", data])
    kb = int(re.search(r"maxrss_kb=(\d+)", proc.stderr).group(1))
    assert events > 500000 and kb < 16 * 1024, (events, kb)
