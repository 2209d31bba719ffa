"""The runtime's fault matrix (issue 11): programs that block signals,
fork, spawn, run under a debugger, start 20,000 threads, fail their
init, or set LPTRACE_BUFSIZE to nonsense.

One program, tests/runtime/faults.c, runs every case: worker threads
call traced functions and check each result while a toggler thread
enables and disables every site at least 400 times; the case adds its
own trouble in the main thread.  Every case must exit 0 with errors=0
and leave a readable trace file.  Every wait is bounded (in faults.c
and by subprocess timeouts); nothing asserts on time.
"""

import re
import shutil

import pytest

from test_runtime import (TOOLCHAINS, Builder, INT3, describe,
                          entries, is_nop, key_values, read_trace, run,
                          runtime_lib)  # noqa: F401 (fixture)

MIN_TOGGLES = 400
NWORKERS = 3
NCHILDREN = 60
# the "threads" case: short threads made (FAULTS_THREADS of faults.c)
NTHREADS = 20000
TRACED = {"f_add", "f_mix", "f_fib"}


_BUILT = {}


def build_faults(tc_id, request, tmp_path_factory):
    """faults.c built once per toolchain and session."""
    if tc_id not in _BUILT:
        tc = TOOLCHAINS[tc_id]
        b = Builder(tc, tmp_path_factory.mktemp(tc_id), request)
        _BUILT[tc_id] = (b.build("faults"), tc)
    return _BUILT[tc_id]


@pytest.fixture(scope="module", params=["gcc-pie", "clang-nopie"])
def faults(request, tmp_path_factory, runtime_lib):  # noqa: F811
    """faults.c for 6-byte (gcc PIE) and 5-byte (clang) sites."""
    return build_faults(request.param, request, tmp_path_factory)


@pytest.fixture(scope="module")
def faults_gcc(request, tmp_path_factory, runtime_lib):  # noqa: F811
    """One toolchain, for the cases that test parsing, not code."""
    return build_faults("gcc-pie", request, tmp_path_factory)


def run_case(faults, tmp_path, mode, env=None, explicit_out=False,
             timeout=240, parse=True):
    """Run one case; returns (proc, key=values of the summary, trace).
    Small buffers that keep their first events (the default rings keep
    the last ones) keep the trace small."""
    exe, _ = faults
    txt = tmp_path / "trace.txt"
    env = {"LPTRACE_BUFSIZE": "2000", "LPTRACE_KEEP": "first",
           "FAULTS_THREADS": str(NTHREADS), **(env or {})}
    if not explicit_out:
        env["LPTRACE_OUT"] = txt
    proc = run([exe, mode, txt], env=env, timeout=timeout)
    assert "FAIL" not in proc.stdout, describe(proc)
    assert re.search(r"^errors=0$", proc.stdout, re.M), describe(proc)
    summary = key_values("toggles=", proc.stdout)
    return proc, summary, read_trace(txt) if parse else txt.read_text()


def workers(stdout):
    tids = [int(t) for t in re.findall(r"^worker \d+ tid (\d+)$", stdout, re.M)]
    assert len(tids) == NWORKERS
    return tids


def check_traced(proc, events):
    """Every worker was traced, by its own tid, with the right names."""
    by_tid = {}
    for e in events:
        by_tid.setdefault(e["tid"], set()).add(e["func"])
    for tid in workers(proc.stdout):
        assert TRACED & by_tid.get(tid, set()), f"worker {tid} never traced"


# ---------------------------------------------------------------------------
# The matrix: every case toggles >= 400 times while 3 workers run


@pytest.mark.parametrize("mode", ["blocked", "handler", "sigwait", "altstack"])
def test_signals(faults, tmp_path, mode):
    """SIGTRAP blocked by pthread_sigmask, by a sigfillset sa_mask, in
    sigwait/signalfd threads; a small alternate signal stack."""
    proc, summary, events = run_case(faults, tmp_path, mode)
    assert int(summary["toggles"]) >= MIN_TOGGLES
    check_traced(proc, events)
    # each worker's first event calls faults.c's traced gettid(): dropped,
    # counted, never recorded
    assert int(summary["recursed"]) >= NWORKERS
    assert "gettid" not in {e["func"] for e in events}
    if mode in ("handler", "sigwait"):
        assert int(summary["sig_runs"]) > 0
    if mode == "handler":
        assert any(e["func"] == "f_sig" and e["caller"] == "on_usr1"
                   for e in events)


@pytest.mark.parametrize("mode", ["handler", "altstack", "sigwait", "forks",
                                  "threads"])
