# The shared helpers of the linkpass test suite (tests/conftest.py holds
# only the pytest fixtures and hooks).  Every test file imports from here:
# running commands, the linkpass binary, building inputs with the real
# toolchain, and reading images with binutils for an independent ground
# truth.  Facts about bytes and names come from lpfacts (the headers).
#
# A test skips only when a tool it needs is absent (require_tools says
# which); under CI=true such a skip is a failure (conftest.py).

import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

import lpfacts

REPO = Path(__file__).resolve().parent.parent
LINK_VMLINUX = REPO / "scripts" / "link-vmlinux.sh"

# Names of the mcount symbol per instrumentation mode.
FENTRY_SYMS = ("__fentry__",)
MCOUNT_SYMS = ("mcount", "_mcount")

# Sections whose functions the tests expect to be traced.
TRACED_SECTIONS = (".text", ".init.text")


# ---------------------------------------------------------------------------
# Running commands


class CommandError(AssertionError):
    pass


def run(cmd, cwd=None, env=None, check=True, input=None, timeout=120,
        clear_env=()):
    """Run cmd (a list) and return the CompletedProcess with text output.

    env adds to the environment; variables whose names start with one of
    clear_env are removed first (so a caller's LPTRACE_* cannot leak in).
    With check=True a non-zero exit raises an AssertionError showing the
    command and everything it printed."""
    cmd = [str(c) for c in cmd]
    full_env = None
    if env is not None or clear_env:
        drop = tuple(clear_env)
        full_env = {k: v for k, v in os.environ.items()
                    if not (drop and k.startswith(drop))}
        full_env.update({k: str(v) for k, v in (env or {}).items()})
    proc = subprocess.run(cmd, cwd=cwd, env=full_env, input=input,
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise CommandError(describe(proc))
    return proc


def describe(proc):
    """Command, status and output of a finished process, for messages."""
    args = " ".join(str(a) for a in proc.args)
    return (f"$ {args}\nexit status {proc.returncode}\n"
            f"--- stdout ---\n{proc.stdout}--- stderr ---\n{proc.stderr}")


def have(tool):
    return shutil.which(tool) is not None


def require_tools(*tools):
    """Skip the calling test, naming what is missing, unless all tools exist."""
    missing = [t for t in tools if not have(t)]
    if missing:
        pytest.skip("not installed: " + ", ".join(missing))


_ld_cache = {}


def links_trivial_program(cmd):
    """True when CMD (a compiler and its flags) compiles and links a
    trivial C program.  The output goes to a temp directory, never to
    /dev/null: a linker that writes a temp file and renames it into place
    (lld does, once /dev/null is a regular file) replaces the device for
    root, and then every `> /dev/null` writes into a file that the
    kernel's compiler probes read as their empty input (seen: random full
    kernel rebuilds, from flags whose probes failed)."""
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.run([*cmd, "-x", "c", "-", "-o",
                               os.path.join(d, "a.out")],
                              input="int main(void){return 0;}\n",
                              capture_output=True, text=True)
    links_trivial_program.stderr = proc.stderr
    return proc.returncode == 0


def compiler_can_use_ld(cc, ld):
    """True when `cc -fuse-ld=ld` links a trivial program on this machine."""
    key = (cc, ld)
    if key not in _ld_cache:
        ok = have(cc)
        if ok:
            ok = links_trivial_program([cc, f"-fuse-ld={ld}"])
        _ld_cache[key] = ok
    return _ld_cache[key]


def require_compiler_ld(cc, ld):
    require_tools(cc)
    if not compiler_can_use_ld(cc, ld):
        pytest.skip(f"{cc} cannot link with -fuse-ld={ld} here")


# ---------------------------------------------------------------------------
# The linkpass binary


class Linkpass:
    """The linkpass binary and its subcommands."""

    def __init__(self, path):
        self.path = Path(path)

    def __str__(self):
        return str(self.path)

    def run(self, *args, check=True, **kw):
        """Run `linkpass ARGS...`; check=True requires exit status 0."""
        return run([self.path, *args], check=check, **kw)

    def dump(self, image, *opts):
        """Table entries of image as addresses, in table order (as
        printed): comparing with sorted(truth) checks the order too."""
        return parse_sites(self.run("dump", image, *opts).stdout)

    def dump_entries(self, image, *opts):
        """[(addr, function, offset, section)] in table order."""
        return parse_entries(self.run("dump", image, *opts).stdout)

    def names(self, image, *opts):
        """Function names of the table's entries, in table order."""
        return [e[1] for e in self.dump_entries(image, *opts)]

    def sites(self, image, *opts):
        """Addresses `linkpass sites` prints, in its order."""
        return parse_sites(self.run("sites", image, *opts).stdout)

    def check(self, image, *opts):
        """Exit status of `linkpass check` (0 stable, 1 differs); the
        CompletedProcess is returned as the second value."""
        proc = self.run("check", image, *opts, check=False)
        assert proc.returncode in (0, 1), describe(proc)
        return proc.returncode, proc

    def scan(self, image, table, *opts):
        return self.run("scan", image, "-o", table, *opts)


# Line format of `linkpass dump` and `linkpass sites`:
#   0x<addr> <function>+0x<off> <section>
# or <function>-0x<off> for a pad's first nop before the function's entry
_SITE_LINE = re.compile(r"^0x([0-9a-fA-F]+)\s+(\S+)\s+(\S+)\s*$")


_ENTRY_LINE = re.compile(r"^0x([0-9a-f]+) (\S+?)([+-])0x([0-9a-f]+) (\S+)$")


def parse_sites(text):
    """Addresses from dump/sites output, in the order printed (never
    sorted here: tests compare with sorted(...) to check the order);
    other lines are an error."""
    addrs = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _SITE_LINE.match(line)
        assert m, f"unexpected line in linkpass output: {line!r}"
        addrs.append(int(m.group(1), 16))
    return addrs


def parse_entries(text):
    """[(addr, function, offset, section)] from dump/sites output, in the
    order printed; `<none>` entries have function "<none>", offset 0; an
    entry before its function's entry (`func-0x8`) a negative offset."""
    out = []
    for line in text.splitlines():
        m = _ENTRY_LINE.match(line)
        if m:
            off = int(m.group(4), 16)
            out.append((int(m.group(1), 16), m.group(2),
                        -off if m.group(3) == "-" else off, m.group(5)))
            continue
        m = re.match(r"^0x([0-9a-f]+) <none> (\S+)$", line)
        assert m, f"unexpected line in linkpass output: {line!r}"
        out.append((int(m.group(1), 16), "<none>", 0, m.group(2)))
    return out


# ---------------------------------------------------------------------------
# Building inputs


def write(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def compile_src(workdir, name, source, cc="gcc", flags=(), obj=None):
    """Write source as workdir/name and compile it with `cc -c flags`.

    The language follows the file name (.c, .s, .S).  Returns the object's
    path (workdir/<stem>.o unless obj is given)."""
    require_tools(cc)
    workdir = Path(workdir)
    src = write(workdir / name, source)
    obj = Path(obj) if obj else src.with_suffix(".o")
    run([cc, *flags, "-c", src, "-o", obj])
    return obj


def build_linkpass_harness(workdir, harness, opt="-O1"):
    """Link the C test driver tests/<harness> with linkpass's own sources
    (all but main.c); returns the executable, workdir/<its stem>."""
    require_tools("gcc")
    srcs = sorted(str(p) for p in (REPO / "linkpass").glob("*.c")
                  if p.name != "main.c")
    exe = Path(workdir) / Path(harness).stem
    run(["gcc", opt, "-std=gnu11", "-D_GNU_SOURCE",
         f"-I{REPO / 'include'}", f"-I{REPO / 'linkpass'}", "-o", exe,
         str(REPO / "tests" / harness), *srcs, "-lelf", "-lz", "-lpthread"])
    return exe


def assemble(workdir, name, source, flags=()):
    """Assemble source with `as`; returns the object's path."""
    require_tools("as")
    src = write(Path(workdir) / name, source)
    obj = src.with_suffix(".o")
    run(["as", *flags, src, "-o", obj])
    return obj


# The returning mcount stubs every test program links (tests/mcount-stubs.S).
STUBS_S = lpfacts.MCOUNT_STUBS_S


def read_fifo_later(path, text=False):
    """Start reading the FIFO at @path on a thread; returns the thread
    and a list that receives what was read.  The thread is a daemon: if
    nothing ever opens the FIFO for writing (the test fails), it does not
    keep pytest from exiting."""
    path = Path(path)
    got = []
    reader = threading.Thread(target=lambda: got.append(
        path.read_text() if text else path.read_bytes()), daemon=True)
    reader.start()
    return reader, got


def small_image(workdir, source, name="img"):
    """One C file with the stubs, gcc -pg -mfentry -O2, linked -q (non-PIE,
    GNU ld): the smallest image a command-line test needs."""
    require_compiler_ld("gcc", "bfd")
    workdir = Path(workdir)
    objs = [compile_src(workdir, Path(name).stem + ".c", source, "gcc",
                        ["-pg", "-mfentry", "-O2", "-fno-pie"]),
            assemble(workdir, "stubs.S", STUBS_S)]
    image = workdir / name
    run(["gcc", "-fuse-ld=bfd", "-no-pie", "-Wl,-q", *objs, "-o", image])
    return image


def link_driver(output, link_cmd, *opts, cwd=None, linkpass=None, check=True,
                env=None):
    """Run scripts/link-vmlinux.sh [opts] OUTPUT -- link_cmd...

    Returns the CompletedProcess; check=True requires exit status 0."""
    require_tools("bash")
    full_env = dict(env or {})
    if linkpass is not None:
        full_env.setdefault("LINKPASS", str(linkpass))
    full_env.setdefault("V", "")
    return run(["bash", LINK_VMLINUX, *opts, output, "--", *link_cmd],
               cwd=cwd, env=full_env, check=check)


def links_taken(stdout):
    """The link count from the driver's final `  LINKS   N (stable)` line."""
    m = re.search(r"^  LINKS   (\d+) \(stable\)$", stdout, re.M)
    assert m, f"no LINKS line in driver output:\n{stdout}"
    return int(m.group(1))


# ---------------------------------------------------------------------------
# Reading images with binutils (for assertions and the ground truth)


def section_headers(image):
    """{name: (index, type, flags)} from `readelf -SW`."""
    out = run(["readelf", "-SW", image]).stdout
    secs = {}
    pat = re.compile(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+"
                     r"\s+[0-9a-f]+\s+[0-9a-f]+\s*(\S*)")
    for line in out.splitlines():
        m = pat.match(line)
        if m and m.group(1) != "0":
            secs[m.group(2)] = (int(m.group(1)), m.group(3), m.group(4))
    return secs


def elf_type(image):
    """EXEC, DYN or REL."""
    out = run(["readelf", "-hW", image]).stdout
    m = re.search(r"^\s*Type:\s+(\S+)", out, re.M)
    assert m, out
    return m.group(1)


def symbols(image):
    """Defined symbols of .symtab as dicts: name, value, size, type, bind,
    vis, section (its name)."""
    index_to_name = {idx: name for name, (idx, _, _) in
                     section_headers(image).items()}
    out = run(["readelf", "-sW", "--syms", image]).stdout
    syms = []
    in_symtab = False
    pat = re.compile(r"^\s*\d+:\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+"
                     r"(\S+)\s+(\S+)\s*(.*)$")
    for line in out.splitlines():
        if line.startswith("Symbol table"):
            in_symtab = "'.symtab'" in line
            continue
        m = pat.match(line)
        if not (in_symtab and m) or not m.group(6).isdigit():
            continue
        size = m.group(2)
        size = int(size, 16) if size.startswith("0x") else int(size)
        syms.append(dict(name=m.group(7).split("@")[0], value=int(m.group(1), 16),
                         size=size, type=m.group(3), bind=m.group(4),
                         vis=m.group(5), section=index_to_name.get(int(m.group(6)), "?")))
    return syms


def symbol_value(image, name):
    for s in symbols(image):
        if s["name"] == name:
            return s["value"]
    raise AssertionError(f"{image}: no symbol {name}")


_INSN = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")
_TARGET = re.compile(r"<([^>+]+)(\+0x[0-9a-f]+)?>\s*$")


def disassemble(image, section):
    """[(address, bytes, text)] of section, from `objdump -d -w`."""
    out = run(["objdump", "-d", "-w", "-j", section, image]).stdout
    insns = []
    for line in out.splitlines():
        m = _INSN.match(line)
        if m:
            raw = bytes.fromhex(m.group(2).replace(" ", ""))
            insns.append((int(m.group(1), 16), raw, m.group(3).strip()))
    return insns


def _call_target(raw, text):
    """Name of a direct call's target symbol (no offset), else None.

    Direct calls are `e8 rel32` and the 6-byte `67 e8 rel32` that linkers
    make of a GOT-indirect call in a PIE."""
    call = lpfacts.OP_CALL
    if not (raw[:1] == call and len(raw) == lpfacts.CALL_LEN
            or raw[:2] == lpfacts.OP_ADDR32 + call
            and len(raw) == lpfacts.CALL_ADDR32_LEN):
        return None
    m = _TARGET.search(text)
    if not m or m.group(2):
        return None
    return m.group(1)


def ground_truth(image, mode="fentry", sections=TRACED_SECTIONS,
                 mcount_syms=None):
    """Expected call sites of image, derived from its instructions.

    For every sized function symbol in a traced section:
      mode "fentry": the first instruction, after an optional endbr64, is a
        call to __fentry__ (5-byte e8 or 6-byte 67 e8) -> that address;
      mode "mcount": the first call to mcount/_mcount in the function.
    Returns {address: (function, raw_bytes)}; a site's address is the start
    of the call instruction, prefix included."""
    if mcount_syms is None:
        mcount_syms = FENTRY_SYMS if mode == "fentry" else MCOUNT_SYMS
    require_tools("objdump", "readelf")
    present = section_headers(image)
    funcs = [s for s in symbols(image)
             if s["type"] == "FUNC" and s["size"] > 0
             and s["section"] in sections]
    sites = {}
    for sec in sections:
        if sec not in present:
            continue
        insns = disassemble(image, sec)
        for f in (f for f in funcs if f["section"] == sec):
            lo, hi = f["value"], f["value"] + f["size"]
            body = [i for i in insns if lo <= i[0] < hi]
            if mode == "fentry":
                if body and body[0][1] in (lpfacts.ENDBR64, lpfacts.ENDBR32):
                    body = body[1:]
                body = body[:1]
            for addr, raw, text in body:
                if _call_target(raw, text) in mcount_syms:
                    sites[addr] = (f["name"], raw)
                    break
    return sites


def read_bytes(image, addr, n):
    """n bytes at virtual address addr of image (from its section headers)."""
    out = run(["readelf", "-SW", image]).stdout
    pat = re.compile(r"^\s*\[\s*\d+\]\s+\S+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)"
                     r"\s+([0-9a-f]+)")
    data = Path(image).read_bytes()
    for line in out.splitlines():
        m = pat.match(line)
        if not m or m.group(1) == "NOBITS":
            continue
        base, off, size = (int(m.group(i), 16) for i in (2, 3, 4))
        if base and base <= addr < base + size:
            return data[off + addr - base: off + addr - base + n]
    raise AssertionError(f"{image}: address {addr:#x} is in no section")


def section_data(image, name):
    """(address, bytes) of section name, read from the file by the section
    headers of `readelf -SW`."""
    out = run(["readelf", "-SW", image]).stdout
    pat = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([0-9a-f]+)")
    for line in out.splitlines():
        m = pat.match(line)
        if m and m.group(1) == name:
            addr, off, size = (int(m.group(i), 16) for i in (3, 4, 5))
            data = Path(image).read_bytes()[off:off + size]
            return addr, data
    raise AssertionError(f"{image}: no section {name}")


def table_object_entries(table, image):
    """[(anchor, address)] of the entries of an x86_64 table object made
    by linkpass scan from image, in table order: each R_X86_64_64
    relocation's symbol value in image plus its addend (`readelf -rW`)."""
    relocs = run(["readelf", "-rW", table]).stdout
    rows = re.findall(r"^([0-9a-f]+)\s+[0-9a-f]+\s+R_X86_64_64\s+"
                      r"[0-9a-f]+\s+(\S+) ([+-]) ([0-9a-f]+)$", relocs, re.M)
    image_syms = {s["name"]: s["value"] for s in symbols(image)}
    out = []
    # in table order: by the offset each relocation patches
    for _, name, sign, add in sorted(rows, key=lambda r: int(r[0], 16)):
        addend = int(add, 16) * (-1 if sign == "-" else 1)
        out.append((name, image_syms[name] + addend))
    return out


def relative_relocs_in(image, section):
    """Addends of the R_X86_64_RELATIVE dynamic relocations that patch
    section, in section order (`readelf -rW`): a PIE's table entries."""
    addr, data = section_data(image, section)
    relocs = run(["readelf", "-rW", image]).stdout
    rows = re.findall(r"^([0-9a-f]+)\s+[0-9a-f]+\s+R_X86_64_RELATIVE\s+"
                      r"([0-9a-f]+)$", relocs, re.M)
    return [int(add, 16) for off, add in
            sorted(rows, key=lambda r: int(r[0], 16))
            if addr <= int(off, 16) < addr + len(data)]
