#!/usr/bin/python3
# A mutation run of the in-tree tool, kernel/linkpass/ (issue 48, item 6):
# source-level mutants of each .c file, each built into its own binary,
# and tests/test_kernel_tool.py (and test_kernel_tool_*.py) run against
# each binary.  A mutant is killed when a test fails or the run times
# out; the score is killed / (generated - stillborn - judged equivalent).
#
#   make mutate-kernel-tool                    (mk/mutate.mk)
#   tests/mutation/mutate.py [--jobs N] [--only FILE.c] [--list]
#
# Four kinds of mutant, made on the code only (comments, string and
# character literals and preprocessor lines are masked first):
#   compare   a comparison flipped: < <=, > >=, == !=, < >
#   offbyone  an integer literal n made n+1 and n-1 where it is a bound
#             (an operand of a comparison, of + or -, or a for loop's
#             start)
#   negate    an if or while condition negated
#   drop      a statement (not a declaration, not a return) made empty
# A mutant that does not build is stillborn, and not scored.  Mutants
# judged equivalent (no input can tell them from the tool) are listed
# in tests/mutation/equivalent.txt, one a line:
#   FILE:LINE:ORIGINAL -> MUTATED  # why no input can tell them apart
# (ORIGINAL and MUTATED are the lines as the report prints them; an
# entry whose line moved still matches while its text is unique.)
#
# The run is hermetic: it copies kernel/linkpass/, the test files it runs
# and the user-space tool (the tests' reference) into its work folder
# first, so that edits made meanwhile do not change what it measures.
# The tests' inputs are built once, by the clean run, into a cache that
# every mutant's run reuses (KTOOL and KTOOL_CACHE, tests/ktooltest.py).
# The report is WORK/report.txt (build/mutate-kernel-tool/report.txt).

import argparse
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "kernel" / "linkpass"
EQUIVALENT = Path(__file__).resolve().parent / "equivalent.txt"
# What the run copies from the tree: the test files and what they import
TEST_FILES = ("conftest.py", "lptest.py", "lpfacts.py", "mcount-stubs.S",
              "ktooltest.py", "hardening/elfpatch.py")
TEST_GLOBS = ("test_kernel_tool.py", "test_kernel_tool_*.py")
# Tests of the tree rather than of the binary (they read the kernel
# series and git, which the copy has not): left out
DESELECT = ("test_kernel_tool.py::test_the_series_carries_the_tool_as_it_is",)
# KBUILD_HOSTCFLAGS' warnings; no -Werror, so that a mutant that only
# warns is still scored
CFLAGS = ["-O2", "-Wall", "-Wmissing-prototypes", "-Wstrict-prototypes",
          "-std=gnu11"]
PYTHON = "/usr/bin/python3"
KINDS = ("compare", "offbyone", "negate", "drop")


# ---------------------------------------------------------------------------
# Mutants


