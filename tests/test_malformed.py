# Malformed input: linkpass must refuse every broken image with exit
# status 2 and one line "linkpass: <file>: <place>: <cause>" naming the
# place the case broke, never crash, never hang, and never leave an
# output file (or a temp file) behind; obj leaves the object as it was.
#
# The corpus is made by tests/hardening/malform.py from small images
# built here with gcc: truncations at every header boundary and inside
# every section, bad header fields, out-of-range links, bad relocations,
# a broken table, compressed sections, and images that are not what scan
# needs.  Some breakages are harmless to some commands (dump reads no
# code relocations; compressed debug sections are never read): those
# must succeed quietly, with the output the command gives on the case's
# control image.  Two base images (gcc + GNU ld PIE, clang + lld
# non-PIE) and a relocatable object for linkpass obj.  The binary under
# test is $LINKPASS_BIN (default linkpass/linkpass); `make sanitize` runs
# this file against an AddressSanitizer + UBSan build.

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hardening"))
import harness  # noqa: E402
import malform  # noqa: E402

GROUPS = ("file", "truncated", "header", "sections", "relocs", "symtab",
          "table", "images", "object")


def _require(*tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        pytest.skip("not installed: " + ", ".join(missing))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    _require("gcc", "clang", "ld.lld", "objcopy", "strip")
    work = tmp_path_factory.mktemp("malformed")
    images = malform.build_images(work / "build", harness.linkpass_bin())
    clang = malform.build_images(work / "build-clang", harness.linkpass_bin(),
                                 cc="clang", ld="lld", pie=False)
    return malform.make_corpus(images, work / "cases", clang=clang)


def run_cmd(case, cmd, outdir):
    """Run cmd on case in outdir: (process, output file or object)."""
    outdir.mkdir()
    if cmd == "obj":
        # obj rewrites in place: run it on a copy
        out = outdir / "in.o"
        if case.path.is_file():
            out.write_bytes(case.path.read_bytes())
            return harness.run_linkpass(["obj", out]), out
        return harness.run_linkpass(["obj", case.path]), None
    out = outdir / "out.o"
    args = [cmd, case.path] + (["-o", out] if cmd == "scan" else [])
    return harness.run_linkpass(args), out


def result(case, cmd, proc, out):
    """What a successful run produced, with the case's path taken out:
    stdout, and the table object (scan) or rewritten object (obj)."""
    data = out.read_bytes() if out is not None and out.exists() else None
    return proc.stdout.replace(str(case.path), "IMAGE"), data


def run_case(case, cmd, workdir, controls):
    """Run one command on one case; returns a list of problems."""
    outdir = workdir / f"{case.name}.{cmd}"
    try:
        proc, out = run_cmd(case, cmd, outdir)
    except harness.Hang as e:
        return [str(e)]
    want = case.expect[cmd]
    bad = []
    left = sorted(p.name for p in outdir.iterdir())
    if want == 2:
        path = out if cmd == "obj" and out is not None else case.path
        bad += harness.check_error_run(proc, path, case.place_for(cmd))
        if proc.stdout:
            bad.append("output on stdout with an error")
        if cmd == "obj":
            if out is not None and out.read_bytes() != case.path.read_bytes():
                bad.append("obj changed the object it refused")
            if left not in ([], ["in.o"]):
                bad.append(f"left behind: {left}")
        elif left:
            bad.append(f"left behind: {left}")
    else:
        if proc.returncode != want:
            bad.append(f"exit status {proc.returncode}, expected {want}")
        if proc.stderr:
            bad.append("stderr not empty")
        if cmd in ("scan", "obj") and left != [out.name]:
            bad.append(f"output directory holds {left}, expected {out.name}")
        if not bad and case.name != case.control:
            got = result(case, cmd, proc, out)
            want = controls[(case.control, cmd)]
            if case.unnamed:
                # the same entries; no symbol names them any more
                want = (re.sub(r"^(0x[0-9a-f]+) \S+\+0x[0-9a-f]+ ",
                               r"\1 <none> ", want[0], flags=re.M), want[1])
            if got != want:
                bad.append(f"output differs from {cmd} on the control "
                           f"{case.control}")
    if bad:
        return [f"{case.name} ({case.why}): {cmd}: " + "; ".join(bad)
                + "\n" + harness.describe(proc)]
    return []


@pytest.fixture(scope="module")
def controls(corpus, tmp_path_factory):
    """{(control case, command): result} of every control that succeeds."""
    work = tmp_path_factory.mktemp("controls")
    out = {}
    by_name = {c.name: c for c in corpus}
    for name in {c.control for c in corpus}:
        case = by_name[name]
        for cmd, want in case.expect.items():
            if want != 0:
                continue
            proc, o = run_cmd(case, cmd, work / f"{name}.{cmd}")
            assert proc.returncode == 0, harness.describe(proc)
            out[(name, cmd)] = result(case, cmd, proc, o)
    return out


def run_cases(cases, workdir, controls):
    jobs = [(c, cmd) for c in cases for cmd in malform.COMMANDS
            if cmd in c.expect]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = pool.map(lambda j: run_case(j[0], j[1], workdir, controls),
                           jobs)
        return [p for r in results for p in r], len(jobs)


def test_corpus_is_big_enough(corpus):
    """The corpus covers every group, both base images and the object,
    every error case names its place, and the truncations cut the data
    of many different sections, not one header check over and over."""
    names = [c.name for c in corpus]
    assert len(names) == len(set(names))
    assert {c.group for c in corpus} == set(GROUPS)
    assert len(corpus) >= 200, len(corpus)
    assert sum(n.startswith("clang-") for n in names) >= 60
    assert sum(n.startswith("obj-") for n in names) >= 15
    for c in corpus:
        assert c.control in names, c
        if 2 in c.expect.values():
            assert c.place, c
    for prefix in ("", "clang-", "obj-"):
        cut = {c.place for c in corpus if c.name.startswith(prefix + "cut-")}
        assert len(cut) >= (5 if prefix == "obj-" else 20), (prefix, cut)
        assert {".text", ".rela.text"} <= cut, (prefix, cut)
    runs = sum(len(c.expect) for c in corpus)
    assert sum("obj" in c.expect for c in corpus) >= 100, runs


@pytest.mark.parametrize("group", GROUPS)
def test_malformed(corpus, controls, tmp_path, group):
    cases = [c for c in corpus if c.group == group]
    assert cases
    problems, runs = run_cases(cases, tmp_path, controls)
    assert not problems, (f"{len(problems)} of {runs} runs went wrong:\n\n"
                          + "\n\n".join(problems))


def test_existing_output_untouched_on_error(corpus, tmp_path):
    """A failed scan leaves a previous output exactly as it was."""
    out = tmp_path / "table.o"
    old = b"previous table object\n" * 100
    for case in corpus:
        if case.expect.get("scan") != 2:
            continue
        out.write_bytes(old)
        proc = harness.run_linkpass(["scan", case.path, "-o", out])
        assert proc.returncode == 2, harness.describe(proc)
        assert out.read_bytes() == old, case.name
        assert sorted(p.name for p in tmp_path.iterdir()) == ["table.o"]


@pytest.mark.parametrize("how", ["missing-dir", "is-a-directory"])
def test_bad_output_path(corpus, tmp_path, how):
    """Output errors name the output, and leave no temp file."""
    image = next(c.path for c in corpus if c.name == "control")
    if how == "missing-dir":
        out = tmp_path / "no-such-dir" / "t.o"
    else:
        out = tmp_path / "t.o"
        out.mkdir()
        (out / "keep").write_text("x")
    proc = harness.run_linkpass(["scan", image, "-o", out])
    assert not harness.check_error_run(proc, out), harness.describe(proc)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ([] if how == "missing-dir" else ["t.o"])
    if how == "is-a-directory":
        assert (out / "keep").read_text() == "x"


def _regression_inputs():
    if not harness.REGRESSIONS.is_dir():
        return []
    return sorted(p for p in harness.REGRESSIONS.iterdir()
                  if p.is_file() and not p.name.startswith(("README", "."))
                  and p.suffix != ".md")


@pytest.mark.parametrize("path", _regression_inputs(),
                         ids=lambda p: p.name)
def test_regression_input(path, tmp_path):
    """Inputs that once crashed or hung linkpass (found by fuzzing): every
    command ends with 0, 1 or one error line, and nothing else; scan and
    check also with -j3 and with --patchable-entries, as
    fuzz/fuzz_image.c runs them (threads at any size); nop too, on a
    copy (fuzz/fuzz_obj.c runs it after obj)."""
    runs = [(cmd, []) for cmd in malform.COMMANDS]
    runs += [("scan", ["-j3"]), ("check", ["-j3"]),
             ("scan", ["--patchable-entries"]),
             ("check", ["--patchable-entries"]), ("nop", [])]
    for k, (cmd, opts) in enumerate(runs):
        out = tmp_path / f"{cmd}{k}.o"  # one output a run
        target = path
        if cmd in ("obj", "nop"):  # rewrite their input: never the kept file
            target = tmp_path / "copy.o"
            target.write_bytes(path.read_bytes())
        args = [cmd, target, *opts] + (["-o", out] if cmd == "scan" else [])
        proc = harness.run_linkpass(args)
        assert proc.returncode in (0, 1, 2), harness.describe(proc)
        if proc.returncode == 2:
            assert not harness.check_error_run(proc, target), \
                harness.describe(proc)
            assert not out.exists()
        else:
            assert proc.stderr == "", harness.describe(proc)
        assert not list(tmp_path.glob("*.tmp*"))


@pytest.mark.parametrize("path", [p for p in _regression_inputs()
                                  if p.name.startswith("obj-")],
                         ids=lambda p: p.name)
def test_regression_input_obj(path, tmp_path):
    """Objects that once broke linkpass obj (found by fuzz/fuzz_obj.c):
    one error line, the object untouched, no temp file, never a hang."""
    work = tmp_path / "in.o"
    work.write_bytes(path.read_bytes())
    proc = harness.run_linkpass(["obj", work])
    assert proc.returncode == 2, harness.describe(proc)
    assert not harness.check_error_run(proc, work), harness.describe(proc)
    assert work.read_bytes() == path.read_bytes()
    assert not list(tmp_path.glob("*.tmp*"))


@pytest.mark.parametrize("path", [p for p in _regression_inputs()
                                  if p.name.startswith("objok-")],
                         ids=lambda p: p.name)
def test_regression_input_objok(path, tmp_path):
    """Objects linkpass obj must accept (found by fuzz/fuzz_obj.c): the
    table is added, every section header of the result is sound (the
    new ones named, nothing past the old count is garbage) and check
    agrees with the result."""
    work = tmp_path / "in.o"
    work.write_bytes(path.read_bytes())
    proc = harness.run_linkpass(["obj", work])
    assert proc.returncode == 0, harness.describe(proc)
    assert proc.stderr == "", harness.describe(proc)
    heads = subprocess.run(["readelf", "-SW", work], capture_output=True,
                           text=True, check=True).stdout
    names = re.findall(r"^\s*\[\s*\d+\]\s+(\S+)", heads, re.M)
    assert names[-2:] == ["__mcount_loc", ".rel__mcount_loc"], heads
    proc = harness.run_linkpass(["check", work])
    assert proc.returncode == 0, harness.describe(proc)
    assert not list(tmp_path.glob("*.tmp*"))
