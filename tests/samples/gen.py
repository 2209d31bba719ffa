#!/usr/bin/python3
"""Write a kernel-shaped sample program for linkpass.

    gen.py --units U --funcs-per-unit F --seed S --out DIR

The output is plain C plus two small assembler files.  Everything follows
from the seed, so two runs with the same arguments write the same bytes.

What a unit (DIR/unitNNNN.c) holds, in the proportions of KIND_WEIGHTS:

  global, static       plain functions in .text
  probe_one            a static function with the same name in every unit
                       (the kernel has thousands of same-named statics)
  weak                 __weak definitions; about half are overridden by a
                       strong definition in the next unit
  init, sched, ref,    functions placed in the kernel's other traced text
  irqentry, hot, cold  sections (.init.text, .sched.text, ... , .text.hot,
                       .text.unlikely via __attribute__((cold)))
  noinstr              functions in .noinstr.text: compiled with -pg, but
                       outside the traced sections, so never in the table
  notrace              __attribute__((no_instrument_function))
  unref_global         never referenced: --gc-sections drops them, and so
                       does LTO (the linker tells it nobody uses them)
  unref_used           static and never referenced, but __attribute__((used)):
                       the compiler and LTO keep them, --gc-sections does not

Calls: every function may call one or two functions defined before it in
the same unit, or functions the previous unit exports.  Calls only go
backwards, so the graph is acyclic.  A function that calls others is
called from exactly one place; only leaves may be called from several
places or in a loop, which keeps every call count between 1 and 9 and the
total work linear in the number of functions.  Call chains are at most
MAX_DEPTH deep.  Each unit ends with uNNNN_run(), which calls the unit's
remaining roots; workload() in main.c calls every unit's run function once
per round.

Every function bumps the global counter lp_calls and returns a value mixed
from its argument and its callees' results with 64-bit unsigned
arithmetic.  The generator evaluates the same graph, so it knows the
checksum and the number of calls of one round; a round does the same work
every time, so for R rounds both are R times as large (mod 2**64).

manifest.json records, for every function, its unit, kind, section, the
rule for whether it must be in the __mcount_loc table, and its calls per
round.  See write_manifest() for the exact format.
"""

import argparse
import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import lpfacts  # noqa: E402

MASK = (1 << 64) - 1
MAX_DEPTH = 12
MAX_LEAF_CALLERS = 3

# The kernel-like policy: output sections whose call sites are traced.
TRACED_SECTIONS = [
    ".text", ".text.*", ".init.text", ".ref.text", ".sched.text",
    ".spinlock.text", ".irqentry.text", ".softirqentry.text",
    ".kprobes.text", ".cpuidle.text",
]

# kind -> (attributes on the definition, static?, section the code lands in,
#          trace rule).  Trace rules:
#   always      in the table in every build
#   never       never in the table (reason in NEVER_WHY)
#   nogc        in the table unless --gc-sections ran
#   nogc_nolto  in the table unless --gc-sections ran or LTO was used
KINDS = {
    "global":       ("",               False, ".text",          "always"),
    "static":       ("",               True,  ".text",          "always"),
    "probe_one":    ("",               True,  ".text",          "always"),
    "weak":         ("__weak ",        False, ".text",          "always"),
    "weak_over":    ("__weak ",        False, ".text",          "never"),
    "strong":       ("",               False, ".text",          "always"),
    "init":         ("__init ",        False, ".init.text",     "always"),
    "sched":        ("__sched ",       False, ".sched.text",    "always"),
    "ref":          ("__ref ",         True,  ".ref.text",      "always"),
    "irqentry":     ("__irq_entry ",   False, ".irqentry.text", "always"),
    "hot":          ("__hot_text ",    True,  ".text.hot",      "always"),
    "cold":         ("__cold ",        False, ".text.unlikely", "always"),
    "noinstr":      ("noinstr ",       False, ".noinstr.text",  "never"),
    "notrace":      ("notrace ",       True,  ".text",          "never"),
    "unref_global": ("",               False, ".text",          "nogc_nolto"),
    "unref_used":   ("__used ",        True,  ".text",          "nogc"),
    "run":          ("",               False, ".text",          "always"),
}

