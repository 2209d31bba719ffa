"""check --byte-audit as a shipped kernel needs it (issue 38): pads of
the kernel's nop width only; nops the kernel patches for another reason
(static keys in __jump_table, alternatives) are no pad nor NOP'd site;
the geometry read from the table when none is given, riscv CALL_OPS's
8,4 among them; a refusal is one error line; an image without
relocations points to the byte audit; a wrong geometry is named; a zero
entry is in no section.

The images are assembled, so that each byte is where the kernel would
put it: the table (__mcount_loc) and the kernel's records are written
by hand in the kernel's formats (arch/*/include/asm/jump_label.h and
alternative*.h of Linux 7.3: each names its code by a PC-relative
s32), and linked without libc and without relocations kept.
"""
import pathlib
import re

import pytest

from lptest import require_tools, run, symbols, write

# The function opened by a pad, and a notrace function after a run of
# alignment-like nops that opens with nops the kernel patches (or, for
# the width rule, with nops of the wrong width); the table lists only
# the first.  {pre}/{post}: the traced pad; {align}/{quiet}: the
# notrace function's nops; {record}: what the kernel records for them.
IMAGE_S = """\
{head}
	.text
	.p2align 4
{pre}
	.globl	main
	.type	main, {ft}
main:
{post}
	ret
	.size	main, .-main
{align}
	.type	quiet, {ft}
quiet:
.Lpatched:
{quiet}
	ret
	.size	quiet, .-quiet
{tail}
{record}
	.section __mcount_loc, "a"
	.p2align 3
	.quad	{entry}
	.data
	.p2align 3
key:	.quad	0
"""

NOP = {"aarch64": "\tnop", "riscv64": "\tnop", "riscv64c": "\tc.nop",
       "x86_64": "\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00"}
FT = {"aarch64": "%function", "riscv64": "@function",
      "riscv64c": "@function", "x86_64": "@function"}
CC = {"aarch64": "aarch64-linux-gnu-gcc", "riscv64": "riscv64-linux-gnu-gcc",
      "riscv64c": "riscv64-linux-gnu-gcc", "x86_64": "gcc"}
FLAGS = {"aarch64": (), "riscv64": ("-march=rv64g",),
         "riscv64c": ("-march=rv64gc",), "x86_64": ()}
HEAD = {"riscv64": "\t.option norelax", "riscv64c": "\t.option norelax"}

# struct jump_entry { s32 code; s32 target; long key; }
JUMP = """\
	.section __jump_table, "aw"
	.p2align 3
	.long	.Lpatched - ., .Lpatched - .
	.quad	key - .
"""
# arm64 struct alt_instr { s32 orig; s32 alt; u16 cpucap; u8 orig_len; u8 alt_len; }
ALT_ARM64 = """\
	.section .altinstructions, "a"
	.long	.Lpatched - ., .Lrepl - .
	.hword	5
	.byte	8, 8
	.section .altinstr_replacement, "ax"
.Lrepl:	nop
	nop
"""
# riscv struct alt_entry { s32 old; s32 alt; u16 vendor; u16 alt_len; u32 id; }
ALT_RISCV = """\
	.section .alternative, "a"
	.long	.Lpatched - ., .Lrepl - .
	.short	0, 8
	.long	1
	.section .text.alt, "ax"
.Lrepl:	nop
	nop
"""
# x86 struct alt_instr (packed) { s32 instr; s32 repl; u32 flags; u8 instrlen; u8 replen; }
ALT_X86 = """\
	.section .altinstructions, "a"
	.long	.Lpatched - ., .Lrepl - .
	.long	5
	.byte	5, 5
	.section .altinstr_replacement, "ax"
.Lrepl:	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
"""
# x86: __fentry__, for the audit to find (the table's sites hold the NOP)
FENTRY_S = """\
	.text
	.globl	__fentry__
	.type	__fentry__, @function
__fentry__:
	ret
	.size	__fentry__, .-__fentry__
"""