def mask(text):
    """@text with every character that is not code (comments, the inside
    of string and character literals, preprocessor lines) made a space;
    newlines are kept, so offsets and line numbers stay the same."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and text[i:].lstrip(" \t").startswith("#"):
            # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and text[i + 1:i + 2] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                out[i] = " "
                i += 1
            continue
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if c in " \t":
            i += 1
            continue
        at_line_start = False
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for j in range(i, end):
                if out[j] != "\n":
                    out[j] = " "
            i = end
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


@dataclass
class Mutant:
    file: str        # kernel/linkpass/X.c's name
    line: int        # 1-based line of the edit's start
    kind: str
    start: int       # the edit: text[start:end] becomes new
    end: int
    new: str
    original: str = ""   # the lines the edit touches, as printed
    mutated: str = ""
    ident: str = ""      # FILE:LINE:n, unique in a run
    verdict: str = ""    # killed, survived, stillborn, equivalent, timeout
    why: str = ""        # the failing test, or the equivalence reason
    seconds: float = 0.0

    def apply(self, text):
        return text[:self.start] + self.new + text[self.end:]

    def label(self):
        return f"{self.file}:{self.line}:{self.original} -> {self.mutated}"


CMP = re.compile(r"(?<![<>=!-])(<=|>=|==|!=|<|>)(?![<>=])")
FLIPS = {"<": ("<=", ">"), "<=": ("<",), ">": (">=", "<"), ">=": (">",),
         "==": ("!=",), "!=": ("==",)}
INT = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.])")
# what makes a literal a bound: a comparison or +/- on either side, or a
# for loop's start
BOUND_BEFORE = re.compile(r"(?:(?:<=|>=|==|!=|(?<![-<])<|(?<![->])>)|"
                          r"[\w)\]]\s*(?:\+=?|-=?))\s*$")
BOUND_AFTER = re.compile(r"^\s*(?:<=|>=|==|!=|<(?![<])|>(?![>])|"
                         r"\+(?![+])|-(?![->]))")
FOR_START = re.compile(r"\bfor\s*\(\s*\w+\s*=\s*$")
COND = re.compile(r"\b(if|while)\s*\(")
KEYWORDS = {"return", "goto", "break", "continue", "case", "default", "else",
            "if", "for", "while", "do", "switch", "sizeof"}
DECL = re.compile(r"^(?:(?:static|const|unsigned|signed|struct|enum|union)"
                  r"\s+)*[A-Za-z_]\w*(?:\s+|\s*\*+\s*)(?:const\s+)?\**"
                  r"[A-Za-z_]\w*\s*(?:[=;,\[(]|$)")


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def span_lines(text, start, end):
    """The whole lines @text[start:end] touches: (first offset, end)."""
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", max(end - 1, start))
    return a, len(text) if b < 0 else b


def closing(masked, open_at):
    """The offset of the parenthesis that closes the one at @open_at."""
    depth = 0
    for i in range(open_at, len(masked)):
        if masked[i] == "(":
            depth += 1
        elif masked[i] == ")":
            depth -= 1
            if not depth:
                return i
    raise ValueError("unbalanced parentheses")


def compare_mutants(name, text, masked):
    for m in CMP.finditer(masked):
        for to in FLIPS[m.group(1)]:
            yield Mutant(name, line_of(text, m.start()), "compare",
                         m.start(), m.end(), to)


def offbyone_mutants(name, text, masked):
    for m in INT.finditer(masked):
        before = masked[max(0, m.start() - 40):m.start()]
        after = masked[m.end():m.end() + 10]
        sign = re.search(r"(\w+)\s*[-+]=?\s*$", before)
        if sign and sign.group(1) in KEYWORDS:
            continue  # return -1: a sign, not arithmetic
        if not (BOUND_BEFORE.search(before) or BOUND_AFTER.match(after) or
                FOR_START.search(before)):
            continue
        lit, suffix = m.group(1), m.group(2)
        value = int(lit, 0)
        for v in (value + 1, value - 1):
            if v < 0:
                new = f"({v}{suffix})"
            elif lit.lower().startswith("0x"):
                new = f"{v:#x}{suffix}"
            else:
                new = f"{v}{suffix}"
            yield Mutant(name, line_of(text, m.start()), "offbyone",
                         m.start(), m.end(), new)


def negate_mutants(name, text, masked):
    for m in COND.finditer(masked):
        if re.search(r"}\s*$", masked[:m.start()]) and m.group(1) == "while":
            continue  # the end of a do-while: none in the tool
        open_at = m.end() - 1
        close = closing(masked, open_at)
        cond = text[open_at + 1:close]
        yield Mutant(name, line_of(text, m.start()), "negate",
                     open_at + 1, close, f"!({cond})")


def statements(text, masked):
    """(start, end) of each statement inside a function that can be
    dropped: one or more whole lines, starting where a statement starts
    (after ; { } a control header's ) or else) and ending with ; at the
    same parenthesis and brace depth."""
    lines = masked.split("\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)
    depth = 0      # brace depth at the start of each line
    prev = ""      # the last non-blank code line, stripped
    for i, ln in enumerate(lines):
        code = ln.strip()
        at_depth = depth
        depth += ln.count("{") - ln.count("}")
        if not code:
            continue
        starts = at_depth >= 1 and (
            not prev or prev[-1] in ";{}" or
            re.fullmatch(r"(?:case\b.*|default|[A-Za-z_]\w*)\s*:", prev) or
            prev.endswith(")") and
            re.match(r"(?:}\s*)?(?:else\s+)?(?:if|for|while)\b", prev)
            or re.fullmatch(r"(?:}\s*)?else", prev))
        prev = code
        if not starts or not re.match(r"[A-Za-z_*(]|\+\+|--", code):
            continue
        first = re.match(r"[A-Za-z_]\w*", code)
        word = first.group(0) if first else ""
        if word in KEYWORDS - {"goto", "break", "continue"} or \
                word not in KEYWORDS and DECL.match(code) or \
                re.match(r"[A-Za-z_]\w*\s*:(?!:)", code):
            continue
        # the statement: up to the line that ends it with ;
        parens = braces = 0
        for j in range(i, len(lines)):
            parens += lines[j].count("(") - lines[j].count(")")
            braces += lines[j].count("{") - lines[j].count("}")
            if lines[j].rstrip().endswith(";") and not parens \
                    and not braces:
                start = offsets[i] + len(ln) - len(ln.lstrip())
                end = offsets[j] + len(lines[j].rstrip())
                yield start, end
                break
            if parens < 0 or braces < 0:
                break


def drop_mutants(name, text, masked):
    for start, end in statements(text, masked):
        yield Mutant(name, line_of(text, start), "drop", start, end, ";")


GENERATORS = (compare_mutants, offbyone_mutants, negate_mutants,
              drop_mutants)


def squeeze(s):
    return " ".join(s.split())


def mutants_of(path):
    """Every mutant of the C file @path, in line order, each named and
    with the lines it changes as the report prints them; mutants that
    make the same source are kept once."""
    text = path.read_text()
    masked = mask(text)
    seen = set()
    out = []
    for gen in GENERATORS:
        for mu in gen(path.name, text, masked):
            new = mu.apply(text)
            if new in seen or new == text:
                continue
            seen.add(new)
            a, b = span_lines(text, mu.start, mu.end)
            mu.original = squeeze(text[a:b])
            mu.mutated = squeeze(new[a:b - (mu.end - mu.start) +
                                     len(mu.new)])
            out.append(mu)
    out.sort(key=lambda m: (m.line, KINDS.index(m.kind), m.start))
    for n, mu in enumerate(out, 1):
        mu.ident = f"{path.stem}-{n:03d}"
    return out


# ---------------------------------------------------------------------------
# Mutants judged equivalent


EQ_LINE = re.compile(r"^(?P<file>[\w.-]+):(?P<line>\d+):(?P<orig>.*?) -> "
                     r"(?P<mut>.*?)\s+#\s*(?P<why>.+)$")


def read_equivalent(path=EQUIVALENT):
    """[(file, line, original, mutated, why)] of the tracked list."""
    out = []
    if not path.exists():
        return out
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        m = EQ_LINE.match(line)
        if not m:
            sys.exit(f"{path}:{n}: not FILE:LINE:ORIGINAL -> MUTATED  # WHY")
        out.append((m["file"], int(m["line"]), squeeze(m["orig"]),
                    squeeze(m["mut"]), m["why"].strip()))
    return out


def mark_equivalent(mutants, entries):
    """Mark the mutants an entry names; returns the entries that name
    none (stale: the line changed, or the mutant is gone).  An entry
    matches its file, line and text; failing that, its file and text
    when exactly one mutant has them."""
    stale = []
    by_text = {}
    for mu in mutants:
        by_text.setdefault((mu.file, mu.original, mu.mutated), []).append(mu)
    for file, line, orig, mut, why in entries:
        cands = by_text.get((file, orig, mut), [])
        hit = [mu for mu in cands if mu.line == line] or \
            (cands if len(cands) == 1 else [])
        if not hit:
            stale.append((file, line, orig, mut, why))
        for mu in hit:
            mu.verdict, mu.why = "equivalent", why
    return stale


# ---------------------------------------------------------------------------
# Building and testing


def test_files(folder):
    return sorted(p for g in TEST_GLOBS for p in folder.glob(g))


def sh(cmd, timeout=None, **kw):
    """Run @cmd in a session of its own; on timeout the whole session is
    killed (the tests' own children too) and None is returned."""
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, **kw)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    return proc.returncode, out


class Run:
    def __init__(self, work, jobs):
        self.work = work
        self.jobs = jobs
        self.src = work / "kernel" / "linkpass"
        self.objs = work / "obj"
        self.cache = work / "cache"
        self.lp = work / "linkpass-user"
        self.timeout = None

    def snapshot(self):
        """The tool's sources, the test files, the headers lpfacts reads
        and the user-space tool, as they are now."""
        if self.work.exists():
            shutil.rmtree(self.work)
        shutil.copytree(TOOL, self.src)
        tests = self.work / "tests"
        tests.mkdir()
        for name in TEST_FILES:
            (tests / name).parent.mkdir(exist_ok=True)
            shutil.copy(REPO / "tests" / name, tests / name)
        for p in test_files(REPO / "tests"):
            shutil.copy(p, tests)
        shutil.copytree(REPO / "include", self.work / "include")
        shutil.copy(REPO / "pytest.ini", self.work)
        proc = sh(["make", "-C", REPO, "linkpass/linkpass"])
        if proc[0]:
            sys.exit("building the user-space tool failed:\n" + proc[1])
        shutil.copy(REPO / "linkpass" / "linkpass", self.lp)
        self.cache.mkdir()
        self.objs.mkdir()
        (self.work / "mutants").mkdir()

    def compile(self, src, obj):
        """A file of the tool, or a mutant of one (its headers are the
        snapshot's)."""
        return sh(["gcc", *CFLAGS, f"-I{self.src}", "-c", src, "-o", obj])

    def build_clean(self):
        for c in sorted(self.src.glob("*.c")):
            rc, out = self.compile(c, self.objs / (c.stem + ".o"))
            if rc:
                sys.exit(f"the tool does not build:\n{out}")
        exe = self.work / "linkpass-clean"
        rc, out = sh(["gcc", "-o", exe, *sorted(self.objs.glob("*.o"))])
        if rc:
            sys.exit(f"the tool does not link:\n{out}")
        return exe

    def tests(self, exe, timeout=None):
        """Run the test files on binary @exe: (passed, seconds, output);
        passed is None on a timeout."""
        env = dict(os.environ, KTOOL=str(exe), KTOOL_CACHE=str(self.cache),
                   LINKPASS=str(self.lp), PYTHONDONTWRITEBYTECODE="1")
        env.pop("CI", None)
        t0 = time.monotonic()
        tests = self.work / "tests"
        proc = sh([PYTHON, "-m", "pytest", "-x", "-q", "-p",
                   "no:cacheprovider", "-c", self.work / "pytest.ini",
                   "--rootdir", self.work,
                   *(f"--deselect=tests/{d}" for d in DESELECT),
                   *test_files(tests)],
                  timeout=timeout, cwd=self.work, env=env)
        dt = time.monotonic() - t0
        if proc is None:
            return None, dt, ""
        return proc[0] == 0, dt, proc[1]

    def try_mutant(self, mu):
        """Build @mu and run the tests on it; sets its verdict."""
        d = self.work / "mutants" / mu.ident
        d.mkdir()
        src = self.src / mu.file
        (d / mu.file).write_text(mu.apply(src.read_text()))
        obj = d / (src.stem + ".o")
        rc, out = self.compile(d / mu.file, obj)
        if not rc:
            others = [o for o in sorted(self.objs.glob("*.o"))
                      if o.stem != src.stem]
            rc, out = sh(["gcc", "-o", d / "linkpass", obj, *others])
        if rc:
            mu.verdict = "stillborn"
            errs = [ln for ln in out.splitlines() if "error" in ln]
            mu.why = (errs or out.strip().splitlines() or [""])[0]
            shutil.rmtree(d)
            return mu
        passed, mu.seconds, out = self.tests(d / "linkpass", self.timeout)
        if passed is None:
            mu.verdict, mu.why = "killed", "timeout"
        elif passed:
            mu.verdict = "survived"
        else:
            mu.verdict = "killed"
            failed = re.findall(r"^FAILED (\S+)", out, re.M) or \
                re.findall(r"^ERROR (\S+)", out, re.M)
            mu.why = failed[0].split("::", 1)[-1] if failed else "error"
        shutil.rmtree(d)
        return mu


# ---------------------------------------------------------------------------
# The report


def score_line(mus):
    gen = len(mus)
    still = sum(m.verdict == "stillborn" for m in mus)
    eq = sum(m.verdict == "equivalent" for m in mus)
    killed = sum(m.verdict == "killed" for m in mus)
    scored = gen - still - eq
    pct = f"{100 * killed / scored:.1f}%" if scored else "-"
    return gen, still, eq, killed, scored, pct


def report(mutants, stale, out=sys.stdout):
    w = out.write
    head = ("", "generated", "stillborn", "equivalent", "killed", "scored",
            "score")
    rows = [(k, *score_line([m for m in mutants if m.kind == k]))
            for k in KINDS]
    rows.append(("", "", "", "", "", "", ""))
    for f in sorted({m.file for m in mutants}):
        rows.append((f, *score_line([m for m in mutants if m.file == f])))
    rows.append(("", "", "", "", "", "", ""))
    rows.append(("total", *score_line(mutants)))
    widths = [max(len(str(r[i])) for r in [head, *rows])
              for i in range(len(head))]
    for r in [head, *rows]:
        w("  ".join(str(c).rjust(wd) if i else str(c).ljust(wd)
                    for i, (c, wd) in enumerate(zip(r, widths))).rstrip()
          + "\n")
    surv = [m for m in mutants if m.verdict == "survived"]
    w(f"\n{len(surv)} survivors:\n")
    for m in surv:
        w(f"  {m.label()}  [{m.kind}]\n")
    timeouts = [m for m in mutants if m.why == "timeout"]
    if timeouts:
        w(f"\n{len(timeouts)} killed by the timeout:\n")
        for m in timeouts:
            w(f"  {m.label()}\n")
    if stale:
        w(f"\n{len(stale)} entries of {EQUIVALENT.name} name no mutant "
          "(the code changed):\n")
        for f, ln, o, mu, _ in stale:
            w(f"  {f}:{ln}:{o} -> {mu}\n")


def main():
    ap = argparse.ArgumentParser(description="A mutation run of "
                                 "kernel/linkpass/ against its tests.")
    ap.add_argument("--jobs", type=int, default=2,
                    help="mutants tested at once (2)")
    ap.add_argument("--only", action="append", default=[],
                    metavar="FILE.c", help="mutate only this file "
                    "(repeatable)")
    ap.add_argument("--work", type=Path,
                    default=REPO / "build" / "mutate-kernel-tool",
                    help="work folder, emptied first "
                    "(build/mutate-kernel-tool)")
    ap.add_argument("--list", action="store_true",
                    help="print the mutants and exit")
    ap.add_argument("--report", type=Path, help="also write the report "
                    "here (default: WORK/report.txt)")
    args = ap.parse_args()

    files = sorted(TOOL.glob("*.c"))
    if args.only:
        names = {Path(o).name for o in args.only}
        unknown = names - {p.name for p in files}
        if unknown:
            ap.error(f"not a file of kernel/linkpass/: {sorted(unknown)}")
        files = [p for p in files if p.name in names]

    if args.list:
        for p in files:
            for mu in mutants_of(p):
                print(f"{mu.ident} {mu.kind:8} {mu.label()}")
        return 0

    run = Run(args.work.resolve(), args.jobs)
    t_start = time.monotonic()
    run.snapshot()
    mutants = [mu for p in files
               for mu in mutants_of(run.src / p.name)]
    stale = mark_equivalent(mutants, read_equivalent())
    if args.only:
        stale = [s for s in stale if s[0] in {p.name for p in files}]
    print(f"{len(mutants)} mutants of {len(files)} files "
          f"({sum(m.verdict == 'equivalent' for m in mutants)} judged "
          f"equivalent, not run) in {run.work}", flush=True)

    exe = run.build_clean()
    ok, t_cold, out = run.tests(exe)
    if not ok:
        sys.exit("the tests fail on the unmutated tool:\n" + out)
    ok, t_warm, out = run.tests(exe)
    if not ok:
        sys.exit("the tests fail on the unmutated tool (warm cache):\n" + out)
    run.timeout = max(10 * t_warm, 30)
    print(f"clean run: {t_cold:.1f} s building the inputs, {t_warm:.1f} s "
          f"from the cache; timeout {run.timeout:.0f} s", flush=True)

    todo = [m for m in mutants if m.verdict != "equivalent"]
    done = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for mu in pool.map(run.try_mutant, todo):
            done += 1
            note = f" ({mu.why})" if mu.why else ""
            print(f"[{done}/{len(todo)}] {mu.verdict:9} {mu.kind:8} "
                  f"{mu.label()}{note}", flush=True)

    elapsed = time.monotonic() - t_start
    path = args.report or run.work / "report.txt"
    with open(path, "w") as f:
        report(mutants, stale, f)
        f.write(f"\n{len(todo)} mutants run in {elapsed / 60:.1f} minutes "
                f"with {args.jobs} jobs (clean run {t_cold:.1f} s cold, "
                f"{t_warm:.1f} s warm)\n")
    print()
    sys.stdout.write(path.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
