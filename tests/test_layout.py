"""The tree's shape, from its #include lines (scripts/include-graph.py):
no circle among the modules of linkpass/ (a module is X.c with X.h; one
uses another by including its header or calling a function it
defines), and the checker does see a circle where there is one."""

import re
import sys

from lptest import REPO, run, write

GRAPH = REPO / "scripts" / "include-graph.py"


def graph(*args):
    return run([sys.executable, GRAPH, *args], check=False)


def test_no_include_circle_in_linkpass():
    proc = graph("--check", "linkpass")
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.startswith("linkpass: ") and \
        proc.stdout.rstrip().endswith("no include circle"), proc.stdout


def test_a_circle_through_a_shared_header_is_found(tmp_path):
    """Two files that call each other through one header neither owns
    (as check_obj.c and cmd_check.c did through check.h)."""
    d = tmp_path / "two"
    write(d / "shared.h", "int one(void);\nint two(void);\n")
    write(d / "one.c", '#include "shared.h"\nint one(void)\n{\n\treturn two();\n}\n')
    write(d / "two.c", '#include "shared.h"\nint two(void)\n{\n\treturn one();\n}\n')
    write(d / "main.c", '#include "shared.h"\nint main(void)\n{\n\treturn one();\n}\n')
    proc = graph("--check", d)
    assert proc.returncode == 1, proc.stdout
    assert f"{d}: include circle among one, two: one -> two -> one" in \
        proc.stdout, proc.stdout


def test_tree_graph_names_the_folders():
    """Each product in its folder: the tool, the library, the command,
    the driver, the kernel harness, the benchmarks, the tests."""
    lines = dict(ln.split(" ", 1) for ln in graph().stdout.splitlines())
    for f in ("linkpass/", "runtime/", "lptrace/", "scripts/", "kernel/",
              "bench/", "tests/"):
        assert f in lines, lines
    # the tool needs nothing of the tree but include/ (it is copied into
    # kernel trees), and the library nothing of its command
    assert re.fullmatch(r"\[\d+ C files\] -> include/ \(\d+\)",
                        lines["linkpass/"]), lines
    assert "runtime/" in lines["lptrace/"] and "lptrace/" not in lines["runtime/"]
