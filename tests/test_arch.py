# The arch axis: aarch64 and riscv64 images built with the Debian cross
# compilers (gcc -pg: the _mcount call follows the prologue), linked
# through scripts/link-vmlinux.sh, checked against a ground truth read
# from the cross objdump's disassembly, checked and dumped by linkpass,
# and run under qemu-user.  scripts/install-deps.sh installs the tools.

import collections
import fnmatch
import json
import re

import pytest

from lptest import (REPO, link_driver, links_taken, require_tools, run,
                    section_headers, symbols, write)

ARCHES = {
    "aarch64": dict(
        triplet="aarch64-linux-gnu", qemu="qemu-aarch64",
        # a returning _mcount; the program's late call clobbers x30
        stub="\t.text\n\t.globl _mcount\n\t.type _mcount,@function\n"
             "_mcount:\n\tret\n\t.size _mcount, .-_mcount\n",
        late_call='asm volatile("bl _mcount" ::: "x0", "x30", "memory")',
        # "bl <target> <_mcount>"
        calls=("bl", "blr"), returns=("ret", "br", "b")),
    "riscv64": dict(
        triplet="riscv64-linux-gnu", qemu="qemu-riscv64",
        stub="\t.text\n\t.globl _mcount\n\t.type _mcount,@function\n"
             "_mcount:\n\tret\n\t.size _mcount, .-_mcount\n",
        late_call='asm volatile("call _mcount" ::: "a0", "ra", "memory")',
        calls=("jal", "jalr", "call"), returns=("ret", "jr", "j")),
}

# The traced functions of the program below: everything with a symbol in
# a traced section, minus notrace and the late _mcount call.
TRACED = {"main", "leaf", "st", "init_fn", "weak_fn"}

UNIT1 = r"""
#include <stdio.h>
#define NOINLINE __attribute__((noipa))
#define NOTRACE __attribute__((no_instrument_function, noipa))
NOINLINE int leaf(int x) { return x * 3 + 1; }
static NOINLINE int st(int x) { return leaf(x) + 2; }
__attribute__((section(".init.text"), noipa)) int init_fn(int x) { return x + 7; }
__attribute__((section(".noinstr.text"), noipa)) int noinstr_fn(int x) { return x + 5; }
NOTRACE int quiet(int x) { return x - 1; }
/* an mcount call after another call: not the prologue's, never a site */
NOTRACE int late_call(int x) { int r = leaf(x); LATE_CALL; return r; }
/* overridden by unit2.c: its body stays, dead */
__attribute__((weak, noipa)) int weak_fn(int x) { return x * 100; }
int main(void)
{
	long s = st(1) + init_fn(2) + noinstr_fn(3) + quiet(4) + weak_fn(5) +
		 late_call(6);
	printf("sum %ld\n", s);
	return 0;
}
"""
UNIT2 = "int weak_fn(int x) { return x + 11; }\n"
# st(1) 6, init_fn(2) 9, noinstr_fn(3) 8, quiet(4) 3, weak_fn(5) 16
# (the strong one), late_call(6) 19
EXPECTED_OUTPUT = "sum 61\n"

CASES = [("aarch64", "-O0", ""), ("aarch64", "-O2", ""),
         ("riscv64", "-O0", ""), ("riscv64", "-O2", ""),
         ("riscv64", "-O2", "no-relax")]


def case_id(c):
    return "-".join(x for x in c if x)


def tool(arch, name):
    return f"{ARCHES[arch]['triplet']}-{name}"


def require_arch(arch):
    a = ARCHES[arch]
    require_tools(tool(arch, "gcc"), tool(arch, "objdump"), a["qemu"],
                  "readelf")


def build_objects(tmp_path, arch, opt):
    """unit1.o, unit2.o (-pg) and the _mcount stub, for arch."""
    a = ARCHES[arch]
    cc = tool(arch, "gcc")
    src1 = write(tmp_path / "unit1.c",
                 UNIT1.replace("LATE_CALL", a["late_call"]))
    src2 = write(tmp_path / "unit2.c", UNIT2)
    stub = write(tmp_path / "stub.S", a["stub"])
    objs = []
    for src in (src1, src2):
        obj = src.with_suffix(".o")
        run([cc, "-pg", opt, "-c", src, "-o", obj])
        objs.append(obj)
    run([cc, "-c", stub, "-o", tmp_path / "stub.o"])
    return objs + [tmp_path / "stub.o"]


