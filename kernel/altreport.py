#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kernel/altreport.py RESULTS [-o FILE]

Turns the facts kernel/alternatives.sh measured (RESULTS/<arch>.facts,
"name=value" lines, one file per architecture) into the tables of
docs/kernel.md's "The alternatives, measured": per architecture, one
table with a column per way of making vmlinux's mcount table (stock,
the series, the vmlinux.o stage with linkpass obj, and on x86 with
objtool), and one table of sorttable reading .symtab against nm -S +
sorttable -s.  Prints them (markdown); -o also writes them to FILE.
"""

import argparse
import pathlib
import sys

ORDER = ("x86_64", "arm64", "riscv64")
# The ways, in column order, with their headings.
WAYS = (
    ("stock", "stock (per-object, nm -S + sorttable -s)"),
    ("lp", "the series"),
    ("obj", "vmlinux.o + linkpass obj"),
    ("objtool", "vmlinux.o + objtool --mcount"),
)


def parse(text):
    """The facts of one file: a dict of name to value (a later line wins)."""
    facts = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep and name and not name.startswith("#"):
            facts[name.strip()] = value.strip()
    return facts


def load(results):
    """The facts of every architecture in RESULTS, in ORDER."""
    found = {}
    for path in pathlib.Path(results).glob("*.facts"):
        facts = parse(path.read_text())
        if "arch" in facts:
            found[facts["arch"]] = facts
    return [found[a] for a in sorted(found, key=lambda a: (ORDER.index(a) if a in ORDER else 99, a))]


def num(value):
    """@value as a float, or None when it is empty or not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def count(value):
    """An integer with thousands separators; "—" when unknown."""
    n = num(value)
    return "—" if n is None else f"{int(n):,}"


def msec(value):
    n = num(value)
    return "—" if n is None else f"{n:.1f}"


def mib(value):
    n = num(value)
    return "—" if n is None else f"{n / 1048576:.1f}"


def total(*parts):
    """The sum of the numbers given (a part written as (x, -1) is
    subtracted); None when one is unknown."""
    acc = 0.0
    for part in parts:
        sign = 1
        if isinstance(part, tuple):
            part, sign = part
        n = num(part)
        if n is None:
            return None
        acc += sign * n
    return acc


def postlink(f, way):
    """The post-link mcount work of @way, in ms, and how it is made up:
    every timed step, less the sorting that sorttable does for every way
    (the series' sorttable, which has no mcount code, on the same kind of
    image: symtab_sort_base)."""
    base = f.get("symtab_sort_base")
    if way == "stock":
        parts = [("nm -S", f.get("stock_pl_nm")), ("sorttable -s", f.get("stock_pl_sort"))]
    elif way == "lp":
        parts = [("scans", f.get("lp_pl_scan")), ("assembly", f.get("lp_pl_as")),
                 ("check and link-time states", f.get("lp_pl_check"))]
        base = None
    elif way == "obj":
        parts = [("linkpass obj", f.get("obj_pl_obj")), ("sorttable", f.get("obj_pl_sort"))]
    else:
        # objtool's share is the difference of two runs of a second or
        # more; below their noise it reads as 0, and both runs are shown
        mc = total(f.get("objtool_pl_full"), (f.get("objtool_pl_nomcount"), -1))
        if mc is not None and mc < 0:
            mc = 0.0
        parts = [(f"objtool's --mcount --mnop ({msec(f.get('objtool_pl_full'))} "
                  f"against {msec(f.get('objtool_pl_nomcount'))} without)",
                  None if mc is None else f"{mc}"),
                 ("nm -S", f.get("objtool_pl_nm")), ("sorttable -s", f.get("objtool_pl_sort"))]
    work = total(*(v for _, v in parts), *([(base, -1)] if base is not None else []))
    how = " + ".join(f"{name} {msec(v)}" for name, v in parts)
    if base is not None:
        how += f" − sorting {msec(base)}"
    return work, how


def dead(f, way):
    """Dead entries of @way's table: zeroed words, and entries the check
    found stale (an entry at no live function's site)."""
    return f"{count(f.get(f'{way}_zero'))} zeroed, {count(f.get(f'{way}_stale'))} stale"