NEVER_WHY = {
    "weak_over": "overridden weak body (its strong definition is traced)",
    "noinstr": "in .noinstr.text, not a traced section",
    "notrace": "notrace (no_instrument_function)",
}

# How the F functions of a unit are drawn, after one of each of
# GUARANTEED_KINDS (when F allows) and the unit's probe_one.
KIND_WEIGHTS = [
    ("global", 28), ("static", 24), ("weak", 6), ("init", 5),
    ("sched", 3), ("ref", 2), ("irqentry", 2), ("hot", 3), ("cold", 4),
    ("noinstr", 3), ("notrace", 6), ("unref_global", 4), ("unref_used", 3),
]
GUARANTEED_KINDS = [
    "weak", "weak", "init", "sched", "ref", "irqentry", "hot", "cold",
    "noinstr", "notrace", "unref_global", "unref_used",
]

# Kinds that may call other functions and may be called.
CALLERS = {"global", "static", "probe_one", "weak", "init", "sched", "ref",
           "irqentry", "hot", "cold", "noinstr", "notrace"}
# Kinds another unit may call.
EXPORTABLE = {"global", "weak", "init", "sched", "irqentry", "cold",
              "noinstr"}

HEADER = r"""/* Generated by tests/samples/gen.py: shared definitions. */
#ifndef LP_SAMPLE_H
#define LP_SAMPLE_H

/*
 * Keep every function a real, separate function at -O2.  With gcc,
 * noinline alone still allows IPA clones (foo.constprop.0, foo.isra.0) and
 * identical-code folding, which would rename or merge what the manifest
 * lists; noipa forbids all of it.  clang has no noipa and does not clone.
 */
#if defined(__clang__)
#define lp_noinline	__attribute__((__noinline__))
#else
#define lp_noinline	__attribute__((__noipa__))
#endif

#define noinline	__attribute__((__noinline__))
#define notrace		__attribute__((no_instrument_function))
#define __weak		__attribute__((weak))
#define __used		__attribute__((used))
#define __cold		__attribute__((cold))
#define __section(s)	__attribute__((section(s)))
#define __init		__section(".init.text")
#define __sched		__section(".sched.text")
#define __ref		__section(".ref.text")
#define __irq_entry	__section(".irqentry.text")
#define __hot_text	__section(".text.hot")
#define __initdata	__section(".init.data")
/* Like the kernel's noinstr, minus its notrace: the sites stay in the
 * code and only the section policy may keep them out of the table. */
#define noinstr		__section(".noinstr.text")

typedef unsigned long u64;

/* Bumped by every generated function; also keeps the compiler from
 * treating any of them as pure and merging or hoisting calls. */
extern u64 lp_calls;

#endif
"""

# The returning mcount stubs for builds without the runtime library
# (tests/mcount-stubs.S, assembled without -pg).
STUB = ("/* Copied by tests/samples/gen.py from tests/mcount-stubs.S. */\n"
        + lpfacts.MCOUNT_STUBS_S)

ASM = r"""/* Generated by tests/samples/gen.py: references to __fentry__
 * that are not call sites, and one call that is not at a function entry.
 * None of these may end up in the table. */

	.data
	.globl	lp_fentry_ptr
	.type	lp_fentry_ptr, @object
	.p2align 3
lp_fentry_ptr:
	.quad	__fentry__
	.size	lp_fentry_ptr, 8

	.text
	/* u64 lp_asm_fentry_ref(void): __fentry__'s address via lea. */
	.globl	lp_asm_fentry_ref
	.type	lp_asm_fentry_ref, @function
	.p2align 4
lp_asm_fentry_ref:
	lea	__fentry__(%rip), %rax
	ret
	.size	lp_asm_fentry_ref, . - lp_asm_fentry_ref

	/* Never called: a real call to __fentry__, 5 bytes past the entry
	 * (not an endbr64), so it is no entry site. */
	.globl	lp_asm_midcall
	.type	lp_asm_midcall, @function
	.p2align 4
lp_asm_midcall:
	movl	$1, %eax
	call	__fentry__@PLT
	ret
	.size	lp_asm_midcall, . - lp_asm_midcall

	.section .note.GNU-stack, "", @progbits
"""


