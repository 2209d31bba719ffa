#!/usr/bin/python3
"""Which functions of a linked image really start with a traced call.

    oracle.py IMAGE [--manifest M --gc 0|1 --lto 0|1]

An independent check for linkpass and for gen.py's manifest, built only on
binutils: `objdump -d` finds every call to an mcount symbol, `readelf`
gives the function symbols and the section headers.  A call counts as a
traced site when

  - it is at the entry of a function symbol with a size that covers it
    (or right after an endbr64 at the entry),
  - the output section holding it matches the traced-section policy.

Everything else is reported by category, so a test can say why a call was
left out.  This is a test oracle: it parses tool output on purpose, and is
far too slow for what linkpass does.
"""

import argparse
import bisect
import collections
import fnmatch
import json
import re
import subprocess
import sys

DEFAULT_MCOUNT = ("__fentry__", "mcount", "_mcount")
DEFAULT_TRACED = (
    ".text", ".text.*", ".init.text", ".ref.text", ".sched.text",
    ".spinlock.text", ".irqentry.text", ".softirqentry.text",
    ".kprobes.text", ".cpuidle.text",
)

INSN = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
CALL = re.compile(r"\bcall[q]?\s+[0-9a-f]+ <([^>+]+)>")


def run(cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def read_sections(image):
    """[(start, end, name)] of allocated sections, sorted by address."""
    secs = []
    for line in run(["readelf", "-SW", image]).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+"
                     r"[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
        if not m or "A" not in m.group(4):
            continue
        start = int(m.group(2), 16)
        secs.append((start, start + int(m.group(3), 16), m.group(1)))
    secs.sort()
    return secs


def read_functions(image):
    """Sorted [(start, end, name)] of defined STT_FUNC symbols with a
    size, from .symtab."""
    funcs = set()
    for line in run(["readelf", "-sW", image]).splitlines():
        f = line.split()
        if len(f) < 8 or f[3] != "FUNC" or f[6] == "UND":
            continue
        size = int(f[2], 0)
        if size == 0:
            continue
        start = int(f[1], 16)
        funcs.add((start, start + size, f[7].split("@")[0]))
    return sorted(funcs)


def find(ranges, starts, addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and ranges[i][0] <= addr < ranges[i][1]:
        return ranges[i]
    return None


def analyse(image, mcount=DEFAULT_MCOUNT, traced=DEFAULT_TRACED):
    """Returns a dict:
      traced:    Counter of function names with a traced site
      sites:     sorted addresses of the traced sites
      untraced_section: [(name, section)] entry sites outside the policy
      not_entry: [(addr, name)] calls inside a function, not at its entry
      uncovered: [addr] calls no function symbol covers (e.g. the body of
                 an overridden weak function)
    """
    secs = read_sections(image)
    sec_starts = [s[0] for s in secs]
    funcs = read_functions(image)
    fn_starts = [f[0] for f in funcs]
    mcount = set(mcount)

    calls = []
    endbr = set()
    out = subprocess.Popen(["objdump", "-d", "-w", "--no-show-raw-insn",
                            image], stdout=subprocess.PIPE,
                           universal_newlines=True)
    for line in out.stdout:
        m = INSN.match(line)
        if not m:
            continue
        text = m.group(2)
        if "call" in text:
            c = CALL.search(text)
            if c and c.group(1) in mcount:
                calls.append(int(m.group(1), 16))
        elif text.startswith("endbr64"):
            endbr.add(int(m.group(1), 16))
    if out.wait():
        raise RuntimeError("objdump -d %s failed" % image)

    res = {"traced": collections.Counter(), "sites": [],
           "untraced_section": [], "not_entry": [], "uncovered": []}
    for addr in calls:
        fn = find(funcs, fn_starts, addr)
        if fn is None:
            res["uncovered"].append(addr)
            continue
        start, _, name = fn
        if addr != start and not (addr == start + 4 and start in endbr):
            res["not_entry"].append((addr, name))
            continue
        sec = find(secs, sec_starts, addr)
        secname = sec[2] if sec else "?"
        if not any(fnmatch.fnmatchcase(secname, p) for p in traced):
            res["untraced_section"].append((name, secname))
            continue
        res["traced"][name] += 1
        res["sites"].append(addr)
    res["sites"].sort()
    return res


def base_name(name):
    """A symbol name without what LTO appends to local functions it
    renames (gcc: probe_one.lto_priv.3, clang full LTO: probe_one.12,
    ThinLTO: foo.llvm.123).  Generated names contain no dot."""
    return name.split(".", 1)[0]


def expected_traced(manifest, gc, lto):
    """Counter of the function names the manifest says a build with these
    settings must trace."""
    want = collections.Counter()
    for fn in manifest["functions"]:
        rule = fn["trace"]
        if rule == "always" or (rule == "nogc" and not gc) or \
           (rule == "nogc_nolto" and not gc and not lto):
            want[fn["name"]] += 1
    return want


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("image")
    ap.add_argument("--manifest")
    ap.add_argument("--gc", type=int, default=0)
    ap.add_argument("--lto", type=int, default=0)
    args = ap.parse_args()
    res = analyse(args.image)
    print("traced functions: %d" % sum(res["traced"].values()))
    for key in ("untraced_section", "not_entry", "uncovered"):
        print("%s: %d %s" % (key, len(res[key]), res[key][:8]))
    if not args.manifest:
        return 0
    with open(args.manifest) as f:
        want = expected_traced(json.load(f), args.gc, args.lto)
    got = collections.Counter()
    for name, n in res["traced"].items():
        got[base_name(name)] += n
    missing = want - got
    extra = got - want
    print("missing: %d %s" % (sum(missing.values()),
                              sorted(missing)[:20]))
    print("extra:   %d %s" % (sum(extra.values()), sorted(extra)[:20]))
    return 1 if missing or extra else 0


if __name__ == "__main__":
    sys.exit(main())