def link_cmd(arch, relax, objs):
    cmd = [tool(arch, "gcc")]
    if relax == "no-relax":
        cmd.append("-Wl,--no-relax")
    return cmd + [str(o) for o in objs]


_INSN = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(\S+)\s*(.*)$")


def disassemble(arch, image, section):
    """[(addr, mnemonic, operands)] of section by the cross objdump."""
    out = run([tool(arch, "objdump"), "-d", "-w", "-j", section,
               image]).stdout
    return [(int(m.group(1), 16), m.group(3), m.group(4))
            for m in map(_INSN.match, out.splitlines()) if m]


def ground_truth(arch, image, sections=(".text", ".init.text")):
    """{site: function} from the disassembly: in every sized function of
    a traced section, the first call whose target objdump names
    <_mcount>, when no other call, return or unconditional branch comes
    before it.  On riscv a call is `jal` (relaxed) or `auipc` followed by
    a `jalr` to <_mcount> (the site is the auipc)."""
    a = ARCHES[arch]
    funcs = [s for s in symbols(image)
             if s["type"] == "FUNC" and s["size"] and s["section"] in sections]
    truth = {}
    for sec in sections:
        insns = disassemble(arch, image, sec)
        for f in (f for f in funcs if f["section"] == sec):
            body = [i for i in insns
                    if f["value"] <= i[0] < f["value"] + f["size"]]
            for k, (addr, mnem, ops) in enumerate(body):
                if mnem in a["calls"] and ops.endswith("<_mcount>"):
                    site = addr
                    if mnem == "jalr":	# the pair: its auipc opens it
                        assert body[k - 1][1] == "auipc", body[k - 1]
                        site = body[k - 1][0]
                    truth[site] = f["name"]
                    break
                if mnem in a["calls"] or mnem in a["returns"]:
                    break
    return truth


def stats(text):
    """{label: count} of the `linkpass scan --stats` lines."""
    return {m.group(1).strip(): int(m.group(2)) for m in
            re.finditer(r"^  (\D+?)\s+(\d+)\s*$", text, re.M)}


def qemu_run(arch, image):
    a = ARCHES[arch]
    return run([a["qemu"], "-L", f"/usr/{a['triplet']}", image]).stdout


@pytest.mark.parametrize("arch,opt,relax", CASES, ids=map(case_id, CASES))
def test_table_matches_objdump(tmp_path, linkpass, arch, opt, relax):
    """The driver's table is the objdump ground truth, sorted, exactly the
    traced functions; check passes; the program runs under qemu-user,
    with relocations kept and stripped."""
    require_arch(arch)
    objs = build_objects(tmp_path, arch, opt)
    image = tmp_path / "prog"
    proc = link_driver(image, link_cmd(arch, relax, objs), "--keep-relocs",
                       linkpass=linkpass)
    assert links_taken(proc.stdout) == 2

    truth = ground_truth(arch, image)
    assert set(truth.values()) == TRACED, truth
    entries = linkpass.dump_entries(image)
    assert [e[0] for e in entries] == sorted(truth)
    assert {e[1] for e in entries} == TRACED
    status, chk = linkpass.check(image)
    assert status == 0, chk.stdout + chk.stderr
    assert f"ok: {len(TRACED)} table entries" in chk.stdout

    # the drops, each for its reason: the late call follows another
    # call; the weak body has no symbol; .noinstr.text is untraced
    st = stats(linkpass.run("scan", image, "-o", tmp_path / "t.o",
                            "--stats").stdout)
    assert st["dropped: not at entry"] == 1, st
    assert st["dropped: no function symbol"] + \
        st["dropped: dead body (overridden weak)"] == 1, st
    assert st["dropped: untraced section"] == 1, st
    assert st["table entries"] == len(TRACED), st

    assert qemu_run(arch, image) == EXPECTED_OUTPUT
    stripped = tmp_path / "prog.stripped"
    link_driver(stripped, link_cmd(arch, relax, objs), linkpass=linkpass)
    assert qemu_run(arch, stripped) == EXPECTED_OUTPUT
    assert linkpass.dump(stripped) == sorted(truth)


