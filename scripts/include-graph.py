#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The import graph of the tree, from its #include lines.

    scripts/include-graph.py              each folder, and the folders it
                                          includes from (with the count)
    scripts/include-graph.py --modules D  the modules of folder D, one line each
    scripts/include-graph.py --check D    exit 1 when D's modules form a circle

A module is a file stem: X.c and X.h are module X.  Module A uses module
B when A.c or A.h includes B.h, and when A.c calls a function that B.c
defines (through whichever header declares it: check.h declared
functions of both cmd_check.c and check_obj.c, which called each other).
--check prints each circle it finds (`a -> b -> a`) with the modules
that take part in it.

Includes are resolved as the Makefiles' -I flags resolve them: the
including file's folder, then include/, then linkpass/ and runtime/.
"""

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# the folders the graph shows, in this order; other files are left out
FOLDERS = ["linkpass", "runtime", "lptrace", "include", "scripts", "kernel",
           "bench", "fuzz", "demo", "tests"]
SEARCH = ["include", "linkpass", "runtime"]

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a function definition: a name at the start of a line or after its
# return type, its parameters, then the body's brace on the next line
_DEF = re.compile(r"^([^\n#;{}()]*?)\b(\w+)\(([^;{}]*?)\)\s*\n\{", re.M)
# a call by name; one through a struct member (p->fn(), t.fn()) goes
# through a pointer some table holds, not to a function of that name
_CALLISH = re.compile(r"(?<!->)(?<!\.)\b(\w+)\s*\(")


def sources():
    for folder in FOLDERS:
        for p in sorted((REPO / folder).rglob("*")):
            if p.suffix in (".c", ".h", ".S", ".cc") and p.is_file():
                yield p


def includes(path):
    """The files @path includes that are in the tree, resolved."""
    text = path.read_text(errors="replace")
    out = []
    for name in _INCLUDE.findall(text):
        for base in [path.parent] + [REPO / d for d in SEARCH]:
            cand = (base / name).resolve()
            if cand.is_file() and REPO in cand.parents:
                out.append(cand)
                break
    return out


def folder(path):
    return path.relative_to(REPO).parts[0]


def folder_graph():
    edges = defaultdict(int)
    for src in sources():
        for inc in includes(src):
            a, b = folder(src), folder(inc)
            if a != b:
                edges[(a, b)] += 1
    return edges


def defined_functions(path):
    """Functions @path (a .c file) defines for other files."""
    text = _COMMENT.sub("", path.read_text(errors="replace"))
    names = set()
    for m in _DEF.finditer(text):
        head = m.group(1)
        line_start = text.rfind("\n", 0, m.start()) + 1
        prev = text[text.rfind("\n", 0, line_start - 1) + 1:line_start]
        if "static" in head or ("static" in prev and not prev.rstrip().endswith(";")):
            continue
        names.add(m.group(2))
    return names


def module_graph(d):
    """{module: set of modules it uses} for folder @d."""
    root = REPO / d
    files = sorted(p for p in root.iterdir() if p.suffix in (".c", ".h"))
    definer = {}
    for p in files:
        if p.suffix == ".c":
            for name in defined_functions(p):
                definer[name] = p.stem
    uses = defaultdict(set)
    for p in files:
        uses[p.stem]
        for inc in includes(p):
            if inc.parent == root:
                uses[p.stem].add(inc.stem)
        if p.suffix == ".c":
            text = _COMMENT.sub("", p.read_text(errors="replace"))
            for name in _CALLISH.findall(text):
                if name in definer:
                    uses[p.stem].add(definer[name])
    for m in uses:
        uses[m].discard(m)
    return uses
def circles(uses):
    """Each strongly connected set of more than one module, as a path."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(uses.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(uses):
        if v not in index:
            visit(v)
    return out


def cycle_path(uses, comp):
    """One circle through the modules of @comp: a -> b -> ... -> a."""
    members = set(comp)
    start = comp[0]
    path, seen = [start], {start}
    while True:
        nxt = sorted(w for w in uses[path[-1]] if w in members)
        back = [w for w in nxt if w == start]
        if back and len(path) > 1:
            return path + [start]
        fresh = [w for w in nxt if w not in seen]
        if not fresh:
            return path + [nxt[0]]
        path.append(fresh[0])
        seen.add(fresh[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modules", metavar="DIR")
    ap.add_argument("--check", metavar="DIR")
    args = ap.parse_args()
    if args.check:
        uses = module_graph(args.check)
        found = circles(uses)
        for comp in found:
            print(f"{args.check}: include circle among {', '.join(comp)}: "
                  + " -> ".join(cycle_path(uses, comp)))
        if not found:
            print(f"{args.check}: {len(uses)} modules, no include circle")
        return 1 if found else 0
    if args.modules:
        for m, used in sorted(module_graph(args.modules).items()):
            print(f"{m}: {' '.join(sorted(used))}")
        return 0
    edges = folder_graph()
    for f in FOLDERS:
        files = [p for p in sources() if folder(p) == f]
        out = [f"{b}/ ({n})" for (a, b), n in sorted(edges.items()) if a == f]
        print(f"{f}/ [{len(files)} C files] -> {', '.join(out) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