def arch_table(f):
    """The side-by-side table of one architecture."""
    ways = [(w, h) for w, h in WAYS if f"{w}_entries" in f]
    rows = []

    def row(label, cell):
        rows.append(f"| {label} | " + " | ".join(cell(w) for w, _ in ways) + " |")

    row("post-link mcount work, ms (median)", lambda w: msec(postlink(f, w)[0]))
    row("made of", lambda w: postlink(f, w)[1])
    row("vmlinux links per build", lambda w: f"{count(f.get(f'{w}_links'))}, from {f.get(f'{w}_link_input', '?')}")
    row("one vmlinux link, ms (median)", lambda w: msec(f.get(f"{w}_link_ms")))
    row("MiB: `vmlinux.unstripped` / `vmlinux` / `vmlinux.o`",
        lambda w: " / ".join(mib(f.get(f"{w}_size_{k}"))
                             for k in ("unstripped", "vmlinux", "vmlinux_o")))
    row("modules (.ko, unsigned), KiB", lambda w: _kib(f.get(f"{w}_size_kos"), f.get(f"{w}_kos")))
    row("table entries", lambda w: count(f.get(f"{w}_entries")))
    row("dead entries", lambda w: dead(f, w))
    row("`linkpass check`", lambda w: _check(f, w))
    row("boot: entries allocated; `__ftrace_invalid_address` lines; the boot script",
        lambda w: f"{count(f.get(f'{w}_allocated'))}; {count(f.get(f'{w}_invalid'))}; "
                  f"{f.get(f'{w}_boot', '—')}")
    row("boot: sites converted / records", lambda w: f"{count(f.get(f'{w}_boot_converted'))} / {count(f.get(f'{w}_boot_records'))}")
    row("boot: `ftrace_update_code()` µs", lambda w: msec(f.get(f"{w}_boot_update_us")))
    row("module sites; converted at load", lambda w: f"{count(f.get(f'{w}_ko_entries'))}; {count(f.get(f'{w}_mod_converted'))}")
    head = "| | " + " | ".join(h for _, h in ways) + " |"
    sep = "|---|" + "---:|" * len(ways)
    return "\n".join([head, sep, *rows])


def _kib(size, n):
    s = num(size)
    return "—" if s is None else f"{s / 1024:.0f} ({count(n)} files)"


def _check(f, way):
    """ok, or the counts the check found; and how it read the sites."""
    mode = f.get(f"{way}_check_mode", "?")
    how = "relocations" if mode == "relocs" else "byte audit"
    if f.get(f"{way}_check_exit") == "0":
        return f"ok ({how})"
    return f"{count(f.get(f'{way}_missing'))} missing, {count(f.get(f'{way}_stale'))} stale ({how})"


def symtab_table(all_facts):
    """sorttable reading .symtab against nm -S + sorttable -s, one row
    per architecture."""
    lines = ["| arch | nm -S | sorttable -s | nm -S + sorttable -s | sorttable -y (.symtab) | "
             "sorttable without mcount work | zeroed: -s / -y | entries that differ |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for f in all_facts:
        if "symtab_sort_y" not in f:
            continue
        both = total(f.get("symtab_nm"), f.get("symtab_sort_s"))
        lines.append(
            f"| {f['arch']} | {msec(f.get('symtab_nm'))} | {msec(f.get('symtab_sort_s'))} | "
            f"{msec(both)} | {msec(f.get('symtab_sort_y'))} | {msec(f.get('symtab_sort_base'))} | "
            f"{count(f.get('symtab_zero_s'))} / {count(f.get('symtab_zero_y'))} | "
            f"{count(f.get('symtab_differ'))} |")
    return "\n".join(lines)


def report(all_facts):
    out = []
    for f in all_facts:
        out.append(f"**{f['arch']}** ({f.get('cc', '?')}, {f.get('ld', '?')}; "
                   f"measured {f.get('date', '?')} at {f.get('commit', '?')})\n")
        out.append(arch_table(f) + "\n")
    out.append("**sorttable reading .symtab** (ms, median; each on a fresh copy of "
               "stock's last kallsyms link, before any sorttable)\n")
    out.append(symtab_table(all_facts) + "\n")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    facts = load(args.results)
    if not facts:
        print(f"altreport.py: {args.results}: no facts", file=sys.stderr)
        return 2
    text = report(facts)
    print(text)
    if args.output:
        pathlib.Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
