"""The runtime's documented interface.

The environment has one table (runtime/env.c, lpt_env_vars):
docs/runtime.md lists the same variables with the same kinds, accepted
values, defaults and help, both ways; and no file of runtime/ but env.c
reads the environment.  The runtime's side comes from the table itself,
printed by a small program linked with liblptrace.a
(tests/runtime/envtable.c); the doc's from its markdown table.

The API's old lp_* names still build and run, and each use warns."""

import re

import pytest

from lptest import REPO, have, require_tools, run, write

DOC = REPO / "docs" / "runtime.md"
HEADER = "| Variable | Kind | Accepted | Default | Meaning |"
# what may read the environment, and the calls that read it
ENV_FILE = "env"
ENV_READERS = {"getenv", "secure_getenv", "environ", "__environ"}


@pytest.fixture(scope="module")
def built():
    require_tools("make", "gcc", "nm")
    run(["make", "-s", "-C", REPO, "runtime"], timeout=600)


def accepted(kind, values):
    """The doc's spelling of what a variable accepts."""
    if kind == "number":
        lo, hi = values.split()
        return f"{lo} to {hi}"
    if kind == "word":
        return ", ".join(f"`{w}`" for w in values.split("|"))
    return {"path": "a file", "glob": "a glob of function names"}[kind]


def code_table(tmp_path):
    """{name: (kind, accepted, default, help)} from lpt_env_vars."""
    exe = tmp_path / "envtable"
    run(["gcc", "-O2", "-std=gnu11", "-D_GNU_SOURCE",
         "-I", REPO / "runtime", "-I", REPO / "include",
         REPO / "tests" / "runtime" / "envtable.c",
         REPO / "runtime" / "liblptrace.a", "-lpthread", "-o", exe])
    rows = {}
    for line in run([exe]).stdout.splitlines():
        name, kind, values, default, help_ = line.split("\t")
        if kind == "word":
            default = f"`{default}`"
        elif kind != "number":
            default = "unset"
        rows[f"`{name}`"] = (kind, accepted(kind, values), default, help_)
    return rows


def doc_table():
    """{name: (kind, accepted, default, meaning)} from docs/runtime.md."""
    lines = DOC.read_text().splitlines()
    assert HEADER in lines, f"{DOC}: no table headed {HEADER!r}"
    rows = {}
    for line in lines[lines.index(HEADER) + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 5, f"{DOC}: {line!r}: not 5 cells"
        assert cells[0] not in rows, f"{DOC}: {cells[0]} listed twice"
        rows[cells[0]] = tuple(cells[1:])
    return rows


def test_doc_lists_the_runtime_environment(built, tmp_path):
    code, doc = code_table(tmp_path), doc_table()
    assert len(code) >= 14, code
    undocumented = sorted(set(code) - set(doc))
    assert not undocumented, f"read by the runtime, not in {DOC}: {undocumented}"
    unknown = sorted(set(doc) - set(code))
    assert not unknown, f"in {DOC}, not read by the runtime: {unknown}"
    for name in code:
        assert doc[name] == code[name], \
            f"{name}: {DOC} says {doc[name]}, runtime/env.c says {code[name]}"
    # every LPTRACE* name the runtime's sources spell (include guards
    # aside) is in the table
    named = set()
    for src in (REPO / "runtime").glob("*.[ch]"):
        named |= {n for n in re.findall(r"\bLPTRACE(?:_[A-Z_]+)?\b",
                                        src.read_text())
                  if not n.endswith("_H")}
    assert {f"`{n}`" for n in named} <= set(code), \
        sorted({f"`{n}`" for n in named} - set(code))


def test_only_env_c_reads_the_environment(built):
    srcs = sorted((REPO / "runtime").glob("*.c")) + [REPO / "runtime" / "entry.S"]
    readers = {}
    for src in srcs:
        obj = REPO / "build" / "runtime" / f"{src.stem}.o"
        used = set(run(["nm", "-P", "-u", obj]).stdout.split()[::2])
        if used & ENV_READERS:
            readers[src.stem] = sorted(used & ENV_READERS)
    assert readers == {ENV_FILE: ["getenv"]}, readers


OLD_NAMES = r"""#include <stdio.h>
#include "lptrace.h"

int main(void)
{
	struct lp_stats st;
	int n = lp_init();

	n += lp_enable("*") + lp_disable(NULL);
	lp_stats(&st);
	printf("%d %llu %d %d\n", n, (unsigned long long)lp_trace_count(),
	       lp_write_text("/dev/null"), lp_write_json("/dev/null"));
	return st.sites != 0;
}
"""


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_old_names_are_deprecated_but_work(built, tmp_path, cc):
    """The seven lp_* names (struct lp_stats too) build, link and call
    the lpt_* functions; each use warns, naming its replacement, unless
    LPT_QUIET_DEPRECATED is defined."""
    if not have(cc):
        require_tools(cc)
    src = write(tmp_path / "old.c", OLD_NAMES)
    exe = tmp_path / "old"
    base = [cc, "-Wall", "-I", REPO / "runtime", src,
            REPO / "runtime" / "liblptrace.a", "-lpthread", "-o", exe]
    proc = run(base)
    warned = set(re.findall(r"(lp_\w+) is deprecated: use (lpt_\w+)",
                            proc.stderr))
    assert warned == {(f"lp_{n}", f"lpt_{n}") for n in (
        "stats", "init", "enable", "disable", "trace_count", "write_text",
        "write_json")}, proc.stderr
    # no table, no site: every call succeeds and matches nothing
    assert run([exe], env={"LPTRACE": "on"}).stdout == "0 0 0 0\n"
    proc = run(base[:1] + ["-Werror", "-DLPT_QUIET_DEPRECATED"] + base[1:])
    assert "deprecated" not in proc.stderr, proc.stderr
    assert run([exe]).stdout == "0 0 0 0\n"