def nops(arch, n):
    return "\n".join([NOP[arch]] * n)


def build(tmp_path, arch, pad, quiet, record, name="img", entry=None,
          align=None, tail=""):
    """An image with main's pad (M nops before, N - M after), quiet's
    nops after `align` alignment-like nops, the record, and a table
    that lists main's pad; linked static, without libc."""
    cc = CC[arch]
    require_tools(cc)
    n, m = pad
    src = write(tmp_path / f"{name}.S", IMAGE_S.format(
        head=HEAD.get(arch, ""), ft=FT[arch], pre=nops(arch, m),
        post=nops(arch, n - m), align=nops(arch, m if align is None else align),
        quiet=quiet, record=record, tail=tail,
        entry=entry or f"main - {m * nop_width(arch)}"))
    image = tmp_path / name
    run([cc, *FLAGS[arch], "-nostdlib", "-static", "-Wl,-e,main",
         "-Wl,--no-relax" if arch.startswith("riscv") else "-Wl,-N",
         src, "-o", image])
    return image


def nop_width(arch):
    return {"riscv64c": 2, "x86_64": 5}.get(arch, 4)


def summary(proc):
    return proc.stdout.strip().splitlines()[-1]


# (id, arch, geometry, the record of quiet's nops)
PATCHED = [
    ("arm64-jump-label", "aarch64", (4, 2), JUMP),
    ("arm64-alternative", "aarch64", (4, 2), ALT_ARM64),
    ("riscv64-jump-label", "riscv64", (4, 2), JUMP),
    ("riscv64-alternative", "riscv64", (4, 2), ALT_RISCV),
]


@pytest.mark.parametrize("arch,pad,record", [c[1:] for c in PATCHED],
                         ids=[c[0] for c in PATCHED])
def test_patched_nops_are_no_pad(tmp_path, linkpass, arch, pad, record):
    """A notrace function that opens with a static key's or an
    alternative's nops, after alignment nops, has the pad's shape but is
    no site: the audit of the correct table is ok.  Without the record
    the same bytes are a pad the table lacks."""
    n, m = pad
    opt = f"--patchable-entries={n},{m}"
    image = build(tmp_path, arch, pad, nops(arch, n - m), record)
    status, proc = linkpass.check(image, "--byte-audit", opt)
    assert status == 0, proc.stdout
    assert summary(proc).endswith("ok: 1 table entries (section __mcount_loc) "
                                  "match the 1 call sites"), proc.stdout
    assert "none of them recorded in __jump_table or the alternatives" in \
        proc.stdout.splitlines()[0]
    # the same bytes unrecorded: quiet is a pad, and missing
    bare = build(tmp_path, arch, pad, nops(arch, n - m), "", name="bare")
    status, proc = linkpass.check(bare, "--byte-audit", opt)
    quiet = next(s["value"] for s in symbols(bare) if s["name"] == "quiet")
    assert status == 1
    assert f"missing 0x{quiet - m * 4:016x} quiet-0x{m * 4:x} .text" in \
        proc.stdout.splitlines(), proc.stdout


@pytest.mark.parametrize("record", [JUMP, ALT_X86], ids=["jump-label",
                                                        "alternative"])
def test_patched_nop_is_no_nopped_site(tmp_path, linkpass, record):
    """x86_64 --sites=nop: a function opened by the 5-byte NOP of a
    static key or an alternative is no NOP'd ftrace site."""
    image = build(tmp_path, "x86_64", (1, 0), NOP["x86_64"], record,
                  entry="main", align=0, tail=FENTRY_S)
    status, proc = linkpass.check(image, "--byte-audit", "--sites=nop")
    assert status == 0, proc.stdout
    assert "not recorded in __jump_table or the alternatives" in \
        proc.stdout.splitlines()[0]
    bare = build(tmp_path, "x86_64", (1, 0), NOP["x86_64"], "", name="bare",
                 entry="main", align=0, tail=FENTRY_S)
    status, proc = linkpass.check(bare, "--byte-audit", "--sites=nop")
    assert status == 1 and "1 missing" in summary(proc), proc.stdout