@pytest.mark.parametrize("relax", ["relax", "no-relax"])
def test_riscv_relaxation_forms(tmp_path, linkpass, relax):
    """GNU ld relaxes auipc+jalr into jal under -q, keeping R_RISCV_JAL on
    it; --no-relax keeps the pair.  Both are sites, at the first
    instruction of the call."""
    require_arch("riscv64")
    objs = build_objects(tmp_path, "riscv64", "-O2")
    image = tmp_path / "prog"
    link_driver(image, link_cmd("riscv64", relax, objs), "--keep-relocs",
                linkpass=linkpass)
    relocs = run(["readelf", "-rW", image]).stdout
    text = {a: (m, o) for a, m, o in disassemble("riscv64", image, ".text")}
    sites = linkpass.dump(image)
    want = "jal" if relax == "relax" else "auipc"
    assert sites and all(text[s][0] == want for s in sites if s in text), \
        [(hex(s), text.get(s)) for s in sites]
    kept = "R_RISCV_JAL" if relax == "relax" else "R_RISCV_CALL_PLT"
    assert re.search(rf"\s{kept}\s+[0-9a-f]+\s+_mcount", relocs), relocs


BAD_CALL = {
    # a call relocation against _mcount on an instruction that is no call
    "aarch64": ("\t.reloc ., R_AARCH64_CALL26, _mcount\n\tnop\n",
                "aarch64: call relocation (type 283) against _mcount at "
                ".text+0x{off:x} is not on a bl instruction"),
    "riscv64": ("\t.reloc ., R_RISCV_JAL, _mcount\n\tnop\n",
                "riscv64: call relocation (type 17) against _mcount at "
                ".text+0x{off:x} is not on a call (auipc ra + jalr ra, or "
                "jal ra) instruction"),
}


@pytest.mark.parametrize("arch", ["aarch64", "riscv64"])
def test_call_reloc_on_other_bytes_is_an_error(tmp_path, linkpass, arch):
    """One line naming the file, the relocation entry, the arch and the
    place; exit 2; no table written."""
    require_arch(arch)
    src = write(tmp_path / "bad.S",
                "\t.text\n\t.globl bad\n\t.type bad,@function\nbad:\n"
                + BAD_CALL[arch][0] + "\tret\n\t.size bad, .-bad\n"
                + ARCHES[arch]["stub"])
    obj = tmp_path / "bad.o"
    run([tool(arch, "gcc"), "-c", src, "-o", obj])
    image = tmp_path / "bad"
    run([tool(arch, "gcc"), "-nostdlib", "-Wl,-q", "-Wl,-e,bad", obj,
         "-o", image])
    off = next(s["value"] for s in symbols(image) if s["name"] == "bad")
    text_addr = int(re.search(r"\.text\s+PROGBITS\s+([0-9a-f]+)",
                              run(["readelf", "-SW", image]).stdout)[1], 16)
    out = tmp_path / "t.o"
    proc = linkpass.run("scan", image, "-o", out, check=False)
    assert proc.returncode == 2
    msg = BAD_CALL[arch][1].format(off=off - text_addr)
    assert proc.stderr == f"linkpass: {image}: .rela.text entry 0: {msg}\n"
    assert not out.exists()


@pytest.mark.parametrize("arch", ["aarch64", "riscv64"])
def test_check_reports_missing_and_byte_audit_refused(tmp_path, linkpass,
                                                      arch):
    """An image linked with -q and no table: check lists every site as
    missing; the byte-level audit (entry calls) says why it cannot
    apply."""
    require_arch(arch)
    objs = build_objects(tmp_path, arch, "-O2")
    image = tmp_path / "plain"
    run([tool(arch, "gcc"), "-Wl,-q", *objs, "-o", image])
    truth = ground_truth(arch, image)
    status, proc = linkpass.check(image)
    assert status == 1
    missing = re.findall(r"^\s*missing 0x([0-9a-f]+) ", proc.stdout, re.M)
    assert sorted(int(m, 16) for m in missing) == sorted(truth)
    proc = linkpass.run("check", image, "--byte-audit", check=False)
    assert proc.returncode == 2
    assert proc.stderr == (
        f"linkpass: {image}: ELF header: byte-level audit: not available on "
        f"{arch}, where the mcount call follows the prologue rather than "
        "opening the function (kernels there use --patchable-entries, the "
        "geometry read from the table or given as N,M)\n")