def test_graph_mode(faults, tmp_path, mode):
    """The same cases in function-graph mode: every traced call returns
    through the tracer's trampoline, in signal handlers (on an alternate
    stack too), in forked children (which return through frames they
    inherited) and in 20,000 short threads."""
    proc, summary, text = run_case(faults, tmp_path, mode,
                                   env={"LPTRACE_GRAPH": "1"}, parse=False)
    assert int(summary["toggles"]) >= MIN_TOGGLES
    assert text.startswith("# tracer: function_graph (lptrace)\n")
    assert re.search(r"\| +f_\w+\(\);$", text, re.M), text[:2000]


def test_forks(faults, tmp_path):
    """60 children call traced code, toggle and exit(): each writes its
    own file, with its own tid, and the parent's file is the parent's."""
    proc, summary, events = run_case(faults, tmp_path, "forks")
    assert int(summary["toggles"]) >= MIN_TOGGLES
    check_traced(proc, events)
    children = [int(p) for p in re.findall(r"^child (\d+)$", proc.stdout, re.M)]
    assert len(children) == NCHILDREN
    assert "f_child" not in {e["func"] for e in events}
    parent_tids = {e["tid"] for e in events}
    for pid in children:
        kids = read_trace(tmp_path / f"trace.txt.{pid}")
        # the child inherits the parent's sites, enabled or not
        assert [e["func"] for e in kids].count("f_child") == 4, pid
        assert {e["tid"] for e in kids} == {pid}
        assert pid not in parent_tids


@pytest.mark.parametrize("mode", ["vfork", "spawn"])
def test_vfork_and_posix_spawn(faults, tmp_path, mode):
    proc, summary, events = run_case(faults, tmp_path, mode)
    assert int(summary["toggles"]) >= MIN_TOGGLES
    check_traced(proc, events)


def test_20000_short_threads(faults, tmp_path):
    """Buffers of exited threads are reused: the mappings stay few."""
    proc, summary, events = run_case(faults, tmp_path, "threads")
    assert int(summary["toggles"]) >= MIN_TOGGLES
    stats = key_values("threads=", proc.stdout)
    assert stats["threads"] == str(NTHREADS)
    # without reuse: a buffer per thread that ever traced (tens of thousands)
    assert int(stats["buffers"]) <= 4 * (NWORKERS + 16 + 2), stats
    assert int(stats["maps"]) < 500, stats
    check_traced(proc, events)
    assert len({e["tid"] for e in events}) > NWORKERS + 1


def test_init_failure_and_retry(faults, tmp_path):
    """An init that fails after its int3 step leaves every site behind
    int3 (still correct); the next lpt_init() finishes the job."""
    exe, tc = faults
    proc, summary, events = run_case(faults, tmp_path, "initfail",
                                     env={"LPTRACE": "off"},
                                     explicit_out=True)
    assert "init1=-13" in proc.stdout
    ent = entries(proc.stdout)
    assert ent["after-fail"].startswith(INT3)
    assert "init2=0" in proc.stdout
    assert is_nop(ent["after-retry"], tc.site_len), ent["after-retry"]
    assert "sites left behind int3" in proc.stderr
    assert int(summary["toggles"]) >= MIN_TOGGLES
    check_traced(proc, events)


def test_refused_site_with_int3_chains(faults, tmp_path):
    """A site holding the program's own int3 is refused; its traps go to
    the program's handler, every time, no loop."""
    proc, summary, _ = run_case(faults, tmp_path, "refused",
                                env={"LPTRACE": "off"}, explicit_out=True)
    assert "init=0" in proc.stdout
    assert "victim_traps=1000" in proc.stdout
    assert re.search(r"site 0x[0-9a-f]+ \(f_victim\+0x0\): unexpected bytes, "
                     r"expected call __fentry__: cc ", proc.stderr), proc.stderr
    assert int(summary["toggles"]) >= MIN_TOGGLES


def test_foreign_bytes_not_rewritten(faults, tmp_path):
    """Bytes changed behind the runtime's back (as a debugger does) are
    checked before every rewrite: that site is left alone, reported once;
    once they are back, it is rewritten again."""
    proc, summary, _ = run_case(faults, tmp_path, "foreign")
    assert "skipped-while-planted=1" in proc.stdout
    assert "skipped-after=0" in proc.stdout
    msgs = re.findall(r"site 0x[0-9a-f]+ \(f_victim\): holds cc [0-9a-f ]+, "
                      r"not what lptrace wrote", proc.stderr)
    assert len(msgs) == 1, proc.stderr
    assert int(summary["toggles"]) >= MIN_TOGGLES