# riscv64 with RVC and CALL_OPS (Linux 7.2+): -fpatchable-function-entry=8,4
# of c.nop; quiet opens with four 4-byte nops (.option norvc, as the
# kernel's alternatives and static keys write them) after four c.nops.
NORVC_NOPS = "\t.option push\n\t.option norvc\n" + nops("riscv64", 4) + \
    "\n\t.option pop"


def rvc_image(tmp_path):
    image = build(tmp_path, "riscv64c", (8, 4), NORVC_NOPS, "")
    out = run(["riscv64-linux-gnu-readelf", "-hW", image]).stdout
    assert "RVC" in out, out
    return image


def test_rvc_pad_is_all_c_nops(tmp_path, linkpass):
    """An RVC kernel's pad is c.nops only: 4-byte nops after four c.nops
    are no pad, so the table of main's pad alone is exact."""
    image = rvc_image(tmp_path)
    status, proc = linkpass.check(image, "--byte-audit",
                                  "--patchable-entries=8,4")
    assert status == 0, proc.stdout
    assert "a pad of 8 nops of 2 bytes, 4 before its start and 4 after" in \
        proc.stdout.splitlines()[0], proc.stdout


def test_geometry_read_from_the_table(tmp_path, linkpass):
    """Without N,M the audit reads the pads from the table's entries and
    says which geometry it used (riscv CALL_OPS: 8,4)."""
    image = rvc_image(tmp_path)
    status, proc = linkpass.check(image, "--byte-audit", "--patchable-entries")
    assert status == 0, proc.stdout
    assert "(-fpatchable-function-entry=8,4, read from the table: 1 of 1 " \
        "entries show it)" in proc.stdout.splitlines()[0], proc.stdout
    # arm64 CALL_OPS: 4,2
    arm = build(tmp_path, "aarch64", (4, 2), "\tmov x0, x1", "", name="arm")
    status, proc = linkpass.check(arm, "--byte-audit", "--patchable-entries")
    assert status == 0, proc.stdout
    assert "-fpatchable-function-entry=4,2, read from the table" in \
        proc.stdout, proc.stdout


def test_wrong_geometry_is_named(tmp_path, linkpass):
    """=4 on an 8,4 image: every entry stale and every pad missing; the
    summary names the geometry as the likely cause."""
    image = rvc_image(tmp_path)
    status, proc = linkpass.check(image, "--byte-audit", "--patchable-entries=4")
    assert status == 1
    assert summary(proc).endswith(
        "1 missing, 1 stale, 0 duplicate, 0 out of order; most entries are "
        "both stale and missing: the pad geometry is likely not the one "
        "compiled (--patchable-entries without N,M reads it from the table)"), \
        proc.stdout
    # the right geometry: no such note
    status, proc = linkpass.check(image, "--byte-audit", "--patchable-entries=8,4")
    assert "most entries" not in proc.stdout


def test_refusal_is_one_line(tmp_path, linkpass):
    """A refused audit prints its error and nothing else: no line saying
    what a site would have been."""
    image = build(tmp_path, "aarch64", (4, 2), "\tmov x0, x1", "",
                  entry="0")
    proc = linkpass.run("check", "--byte-audit", "--patchable-entries", image,
                        check=False)
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stdout
    assert proc.stderr.count("\n") == 1 and re.fullmatch(
        rf"linkpass: {image}: options: byte-level audit of patchable entries: "
        r"no table entry starts a run of nops into a function, .*"
        r"--patchable-entries=N,M as in -fpatchable-function-entry=N,M\n",
        proc.stderr), proc.stderr
    stripped = tmp_path / "stripped"
    run(["aarch64-linux-gnu-strip", image, "-o", stripped])
    proc = linkpass.run("check", "--byte-audit", "--patchable-entries=4,2",
                        stripped, check=False)
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stdout
    assert proc.stderr.count("\n") == 1 and ".symtab: no symbol table" in \
        proc.stderr