class Graph:
    """Every function of the sample, in flat arrays indexed by id."""

    def __init__(self):
        self.name = []
        self.unit = []
        self.kind = []
        self.mul = []		# constants of the function that runs
        self.add = []
        self.calls = []		# [(callee id, times)] or None for a leaf
        self.depth = []
        self.callers = []
        self.body_unit = []	# unit of the body that runs (strong)

    def new(self, name, unit, kind, rng):
        fid = len(self.name)
        self.name.append(name)
        self.unit.append(unit)
        self.kind.append(kind)
        self.mul.append(rng.getrandbits(64) | 1)
        self.add.append(rng.getrandbits(64))
        self.calls.append(None)
        self.depth.append(0)
        self.callers.append(0)
        self.body_unit.append(unit)
        return fid


def call_lines(g, calls):
    """C statements for a list of calls; eval_graph() mirrors them."""
    out = []
    for callee, times in calls:
        name = g.name[callee]
        if times == 1:
            out.append("\tr ^= %s(r);\n" % name)
        else:
            out.append("\tfor (k = 0; k < %d; k++)\n"
                       "\t\tr += %s(r + k);\n" % (times, name))
    return out


def emit_function(f, g, fid, mul, add, prefix):
    calls = g.calls[fid] or []
    # Nobody calls the unreferenced kinds, so IPA has nothing to clone;
    # plain noinline lets gcc's LTO drop them as clang's does, where noipa
    # would keep them alive.
    inl = "noinline" if g.kind[fid].startswith("unref") else "lp_noinline"
    f.write("%s%s u64 %s(u64 x)\n{\n" % (prefix, inl, g.name[fid]))
    if any(t > 1 for _, t in calls):
        f.write("\tu64 k;\n")
    f.write("\tu64 r = x * 0x%016xUL + 0x%016xUL;\n\n" % (mul, add))
    f.write("\tlp_calls++;\n")
    f.writelines(call_lines(g, calls))
    f.write("\treturn r;\n}\n\n")


def pick_kinds(rng, nfuncs):
    kinds = ["probe_one"]
    if nfuncs >= len(GUARANTEED_KINDS) + 4:
        kinds += GUARANTEED_KINDS
    names = [k for k, _ in KIND_WEIGHTS]
    weights = [w for _, w in KIND_WEIGHTS]
    kinds += rng.choices(names, weights, k=max(0, nfuncs - len(kinds)))
    rng.shuffle(kinds)
    return kinds[:nfuncs] if nfuncs > 0 else []


def func_name(unit, kind, j, width):
    if kind == "probe_one":
        return "probe_one"
    short = {"unref_global": "unref", "unref_used": "unused",
             "weak_over": "weak"}.get(kind, kind)
    return "u%0*d_%s_%d" % (width, unit, short, j)


def choose_callees(rng, g, pool, ncalls):
    """Take up to ncalls callees from pool (a list; swap-removal keeps
    each pick O(1)).  Leaves may be called by several functions, so they
    stay in the pool until they have MAX_LEAF_CALLERS callers."""
    calls = []
    for _ in range(ncalls):
        if not pool:
            break
        i = rng.randrange(len(pool))
        callee = pool[i]
        if g.depth[callee] >= MAX_DEPTH or \
           any(c == callee for c, _ in calls):
            continue
        leaf = g.calls[callee] is None
        times = rng.choice((1, 1, 2, 3)) if leaf else 1
        g.callers[callee] += 1
        if not leaf or g.callers[callee] >= MAX_LEAF_CALLERS:
            pool[i] = pool[-1]
            pool.pop()
        calls.append((callee, times))
    return calls


