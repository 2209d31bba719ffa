# Sample kernels: programs written by tests/samples/gen.py, built by
# tests/samples/Makefile for a matrix of toolchains and link options,
# linked through scripts/link-vmlinux.sh.
#
# For each variant:
#   - the manifest agrees with the code the compiler really produced (an
#     objdump oracle on a plain link, without linkpass),
#   - `linkpass dump` of the linked sample lists every function the
#     manifest says must be traced exactly once, and nothing else, at the
#     addresses the oracle finds in the same image,
#   - the sample runs and prints the checksum the generator computed.
# With the runtime library linked in, the sites are NOPed at start and a
# full trace counts every function's calls against the manifest.
#
# The default matrix uses 8 units x 30 functions; the `slow` case (run
# with `-m slow`) builds a bigger sample.

import collections
import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest

import lpfacts
from lptest import (REPO, compiler_can_use_ld, describe, links_trivial_program,
                    require_tools, run)

SAMPLES = REPO / "tests" / "samples"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


oracle = _load("sample_oracle", SAMPLES / "oracle.py")

ROUNDS = 5
DUMP_LINE = re.compile(r"^0x([0-9a-f]+) (\S+)\+0x([0-9a-f]+) (\S+)$")


class Variant:
    """One build of a sample: the Makefile's variables."""

    def __init__(self, cc, ld, gc=0, lto="0", layout="default", pie=0,
                 ibt=0, runtime=0, units=8, funcs=30, seed=1):
        self.vars = dict(CC=cc, LD=ld, GC=gc, LTO=lto, LAYOUT=layout,
                         PIE=pie, IBT=ibt, RUNTIME=runtime, UNITS=units,
                         FUNCS=funcs, SEED=seed)

    def __getattr__(self, key):
        try:
            return self.__dict__["vars"][key.upper()]
        except KeyError:
            raise AttributeError(key) from None

    @property
    def id(self):
        v = self.vars
        parts = [v["CC"], v["LD"]]
        flags = (("gc", v["GC"]), ("pie", v["PIE"]), ("ibt", v["IBT"]),
                 ("kernel", v["LAYOUT"] == "kernel"), ("rt", v["RUNTIME"]))
        parts += [name for name, on in flags if on]
        if v["LTO"] != "0":
            parts.append("lto" if v["LTO"] == "1" else "lto-full")
        if (v["UNITS"], v["FUNCS"]) != (8, 30):
            parts.append("%dx%d" % (v["UNITS"], v["FUNCS"]))
        return "-".join(parts)

    def make_args(self):
        return ["%s=%s" % kv for kv in self.vars.items()]


V = Variant
MATRIX = [
    # Toolchains, plain layout.
    V("gcc", "bfd"), V("gcc", "bfd", pie=1),
    V("gcc", "lld"), V("gcc", "lld", pie=1),
    V("clang", "lld"), V("clang", "lld", pie=1),
    V("clang", "bfd"), V("clang", "bfd", pie=1),
    # --gc-sections.
    V("gcc", "bfd", gc=1), V("gcc", "lld", gc=1, pie=1),
    V("clang", "lld", gc=1), V("clang", "bfd", gc=1, pie=1),
    # LTO: gcc needs GNU ld; clang ThinLTO with lld, full LTO with bfd.
    # (gcc LTO without --gc-sections is in RUNTIME_MATRIX.)
    V("gcc", "bfd", lto="1", gc=1, pie=1),
    V("clang", "lld", lto="1"), V("clang", "lld", lto="1", gc=1, pie=1),
    V("clang", "bfd", lto="full", gc=1),
    # Kernel-like layout: table in .init.data, kernel start/stop names.
    V("gcc", "bfd", layout="kernel"),
    V("gcc", "lld", layout="kernel", gc=1, pie=1),
    V("clang", "lld", layout="kernel", pie=1),
    V("clang", "lld", layout="kernel", lto="1", gc=1),
    # endbr64 before every site.
    V("gcc", "bfd", ibt=1, pie=1), V("clang", "lld", ibt=1, gc=1),
]
RUNTIME_MATRIX = [
    V("gcc", "bfd", runtime=1),
    V("clang", "lld", runtime=1, pie=1, layout="kernel", gc=1),
    V("gcc", "bfd", runtime=1, lto="1", pie=1),
]
SLOW_MATRIX = [
    V("gcc", "bfd", gc=1, units=100, funcs=200, seed=7),
    V("clang", "lld", pie=1, units=100, funcs=200, seed=7),
]