@pytest.mark.parametrize("opts,hint", [
    ((), "--byte-audit --patchable-entries"),
    (("--patchable-entries",), "--byte-audit --patchable-entries"),
    (("--patchable-entries=4,2",), "--byte-audit --patchable-entries=4,2"),
], ids=["plain", "bare", "geometry"])
def test_no_relocations_points_to_the_audit(tmp_path, linkpass, opts, hint):
    """check of an arm64 image without relocations (a shipped kernel)
    names the byte audit of pads, with or without --patchable-entries,
    not the compile nor only a relink."""
    image = build(tmp_path, "aarch64", (4, 2), "\tmov x0, x1", "")
    proc = linkpass.run("check", *opts, image, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        f"linkpass: {image}: .text: no relocations kept for code, which check "
        "compares the table with: for a shipped image or "
        "scripts/link-vmlinux.sh's output run "
        f"'linkpass check {hint} {image}'; for a fresh one link with -q "
        "(--emit-relocs; link-vmlinux.sh --keep-relocs)\n"), proc.stderr


def test_zero_entry_is_in_no_section(tmp_path, linkpass):
    """A zeroed entry is <none> <none>, also where a section sits at
    address 0 (x86_64's .data..percpu)."""
    require_tools("gcc")
    src = write(tmp_path / "z.S", FENTRY_S + """\
	.globl	main
	.type	main, @function
main:
	call	__fentry__
	ret
	.size	main, .-main
	.section .data..percpu, "aw"
	.quad	0
	.section __mcount_loc, "a"
	.quad	main, 0
""")
    # as the x86_64 vmlinux.lds links it: per-CPU data at address 0
    lds = write(tmp_path / "z.lds", """\
SECTIONS {
	. = 0x401000;
	.text : { *(.text) }
	__mcount_loc : { *(__mcount_loc) }
	.data..percpu 0 : AT(0x500000) { *(.data..percpu) }
}
""")
    image = tmp_path / "z"
    run(["gcc", "-nostdlib", "-static", "-Wl,-e,main", "-Wl,-T," + str(lds),
         src, "-o", image])
    out = run(["readelf", "-SW", image]).stdout
    assert re.search(r"\.data\.\.percpu\s+PROGBITS\s+0+\s", out), out
    lines = linkpass.run("dump", image).stdout.splitlines()
    assert lines[1] == "0x0000000000000000 <none> <none>", lines


def test_independent_count_agrees(tmp_path, linkpass):
    """kernel/nm-count.py, which shares no code with linkpass (nm and
    readelf only), counts what the audit reports: the docs compare the
    two on Debian's shipped images."""
    require_tools("nm", "readelf")
    count = pathlib.Path(__file__).resolve().parent.parent / "kernel" / "nm-count.py"
    for image, before in ((rvc_image(tmp_path), 8),
                          (build(tmp_path, "aarch64", (4, 2), "\tmov x0, x1",
                                 "", name="arm"), 8)):
        status, proc = linkpass.check(image, "--byte-audit",
                                      "--patchable-entries")
        assert status == 0 and summary(proc).endswith(
            "ok: 1 table entries (section __mcount_loc) "
            "match the 1 call sites"), proc.stdout
        line = run(["/usr/bin/python3", count, image, str(before)]).stdout
        assert line == (f"{image}: entries=1 zero=0 at_function_start=1 "
                        "in_no_function=0\n"), line
        # the entry counted at the pad's end instead: at no start
        line = run(["/usr/bin/python3", count, image, "0"]).stdout
        assert "at_function_start=0" in line, line
