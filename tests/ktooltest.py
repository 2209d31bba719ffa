# Shared by the tests of the in-tree tool, kernel/linkpass/
# (test_kernel_tool.py, test_kernel_tool_edges.py): the tool under test,
# the inputs made once, and the small sources the tests build.
#
# KTOOL=/path/to/linkpass tests that binary instead of building
# kernel/linkpass.  The inputs (objects, links, the user-space tool's
# results) are made once per session by `made`, keyed by everything they
# are made from; KTOOL_CACHE=DIR keeps them in DIR for later sessions
# too (the mutation run, tests/mutation/mutate.py, tests each mutant's
# binary with the inputs its clean run made).  Every test still runs
# the tool itself.
#
# The fixtures are imported by each test file; what they make is kept
# here, once per session, whichever file asks first.

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from lptest import (REPO, STUBS_S, assemble, compile_src, run,
                    require_tools, section_data, write)

TOOL = REPO / "kernel" / "linkpass"
# KBUILD_HOSTCFLAGS' warnings, made errors
HOST_CFLAGS = ["-O2", "-Wall", "-Wmissing-prototypes", "-Wstrict-prototypes",
               "-std=gnu11", "-Werror"]
# What the kernel's linker script does for the table: MCOUNT_REC()
MCOUNT_LDS = ("SECTIONS { __mcount_loc : { __start_mcount_loc = .; "
              "KEEP(*(__mcount_loc)) __stop_mcount_loc = .; } } "
              "INSERT AFTER .rodata;\n"
              # the base of vmlinux's table entries, as kallsyms'
              "_text = ADDR(.text);\n")

SRC = r"""
int __attribute__((weak)) wf(int x) { return x + 1; }
static int __attribute__((noinline)) st(int x) { return x * 3; }
int leaf(int x) { return st(x) + wf(x); }
__attribute__((section(".init.text"))) int initf(int x) { return leaf(x); }
__attribute__((section(".exit.text"))) int exitf(int x) { return x - 1; }
__attribute__((no_instrument_function)) int nf(int x) { return x + 4; }
int main(void) { return initf(2) + exitf(1) + nf(0) == 23 ? 0 : 1; }
"""
STRONG = "int wf(int x) { return x + 10; }\n"


def sources():
    return sorted(TOOL.glob("*.c"))


def tool_lines():
    return sum(len(p.read_text().splitlines())
               for p in [*TOOL.glob("*.c"), *TOOL.glob("*.h")])


class Tool:
    def __init__(self, path):
        self.path = path

    def run(self, *args, check=True):
        # a run takes milliseconds: far longer is a hang (a mutant's loop)
        return run([self.path, *args], check=check, timeout=60)

    def table(self, image, out, *opts):
        """The table of @image as assembler in @out; returns @out."""
        proc = self.run(*opts, image)
        Path(out).write_text(proc.stdout)
        return out


# the session's tool and made inputs, whichever test file asks first
_session = {}


@pytest.fixture(scope="session")
def ktool(tmp_path_factory):
    """kernel/linkpass built as Kbuild builds a host program, or $KTOOL."""
    if "ktool" in _session:
        return _session["ktool"]
    given = os.environ.get("KTOOL")
    if given:
        if not os.access(given, os.X_OK):
            pytest.fail(f"KTOOL={given} is not executable")
        exe = Path(given).resolve()
    else:
        require_tools("gcc")
        exe = tmp_path_factory.mktemp("ktool") / "linkpass"
        run(["gcc", *HOST_CFLAGS, "-o", exe, *sources()])
    return _session.setdefault("ktool", Tool(exe))


def digest(parts):
    """A key for @parts: strings and numbers as written, files (Path) by
    their bytes, lists and tuples part by part."""
    h = hashlib.sha256()

    def feed(p):
        if isinstance(p, Path):
            h.update(b"F" + hashlib.sha256(p.read_bytes()).digest())
        elif isinstance(p, (list, tuple)):
            h.update(b"(")
            for x in p:
                feed(x)
            h.update(b")")
        else:
            h.update(b"S" + repr(p).encode() + b"\0")
    feed(parts)
    return h.hexdigest()[:40]


class Made:
    """Files the real toolchain (or the user-space tool) makes from a
    test's inputs, each made once and kept under the key of everything it
    is made from: the command's words and the bytes of its input files,
    never a path of the session.  Each test gets a copy of its own, which
    the tool may write in place."""

    def __init__(self, root):
        self.root = Path(root)

    def file(self, out, parts, make):
        """@out, a copy of what make(path) writes at path for @parts (the
        name of path is not @out's: it must not change what is made)."""
        out = Path(out)
        entry = self.root / digest(parts)
        made = "made"
        if not entry.is_dir():
            tmp = Path(tempfile.mkdtemp(prefix=".new-", dir=self.root))
            try:
                make(tmp / made)
                os.rename(tmp, entry)
            except OSError:
                if not entry.is_dir():   # else another run made it first
                    raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        shutil.copy(entry / made, out)
        return out