# The sample kernel (tests/samples/gen.py) on each arch.  Its asm_fentry.S
# is x86; these play its part: __fentry__ referenced as data and by
# address (never sites), and an mcount call after another call (not the
# prologue's, never a site).
SAMPLE_ASM = {
    "aarch64": """\
	.data
	.globl	lp_fentry_ptr
	.p2align 3
lp_fentry_ptr:
	.quad	__fentry__
	.text
	.globl	lp_asm_fentry_ref
	.type	lp_asm_fentry_ref, @function
lp_asm_fentry_ref:
	adrp	x0, __fentry__
	add	x0, x0, :lo12:__fentry__
	ret
	.size	lp_asm_fentry_ref, . - lp_asm_fentry_ref
	.globl	lp_asm_midcall
	.type	lp_asm_midcall, @function
lp_asm_midcall:
	bl	lp_asm_fentry_ref
	bl	_mcount
	ret
	.size	lp_asm_midcall, . - lp_asm_midcall
	.section .note.GNU-stack, "", @progbits
""",
    "riscv64": """\
	.data
	.globl	lp_fentry_ptr
	.p2align 3
lp_fentry_ptr:
	.quad	__fentry__
	.text
	.globl	lp_asm_fentry_ref
	.type	lp_asm_fentry_ref, @function
lp_asm_fentry_ref:
	lla	a0, __fentry__
	ret
	.size	lp_asm_fentry_ref, . - lp_asm_fentry_ref
	.globl	lp_asm_midcall
	.type	lp_asm_midcall, @function
lp_asm_midcall:
	call	lp_asm_fentry_ref
	call	_mcount
	ret
	.size	lp_asm_midcall, . - lp_asm_midcall
	.section .note.GNU-stack, "", @progbits
""",
}
SAMPLE_ROUNDS = 3
# linkpass's default traced sections (docs/design.md, section 2)
TRACED_GLOBS = (".text", ".text.*", ".init.text", ".ref.text", ".sched.text",
                ".spinlock.text", ".irqentry.text", ".softirqentry.text",
                ".kprobes.text", ".cpuidle.text")


@pytest.mark.parametrize("arch", ["aarch64", "riscv64"])
def test_sample_kernel(tmp_path, linkpass, arch):
    """A generated sample kernel, -pg -O2, through the driver: the table
    names exactly the functions the generator's manifest says are traced
    (weak overrides, notrace, .noinstr.text, init sections...), check
    passes, and the stripped program prints the generator's checksum
    under qemu-user."""
    require_arch(arch)
    src = tmp_path / "src"
    run(["/usr/bin/python3", REPO / "tests" / "samples" / "gen.py",
         "--units", "4", "--funcs-per-unit", "30", "--seed", "7",
         "--out", src])
    manifest = json.loads((src / "manifest.json").read_text())
    cc = tool(arch, "gcc")
    units = re.search(r"SAMPLE_UNITS := (.*)",
                      (src / "sources.mk").read_text())[1].split()
    objs = []
    for name in units + ["main"]:
        obj = tmp_path / f"{name}.o"
        run([cc, "-O2", "-pg", f"-I{src}", "-c", src / f"{name}.c",
             "-o", obj])
        objs.append(obj)
    for name, text in (("asm", SAMPLE_ASM[arch]),
                       ("stub", (src / "fentry_stub.S").read_text())):
        path = write(tmp_path / f"{name}.S", text)
        run([cc, "-c", path, "-o", tmp_path / f"{name}.o"])
        objs.append(tmp_path / f"{name}.o")

    image = tmp_path / "sample"
    link_driver(image, [cc, *map(str, objs)], "--keep-relocs",
                linkpass=linkpass)
    want = collections.Counter(
        f["name"] for f in manifest["functions"] if f["trace"] == "always"
        or f["trace"] in ("nogc", "nogc_nolto"))
    got = collections.Counter(e[1] for e in linkpass.dump_entries(image))
    assert got == want, (f"missing {sorted((want - got).elements())[:10]}, "
                         f"unexpected {sorted((got - want).elements())[:10]}")
    traced = [name for name in section_headers(image)
              if any(fnmatch.fnmatch(name, g) for g in TRACED_GLOBS)]
    assert sorted(linkpass.dump(image)) == \
        sorted(ground_truth(arch, image, traced))
    status, chk = linkpass.check(image)
    assert status == 0, chk.stdout

    stripped = tmp_path / "sample.stripped"
    link_driver(stripped, [cc, *map(str, objs)], linkpass=linkpass)
    csum = SAMPLE_ROUNDS * int(manifest["checksum_per_round"], 16) % 2**64
    calls = SAMPLE_ROUNDS * manifest["calls_per_round"]
    fold = (csum ^ (csum >> 32)) & 0xffffffff
    a = ARCHES[arch]
    out = run([a["qemu"], "-L", f"/usr/{a['triplet']}", stripped,
               str(SAMPLE_ROUNDS)]).stdout
    assert out == f"checksum=0x{csum:016x} calls={calls} fold=0x{fold:08x}\n"