def gen_unit(out, g, rng, unit, nunits, nfuncs, width, imports, overrides):
    """Write one unit.  imports: ids of the previous unit's exported
    functions; overrides: ids of its weak functions this unit overrides.
    Returns (exports, weak functions for the next unit to override)."""
    path = os.path.join(out, "unit%0*d.c" % (width, unit))
    kinds = pick_kinds(rng, nfuncs)
    local = []
    pool = list(imports)
    unused_imports = set(imports)
    with open(path, "w") as f:
        f.write("/* Generated by tests/samples/gen.py: unit %d of %d. */\n"
                '#include "lp.h"\n\n' % (unit, nunits))
        for fid in imports:
            f.write("u64 %s(u64);\n" % g.name[fid])
        if imports:
            f.write("\n")

        # Strong definitions of the previous unit's overridden weak
        # functions: leaves, with their own constants, and the bodies
        # that actually run.
        for fid in overrides:
            mul = rng.getrandbits(64) | 1
            add = rng.getrandbits(64)
            g.mul[fid], g.add[fid] = mul, add
            g.body_unit[fid] = unit
            f.write("/* Overrides the __weak %s of unit %d. */\n"
                    % (g.name[fid], unit - 1))
            emit_function(f, g, fid, mul, add, "")

        for j, kind in enumerate(kinds):
            if kind == "weak" and unit + 1 < nunits and \
               rng.random() < 0.5:
                kind = "weak_over"
            fid = g.new(func_name(unit, kind, j, width), unit, kind,
                        rng)
            local.append(fid)
            if kind in CALLERS and rng.random() < 0.7:
                ncalls = 1 if rng.random() < 0.6 else 2
                calls = choose_callees(rng, g, pool, ncalls)
                if calls:
                    g.calls[fid] = calls
                    g.depth[fid] = 1 + max(g.depth[c]
                                           for c, _ in calls)
                    for c, _ in calls:
                        unused_imports.discard(c)
            emit_function(f, g, fid, g.mul[fid], g.add[fid],
                          prefix_of(kind))
            # Unreferenced kinds must stay unreferenced;
            # overridden weak bodies are reached only through
            # their strong twin, which is defined later.
            if kind in CALLERS or kind == "weak_over":
                pool.append(fid)

        # What nobody in this unit called: some of it the next unit
        # will call, the rest this unit's run function calls.
        exports = []
        roots = [c for c in imports if c in unused_imports]
        for fid in local:
            kind = g.kind[fid]
            if g.callers[fid] or \
               (kind not in CALLERS and kind != "weak_over"):
                continue
            if unit + 1 < nunits and kind in EXPORTABLE and \
               g.depth[fid] < MAX_DEPTH and rng.random() < 0.4:
                exports.append(fid)
            else:
                roots.append(fid)
        run = g.new("u%0*d_run" % (width, unit), unit, "run", rng)
        g.calls[run] = [(c, 1) for c in roots] or None
        for c in roots:
            g.callers[c] += 1
        g.depth[run] = 1 + max([g.depth[c] for c in roots] or [0])
        emit_function(f, g, run, g.mul[run], g.add[run], "")
        for fid in exports:
            g.callers[fid] += 1  # promised: the next unit calls it

    overridden = [fid for fid in local if g.kind[fid] == "weak_over"]
    return exports, overridden


