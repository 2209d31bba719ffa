"""C++ exceptions unwinding through function-graph frames
(runtime/unwind.c, graph.c): tests/runtime/throw.cc throws through traced
frames, runs a destructor during the unwinding, catches higher up, and
rethrows; it must run to its end, and the trace must nest exactly as the
calls did (the frames unwound exit when the handler catches).

Truth: the calls throw.cc makes, written out below."""

import shutil

import pytest

import lptest
from test_lptrace import check_balanced, graph_lines, lptrace
from test_runtime import PROGS, REPO, RUNTIME, run, runtime_lib  # noqa: F401

LINK = REPO / "scripts" / "link-vmlinux.sh"


def round_catch(d):
    """catcher(i): middle -> thrower throws; ~guard; caught in catcher."""
    return [(d, "open", "catcher(int)"), (d + 1, "open", "middle(int)"),
            (d + 2, "leaf", "thrower(int)"), (d + 2, "leaf", "guard::~guard()"),
            (d + 1, "close", "middle(int)"), (d + 1, "leaf", "after_catch(int)"),
            (d, "close", "catcher(int)")]


EXPECTED = ([(0, "open", "main")] + round_catch(1) * 3 +
            [(1, "open", "outer(int)"), (2, "open", "rethrower(int)"),
             (3, "open", "middle(int)"), (4, "leaf", "thrower(int)"),
             (4, "leaf", "guard::~guard()"), (3, "close", "middle(int)"),
             (2, "close", "rethrower(int)"), (2, "leaf", "after_catch(int)"),
             (1, "close", "outer(int)"), (0, "close", "main")])


@pytest.mark.parametrize("cxx", ["g++", "clang++"])
def test_exceptions_through_graph_frames(cxx, tmp_path, linkpass, runtime_lib):
    if not shutil.which(cxx):
        pytest.skip(f"not installed: {cxx}")
    obj, exe = tmp_path / "throw.o", tmp_path / "throw"
    run([cxx, "-O2", "-fno-pie", "-pg", "-mfentry", "-c",
         PROGS / "throw.cc", "-o", obj])
    run([LINK, "--linkpass", linkpass.path, exe, "--", cxx, "-no-pie", obj,
         RUNTIME / "liblptrace.a", "-lpthread"], cwd=tmp_path)
    # untraced, and traced in graph mode: the same result
    assert run([exe]).stdout == "sum=22 guards=4\n"
    data = tmp_path / "t.data"
    proc = run([exe], env={"LPTRACE_FILTER": "*", "LPTRACE_GRAPH": "1",
                           "LPTRACE_DATA": data})
    assert proc.stdout == "sum=22 guards=4\n"
    lines = graph_lines(data)
    check_balanced(lines)
    assert [(d, k, n) for _, d, k, n in lines] == EXPECTED
    # entry-only mode is not affected by the wrappers
    proc = run([exe], env={"LPTRACE_FILTER": "*"})
    assert proc.stdout == "sum=22 guards=4\n"