# ---------------------------------------------------------------------------
# Building


def require_variant_tools(v):
    """Skip unless the compiler, the linker and (for LTO) the compiler's
    LTO support for that linker exist here."""
    require_tools("make", "objdump", "readelf", v.cc)
    if not compiler_can_use_ld(v.cc, v.ld):
        pytest.skip(f"{v.cc} cannot link with -fuse-ld={v.ld} here")
    if v.lto == "0":
        return
    flag = "-flto=thin" if v.cc == "clang" and v.lto == "1" else "-flto"
    if not links_trivial_program([v.cc, flag, f"-fuse-ld={v.ld}"]):
        pytest.skip(f"{v.cc} {flag} -fuse-ld={v.ld} does not link here "
                    "(LTO plugin missing?): "
                    f"{links_trivial_program.stderr.strip()[:200]}")


@pytest.fixture(scope="session")
def runtime_lib():
    """runtime/liblptrace.a, built once per session."""
    require_tools("make")
    proc = subprocess.run(["make", "-C", str(REPO), "-f",
                           "runtime/runtime.mk", "runtime/liblptrace.a"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail("building runtime/liblptrace.a failed:\n" +
                    describe(proc))
    return REPO / "runtime" / "liblptrace.a"


class Build:
    def __init__(self, variant, outdir):
        self.v = variant
        self.dir = outdir
        self.sample = outdir / "sample"
        self.plain = outdir / "sample.plain"
        with open(outdir / "src" / "manifest.json") as f:
            self.manifest = json.load(f)

    def expected(self):
        return oracle.expected_traced(self.manifest, self.v.gc,
                                      self.v.lto != "0")

    def dump_opts(self):
        if self.v.layout == "kernel":
            return list(lpfacts.KERNEL_BOUNDS)
        return []


def build(variant, outdir, linkpass, runtime_lib=None, timeout=600):
    """make sample and plain for variant in outdir; a failure shows the
    whole make output."""
    args = ["make", "-C", str(SAMPLES), "-j2", "sample", "plain",
            f"O={outdir}", f"LINKPASS={linkpass}", *variant.make_args()]
    if runtime_lib is not None:
        # the objdump oracle reads calls: the sites stay calls, NOP'd by
        # the runtime at start (the driver's link-time NOPs, its default
        # with the runtime: test_nop_sites.py, test_empty_table.py)
        args += [f"RUNTIME_LIB={runtime_lib}", "LVFLAGS=--no-nop-sites"]
    run(args, timeout=timeout)
    return Build(variant, outdir)


def built_fixture(request, tmp_path_factory, linkpass, runtime_lib=None):
    v = request.param
    require_variant_tools(v)
    outdir = tmp_path_factory.mktemp("sample-" + v.id)
    return build(v, outdir, linkpass, runtime_lib)


@pytest.fixture(scope="module", params=MATRIX, ids=lambda v: v.id)
def built(request, tmp_path_factory, linkpass):
    return built_fixture(request, tmp_path_factory, linkpass)


@pytest.fixture(scope="module", params=RUNTIME_MATRIX, ids=lambda v: v.id)
def built_rt(request, tmp_path_factory, linkpass, runtime_lib):
    return built_fixture(request, tmp_path_factory, linkpass, runtime_lib)


# ---------------------------------------------------------------------------
# Checks shared by the default and the slow cases


def base(name):
    return oracle.base_name(name)


def dump(linkpass, b):
    """[(addr, function, offset, section)] of the sample's table."""
    out = linkpass.run("dump", b.sample, *b.dump_opts()).stdout
    entries = []
    for line in out.splitlines():
        m = DUMP_LINE.match(line)
        assert m, f"unexpected line in linkpass dump: {line!r}"
        entries.append((int(m.group(1), 16), m.group(2),
                        int(m.group(3), 16), m.group(4)))
    return entries


def diff_text(want, got, limit=30):
    missing = sorted((want - got).elements())
    extra = sorted((got - want).elements())
    return (f"{len(missing)} missing: {missing[:limit]}\n"
            f"{len(extra)} unexpected: {extra[:limit]}")


def check_manifest_matches_code(b):
    res = oracle.analyse(str(b.plain))
    got = collections.Counter()
    for name, n in res["traced"].items():
        got[base(name)] += n
    want = b.expected()
    assert got == want, "objdump oracle vs manifest:\n" + \
        diff_text(want, got)
    # What the oracle left out is what the manifest says must be left
    # out: one mid-function call (asm) and no stray sites elsewhere.
    assert [n for _, n in res["not_entry"]] == ["lp_asm_midcall"]
    never = {f["name"] for f in b.manifest["functions"]
             if f["kind"] == "noinstr"}
    assert {base(n) for n, _ in res["untraced_section"]} == never
    # Overridden weak bodies keep their call but lose their symbol; only
    # --gc-sections or LTO removes them.
    weak = sum(f["kind"] == "weak_over" for f in b.manifest["functions"])
    dropped = b.v.gc or b.v.lto != "0"
    assert len(res["uncovered"]) == (0 if dropped else weak)


def check_table(linkpass, b):
    entries = dump(linkpass, b)
    got = collections.Counter(base(fn) for _, fn, _, _ in entries)
    want = b.expected()
    assert got == want, "linkpass dump vs manifest:\n" + \
        diff_text(want, got)

    addrs = [a for a, _, _, _ in entries]
    assert len(set(addrs)) == len(addrs), "duplicate table entries"
    bad = [e for e in entries if e[1] == "<none>"]
    assert not bad, f"entries outside any function: {bad[:10]}"

    # The same image, read by the objdump oracle: the table holds exactly
    # its entry sites, function by function.
    res = oracle.analyse(str(b.sample))
    # addrs as dump printed them: the table must be sorted as well
    assert addrs == res["sites"], \
        "table addresses (in table order) differ from the sorted call " \
        "sites objdump finds"
    # An entry is at the function's start, or after its endbr64.
    offsets = {off for _, _, off, _ in entries}
    assert offsets <= ({0, 4} if b.v.ibt else {0}), \
        f"unexpected entry offsets {sorted(offsets)}"


def check_run(b, env=None, rounds=ROUNDS):
    proc = run([b.sample, str(rounds)], env=env)
    m = b.manifest
    csum = rounds * int(m["checksum_per_round"], 16) % 2**64
    calls = rounds * m["calls_per_round"] % 2**64
    fold = (csum ^ (csum >> 32)) & 0xffffffff
    want = f"checksum=0x{csum:016x} calls={calls} fold=0x{fold:08x}"
    assert proc.stdout.strip() == want, describe(proc)
    return proc


# ---------------------------------------------------------------------------
# Tests


def test_gen_is_deterministic(tmp_path):
    gen = [sys.executable, SAMPLES / "gen.py", "--units", "3",
           "--funcs-per-unit", "25"]
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        run([*gen, "--seed", seed, "--out", tmp_path / name])

    def files(d):
        return {p.name: p.read_bytes() for p in sorted(d.iterdir())}

    a, b, c = (files(tmp_path / n) for n in "abc")
    assert a == b, "same seed, different output"
    assert a["unit0001.c"] != c["unit0001.c"], "seed has no effect"


def test_gen_manifest_is_consistent(tmp_path):
    """Every kind appears, calls add up, rules are known."""
    run([sys.executable, SAMPLES / "gen.py", "--units", "4",
         "--funcs-per-unit", "40", "--seed", "3", "--out", tmp_path])
    with open(tmp_path / "manifest.json") as f:
        m = json.load(f)
    fns = m["functions"]
    kinds = collections.Counter(f["kind"] for f in fns)
    for kind in ("global", "static", "probe_one", "weak", "weak_over",
                 "strong", "init", "sched", "ref", "irqentry", "hot",
                 "cold", "noinstr", "notrace", "unref_global",
                 "unref_used", "run", "main", "asm"):
        assert kinds[kind], f"no function of kind {kind}"
    assert kinds["weak_over"] == kinds["strong"]
    assert {f["trace"] for f in fns} <= set(m["trace_rules"])
    assert sum(f["calls_per_round"] for f in fns) == m["calls_per_round"]
    for f in fns:
        if f["kind"].startswith("unref") or f["kind"] == "weak_over":
            assert f["calls_per_round"] == 0, f
        elif f["kind"] not in ("main", "asm"):
            assert 1 <= f["calls_per_round"] <= 9, f
    assert kinds["probe_one"] == m["units"]
    # --units and --funcs-per-unit shape the output: 4 unit files, and
    # half the functions per unit give about half the functions
    assert (m["units"], m["funcs_per_unit"], m["seed"]) == (4, 40, 3)
    assert sorted(p.name for p in tmp_path.glob("unit*.c")) == \
        [f"unit{k:04d}.c" for k in range(4)]
    half = tmp_path / "half"
    run([sys.executable, SAMPLES / "gen.py", "--units", "4",
         "--funcs-per-unit", "20", "--seed", "3", "--out", half])
    with open(half / "manifest.json") as f:
        n_half = len(json.load(f)["functions"])
    assert 0.4 < n_half / len(fns) < 0.6, (n_half, len(fns))


def test_manifest_matches_code(built):
    """The manifest is right about what the compiler and linker did."""
    check_manifest_matches_code(built)


def test_table_matches_manifest(built, linkpass):
    check_table(linkpass, built)


def test_sample_runs(built):
    check_run(built)


def test_runtime_nops_and_traces(built_rt, linkpass, tmp_path):
    """Linked with liblptrace.a: every table site is NOPed at start, the
    checksum holds, and tracing everything counts each function's calls
    exactly as the manifest says."""
    b = built_rt
    check_manifest_matches_code(b)
    check_table(linkpass, b)
    sites = sum(b.expected().values())

    proc = check_run(b, env={"LPTRACE_VERBOSE": "1"})
    assert re.search(rf"\b{sites} sites: {sites} nopped, 0 already nop, "
                     r"0 refused\b", proc.stderr), describe(proc)

    trace = tmp_path / "trace.txt"
    check_run(b, env={"LPTRACE_FILTER": "*", "LPTRACE_OUT": trace})
    got = collections.Counter()
    for line in trace.read_text().splitlines():
        if line.startswith("#"):
            continue
        m = re.search(r": (\S+) <-\S+$", line)
        assert m, f"unexpected trace line {line!r}"
        got[base(m.group(1))] += 1
    want = collections.Counter()
    traced = b.expected()
    for f in b.manifest["functions"]:
        n = f["calls_per_round"] * ROUNDS + f.get("calls_per_run", 0)
        if traced[f["name"]] and n and f["trace"] != "never":
            want[f["name"]] += n
    assert got == want, "traced calls vs manifest:\n" + \
        diff_text(want, got)


@pytest.mark.slow
@pytest.mark.parametrize("variant", SLOW_MATRIX, ids=lambda v: v.id)
def test_large_sample(variant, request, tmp_path, linkpass):
    markexpr = request.config.getoption("markexpr") or ""
    if os.environ.get("LP_SLOW") != "1" and \
       ("slow" not in markexpr or "not slow" in markexpr):
        pytest.skip("slow: run with -m slow (or LP_SLOW=1)")
    require_variant_tools(variant)
    b = build(variant, tmp_path, linkpass, timeout=3600)
    check_manifest_matches_code(b)
    check_table(linkpass, b)
    check_run(b)