def eval_graph(g, runs, run_args):
    """Run one round of the workload in Python, exactly as the C code
    does: (checksum, calls per function).  Direct recursion is cheap
    enough: by construction every function runs at most 9 times a round
    and chains are at most MAX_DEPTH deep."""
    counts = [0] * len(g.name)
    mul, add, calls = g.mul, g.add, g.calls

    def run_fn(fid, x):
        counts[fid] += 1
        r = (x * mul[fid] + add[fid]) & MASK
        for callee, times in calls[fid] or ():
            if times == 1:
                r ^= run_fn(callee, r)
            else:
                for k in range(times):
                    r = (r + run_fn(callee, (r + k) & MASK)) \
                        & MASK
        return r

    total = 0
    for run, arg in zip(runs, run_args):
        total = (total + run_fn(run, arg)) & MASK
    return total, counts


def prefix_of(kind):
    attrs, static = KINDS[kind][0], KINDS[kind][1]
    return ("static " if static else "") + attrs


def trace_rule(kind):
    return KINDS[kind][3]


def write_manifest(out, g, args, checksum, counts):
    """manifest.json, written entry by entry:

      functions: [{name, unit, kind, section, trace, calls_per_round,
                   why?}]  one entry per function body, including the
                  overridden weak bodies (trace "never") and the asm
                  functions; main and workload run once per run, not per
                  round (calls_per_run).
      trace rules: always | never | nogc | nogc_nolto (see KINDS).
      checksum_per_round, calls_per_round: one round's 64-bit checksum
                  and total generated-function calls; R rounds give R
                  times both, mod 2**64.  workload() returns
                  fold32(checksum) = (c ^ c >> 32) & 0xffffffff as int.
    """
    path = os.path.join(out, "manifest.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("{\n")
        meta = {
            "format": 1,
            "generator": "tests/samples/gen.py",
            "units": args.units,
            "funcs_per_unit": args.funcs_per_unit,
            "seed": args.seed,
            "mcount_symbols": ["__fentry__", "mcount"],
            "traced_sections": TRACED_SECTIONS,
            "trace_rules": {
                "always": "in the table in every build",
                "never": "never in the table",
                "nogc": "in the table unless --gc-sections",
                "nogc_nolto": "in the table unless --gc-sections or LTO",
            },
            "checksum_per_round": "0x%016x" % checksum,
            "calls_per_round": sum(counts),
            "default_rounds": 3,
            "output_line":
                "checksum=0x<16 hex> calls=<decimal> fold=0x<8 hex>",
        }
        for key, val in meta.items():
            f.write("  %s: %s,\n" % (json.dumps(key), json.dumps(val)))
        f.write('  "functions": [\n')
        first = True

        def entry(d):
            nonlocal first
            f.write(("    " if first else ",\n    ") + json.dumps(d))
            first = False

        for fid, name in enumerate(g.name):
            kind = g.kind[fid]
            d = {"name": name, "unit": g.unit[fid], "kind": kind,
                 "section": KINDS[kind][2],
                 "trace": trace_rule(kind),
                 "calls_per_round": counts[fid]}
            if kind == "weak_over":
                # The body in this unit is dead; the strong one
                # in the next unit runs and is traced.
                d["calls_per_round"] = 0
                d["why"] = NEVER_WHY[kind]
                entry(d)
                d = {"name": name, "unit": g.body_unit[fid],
                     "kind": "strong", "section": ".text",
                     "trace": "always",
                     "calls_per_round": counts[fid]}
            elif kind in NEVER_WHY:
                d["why"] = NEVER_WHY[kind]
            entry(d)
        # main.c and asm_fentry.S: run once per program run, not per round.
        for name, kind, trace, per_run, why in (
            ("workload", "main", "always", 1, None),
            ("main", "main", "always", 1, None),
            ("lp_asm_fentry_ref", "asm", "never", 1,
             "asm: references __fentry__ with lea, no call"),
            ("lp_asm_midcall", "asm", "never", 0,
             "asm: calls __fentry__ 5 bytes past its entry"),
        ):
            d = {"name": name, "unit": None, "kind": kind,
                 "section": ".text", "trace": trace,
                 "calls_per_round": 0, "calls_per_run": per_run}
            if why:
                d["why"] = why
            entry(d)
        f.write("\n  ]\n}\n")
    os.replace(tmp, path)


def write_main(out, g, runs, run_args):
    with open(os.path.join(out, "main.c"), "w") as f:
        f.write("/* Generated by tests/samples/gen.py: the workload. */\n"
                "#include <stdio.h>\n#include <stdlib.h>\n"
                '#include "lp.h"\n\n'
                "u64 lp_calls;\n"
                "/* Gives .init.data some content before the table "
                "(LAYOUT=kernel). */\n"
                "u64 lp_boot_params[2] __initdata = "
                "{ 0x6c696e6b, 0x70617373 };\n\n"
                "void __fentry__(void);\n"
                "extern void *lp_fentry_ptr;\n"
                "u64 lp_asm_fentry_ref(void);\n\n")
        for run in runs:
            f.write("u64 %s(u64);\n" % g.name[run])
        f.write("\nstatic u64 lp_checksum;\n\n"
                "/* Calls every generated function its known number of "
                "times per round\n * and returns the folded checksum. */\n"
                "lp_noinline int workload(int rounds)\n{\n"
                "\tu64 sum = 0;\n\tint i;\n\n"
                "\tfor (i = 0; i < rounds; i++) {\n")
        for run, arg in zip(runs, run_args):
            f.write("\t\tsum += %s(0x%016xUL);\n" % (g.name[run], arg))
        f.write("\t}\n\tlp_checksum = sum;\n"
                "\treturn (int)(unsigned int)(sum ^ (sum >> 32));\n}\n\n"
                "int main(int argc, char **argv)\n{\n"
                "\tint rounds = argc > 1 ? atoi(argv[1]) : 3;\n"
                "\tu64 want = (u64)(void *)__fentry__;\n"
                "\tint fold;\n\n"
                "\tif (lp_boot_params[0] + lp_boot_params[1] != "
                "0xdccae1deUL ||\n"
                "\t    lp_asm_fentry_ref() != want ||\n"
                "\t    (u64)lp_fentry_ptr != want) {\n"
                '\t\tfprintf(stderr, "sample: init data or asm '
                'references to __fentry__ are wrong\\n");\n'
                "\t\treturn 1;\n\t}\n"
                "\tfold = workload(rounds);\n"
                '\tprintf("checksum=0x%016lx calls=%lu fold=0x%08x\\n",\n'
                "\t       lp_checksum, lp_calls, (unsigned int)fold);\n"
                "\treturn 0;\n}\n")


def write_file(out, name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--units", type=int, required=True)
    ap.add_argument("--funcs-per-unit", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.units < 1 or args.funcs_per_unit < 1:
        ap.error("--units and --funcs-per-unit must be at least 1")

    out = args.out
    os.makedirs(out, exist_ok=True)
    rng = random.Random(args.seed)
    width = max(4, len(str(args.units - 1)))
    write_file(out, "lp.h", HEADER)
    write_file(out, "fentry_stub.S", STUB)
    write_file(out, "asm_fentry.S", ASM)

    g = Graph()
    runs = []
    imports, overrides = [], []
    for unit in range(args.units):
        imports, overrides = gen_unit(out, g, rng, unit, args.units,
                                      args.funcs_per_unit, width,
                                      imports, overrides)
        runs.append(len(g.name) - 1)
    run_args = [rng.getrandbits(64) for _ in runs]

    write_main(out, g, runs, run_args)
    checksum, counts = eval_graph(g, runs, run_args)
    write_manifest(out, g, args, checksum, counts)
    with open(os.path.join(out, "sources.mk"), "w") as f:
        f.write("# Generated by tests/samples/gen.py\nSAMPLE_UNITS :=")
        for unit in range(args.units):
            f.write(" unit%0*d" % (width, unit))
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