@pytest.fixture(scope="session")
def made(tmp_path_factory):
    """The session's made inputs: in $KTOOL_CACHE if set (kept), else in
    a temp folder of the session."""
    if "made" not in _session:
        root = os.environ.get("KTOOL_CACHE")
        if root:
            Path(root).mkdir(parents=True, exist_ok=True)
        else:
            root = tmp_path_factory.mktemp("made")
        _session["made"] = Made(root)
    return _session["made"]


def compiled(made, workdir, name, source, cc="gcc", flags=()):
    """compile_src(), made once."""
    obj = Path(workdir) / Path(name).with_suffix(".o")
    return made.file(obj, ("cc -c", cc, list(flags), name, source),
                     lambda o: compile_src(o.parent, name, source, cc,
                                           flags, obj=o))


def assembled(made, workdir, name, source):
    """assemble(), made once."""
    obj = Path(workdir) / Path(name).with_suffix(".o")
    return made.file(obj, ("as", name, source),
                     lambda o: os.rename(assemble(o.parent, name, source), o))


def cc_c(made, cc, src, obj):
    """`cc -c src -o obj` (a table the tool wrote), made once per text."""
    return made.file(obj, ("cc -c", cc, Path(src)),
                     lambda o: run([cc, "-c", src, "-o", o]))


def ld_r(made, ld, out, inputs, script=None):
    """`ld -r [-T script] -o out inputs...`, made once."""
    opts = ["-T", script] if script else []
    return made.file(out, ("ld -r", ld, opts, list(inputs)),
                     lambda o: run([ld, "-r", *opts, "-o", o, *inputs]))


def scanned(made, linkpass, image, out, *opts):
    """The user-space tool's table object of @image, made once."""
    return made.file(out, ("scan", linkpass.path, image, list(opts)),
                     lambda o: linkpass.scan(image, o, *opts))


def link(objs, out, cc="gcc", ld="bfd", extra=(), q=True):
    """@objs linked (-q: --emit-relocs) with the table placed as the
    kernel places it; ld None: the compiler's own linker."""
    lds = write(Path(out).parent / "mcount.lds", MCOUNT_LDS)
    run([cc, *([f"-fuse-ld={ld}"] if ld else []), "-no-pie",
         *(["-Wl,-q"] if q else []), f"-Wl,-T,{lds}", *extra, *objs,
         "-o", out])
    return out


def linked(made, objs, out, cc="gcc", ld="bfd", extra=(), q=True):
    """link(), made once."""
    return made.file(out, ("link", cc, ld, list(extra), q, MCOUNT_LDS,
                           list(objs)),
                     lambda o: link(objs, o, cc, ld, extra, q))


def section_bytes(image, name):
    return section_data(image, name)[1]


def object_table(ko):
    """A relocatable object's table: (section, offset) of each entry's
    relocation (`readelf -rW`), sorted."""
    out = run(["readelf", "-rW", ko]).stdout.split(
        "'.rela__mcount_loc'")[1].split("\n\n")[0]
    return sorted(re.findall(r"R_\w+_64\s+[0-9a-f]+ (\S+) \+ ([0-9a-f]+)$",
                             out, re.M))


def x86_objs(made, tmp_path, cc, flags=()):
    f = ["-pg", "-mfentry", "-O2", "-fno-pie", *flags]
    return [compiled(made, tmp_path, "prog.c", SRC, cc, f),
            compiled(made, tmp_path, "strong.c", STRONG, cc, f),
            assembled(made, tmp_path, "stubs.S", STUBS_S)]


def pad_objs(made, tmp_path, cc, flags, pad):
    """SRC and STRONG compiled with -fpatchable-function-entry=@pad, the
    notrace function with no pad."""
    require_tools(cc)
    f = ["-O2", f"-fpatchable-function-entry={pad}", *flags]
    src = SRC.replace("no_instrument_function",
                      "patchable_function_entry(0, 0)")
    return [compiled(made, tmp_path, "prog.c", src, cc, f),
            compiled(made, tmp_path, "strong.c", STRONG, cc, f)]


def theirs_obj(made, linkpass, ko, out):
    """`linkpass obj` on a copy of @ko, made once."""
    def make(o):
        shutil.copy(ko, o)
        linkpass.run("obj", o)
    return made.file(out, ("obj", linkpass.path, ko), make)


def check_fails(ktool, image, *opts):
    proc = ktool.run("--check", *opts, image, check=False)
    assert proc.returncode == 1, proc
    return proc.stderr
