#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kernel/ftverdicts.py STOCK.log OURS.log VERSION ARCH

Compares the ftracetest verdicts of two boots of
kernel/ftracetest-initramfs.sh's initramfs, stock's and ours, case by
case.  A case is a run of one test.d/**/*.tc file, named by its path
under test.d; a file flagged "instance" runs twice, the second named
NAME (instance).  Its verdict is ftracetest's own (PASS, FAIL,
UNRESOLVED, UNTESTED, UNSUPPORTED, XFAIL, UNDEFINED), or:

  HANG    the case outlived its time limit and was killed, or the guest
          stopped during it (QEMU's timeout): no verdict line
  NOTRUN  listed by the other boot, never started in this one (the
          guest stopped earlier)

Prints each case whose verdicts differ, each case that does not pass
on stock (reported as stock's, the same on both or not), the counts per
suite (test.d's subfolders), and last one line:

  ftracetest: version=V arch=A cases=N same=S differ=D stock_fail=F

(stock_fail: cases whose stock verdict is FAIL, UNRESOLVED, UNDEFINED
or HANG).  Exits 1 when a verdict differs or a boot ran no case.
"""

import re
import sys
from collections import Counter, OrderedDict

# "[N]DESC\t[VERDICT]" after "LPFT-V NAME "; DESC of the second run of
# an instance case starts with " (instance) ".
VERDICT_LINE = re.compile(r"^LPFT-V (\S+) \[\d+\](.*?)(?:\t\[([A-Z]+)\])?\s*$")
CASE_LINE = re.compile(r"^LPFT-(CASE|END|HANG) (\S+)")
VERDICTS = ("PASS", "FAIL", "UNRESOLVED", "UNTESTED", "UNSUPPORTED",
            "XFAIL", "UNDEFINED", "HANG", "NOTRUN")
# verdicts that are not a success or a skip
BAD = {"FAIL", "UNRESOLVED", "UNDEFINED", "HANG"}


def parse(text):
    """{case: verdict} of one boot log, in the order the cases ran."""
    out = OrderedDict()
    started = ended = None
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        m = VERDICT_LINE.match(line)
        if m:
            name, desc, verdict = m.groups()
            if desc.startswith(" (instance) "):
                name += " (instance)"
            # a run killed before ftracetest printed its verdict
            out[name] = verdict or "HANG"
            continue
        m = CASE_LINE.match(line)
        if not m:
            continue
        kind, name = m.groups()
        if kind == "CASE":
            started, ended = name, None
        elif kind == "END":
            ended = name
        elif kind == "HANG" and name not in out:
            out[name] = "HANG"
    # the guest stopped inside a case: no LPFT-END for it
    if started and ended != started and not any(
            k == started or k.startswith(started + " ") for k in out):
        out[started] = "HANG"
    return out


def suite(case):
    return case.split("/", 1)[0] if "/" in case else "."


def compare(stock, ours):
    """(rows, differ, stock_bad): rows is [(case, stock, ours)] over the
    cases of either boot, stock's order first."""
    names = list(stock) + [k for k in ours if k not in stock]
    rows = [(k, stock.get(k, "NOTRUN"), ours.get(k, "NOTRUN"))
            for k in names]
    differ = [r for r in rows if r[1] != r[2]]
    stock_bad = [r for r in rows if r[1] in BAD]
    return rows, differ, stock_bad


def suite_table(rows):
    """Lines of a markdown table: per suite, cases and stock's verdicts
    (ours are the same where differ is 0; a differing case is counted
    in its own column)."""
    per = OrderedDict()
    for case, s, o in sorted(rows):
        c = per.setdefault(suite(case), Counter())
        c["cases"] += 1
        c[s] += 1
        if s != o:
            c["differ"] += 1
    cols = ["cases"] + [v for v in VERDICTS
                        if any(c[v] for c in per.values())] + ["differ"]
    lines = ["| suite | " + " | ".join(c.lower() for c in cols) + " |",
             "|---" * (len(cols) + 1) + "|"]
    total = Counter()
    for name, c in per.items():
        total.update(c)
        lines.append(f"| {name} | " +
                     " | ".join(str(c[k]) for k in cols) + " |")
    lines.append("| all | " + " | ".join(str(total[k]) for k in cols) + " |")
    return lines


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    stock_log, ours_log, version, arch = argv[1:]
    logs = {}
    for kind, path in (("stock", stock_log), ("ours", ours_log)):
        with open(path, errors="replace") as f:
            logs[kind] = parse(f.read())
    rows, differ, stock_bad = compare(logs["stock"], logs["ours"])
    for case, s, o in differ:
        print(f"ftracetest: DIFFER {case}: stock {s}, ours {o}")
    for case, s, o in stock_bad:
        same = "the same on ours" if s == o else f"ours {o}"
        print(f"ftracetest: stock's {s}: {case} ({same})")
    for line in suite_table(rows):
        print(f"ftracetest: {line}")
    ok = not differ and logs["stock"] and logs["ours"]
    for kind in ("stock", "ours"):
        if not logs[kind]:
            print(f"ftracetest: {kind}: no case ran", file=sys.stderr)
    print(f"ftracetest: version={version} arch={arch} cases={len(rows)} "
          f"same={len(rows) - len(differ)} differ={len(differ)} "
          f"stock_fail={len(stock_bad)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
