"""The tree's shape.

From its #include lines (scripts/include-graph.py): no circle among the
modules of linkpass/ (a module is X.c with X.h; one uses another by
including its header or calling a function it defines).

From the objects' own symbols (nm), which no header can hide: in each of
linkpass/, runtime/ and lptrace/, file A uses file B when A's object
leaves undefined a symbol B's object defines, and that graph has no
circle.

Each checker is also shown to see a circle where there is one."""

import re
import sys

import pytest

from lptest import REPO, require_tools, run, write

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
    # the tool needs nothing of the tree but include/, and the library
    # nothing of its command
    assert re.fullmatch(r"\[\d+ C files\] -> include/ \(\d+\)",
                        lines["linkpass/"]), lines
    assert "runtime/" in lines["lptrace/"] and "lptrace/" not in lines["runtime/"]


# ---------------------------------------------------------------------------
# The file-level symbol graph, from nm

# nm's type letters: what an object leaves for another to define, and
# the global definitions another may use.  A weak undefined reference
# (w, v) is no use: the object works when nothing defines it, so a lower
# file could be plugged into from above through one, hidden from the
# graph.  Only the plugs PLUGS names may be weak references between our
# files: none, as every file calls what it uses directly.
NM_USES = set("U")
NM_WEAK_REFS = set("wv")
NM_LOCAL_OR_DEBUG = set("abdginprstN-?")
PLUGS = set()


def object_symbols(obj, weak=None):
    """(defined, used): the global symbols @obj defines, and the ones it
    leaves undefined, as `nm -P` lists them; its weak references are
    added to the set @weak when given."""
    out = run(["nm", "-P", obj]).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in NM_USES:
            used.add(name)
        elif kind in NM_WEAK_REFS:
            if weak is not None:
                weak.add(name)
        elif kind not in NM_LOCAL_OR_DEBUG:
            defined.add(name)
    return defined, used


def symbol_graph(objects):
    """{file: {used file: [symbols]}} for @objects, {file: object path}."""
    syms = {name: object_symbols(obj) for name, obj in objects.items()}
    graph = {}
    for a, (_, used) in syms.items():
        graph[a] = {}
        for b, (defined, _) in syms.items():
            common = sorted(used & defined)
            if b != a and common:
                graph[a][b] = common
    return graph


def find_circle(graph):
    """A circle of @graph as a list [a, b, ..., a], or None (depth first,
    files and their edges in name order, so the answer is stable)."""
    state = {}		# absent: not seen; 1: on the path; 2: done
    path = []

    def visit(a):
        state[a] = 1
        path.append(a)
        for b in sorted(graph[a]):
            if state.get(b) == 1:
                return path[path.index(b):] + [b]
            if b not in state:
                found = visit(b)
                if found:
                    return found
        path.pop()
        state[a] = 2
        return None

    for a in sorted(graph):
        if a not in state:
            found = visit(a)
            if found:
                return found
    return None


def describe_circle(graph, circle):
    """`a -> b -> a`, each arrow with the symbols behind it."""
    steps = [f"{a} -> {b} ({', '.join(graph[a][b][:4])})"
             for a, b in zip(circle, circle[1:])]
    return " -> ".join(circle) + ": " + "; ".join(steps)


def make_objects(*targets):
    run(["make", "-C", REPO, *targets], timeout=600)


def built_objects(folder, tmp_path):
    """{file stem: object} of @folder, as the normal build makes them:
    linkpass/ into build/linkpass/ (Makefile), runtime/ into
    build/runtime/ (runtime/runtime.mk, entry.S's too; dso-fentry.S is
    lptrace-dso.o, linked into libraries, not part of liblptrace.a).
    lptrace/lptrace.mk compiles its files straight into the command, so
    they are compiled here one by one with its flags."""
    require_tools("make", "gcc", "nm")
    srcs = sorted((REPO / folder).glob("*.c"))
    if folder == "linkpass":
        make_objects("linkpass/linkpass")
        return {c.stem: REPO / "build" / "linkpass" / f"{c.stem}.o"
                for c in srcs}
    if folder == "runtime":
        make_objects("runtime")
        srcs += sorted((REPO / folder).glob("*.S"))
        srcs = [s for s in srcs if s.name != "dso-fentry.S"]
        return {c.stem: REPO / "build" / "runtime" / f"{c.stem}.o"
                for c in srcs}
    objects = {}
    for c in srcs:
        obj = tmp_path / f"{c.stem}.o"
        run(["gcc", "-O2", "-std=gnu11", "-D_GNU_SOURCE",
             "-I", REPO / "include", "-I", REPO / "runtime",
             "-c", c, "-o", obj])
        objects[c.stem] = obj
    return objects


@pytest.mark.parametrize("folder", ["linkpass", "runtime", "lptrace"])
def test_no_symbol_circle(folder, tmp_path):
    """No two files of @folder use each other, however many files the
    circle goes through, whatever headers declare the symbols."""
    objects = built_objects(folder, tmp_path)
    graph = symbol_graph(objects)
    assert len(graph) > 5, graph
    circle = find_circle(graph)
    assert circle is None, \
        f"{folder}: symbol circle " + describe_circle(graph, circle)


@pytest.mark.parametrize("folder", ["linkpass", "runtime", "lptrace"])
def test_weak_references_are_only_the_plugs(folder, tmp_path):
    """The symbol graph leaves weak references out, so none between our
    files may be anything but a declared plug (PLUGS): a weak reference
    elsewhere would hide a use, and a circle with it."""
    objects = built_objects(folder, tmp_path)
    defined, weak = set(), set()
    for obj in objects.values():
        defined |= object_symbols(obj, weak)[0]
    assert weak & defined <= PLUGS, sorted(weak & defined - PLUGS)


def test_a_symbol_circle_is_found(tmp_path):
    """The checker finds the circle of two made-up files that call each
    other with no header at all, and names it; a third file that only
    uses them takes no part in it."""
    require_tools("gcc", "nm")
    d = tmp_path / "pair"
    write(d / "one.c", "int two(int);\nint one(int n)\n{\n\treturn n ? two(n - 1) : 0;\n}\n")
    write(d / "two.c", "int one(int);\nint two(int n)\n{\n\treturn n ? one(n - 1) : 1;\n}\n")
    write(d / "main.c", "int one(int);\nint main(void)\n{\n\treturn one(3);\n}\n")
    objects = {}
    for name in ("main", "one", "two"):
        objects[name] = d / f"{name}.o"
        run(["gcc", "-O2", "-c", d / f"{name}.c", "-o", objects[name]])
    graph = symbol_graph(objects)
    assert graph == {"main": {"one": ["one"]}, "one": {"two": ["two"]},
                     "two": {"one": ["one"]}}, graph
    circle = find_circle(graph)
    assert circle == ["one", "two", "one"], circle
    assert describe_circle(graph, circle) == \
        "one -> two -> one: one -> two (two); two -> one (one)"
    # and without the call back, no circle
    write(d / "two.c", "int two(int n)\n{\n\treturn n;\n}\n")
    run(["gcc", "-O2", "-c", d / "two.c", "-o", objects["two"]])
    assert find_circle(symbol_graph(objects)) is None