@pytest.mark.parametrize("relax", ["relax", "no-relax"])
def test_riscv_per_object_table_and_relaxation(tmp_path, linkpass, relax):
    """A per-object table (linkpass obj: section + offset relocations)
    goes stale when GNU ld relaxes the calls before a site: the offsets
    move and the addends do not.  With --no-relax only the per-object
    fault of every arch is left (the dead weak body's entry).  The
    whole-image table (test_table_matches_objdump[riscv64--O2]) is made
    after relaxation and is right either way."""
    require_arch("riscv64")
    objs = build_objects(tmp_path, "riscv64", "-O2")
    for obj in objs[:2]:
        linkpass.run("obj", obj)
    image = tmp_path / "prog"
    run(link_cmd("riscv64", relax, objs) + ["-Wl,-q", "-o", image])
    truth = set(ground_truth("riscv64", image))
    table = set(linkpass.dump(image))
    status, proc = linkpass.check(image, "--allow-unsorted")
    missing = {int(m, 16) for m in
               re.findall(r"^missing 0x([0-9a-f]+) ", proc.stdout, re.M)}
    stale = {int(m, 16) for m in
             re.findall(r"^stale 0x([0-9a-f]+) ", proc.stdout, re.M)}
    assert status == 1
    assert missing == truth - table and stale == table - truth
    if relax == "relax":
        # relaxation moved live sites away from their entries (and the
        # dead weak body's entry onto other code)
        assert missing and stale, proc.stdout
        return
    # only the per-object fault of every arch: the overridden weak
    # body's entry, in code no function symbol covers
    dead = {int(m, 16) for m in re.findall(
        r"^stale 0x([0-9a-f]+) <none> \.text: .*no live function symbol",
        proc.stdout, re.M)}
    assert len(dead) == 1 and stale == dead and not missing, proc.stdout


TAIL_CALL = {"aarch64": "\tb\t_mcount\n", "riscv64": "\ttail\t_mcount\n"}


@pytest.mark.parametrize("arch", ["aarch64", "riscv64"])
def test_tail_jump_to_mcount_is_no_site(tmp_path, linkpass, arch):
    """A jump to _mcount (aarch64 b, R_AARCH64_JUMP26; riscv tail,
    auipc t1 + jr t1) is no call: dropped as "not a call", no error of
    its own; the table is then empty, which an image naming _mcount
    gets only with --allow-empty (test_empty_table.py)."""
    require_arch(arch)
    src = write(tmp_path / "tail.S",
                "\t.text\n\t.globl tailer\n\t.type tailer,@function\n"
                "tailer:\n" + TAIL_CALL[arch] +
                "\t.size tailer, .-tailer\n" + ARCHES[arch]["stub"])
    obj = tmp_path / "tail.o"
    run([tool(arch, "gcc"), "-c", src, "-o", obj])
    image = tmp_path / "tail"
    run([tool(arch, "gcc"), "-nostdlib", "-Wl,-q", "-Wl,-e,tailer", obj,
         "-o", image])
    proc = linkpass.run("scan", image, "-o", tmp_path / "t.o", check=False)
    assert proc.returncode == 2 and "_mcount: no call site: " in proc.stderr
    st = stats(linkpass.run("scan", image, "-o", tmp_path / "t.o",
                            "--stats", "--allow-empty").stdout)
    assert st["references to the mcount symbol"] == 1, st
    assert st["dropped: not a call"] == 1, st
    assert st["table entries"] == 0, st