GDB_SCRIPT = """\
set pagination off
set confirm off
set $hits = 0
break *f_bp
commands
silent
set $hits = $hits + 1
continue
end
run gdb > {out}
printf "gdb-hits=%d\\n", $hits
"""


def test_under_gdb_with_breakpoint(faults, tmp_path):
    """Traced from the start under gdb, with a breakpoint on a traced
    function: the breakpoint's site is refused, the program runs to the
    end, and rewrites while threads run are refused (gdb would take the
    int3 traps) instead of killing the program."""
    if not shutil.which("gdb"):
        pytest.skip("not installed: gdb")
    exe, _ = faults
    script = tmp_path / "cmds.gdb"
    prog_out = tmp_path / "stdout.txt"     # not mixed with gdb's own lines
    script.write_text(GDB_SCRIPT.format(out=prog_out))
    txt = tmp_path / "trace.txt"
    proc = run(["gdb", "-batch", "-nx", "-x", script, exe],
               env={"LPTRACE_OUT": txt, "LPTRACE_BUFSIZE": "2000",
                    "LPTRACE_FILTER": "f_*"}, timeout=240)
    out = proc.stdout + proc.stderr
    stdout = prog_out.read_text()
    assert "exited normally" in out, describe(proc)
    assert "gdb-hits=20" in out
    assert re.search(r"^errors=0$", stdout, re.M), stdout
    assert re.search(r"site 0x[0-9a-f]+ \(f_bp\+0x0\): unexpected bytes", out)
    summary = key_values("toggles=", stdout)
    assert int(summary["toggles"]) >= MIN_TOGGLES
    assert int(summary["refusals"]) >= MIN_TOGGLES   # every toggle, refused
    assert out.count("a debugger is attached and would take our int3 traps") == 1
    proc.stdout = stdout
    check_traced(proc, read_trace(txt))


BUFSIZE_MSG = ("lptrace: faults: LPTRACE_BUFSIZE={}: not a number from 1 to "
               "268435456; using 262144")


@pytest.mark.parametrize("value", ["0", "1", str(2 ** 40), "junk"])
def test_bufsize_limits(faults_gcc, tmp_path, value):
    proc, summary, events = run_case(faults_gcc, tmp_path, "plain",
                                     env={"LPTRACE_BUFSIZE": value,
                                          "LPTRACE_KEEP": "last"})
    assert int(summary["toggles"]) >= MIN_TOGGLES
    if value == "1":
        assert "LPTRACE_BUFSIZE" not in proc.stderr
        counts = {}
        for e in events:
            counts[e["tid"]] = counts.get(e["tid"], 0) + 1
        # a ring of one: each thread keeps at most its latest event (none
        # if the thread still runs at exit: that slot may be mid-write),
        # and counts the ones it replaced; nothing is dropped
        assert max(counts.values(), default=0) <= 1
        assert int(summary["overwritten"]) > 0
        assert int(summary["dropped"]) == 0
    else:
        assert BUFSIZE_MSG.format(value) in proc.stderr.splitlines()
        check_traced(proc, events)


# ---------------------------------------------------------------------------
# Beyond the matrix: no SYNC_CORE, other environment words


def test_no_sync_core_refuses_while_threads_run(faults, tmp_path):
    """Without membarrier SYNC_CORE (forced by LPTRACE_SYNC=none) code is
    rewritten only while one thread runs: start-up NOPs and enabling once
    alone work; enabling while threads run is -EBUSY with a message."""
    proc, summary, events = run_case(faults, tmp_path, "nosync",
                                     env={"LPTRACE_SYNC": "none"})
    assert "enable-threaded=-16" in proc.stdout
    assert ("LPTRACE_SYNC=none: code is not rewritten while 3 other threads run"
            in proc.stderr), proc.stderr
    assert "enable-alone=1 f_add=4" in proc.stdout
    assert summary["sync"] == "single-thread-only"
    assert [e["func"] for e in events] == ["f_add"]


def test_bad_environment_words(faults_gcc, tmp_path):
    proc, _, _ = run_case(faults_gcc, tmp_path, "plain",
                          env={"LPTRACE_SYNC": "expedited",
                               "LPTRACE_VERBOSE": "yes", "LPTRACE": "of"})
    lines = proc.stderr.splitlines()
    assert ("lptrace: faults: LPTRACE_SYNC=expedited: not one of sync_core, "
            "none; using sync_core") in lines
    assert ("lptrace: faults: LPTRACE_VERBOSE=yes: not a number from 0 to 1; "
            "using 0") in lines
    assert "lptrace: faults: LPTRACE=of: not one of on, off; using on" in lines
