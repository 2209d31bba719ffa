# The documentation against the tree: docs/linkpass.md's option table
# against `linkpass --help` (both ways), no build path of any machine in
# README.md and docs/, every link to a file resolving, every page of
# docs/ on the README's map, and the README's worked example as printed.

import re
import subprocess

import pytest

from lptest import REPO, require_tools

DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [REPO / "README.md", *DOCS]

# "--name" or "-x", as an option cell of the table writes them
LONG_OPT = re.compile(r"--[a-z][a-z-]*")
SHORT_OPT = re.compile(r"(?<![-\w])-[a-zA-Z](?![\w-])")


def rel(path):
    return path.relative_to(REPO)


def help_options(linkpass):
    """{option: set of commands} from `linkpass --help`, each option
    under its long and (where it has one) its short name, and the
    commands of the usage lines."""
    out = linkpass.run("--help").stdout
    cmds = re.findall(r"^(?:usage:|\s+)\s*linkpass (\w+)", out, re.M)
    opts = {}
    for line in out.splitlines():
        m = re.match(r"  (-\S.*?)\s{2,}.*?(?:\[([a-z, ]+)\])?$", line)
        if not m:
            continue
        left, taken = m.groups()
        which = set(taken.split(", ")) if taken else set(cmds)
        for name in LONG_OPT.findall(left) + SHORT_OPT.findall(left):
            opts[name] = which
    return cmds, opts


def doc_options():
    """{option: set of commands} from the table of docs/linkpass.md's
    "## Options" section ("every command" is all of them)."""
    text = (REPO / "docs/linkpass.md").read_text()
    m = re.search(r"^## Options\n(.*?)(?=^## )", text, re.M | re.S)
    assert m, "docs/linkpass.md: no '## Options' section"
    opts = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        left, taken = cells[0], cells[1]
        which = None if taken == "every command" else \
            set(taken.split(", "))
        names = LONG_OPT.findall(left) + SHORT_OPT.findall(left)
        assert names, f"docs/linkpass.md: no option in row {line!r}"
        for name in names:
            assert name not in opts, f"docs/linkpass.md: {name} twice"
            opts[name] = which
    return opts


def test_option_table_matches_help(linkpass):
    """Every option --help lists is in docs/linkpass.md's table with the
    same commands, and every option the table documents exists."""
    cmds, want = help_options(linkpass)
    got = doc_options()
    assert len(want) >= 20, f"--help parsed badly: {sorted(want)}"
    undocumented = sorted(set(want) - set(got))
    unknown = sorted(set(got) - set(want))
    assert not undocumented, \
        f"in linkpass --help, not in docs/linkpass.md: {undocumented}"
    assert not unknown, \
        f"in docs/linkpass.md, not in linkpass --help: {unknown}"
    for name, which in got.items():
        if which is None:
            which = set(cmds)
        assert which == want[name], \
            f"{name}: docs/linkpass.md says {sorted(which)}, " \
            f"--help {sorted(want[name])}"


def test_every_command_has_a_section(linkpass):
    """Each command of the usage has its own section in docs/linkpass.md,
    and the page names no command linkpass does not have."""
    cmds, _ = help_options(linkpass)
    assert len(cmds) >= 6, cmds
    text = (REPO / "docs/linkpass.md").read_text()
    sections = re.findall(r"^## `linkpass (\w+)", text, re.M)
    assert sorted(sections) == sorted(cmds)


# Paths that are documented defaults of the tree, each with the file
# that makes it the default (the test checks it still does).
DEFAULT_PATHS = {
    "/var/tmp/linkpass-kernel": "kernel/test-kernel.sh",
    "/var/tmp/lp-bench/work": "mk/bench.mk",
}
BUILD_PATH = re.compile(r"/(?:work|tmp|home|root)/")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(rel(p)))
def test_no_build_path(page):
    """No path of the machine that wrote a page (a work tree, a temp
    folder, a home) appears in it; only the documented defaults may."""
    bad = []
    for n, line in enumerate(page.read_text().splitlines(), 1):
        for path in DEFAULT_PATHS:
            line = line.replace(path, "")
        if BUILD_PATH.search(line):
            bad.append(f"{rel(page)}:{n}: {line.strip()}")
    assert not bad, "build paths:\n" + "\n".join(bad)


@pytest.mark.parametrize("path,where", DEFAULT_PATHS.items())
def test_allowed_paths_are_defaults(path, where):
    assert path in (REPO / where).read_text(), \
        f"{path} is no longer a default in {where}: drop it from the docs"


MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# `docs/x.md`, `README.md`: a page named as a path from the top
MD_NAME = re.compile(r"`((?:docs/)?[\w.-]+\.md)`")


def links(page):
    """(line number, target, path it resolves to) of each link to a file
    in page: markdown links, and pages named in backquotes."""
    for n, line in enumerate(page.read_text().splitlines(), 1):
        for target in MD_LINK.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            yield n, target, page.parent / target.split("#")[0]
        for name in MD_NAME.findall(line):
            if name == "README.md" or name.startswith("docs/"):
                yield n, name, REPO / name


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(rel(p)))
def test_links_resolve(page):
    """Every link and every page named in README.md and docs/ exists."""
    bad = [f"{rel(page)}:{n}: {target}"
           for n, target, path in links(page) if not path.exists()]
    assert not bad, "links to nothing:\n" + "\n".join(bad)


def test_readme_maps_every_page():
    """The README's map links every page of docs/, and stays short."""
    readme = (REPO / "README.md").read_text()
    linked = {(REPO / t.split("#")[0]).resolve()
              for t in MD_LINK.findall(readme)}
    missing = [str(rel(p)) for p in DOCS if p.resolve() not in linked]
    assert not missing, f"README.md links no {missing}"
    assert len(readme.splitlines()) <= 220


def test_readme_worked_example(linkpass, tmp_path):
    """The README's worked example, run as written in a temp folder,
    prints the output the README shows (addresses aside)."""
    require_tools("gcc", "objcopy")
    readme = (REPO / "README.md").read_text()
    m = re.search(r"## A worked example\n.*?```sh\n(.*?)```\n\nOutput:\n\n"
                  r"```\n(.*?)```", readme, re.S)
    assert m, "README.md: no worked example with its output"
    script, want = m.groups()
    lines = script.splitlines()
    assert lines[0] == "make" and lines[1].startswith("REPO=$PWD;"), lines[:2]
    script = "\n".join(lines[2:]) + "\n"
    env = {"PATH": "/usr/bin:/bin", "REPO": str(REPO),
           "LINKPASS": str(linkpass)}
    proc = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path,
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr

    def norm(text):
        return re.sub(r"0x[0-9a-f]{16}", "0xADDR", text).splitlines()
    assert norm(proc.stdout) == norm(want)
