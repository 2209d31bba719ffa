#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kernel/report.py RESULTS [--profile distro|debug|big] [--doc PAGE]

Turns the facts kernel/test-kernel.sh recorded for each pair it ran
(RESULTS/<version>-<arch>-<toolchain>[-<profile>].facts, "name=value"
lines) into the side-by-side tables of docs/kernel.md: tables and
boots, build time, the post-link step, modules, boot-time conversion,
and the ftrace users, one set of tables per toolchain (gcc, clang,
gcc14, clang19, clang19-lto, in that order), each under a heading that
names the compiler and linker its builds recorded.  --profile picks the pairs of one config profile
(distro: make test-kernel and test-kernel-all; debug and big: make
test-kernel-debug and test-kernel-big, which also get a table of how
each figure grew from the newest distro pair of the same version, arch
and toolchain).
Prints them; with --doc, also rewrites the block between
"<!-- kernel:begin -->" and "<!-- kernel:end -->" (debug, big:
"<!-- kernel-debug:begin -->" ... "<!-- kernel-debug:end -->" and the
same with kernel-big) of PAGE.

Only pairs of one run belong in one block: the facts files carry the
run's start time, and pairs from another run are left out (named on
stderr).  --all keeps every pair, and the text then says which run each
came from.
"""

import argparse
import pathlib
import re
import sys

ORDER = {"x86_64": 0, "arm64": 1, "riscv64": 2}


def markers(profile):
    tag = "kernel" if profile == "distro" else f"kernel-{profile}"
    return f"<!-- {tag}:begin -->", f"<!-- {tag}:end -->"


def load(results, profile="distro"):
    """The facts of every pair of @profile (facts without a profile
    are distro's)."""
    pairs = []
    for f in sorted(pathlib.Path(results).glob("*.facts")):
        if f.name.count("-") < 2 or ".boot." in f.name:
            continue
        d = {}
        for line in f.read_text().splitlines():
            k, _, v = line.partition("=")
            # a boot time that read 0 was not measured: every table
            # shows it as such
            d[k] = boot_us(v) if k.endswith("boot_update_us") else v
        if "version" in d and d.get("profile", "distro") == profile:
            pairs.append(d)
    return pairs


def one_run(pairs, every=False):
    """The pairs of the newest run (run_start), and the names of others;
    with @every, all the pairs."""
    if not pairs:
        return [], []
    newest = max(p.get("run_start", "") for p in pairs)
    keep = [p for p in pairs if every or p.get("run_start", "") == newest]
    left = [name(p) for p in pairs if p not in keep]
    # newest version first, then by architecture and toolchain
    keep.sort(key=lambda p: ([-int(x) for x in p["version"].split(".")],
                             ORDER.get(p["arch"], 9),
                             p["toolchain"]))
    return keep, left


def name(p):
    return f'{p["version"]} {p["arch"]} {p["toolchain"]}'


def boot_us(v):
    """ftrace_update_code()'s time at boot, or "" where it read 0: the
    clock had not started (older facts say 0.0; kernel/bootfacts.sh now
    leaves it empty)."""
    try:
        return "" if float(v) == 0 else v
    except ValueError:
        return ""


def num(v, fmt="{:,}"):
    if v in (None, ""):
        return "—"
    try:
        x = float(v)
    except ValueError:
        return v
    return fmt.format(int(x)) if x == int(x) and "{:," in fmt else fmt.format(x)


def cached(hits):
    """Did a ccache_* fact ("H/N") take any compile from the cache?"""
    return hits.split("/")[0] not in ("", "0")


def ratio(a, b):
    try:
        return f"{float(a) / float(b):.2f}"
    except (TypeError, ValueError, ZeroDivisionError):
        return "—"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


# The toolchains in the order their tables come; others after, by name.
TC_ORDER = ["gcc", "clang", "gcc14", "clang19", "clang19-lto"]


def by_toolchain(pairs):
    """@pairs in groups of one toolchain each, [(toolchain, pairs)], in
    TC_ORDER; each group keeps the pairs' order."""
    tcs = sorted({p["toolchain"] for p in pairs},
                 key=lambda t: (TC_ORDER.index(t) if t in TC_ORDER
                                else len(TC_ORDER), t))
    return [(t, [p for p in pairs if p["toolchain"] == t]) for t in tcs]


def heading(tc, group):
    """The heading of @tc's tables: its name, and the compiler and linker
    its builds recorded (the cc and ld facts, from their .config)."""
    what = sorted({", ".join(x for x in (p.get("cc", ""), p.get("ld", ""),
                                         p.get("lto", "")) if x)
                   for p in group} - {""})
    return f"### Toolchain `{tc}`" + (": " + "; ".join(what) if what else "")


def render(pairs, run_start, only=None):
    """The run's line, then each toolchain's heading and tables (those
    whose titles are in @only, if given)."""
    starts = sorted({p.get("run_start", "?") for p in pairs})
    if len(starts) == 1:
        parts = [f"From one run of `kernel/test-kernel.sh` started "
                 f"{run_start}; each pair's full log line is in the run's "
                 f"`results/`."]
    else:
        runs = "; ".join(
            f"{s}: " + ", ".join(name(p) for p in pairs
                                 if p.get("run_start", "?") == s)
            for s in starts)
        parts = [f"From {len(starts)} runs of `kernel/test-kernel.sh`, "
                 f"one pair or more each (started {runs}); each pair's "
                 f"full log line is in the run's `results/`."]
    for k, (tc, group) in enumerate(by_toolchain(pairs)):
        parts.append(heading(tc, group))
        title = None
        for t in tables(group):
            m = re.match(r"\*\*([^*(]+?)[.]?\*\*", t)
            if m:
                title = m.group(1)
            if only is not None and title not in only:
                continue
            # the captions and notes in full once; after that each
            # table's first heading names it instead of "pair"
            if k == 0:
                parts.append(t)
            elif t.startswith("| pair |"):
                parts.append(f"| {title[0].lower()}{title[1:]} |" + t[len("| pair |"):])
    return "\n\n".join(parts) + "\n"


def tables(pairs):
    """The tables of @pairs, each after its caption."""
    g = lambda p, k: p.get(k, "")
    parts = []
    parts.append("**Tables and boots.** Entries of vmlinux's table; for "
                 "stock, the dead entries `linkpass check` finds (zeroed "
                 "by `sorttable -s`, or stale: shown at boot as invalid, "
                 "listed under a live neighbour's name, or in freed "
                 "`.init.text`); functions only ours lists; module "
                 "entries of the loaded modules; vmlinux links.")
    rows = []
    for p in pairs:
        rows.append([name(p), num(g(p, "entries")), num(g(p, "zeroed")),
                     num(g(p, "invalid")), num(g(p, "stock_entries")),
                     num(g(p, "stock_zeroed")), num(g(p, "stock_stale")),
                     num(g(p, "stock_invalid")), num(g(p, "stock_misnamed")),
                     num(g(p, "only_ours")),
                     f'{num(g(p, "module_entries"))} / {num(g(p, "stock_module_entries"))}',
                     # a run on kept build dirs links nothing to count
                     "—" if g(p, "full_reused") else
                     f'{g(p, "links_stock")} / {g(p, "links_lp")}',
                     g(p, "check")])
    parts.append(table(["pair", "ours: entries", "zeroed", "invalid at boot",
                        "stock: entries", "zeroed", "stale", "invalid at boot",
                        "misnamed", "only ours lists", "module entries ours / stock",
                        "links stock / ours", "check"], rows))

    parts.append("**Build time** (seconds; full builds one each, "
                 "incremental the median of interleaved rounds after "
                 "touching `fs/read_write.c`" +
                 ("; — where the run kept existing build directories "
                  "(`LINKPASS_KERNEL_REUSE=1`), which makes no full build"
                  if any(g(p, "full_reused") for p in pairs) else "") +
                 ").")
    rows = [[name(p), num(g(p, "full_stock"), "{:.1f}"), num(g(p, "full_lp"), "{:.1f}"),
             ratio(g(p, "full_lp"), g(p, "full_stock")),
             num(g(p, "incr_stock"), "{:.1f}"), num(g(p, "incr_lp"), "{:.1f}"),
             ratio(g(p, "incr_lp"), g(p, "incr_stock")),
             f'{g(p, "ccache_stock") or "off"} / {g(p, "ccache_lp") or "off"}']
            for p in pairs]
    parts.append(table(["pair", "full stock", "full ours", "ours / stock",
                        "incremental stock", "incremental ours", "ours / stock",
                        "compiles from ccache stock / ours"], rows))
    if any(cached(g(p, k)) for p in pairs for k in ("ccache_stock", "ccache_lp")):
        parts.append("Some full builds took compiles from ccache "
                     "(`LINKPASS_KERNEL_CCACHE`, on by default): their "
                     "times are mostly links and host steps, not a cold "
                     "build's; `LINKPASS_KERNEL_CCACHE=0` gives cold ones.")

    # which binary timed our step: the build's in-tree tool, or (facts
    # of runs before 6 December, without pl_tool) the repository's full
    # tool, which takes about two thirds of the in-tree tool's work
    full = [p for p in pairs if g(p, "pl_tool") != "in-tree"]
    if not full:
        tool = ("each build's own `scripts/linkpass/linkpass`, the in-tree "
                "tool a kernel build runs")
    else:
        tool = ("each build's own `scripts/linkpass/linkpass`, the in-tree "
                "tool a kernel build runs, except in the pairs marked *: "
                "their runs timed this repository's full `linkpass`, "
                "which does the same scans with less work (docs/kernel.md, "
                "\"The in-tree tool's size\")")
        if len(full) == len(pairs):
            tool = ("this repository's full `linkpass` (runs before 6 "
                    "December), which does the same scans with less work "
                    "than the in-tree tool a kernel build runs "
                    "(docs/kernel.md, \"The in-tree tool's size\")")
    starred = {id(p) for p in full} if len(full) < len(pairs) else set()
    mark = {id(p): "*" if id(p) in starred else "" for p in pairs}
    parts.append("**The post-link step** (milliseconds, median of 5 "
                 "interleaved rounds on the images the builds left): "
                 "stock's `nm -S` + `sorttable -s` (6.1: `sorttable`) "
                 "against ours: the scan of each kallsyms link, the "
                 "assembly of each table by the build's compiler, and "
                 "`linkpass --check` with the real in-place write of the "
                 "link-time states, on a fresh copy of the final link as "
                 "it was before the build wrote them (kernel/prewrite.sh), "
                 "by " + tool + "; the least "
                 "work that keeps the same entries (`bench/leastwork`, "
                 "mcount calls only).")
    rows = [[name(p) + mark[id(p)], num(g(p, "pl_stock_ms"), "{:.1f}"),
             num(g(p, "pl_lp_scans_check"), "{:.1f}"),
             ratio(g(p, "pl_lp_scans_check"), g(p, "pl_stock_ms")),
             num(g(p, "pl_least_ms"), "{:.1f}"),
             ratio(g(p, "pl_lp_scans_check"), g(p, "pl_least_ms"))] for p in pairs]
    parts.append(table(["pair", "stock", "ours: scans + as + check", "ours / stock",
                        "least work", "ours / least work"], rows))

    parts.append("**Sizes** (MiB): the linked image the checks read "
                 "(7.x: `vmlinux.unstripped`, which keeps the static "
                 "relocations where the arch selects "
                 "`ARCH_VMLINUX_NEEDS_RELOCS`, stock and ours alike) and "
                 "the `vmlinux` the build leaves (relocations stripped as "
                 "stock strips them); 6.x builds link one file, both "
                 "columns are it; the `.ko` files the build made "
                 "(`modules.order`), summed.")
    mib = lambda v, d=1: "" if v == "" else f"{int(v) / 1048576:.{d}f}"
    rows = [[name(p)] + [c for k, d in (("image", 1), ("vmlinux", 1), ("ko_bytes", 2))
                         for c in (mib(g(p, f"{k}_stock"), d), mib(g(p, f"{k}_lp"), d),
                                   ratio(g(p, f"{k}_lp"), g(p, f"{k}_stock")))]
            for p in pairs]
    parts.append(table(["pair", "linked image stock", "ours", "ours / stock",
                        "vmlinux stock", "ours", "ours / stock",
                        ".ko files stock", "ours", "ours / stock"], rows))

    parts.append("**Modules**: every `.ko` the build made (`modules.order`), "
                 "how many of ours pass `linkpass check` with their table, "
                 "the sites of all of them, and the per-module step: the "
                 "saved `.ko` commands of our build replayed (median of 3), "
                 "the `ld -r` links summed against our step summed, in "
                 "milliseconds (the `MCOUNT [M]` step: the table's "
                 "`.S` written by `scripts/linkpass`, assembled by the "
                 "build's compiler, linked into a relink of the `.ko` by "
                 "`ld -r`, and `linkpass --check`, with the link-time "
                 "states written where the arch has them).  Stock's "
                 "`.ko` rule is the `ld -r` alone on all three arches "
                 "(its saved commands), so the step is all extra.")
    rows = [[name(p), num(g(p, "ko_files")), num(g(p, "built_modules")),
             f'{num(g(p, "all_module_entries"))} / {num(g(p, "stock_all_module_entries"))}',
             num(g(p, "ko_ld_ms"), "{:.0f}"), num(g(p, "ko_lp_ms"), "{:.0f}"),
             ratio(g(p, "ko_lp_ms"), g(p, "ko_ld_ms"))] for p in pairs]
    parts.append(table(["pair", ".ko files", "ours pass check",
                        "module sites ours / stock", "ld -r links",
                        "our step", "step / links"], rows))

    parts.append("**Boot-time conversion** (`ftrace_update_code()`, "
                 "kernel/instrument): call sites turned into NOPs and "
                 "the time it took by `local_clock()`, vmlinux at boot and "
                 "all modules at load; — where that clock had not started "
                 "when `ftrace_init()` ran (it reads 0 ns: always on arm64 "
                 "and riscv, whose timer starts the clock later, and in "
                 "some x86 boots under TCG), so no time was measured.")
    rows = [[name(p), num(g(p, "stock_boot_converted")),
             num(g(p, "stock_boot_update_us"), "{:.1f}"),
             num(g(p, "stock_mod_converted")),
             num(g(p, "boot_converted")),
             num(g(p, "boot_update_us"), "{:.1f}"),
             num(g(p, "mod_converted"))] for p in pairs]
    parts.append(table(["pair", "stock: converted", "µs", "at module load",
                        "ours: converted", "µs", "at module load"], rows))

    parts.append("**The ftrace users** on `vfs_read` (the direct-call "
                 "sample on `wake_up_process`): events or hits, ours / "
                 "stock; — where the kernel or architecture lacks it; "
                 "\"refused\" where the kernel refuses a kprobe on an "
                 "ftrace site (no `KPROBES_ON_FTRACE`).")
    rows = []
    for p in pairs:
        cell = lambda k: ("—" if g(p, k) == "" else
                          f'{g(p, k)} / {g(p, "stock_" + k)}')
        # both kernels refused the kprobe on the entry (an ftrace site
        # without KPROBES_ON_FTRACE: kernel/checks.sh, check_consumers)
        kprobe = ("refused / refused" if g(p, "kprobe_refused") == "1" and
                  g(p, "stock_kprobe_refused") == "1" else cell("kprobe_lines"))
        rows.append([name(p), cell("graph_func"), kprobe,
                     cell("fprobe_lines"), cell("profile_hits"),
                     cell("stack_lines"), cell("sys_lines"), cell("direct_lines")])
    parts.append(table(["pair", "function_graph calls", "kprobe event",
                        "fprobe event", "profiler hits", "stack tracer lines",
                        "syscall events", "direct calls"], rows))
    return parts


# The figures of the growth table: (label, fact, format).
GROWTH = [
    ("vmlinux sites (ours)", "entries", "{:,}"),
    ("modules (.ko files)", "ko_files", "{:,}"),
    ("sites in all modules (ours)", "all_module_entries", "{:,}"),
    ("vmlinux links, stock", "links_stock", "{:,}"),
    ("vmlinux links, ours", "links_lp", "{:,}"),
    ("post-link step, stock (ms)", "pl_stock_ms", "{:.1f}"),
    ("post-link step, ours (ms)", "pl_lp_scans_check", "{:.1f}"),
    ("module links, ld -r summed (ms)", "ko_ld_ms", "{:.0f}"),
    ("our per-module step summed (ms)", "ko_lp_ms", "{:.0f}"),
    ("linked image, stock (MiB)", "image_stock", "mib"),
    ("linked image, ours (MiB)", "image_lp", "mib"),
    ("vmlinux, stock (MiB)", "vmlinux_stock", "mib"),
    ("vmlinux, ours (MiB)", "vmlinux_lp", "mib"),
    (".ko files summed, stock (MiB)", "ko_bytes_stock", "mib"),
    (".ko files summed, ours (MiB)", "ko_bytes_lp", "mib"),
    ("full build, stock (s)", "full_stock", "{:.1f}"),
    ("full build, ours (s)", "full_lp", "{:.1f}"),
    ("incremental build, stock (s)", "incr_stock", "{:.1f}"),
    ("incremental build, ours (s)", "incr_lp", "{:.1f}"),
    ("sites converted at boot, stock", "stock_boot_converted", "{:,}"),
    ("sites converted at boot, ours", "boot_converted", "{:,}"),
    ("ftrace_update_code at boot, stock (µs)", "stock_boot_update_us", "{:.1f}"),
    ("ftrace_update_code at boot, ours (µs)", "boot_update_us", "{:.1f}"),
]


# What debug info changes: the sizes and the work after the links.
DEBUG_GROWTH = {"image_stock", "image_lp", "vmlinux_stock", "vmlinux_lp",
                "ko_bytes_stock", "ko_bytes_lp", "pl_stock_ms",
                "pl_lp_scans_check", "ko_ld_ms", "ko_lp_ms"}
# The tables of a debug block: the other tables are the distro pair's.
DEBUG_TABLES = {"Tables and boots", "The post-link step", "Sizes", "Modules"}


def growth(big, small, profile):
    """The growth table of @big's pairs (of @profile) against @small's
    newest pair of the same version, arch and toolchain."""
    parts = []
    for b in big:
        same = [p for p in small if name(p) == name(b)]
        if not same:
            continue
        d = max(same, key=lambda p: p.get("run_start", ""))
        fmt = lambda v, f: (f"{int(v) / 1048576:.1f}" if f == "mib" and v
                            else num(v, "{:,}" if f == "mib" else f))
        rows = [[label, fmt(d.get(k, ""), f), fmt(b.get(k, ""), f),
                 ratio(b.get(k, ""), d.get(k, ""))] for label, k, f in GROWTH
                if profile != "debug" or k in DEBUG_GROWTH]
        parts.append(f"**How the figures grew** from the distro pair of "
                     f"{name(b)} (run started {d.get('run_start', '?')}) "
                     f"to this {profile} pair:")
        parts.append(table(["figure", "distro", profile, f"{profile} / distro"],
                           rows))
    return parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--doc")
    ap.add_argument("--profile", default="distro", choices=("distro", "debug", "big"))
    ap.add_argument("--all", action="store_true",
                    help="keep the pairs of every run, not only the newest")
    a = ap.parse_args()
    pairs, left = one_run(load(a.results, a.profile), a.all)
    if not pairs:
        sys.exit(f"report.py: {a.results}: no facts of any pair")
    for n in left:
        print(f"report.py: left out {n}: from another run", file=sys.stderr)
    text = render(pairs, pairs[0].get("run_start", "?"),
                  DEBUG_TABLES if a.profile == "debug" else None)
    grew = growth(pairs, load(a.results), a.profile) if a.profile != "distro" else []
    if grew:
        text += "\n" + "\n\n".join(grew) + "\n"
    print(text)
    if a.doc:
        page = pathlib.Path(a.doc)
        doc = page.read_text()
        BEGIN, END = markers(a.profile)
        m = re.search(re.escape(BEGIN) + r"\n.*?" + re.escape(END), doc, re.S)
        if not m:
            sys.exit(f"report.py: {page}: no {BEGIN} ... {END} block")
        page.write_text(doc[:m.start()] + BEGIN + "\n" + text + END + doc[m.end():])


if __name__ == "__main__":
    main()
