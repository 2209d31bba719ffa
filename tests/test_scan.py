# Whole-image scan and per-object mode on the cases the filtering rules
# exist for: overridden weak functions, several text sections, notrace,
# garbage-collected functions, data references to the mcount symbol, and
# the two table formats.  Each result is compared with a ground truth
# derived from objdump (lptest.ground_truth) or with readelf.

import re
import struct

import pytest

import lpfacts
from lptest import (REPO, STUBS_S, assemble, compile_src, ground_truth,
                    link_driver, links_taken, parse_entries, parse_sites,
                    relative_relocs_in, require_compiler_ld, require_tools,
                    run, section_data, section_headers, symbol_value, symbols,
                    table_object_entries)

CCS = ("gcc", "clang")
LDS = ("bfd", "lld")

MAIN_C = """\
int g;
__attribute__((weak)) int wf(int x) { return x + 1; }
static __attribute__((noinline)) int sf(int x) { g += x; return x * 2; }
int foo(int x) { return sf(x) + wf(x); }
__attribute__((section(".init.text"), noinline)) int initf(int x) { return x + 3; }
__attribute__((cold, noinline)) int coldf(int x) { return x + 6; }
__attribute__((hot, noinline)) int hotf(int x) { return x + 7; }
__attribute__((section(".mysec"), noinline)) int mysecf(int x) { return x + 5; }
__attribute__((no_instrument_function, noinline)) int nf(int x) { return x + 4; }
__attribute__((noinline)) int unused_fn(int x) { return x * 9; }
int main(void)
{
	return foo(1) + initf(2) + nf(3) + mysecf(1) + coldf(0) + hotf(0) - 44;
}
"""

# main() returns 0 when the strong wf() of strong.c replaced the weak one.
STRONG_C = "int wf(int x) { return x + 10; }\n"

# References to __fentry__ from code that are not calls at a function
# entry: an address load, a call in the middle of a function, data in a
# code section.
ASM_REFS_S = """\
	.text
	.globl	asm_refs
	.type	asm_refs, @function
asm_refs:
	lea	__fentry__(%rip), %rax
	ret
	.size	asm_refs, . - asm_refs
	.globl	asm_midcall
	.type	asm_midcall, @function
asm_midcall:
	nop
	call	__fentry__
	ret
	.size	asm_midcall, . - asm_midcall
	.quad	__fentry__
	.section .note.GNU-stack, "", @progbits
"""


def build_objects(tmp_path, cc, flags=(), mode="fentry"):
    cflags = ["-pg", *(["-mfentry"] if mode == "fentry" else []), "-O2",
              "-fno-pie", *flags]
    objs = [compile_src(tmp_path, "main.c", MAIN_C, cc, cflags),
            compile_src(tmp_path, "strong.c", STRONG_C, cc, cflags),
            assemble(tmp_path, "stubs.S", STUBS_S),
            assemble(tmp_path, "refs.S", ASM_REFS_S)]
    return objs


def link_q(tmp_path, cc, ld, objs, out, *extra):
    run([cc, f"-fuse-ld={ld}", "-no-pie", "-Wl,-q", *extra, *objs,
         "-o", tmp_path / out])
    return tmp_path / out


def stats_of(text):
    """The --stats lines as {label: number}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^  (.+?)\s{2,}(\d+)(?: |$)", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def names(linkpass, image, *opts):
    out = linkpass.run("dump", image, *opts).stdout
    return sorted(line.split()[1].split("+")[0] for line in out.splitlines())


@pytest.mark.parametrize("ld", LDS)
@pytest.mark.parametrize("cc", CCS)
def test_filtering_rules(linkpass, tmp_path, cc, ld):
    require_compiler_ld(cc, ld)
    objs = build_objects(tmp_path, cc)
    image = link_q(tmp_path, cc, ld, objs, "img")
    table = tmp_path / "table.o"
    proc = linkpass.scan(image, table, "--stats")
    stats = stats_of(proc.stdout)
    final = link_q(tmp_path, cc, ld, [*objs, table], "final")
    assert run([final], check=False).returncode == 0

    rc, chk = linkpass.check(final)
    assert rc == 0, chk.stdout
    truth = ground_truth(final)
    assert linkpass.dump(final) == sorted(truth)

    traced = names(linkpass, final)
    # exactly these: the strong wf once (the dead weak body not at all),
    # not nf (notrace), mysecf (untraced section), the asm references or
    # the stubs; sf may be inlined into foo
    assert set(traced) - {"sf"} == {"foo", "initf", "coldf", "hotf", "main",
                                    "unused_fn", "wf"}, traced
    assert len(traced) == len(set(traced)), traced

    assert stats["table entries"] == len(truth)
    assert stats["dropped: dead body (overridden weak)"] == 1
    assert stats["dropped: untraced section"] == 1
    assert stats["dropped: not a call"] == 2     # lea and .quad
    assert stats["dropped: not at entry"] == 1   # asm_midcall
    assert stats["call sites found"] == (stats["table entries"] + 3)

    dropped = linkpass.run("sites", "--dropped", image).stdout
    assert re.search(r"^dropped 0x[0-9a-f]+ <none> \.text: in a dead "
                     r"function body", dropped, re.M), dropped
    assert re.search(r"^dropped 0x[0-9a-f]+ mysecf\+0x0 \.mysec: in an "
                     r"untraced section", dropped, re.M), dropped


POLICY_C = """\
#define SEC(s) __attribute__((section(s), noinline))
int SEC(".init.text") initf(int x) { return x + 1; }
int SEC(".sched.text") schedf(int x) { return x + 2; }
int SEC(".mysec") mysecf(int x) { return x + 3; }
int SEC(".other") otherf(int x) { return x + 4; }
int SEC(".kprobes.text") kprobef(int x) { return x + 5; }
int main(void)
{
	return initf(1) + schedf(1) + mysecf(1) + otherf(1) + kprobef(1) - 20;
}
"""

POLICY_DEFAULT = {"main", "initf", "schedf", "kprobef"}


@pytest.mark.parametrize("opts, want", [
    ([], POLICY_DEFAULT),
    (["--trace-section=.mysec"], POLICY_DEFAULT | {"mysecf"}),
    # repeatable: both are kept, not only the last
    (["--trace-section=.mysec", "--trace-section=.other"],
     POLICY_DEFAULT | {"mysecf", "otherf"}),
    (["--trace-section=.my*"], POLICY_DEFAULT | {"mysecf"}),
    (["--no-trace-section=.init.text"], POLICY_DEFAULT - {"initf"}),
    (["--no-trace-section=.init.text", "--no-trace-section=.sched.text"],
     POLICY_DEFAULT - {"initf", "schedf"}),
    # a comma list replaces the default
    (["--sections=.init.text,.mysec"], {"initf", "mysecf"}),
    (["--sections=.text"], {"main"}),
    (["--sections=.[ik]*"], {"initf", "kprobef"}),
    # exclusion wins over inclusion, whichever comes first
    (["--trace-section=.mysec", "--no-trace-section=.mysec"], POLICY_DEFAULT),
    (["--no-trace-section=.mysec", "--trace-section=.mysec"], POLICY_DEFAULT),
    (["--sections=.text,.init.text", "--no-trace-section=.init.text"],
     {"main"}),
    (["--sections=.mysec,.other", "--no-trace-section=.o*"], {"mysecf"}),
    # --sections after --trace-section: the extra section stays traced
    (["--trace-section=.mysec", "--sections=.init.text"],
     {"initf", "mysecf"}),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_section_policy_options(linkpass, tmp_path, opts, want):
    """Each filter option changes exactly the set of traced functions it
    names, in sites, scan (the table object) and check."""
    require_compiler_ld("gcc", "bfd")
    flags = ["-pg", "-mfentry", "-O2", "-fno-pie"]
    objs = [compile_src(tmp_path, "p.c", POLICY_C, "gcc", flags),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    image = link_q(tmp_path, "gcc", "bfd", objs, "img")
    got = [e[1] for e in parse_entries(linkpass.run("sites", image,
                                                    *opts).stdout)]
    assert sorted(got) == sorted(want), got
    # the table written with the same options, linked in, checks clean
    # with them and not without them (unless they are the default)
    table = tmp_path / "t.o"
    linkpass.scan(image, table, *opts)
    final = link_q(tmp_path, "gcc", "bfd", [*objs, table], "final")
    assert sorted(linkpass.names(final)) == sorted(want)
    assert linkpass.check(final, *opts)[0] == 0
    assert linkpass.check(final)[0] == (0 if want == POLICY_DEFAULT else 1)


@pytest.mark.parametrize("ld", LDS)
def test_gc_sections_drop_collected_functions(linkpass, tmp_path, ld):
    require_compiler_ld("gcc", ld)
    objs = build_objects(tmp_path, "gcc", ["-ffunction-sections"])
    out = tmp_path / "gc"
    link_driver(out, ["gcc", f"-fuse-ld={ld}", "-no-pie",
                      "-Wl,--gc-sections", *objs],
                "--keep-relocs", linkpass=linkpass.path)
    traced = names(linkpass, out)
    assert "unused_fn" not in traced
    assert "unused_fn" not in {s["name"] for s in symbols(out)}
    assert "foo" in traced and "coldf" in traced
    assert linkpass.dump(out) == sorted(ground_truth(out))
    assert linkpass.check(out)[0] == 0
    assert run([out], check=False).returncode == 0


@pytest.mark.parametrize("ld", LDS)
def test_asm_format_links_to_the_same_table(linkpass, tmp_path, ld):
    require_compiler_ld("gcc", ld)
    objs = build_objects(tmp_path, "gcc")
    image = link_q(tmp_path, "gcc", ld, objs, "img")
    linkpass.scan(image, tmp_path / "t_elf.o")
    linkpass.scan(image, tmp_path / "t.S", "--format=asm")
    text = (tmp_path / "t.S").read_text()
    assert f'.section {lpfacts.SECTION},"aR",@progbits' in text
    t_asm = tmp_path / "t_asm.o"
    run(["as", tmp_path / "t.S", "-o", t_asm])
    a = link_q(tmp_path, "gcc", ld, [*objs, tmp_path / "t_elf.o"], "a")
    b = link_q(tmp_path, "gcc", ld, [*objs, t_asm], "b")
    assert linkpass.dump(a) == linkpass.dump(b) == sorted(ground_truth(a))


def test_table_object_layout(linkpass, tmp_path):
    """The table object: sorted entries, one R_X86_64_64 each, anchored to
    symbols the image defines, retained under --gc-sections."""
    require_compiler_ld("gcc", "bfd")
    objs = build_objects(tmp_path, "gcc")
    image = link_q(tmp_path, "gcc", "bfd", objs, "img")
    table = tmp_path / "table.o"
    linkpass.scan(image, table)
    secs = section_headers(table)
    assert secs[lpfacts.SECTION][1] == "PROGBITS"
    assert "A" in secs[lpfacts.SECTION][2] and "R" in secs[lpfacts.SECTION][2]
    assert "W" not in secs[lpfacts.SECTION][2]      # non-PIE: read-only
    relocs = run(["readelf", "-rW", table]).stdout
    rows = re.findall(r"^[0-9a-f]+\s+[0-9a-f]+\s+R_X86_64_64\s+0+\s+(\S+)"
                      r" \+ ([0-9a-f]+)$", relocs, re.M)
    image_syms = {s["name"]: s["value"] for s in symbols(image)}
    addrs = [image_syms[name] + int(add, 16) for name, add in rows]
    assert addrs == sorted(addrs) and len(set(addrs)) == len(addrs)
    assert addrs == sorted(ground_truth(image))


def test_pie_table_is_writable_and_read_through_dynamic_relocs(linkpass,
                                                               tmp_path):
    """lld leaves zeros in a PIE's table bytes and puts the addresses in
    R_X86_64_RELATIVE relocations; dump and check must read those."""
    require_compiler_ld("gcc", "lld")
    cflags = ["-pg", "-mfentry", "-O2", "-fpie"]
    objs = [compile_src(tmp_path, "main.c", MAIN_C, "gcc", cflags),
            compile_src(tmp_path, "strong.c", STRONG_C, "gcc", cflags),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    run(["gcc", "-fuse-ld=lld", "-pie", "-Wl,-q", *objs, "-o",
         tmp_path / "img"])
    linkpass.scan(tmp_path / "img", tmp_path / "t.o")
    assert "W" in section_headers(tmp_path / "t.o")[lpfacts.SECTION][2]
    final = tmp_path / "final"
    run(["gcc", "-fuse-ld=lld", "-pie", "-Wl,-q", *objs, tmp_path / "t.o",
         "-o", final])
    truth = sorted(ground_truth(final))
    # one RELATIVE relocation per entry, in table order, and lld left
    # zeros in the section bytes
    assert relative_relocs_in(final, lpfacts.SECTION) == truth
    assert section_data(final, lpfacts.SECTION)[1] == bytes(8 * len(truth))
    assert linkpass.dump(final) == truth
    assert linkpass.check(final)[0] == 0
    assert run([final], check=False).returncode == 0


@pytest.mark.parametrize("ld", LDS)
@pytest.mark.parametrize("cc", CCS)
def test_per_object_tables_differ_only_by_dead_code(linkpass, tmp_path, cc,
                                                    ld):
    """linkpass obj on each object, linked normally: check lists as stale
    exactly the dead weak body the whole-image pass drops."""
    require_compiler_ld(cc, ld)
    objs = build_objects(tmp_path, cc)
    whole = tmp_path / "whole"
    link_driver(whole, [cc, f"-fuse-ld={ld}", "-no-pie", *objs],
                "--keep-relocs", linkpass=linkpass.path)

    c_objs = objs[:2]
    linkpass.run("obj", *c_objs)
    first = [o.read_bytes() for o in c_objs]
    proc = linkpass.run("obj", *c_objs)        # a second run is a no-op
    assert "already present" in proc.stdout and not proc.stderr
    assert [o.read_bytes() for o in c_objs] == first
    per = link_q(tmp_path, cc, ld, objs, "per")

    rc, chk = linkpass.check(per, "--allow-unsorted", "--max-list=0")
    assert rc == 1
    stale = re.findall(r"^stale 0x([0-9a-f]+) (\S+) (\S+): .*$", chk.stdout,
                       re.M)
    assert len(stale) == 1, chk.stdout
    assert stale[0][1] == "<none>" and "dead function body" in chk.stdout
    assert "missing" not in chk.stdout.split("check:")[0]
    # the rest of the per-object table is the whole-image table
    per_entries = set(linkpass.dump(per)) - {int(stale[0][0], 16)}
    assert sorted(per_entries) == sorted(ground_truth(per))
    assert len(linkpass.dump(whole)) == len(per_entries)


def test_obj_mode_refuses_linked_images_and_keeps_objects_on_error(
        linkpass, tmp_path):
    require_compiler_ld("gcc", "bfd")
    objs = build_objects(tmp_path, "gcc")
    image = link_q(tmp_path, "gcc", "bfd", objs, "img")
    proc = linkpass.run("obj", image, check=False)
    assert proc.returncode == 2
    assert re.match(rf"^linkpass: {re.escape(str(image))}: ELF header: "
                    r".*not a relocatable object", proc.stderr)
    junk = tmp_path / "junk.o"
    junk.write_bytes(b"not an object at all")
    good = objs[0]
    before = good.read_bytes()
    proc = linkpass.run("obj", junk, good, check=False)
    assert proc.returncode == 2
    assert "junk.o: ELF header: not an ELF file" in proc.stderr
    # the good object was still processed; the junk one is untouched
    assert good.read_bytes() != before
    assert junk.read_bytes() == b"not an object at all"
    assert not list(tmp_path.glob("*.tmp*"))


def test_no_emit_relocs_is_a_clear_error(linkpass, tmp_path):
    require_compiler_ld("gcc", "bfd")
    objs = build_objects(tmp_path, "gcc")
    run(["gcc", "-no-pie", *objs, "-o", tmp_path / "plain"])
    out = tmp_path / "t.o"
    plain = tmp_path / "plain"
    proc = linkpass.run("scan", plain, "-o", out, check=False)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert re.match(r"^linkpass: .*/plain: \.\S+: no relocations kept for "
                    r"code; link the image with -q \(--emit-relocs\)$",
                    proc.stderr), proc.stderr
    assert not out.exists() and not list(tmp_path.glob("t.o.tmp*"))
    # check says what checks such an image (test_check_modes.py: the
    # driver's output, NOP'd or not)
    proc = linkpass.run("check", plain, check=False)
    assert proc.returncode == 2
    assert proc.stderr == (
        f"linkpass: {plain}: .text: no relocations kept for code, which "
        "check compares the table with: for a shipped image or "
        "scripts/link-vmlinux.sh's output run 'linkpass check --byte-audit "
        f"{plain}'; for a fresh one link with -q (--emit-relocs; "
        "link-vmlinux.sh --keep-relocs)\n"), proc.stderr


def test_failed_scan_keeps_previous_table(linkpass, tmp_path):
    out = tmp_path / "t.o"
    out.write_bytes(b"previous table")
    bad = tmp_path / "bad"
    bad.write_bytes(b"\x7fELF" + b"\0" * 8)
    proc = linkpass.run("scan", bad, "-o", out, check=False)
    assert proc.returncode == 2 and proc.stderr.startswith(f"linkpass: {bad}")
    assert out.read_bytes() == b"previous table"
    assert not list(tmp_path.glob("t.o.tmp*"))


def test_threads_give_the_same_table(linkpass, tmp_path):
    require_compiler_ld("gcc", "bfd")
    objs = build_objects(tmp_path, "gcc")
    image = link_q(tmp_path, "gcc", "bfd", objs, "img")
    one = linkpass.run("sites", image, "-j", "1").stdout
    four = linkpass.run("sites", image, "-j", "4").stdout
    assert one == four and parse_sites(one)


I386_C = """\
__attribute__((weak)) int wf(int x) { return x + 1; }
static __attribute__((noinline)) int sf(int x) { return x * 2; }
int foo(int x) { return sf(x) + wf(x); }
__attribute__((section(".init.text"), noinline)) int initf(int x) { return x + 3; }
void _start(void) { foo(1); initf(2); for (;;); }
"""



@pytest.mark.parametrize("ld", ("ld.bfd", "ld.lld"))
@pytest.mark.parametrize("cc", CCS)
def test_i386_kernel_style(linkpass, tmp_path, cc, ld):
    """i386: Rel relocations, 4-byte entries, R_386_32; 32-bit padding
    idioms before the dead weak body."""
    require_tools(cc, ld)
    flags = ["-m32", "-fno-pie", "-ffreestanding", "-pg", "-mfentry", "-O2"]
    objs = [compile_src(tmp_path, "k.c", I386_C, cc, flags),
            compile_src(tmp_path, "s.c", STRONG_C, cc, flags),
            compile_src(tmp_path, "stub.S", STUBS_S, cc, ["-m32"])]
    out = tmp_path / "img"
    link_driver(out, [ld, "-m", "elf_i386", *objs], "--keep-relocs",
                "--stats", linkpass=linkpass.path)
    assert linkpass.check(out)[0] == 0
    assert linkpass.dump(out) == sorted(ground_truth(out))
    assert len(linkpass.dump(out)) == 5
    dropped = linkpass.run("sites", "--dropped", out).stdout
    assert "dead function body" in dropped
    relocs = run(["readelf", "-rW", out]).stdout
    assert ".rel" + lpfacts.SECTION in relocs and "R_386_32" in relocs


# Weak, as in the runtime: the driver's first link has no table yet.
REF_TABLE_C = lpfacts.fill("""\
extern const unsigned long @LINKER_START@[] __attribute__((weak));
extern const unsigned long @LINKER_STOP@[] __attribute__((weak));
unsigned long table_entries(void)
{
	return @LINKER_STOP@ - @LINKER_START@;
}
""")


@pytest.mark.parametrize("ld", LDS)
def test_per_object_tables_keep_collected_code_alive(linkpass, tmp_path, ld):
    """With --gc-sections the per-object tables are the difference: the
    whole-image table has no entry for a collected function, because the
    function is gone; per-object entries reference it, so a program that
    uses its table (as the runtime does) keeps the function alive, and
    its entry with it.  check passes on both: the entry is a real site."""
    require_compiler_ld("gcc", ld)
    objs = build_objects(tmp_path, "gcc", ["-ffunction-sections"])
    objs.append(compile_src(tmp_path, "ref.c", REF_TABLE_C, "gcc",
                            ["-O2", "-fno-pie"]))
    # -u makes table_entries a root of the collection, like a runtime
    link = ["gcc", f"-fuse-ld={ld}", "-no-pie", "-Wl,--gc-sections",
            "-Wl,-u,table_entries"]
    if ld == "lld":
        # lld 14 collects sections that only weak __start_/__stop_
        # references name; the per-object tables would vanish whole
        link.append("-Wl,-z,nostart-stop-gc")
    whole = tmp_path / "whole"
    link_driver(whole, [*link, *objs], "--keep-relocs",
                linkpass=linkpass.path)
    assert "unused_fn" not in names(linkpass, whole)

    linkpass.run("obj", *objs[:2])
    per = tmp_path / "per"
    run([*link, "-Wl,-q", *objs, "-o", per])
    assert "unused_fn" in names(linkpass, per)
    assert "unused_fn" in {s["name"] for s in symbols(per)}
    rc, chk = linkpass.check(per, "--allow-unsorted")
    assert rc == 1 and "dead function body" in chk.stdout
    assert set(names(linkpass, per)) - set(names(linkpass, whole)) == \
        {"unused_fn", "<none>"}


# objtool --mcount turns each "call __fentry__" into a 5-byte NOP and keeps
# an R_X86_64_NONE relocation against __fentry__ one byte in: such images
# (every clang-built x86 kernel) still have their sites found.
OBJTOOL_STYLE_S = """\
	.text
	.globl	nopped_fn, called_fn, _start
	.type	nopped_fn, @function
nopped_fn:
	.reloc	. + 1, R_X86_64_NONE, __fentry__ - 4
	.byte	0x0f, 0x1f, 0x44, 0x00, 0x00
	ret
	.size	nopped_fn, . - nopped_fn
	.p2align 4
	.type	not_a_site, @function
not_a_site:
	.reloc	. + 1, R_X86_64_NONE, __fentry__ - 4
	.byte	0x66, 0x90, 0x66, 0x90, 0x90
	ret
	.size	not_a_site, . - not_a_site
	.p2align 4
	.type	called_fn, @function
called_fn:
	call	__fentry__
	ret
	.size	called_fn, . - called_fn
	.p2align 4
	.type	_start, @function
_start:
	call	nopped_fn
	call	called_fn
	jmp	_start
	.size	_start, . - _start
	.section .note.GNU-stack, "", @progbits
"""


@pytest.mark.parametrize("ld", ("ld.bfd", "ld.lld"))
def test_objtool_nopped_sites_are_sites(linkpass, tmp_path, ld):
    require_tools(ld)
    objs = [assemble(tmp_path, "n.S", OBJTOOL_STYLE_S),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    out = tmp_path / "img"
    link_driver(out, [ld, *objs], "--keep-relocs", linkpass=linkpass.path)
    assert names(linkpass, out) == ["called_fn", "nopped_fn"]
    assert linkpass.check(out)[0] == 0
    dropped = linkpass.run("sites", "--dropped", out).stdout
    assert re.search(r"^dropped 0x[0-9a-f]+ not_a_site\+0x1 \.text: not a "
                     r"call", dropped, re.M), dropped


# ---------------------------------------------------------------------------
# --anchor


def auto_anchors(image, first_site):
    """{section: the anchor --anchor=auto must choose}, by the rule in
    docs/design.md: of the section's global symbols of default or
    protected visibility, not an IFUNC, not a __start_/__stop_ symbol,
    the highest at or below the section's first site (@first_site:
    {section: address}), else the lowest."""
    out = {}
    for sec, first in first_site.items():
        cands = [s for s in symbols(image)
                 if s["section"] == sec and s["bind"] == "GLOBAL"
                 and s["vis"] in ("DEFAULT", "PROTECTED")
                 and s["type"] != "IFUNC"
                 and not s["name"].startswith(("__start_", "__stop_"))]
        below = [s for s in cands if s["value"] <= first]
        if below:
            top = max(s["value"] for s in below)
            pick = min((s for s in below if s["value"] == top),
                       key=lambda s: (s["type"] != "FUNC", s["name"]))
        else:
            pick = min(cands, key=lambda s: (s["value"], s["name"]))
        out[sec] = pick["name"]
    return out


@pytest.mark.parametrize("ld", LDS)
@pytest.mark.parametrize("anchor", ["default", "auto", "foo", "initf"])
def test_anchor(linkpass, tmp_path, ld, anchor):
    """Every relocation of the table object names the anchor chosen (one
    named symbol, or each section's own with auto), and the entries
    still come out at the sites once linked."""
    require_compiler_ld("gcc", ld)
    objs = build_objects(tmp_path, "gcc")
    image = link_q(tmp_path, "gcc", ld, objs, "img")
    table = tmp_path / "t.o"
    opts = [] if anchor == "default" else [f"--anchor={anchor}"]
    linkpass.scan(image, table, *opts)
    entries = table_object_entries(table, image)
    truth = ground_truth(image)
    assert [addr for _, addr in entries] == sorted(truth)
    if anchor in ("default", "auto"):
        sec_of = {s["name"]: s["section"] for s in symbols(image)
                  if s["type"] == "FUNC"}
        first = {}
        for a, (fn, *_) in truth.items():
            first[sec_of[fn]] = min(a, first.get(sec_of[fn], a))
        want = auto_anchors(image, first)
        used = {(sec_of[truth[a][0]], name) for name, a in entries}
        assert used == set(want.items()), (used, want)
    else:
        assert {name for name, _ in entries} == {anchor}
    final = link_q(tmp_path, "gcc", ld, [*objs, table], "final")
    assert linkpass.dump(final) == sorted(ground_truth(final))


@pytest.mark.parametrize("ld", LDS)
def test_anchor_nearest_below_first_site(linkpass, tmp_path, ld):
    """Data that grows ahead of the code in one output section (arm64's
    kernel keeps page tables before .init.text) does not change the
    table: each section's entries hang on the nearest global at or below
    its first site, so the tables of two links that differ only there
    are the same bytes, and the build needs no extra link.  (The blob's
    object comes first, and GNU ld places .text.unlikely input first:
    its code opens the sites of .text.)"""
    require_compiler_ld("gcc", ld)
    objs = build_objects(tmp_path, "gcc")
    tables = []
    for size in (64, 4096):
        d = tmp_path / f"blob{size}"
        blob = assemble(d, "blob.s", f"""
        .section .text.unlikely.blob, "ax", @progbits
        .globl text_blob
        .type text_blob, @object
text_blob:
        .skip {size}
        .size text_blob, {size}
        .globl after_blob
        .type after_blob, @function
after_blob:
        call __fentry__
        ret
        .size after_blob, . - after_blob
""")
        image = link_q(d, "gcc", ld, [blob, *objs], "img")
        table = d / "t.o"
        linkpass.scan(image, table)
        names = {name for name, _ in table_object_entries(table, image)}
        assert "text_blob" not in names, names
        final = link_q(d, "gcc", ld, [blob, *objs, table], "final")
        assert linkpass.dump(final) == sorted(ground_truth(final))
        tables.append(table.read_bytes())
    assert tables[0] == tables[1]


# make sanitize runs this file against build/asan/linkpass: its leak
# checker once failed the --anchor error path (anchors_choose returned
# without freeing what it had allocated).
@pytest.mark.parametrize("sym, cause", [
    ("nosuch", "anchor symbol is not defined in the image"),
    ("sf", "anchor symbol is local, hidden, an IFUNC or not in an "
           "allocated section, so the table object cannot refer to it"),
])
def test_anchor_refused(linkpass, tmp_path, sym, cause):
    require_compiler_ld("gcc", "bfd")
    objs = build_objects(tmp_path, "gcc", ["-O0"])
    image = link_q(tmp_path, "gcc", "bfd", objs, "img")
    out = tmp_path / "t.o"
    proc = linkpass.run("scan", image, "-o", out, f"--anchor={sym}",
                        check=False)
    assert proc.returncode == 2
    assert proc.stderr == (f"linkpass: {image}: {sym}: {cause}; choose "
                           "another with --anchor\n")
    assert not out.exists()


# ---------------------------------------------------------------------------
# Shared libraries: anchors no other object can preempt

LIB_C = """\
__attribute__((noinline)) int lib_leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int lib_mid(int x) { return lib_leaf(x) + lib_leaf(x + 1); }
static __attribute__((noinline)) int lib_static(int x) { return x - 1; }
__attribute__((noinline)) int lib_top(int x) { return lib_static(x) + lib_mid(x); }
"""

# A library's own hidden __fentry__, so that its sites are direct calls.
DSO_FENTRY_S = (REPO / "runtime" / "dso-fentry.S").read_text()


def build_lib_objects(tmp_path, cc, source=LIB_C):
    flags = ["-pg", "-mfentry", "-O2", "-fPIC"]
    return [compile_src(tmp_path, "lib.c", source, cc, flags),
            compile_src(tmp_path, "dso-fentry.S", DSO_FENTRY_S, cc)]


def link_lib_q(tmp_path, cc, ld, objs, out, *extra):
    run([cc, f"-fuse-ld={ld}", "-shared", "-Wl,-q", *extra, *objs,
         "-o", tmp_path / out])
    return tmp_path / out


def ehdr_address(image):
    """Where the ELF header is mapped: the PT_LOAD at file offset 0
    (`readelf -lW`)."""
    out = run(["readelf", "-lW", image]).stdout
    m = re.search(r"^\s*LOAD\s+0x0+\s+0x([0-9a-f]+)", out, re.M)
    assert m, out
    return int(m.group(1), 16)


def table_object_relocs(table):
    """[(symbol, addend)] of a table object's relocations, in table
    order, and its symbols as {name: (bind, visibility, section)}."""
    relocs = run(["readelf", "-rW", table]).stdout
    rows = re.findall(r"^([0-9a-f]+)\s+[0-9a-f]+\s+R_X86_64_64\s+"
                      r"[0-9a-f]+\s+(\S+) ([+-]) ([0-9a-f]+)$", relocs, re.M)
    out = [(name, int(add, 16) * (-1 if sign == "-" else 1))
           for _, name, sign, add in sorted(rows, key=lambda r: int(r[0], 16))]
    syms = {}
    for m in re.finditer(r"^\s*\d+:\s+[0-9a-f]+\s+\d+\s+\S+\s+(\S+)\s+"
                         r"(\S+)\s+(\S+)\s+(\S+)$",
                         run(["readelf", "-sW", table]).stdout, re.M):
        syms[m.group(4)] = m.groups()[:3]
    return out, syms


def symbolic_dynamic_relocs(image):
    """Names of the symbols that R_X86_64_64 relocations of .rela.dyn
    name (not those -q kept in .rela.text and the like)."""
    out = run(["readelf", "-rW", image]).stdout
    dyn = re.search(r"^Relocation section '\.rela\.dyn'.*?(?=^Relocation|\Z)",
                    out, re.M | re.S)
    assert dyn, out
    return re.findall(r"R_X86_64_64\s+[0-9a-f]+\s+(\S+)", dyn.group(0))


@pytest.mark.parametrize("ld", LDS)
@pytest.mark.parametrize("cc", CCS)
def test_shared_library_anchor_is_ehdr_start(linkpass, tmp_path, cc, ld):
    """A library's global functions are exported, so ld.so may bind a
    reference to them in another object; the table refers to the hidden
    __ehdr_start instead, its entries become RELATIVE relocations, and
    the driver converges with no -Bsymbolic-functions."""
    require_compiler_ld(cc, ld)
    objs = build_lib_objects(tmp_path, cc)
    image = link_lib_q(tmp_path, cc, ld, objs, "img.so")
    table = tmp_path / "t.o"
    linkpass.scan(image, table)
    entries, syms = table_object_relocs(table)
    assert syms["__ehdr_start"] == ("GLOBAL", "HIDDEN", "UND")
    assert {name for name, _ in entries} == {"__ehdr_start"}
    base = ehdr_address(image)
    assert [base + add for _, add in entries] == sorted(ground_truth(image))

    final = tmp_path / "libfinal.so"
    proc = link_driver(final, [cc, f"-fuse-ld={ld}", "-shared", *objs],
                       "--keep-relocs", linkpass=linkpass.path, cwd=tmp_path)
    # lld moves .text by the size of the table's dynamic relocations
    assert links_taken(proc.stdout) in (2, 3)
    truth = sorted(ground_truth(final))
    assert len(truth) == 4
    assert relative_relocs_in(final, lpfacts.SECTION) == truth
    assert symbolic_dynamic_relocs(final) == []
    assert linkpass.dump(final) == truth
    assert linkpass.check(final)[0] == 0


@pytest.mark.parametrize("ld", LDS)
def test_shared_library_protected_is_no_anchor(linkpass, tmp_path, ld):
    """A protected function is no anchor either: GNU ld still writes a
    symbolic R_X86_64_64 against it (lld a RELATIVE one)."""
    require_compiler_ld("gcc", ld)
    src = LIB_C.replace("int lib_mid", "__attribute__((visibility("
                        "\"protected\"))) int lib_mid")
    objs = build_lib_objects(tmp_path, "gcc", src)
    image = link_lib_q(tmp_path, "gcc", ld, objs, "img.so")
    assert any(s["name"] == "lib_mid" and s["vis"] == "PROTECTED"
               for s in symbols(image))
    table = tmp_path / "t.o"
    linkpass.scan(image, table)
    entries, _ = table_object_relocs(table)
    assert {name for name, _ in entries} == {"__ehdr_start"}
    final = tmp_path / "libfinal.so"
    link_driver(final, ["gcc", f"-fuse-ld={ld}", "-shared", *objs],
                "--keep-relocs", linkpass=linkpass.path, cwd=tmp_path)
    assert relative_relocs_in(final, lpfacts.SECTION) == \
        sorted(ground_truth(final))
    assert symbolic_dynamic_relocs(final) == []


@pytest.mark.parametrize("ld", LDS)
def test_bsymbolic_library_anchors_on_globals(linkpass, tmp_path, ld):
    """-Bsymbolic (DF_SYMBOLIC, as arm64 and riscv kernels are linked)
    binds every global inside the image: anchors as in an executable."""
    require_compiler_ld("gcc", ld)
    objs = build_lib_objects(tmp_path, "gcc")
    image = link_lib_q(tmp_path, "gcc", ld, objs, "img.so", "-Wl,-Bsymbolic")
    table = tmp_path / "t.o"
    linkpass.scan(image, table)
    entries, _ = table_object_relocs(table)
    first = {".text": min(ground_truth(image))}
    assert {name for name, _ in entries} == set(auto_anchors(image, first)
                                                .values())
    final = link_lib_q(tmp_path, "gcc", ld, [*objs, table], "final.so",
                       "-Wl,-Bsymbolic")
    assert relative_relocs_in(final, lpfacts.SECTION) == \
        sorted(ground_truth(final))


def test_shared_library_anchor_refused(linkpass, tmp_path):
    require_compiler_ld("gcc", "bfd")
    objs = build_lib_objects(tmp_path, "gcc")
    image = link_lib_q(tmp_path, "gcc", "bfd", objs, "img.so")
    out = tmp_path / "t.o"
    proc = linkpass.run("scan", image, "-o", out, "--anchor=lib_leaf",
                        check=False)
    assert proc.returncode == 2
    assert proc.stderr == (
        f"linkpass: {image}: lib_leaf: anchor symbol is exported from a "
        "shared library, so the dynamic linker may bind it in another "
        "object; leave out --anchor (the entries are then relative to "
        "__ehdr_start)\n")
    assert not out.exists()


def patch_library(image, how):
    """A copy of a little-endian ELF64 library with one fact broken:
    no-ehdr: the PT_LOAD at file offset 0 holds 16 bytes, not the header;
    bad-dynamic: .dynamic is a byte short of whole entries;
    ehdr-value: __ehdr_start in .symtab is 0x40 above the header."""
    data = bytearray(image.read_bytes())
    (phoff, shoff) = struct.unpack_from("<QQ", data, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data,
                                                            0x36)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    if how == "no-ehdr":
        for i in range(phnum):
            at = phoff + i * phentsize
            p_type, _, p_offset = struct.unpack_from("<IIQ", data, at)
            if p_type == 1 and p_offset == 0:       # PT_LOAD
                struct.pack_into("<Q", data, at + 32, 16)   # p_filesz
                break
    elif how == "bad-dynamic":
        i = next(i for i, sh in enumerate(secs) if sh[1] == 6)  # SHT_DYNAMIC
        struct.pack_into("<Q", data, shoff + i * shentsize + 32,
                         secs[i][5] - 1)
    else:
        symtab = next(sh for sh in secs if sh[1] == 2)           # SHT_SYMTAB
        strtab = secs[symtab[6]]
        for at in range(symtab[4], symtab[4] + symtab[5], 24):
            name = data[strtab[4] + struct.unpack_from("<I", data, at)[0]:]
            if name.startswith(b"__ehdr_start\0"):
                value = struct.unpack_from("<Q", data, at + 8)[0]
                struct.pack_into("<Q", data, at + 8, value + 0x40)
    out = image.with_name(f"{how}.so")
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("how, place, cause", [
    ("no-ehdr", ".text",
     "no anchor that another object cannot preempt: no segment loads the "
     "ELF header, so there is no __ehdr_start, and the library's globals "
     "are exported; link with -Bsymbolic, or load the headers (PHDRS, "
     "FILEHDR)"),
    ("bad-dynamic", ".dynamic",
     "size {size} is not a multiple of the dynamic entry size 16"),
    ("ehdr-value", "__ehdr_start",
     "value 0x40 is not the address of the ELF header (0x0, from the "
     "PT_LOAD at file offset 0)"),
])
def test_shared_library_anchor_errors(linkpass, tmp_path, how, place, cause):
    """One line naming the file, the place and the cause; no table."""
    require_compiler_ld("gcc", "bfd")
    objs = build_lib_objects(tmp_path, "gcc")
    image = link_lib_q(tmp_path, "gcc", "bfd", objs, "img.so")
    if how == "ehdr-value":     # an image that defines __ehdr_start
        linkpass.scan(image, tmp_path / "t.o")
        image = link_lib_q(tmp_path, "gcc", "bfd", [*objs, tmp_path / "t.o"],
                           "img2.so")
        assert symbol_value(image, "__ehdr_start") == 0
    bad = patch_library(image, how)
    m = re.search(r"\.dynamic\s+DYNAMIC\s+\S+\s+\S+\s+(\S+)",
                  run(["readelf", "-SW", bad]).stdout)
    size = int(m.group(1), 16) if m else None
    out = tmp_path / "bad.o"
    proc = linkpass.run("scan", bad, "-o", out, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == \
        f"linkpass: {bad}: {place}: {cause.format(size=size)}\n"
    assert not out.exists()


# ---------------------------------------------------------------------------
# --mcount-sym, --threads, obj --stats

OTHER_HOOK_S = """\
	.text
	.globl	h0, h1, my_hook
	.type	h0, @function
h0:	call	my_hook
	ret
	.size	h0, . - h0
	.type	h1, @function
h1:	call	my_hook
	ret
	.size	h1, . - h1
	.type	my_hook, @function
my_hook:
	ret
	.size	my_hook, . - my_hook
	.section .note.GNU-stack, "", @progbits
"""


def test_mcount_sym(linkpass, tmp_path):
    """--mcount-sym replaces the default names and is repeatable."""
    require_compiler_ld("gcc", "bfd")
    objs = [*build_objects(tmp_path, "gcc"),
            assemble(tmp_path, "hook.S", OTHER_HOOK_S)]
    image = link_q(tmp_path, "gcc", "bfd", objs, "img")
    fentry = ground_truth(image)
    hook = ground_truth(image, mcount_syms=("my_hook",))
    assert sorted(n for n, _ in hook.values()) == ["h0", "h1"]
    assert linkpass.sites(image) == sorted(fentry)
    assert linkpass.sites(image, "--mcount-sym=my_hook") == sorted(hook)
    assert linkpass.sites(image, "--mcount-sym", "my_hook",
                          "--mcount-sym=__fentry__") == \
        sorted({**fentry, **hook})


# Names of every length the symbol pass's four-byte filter treats
# differently (namefilter.h): one and two bytes (first byte only), three
# (its NUL is the fourth byte), and names that share their first four
# bytes with other symbols of the image.
HOOK_NAMES = ["f", "hk", "h3x", "h0x1", "my_h", "my_hook_longer"]


def hook_asm(hook):
    others = [n for n in ("my_h", "my_hx", "my_hook_longer", "h0x1")
              if n != hook]
    lines = ["\t.text", f"\t.globl\tc0, c1, {hook}, " + ", ".join(others)]
    for c in ("c0", "c1"):
        lines += [f"\t.type\t{c}, @function", f"{c}:\tcall\t{hook}",
                  "\tret", f"\t.size\t{c}, . - {c}"]
    for n in [hook, *others]:
        lines += [f"\t.type\t{n}, @function", f"{n}:\tret",
                  f"\t.size\t{n}, . - {n}"]
    lines.append('\t.section .note.GNU-stack, "", @progbits')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("hook", HOOK_NAMES)
def test_mcount_sym_of_any_length(linkpass, tmp_path, hook):
    """A --mcount-sym of any length is found, among symbols that share
    its first bytes."""
    require_compiler_ld("gcc", "bfd")
    objs = [*build_objects(tmp_path, "gcc"),
            assemble(tmp_path, "hook.S", hook_asm(hook))]
    image = link_q(tmp_path, "gcc", "bfd", objs, "img")
    want = ground_truth(image, mcount_syms=(hook,))
    assert sorted(n for n, _ in want.values()) == ["c0", "c1"]
    assert linkpass.sites(image, f"--mcount-sym={hook}") == sorted(want)
    assert linkpass.sites(image, f"--mcount-sym={hook}",
                          "--mcount-sym=__fentry__") == \
        sorted({**ground_truth(image), **want})


def threads_used(stdout):
    m = re.search(r"^  threads\s+(\d+)$", stdout, re.M)
    assert m, stdout
    return int(m.group(1))


def test_threads_option_and_default_threshold(linkpass, tmp_path):
    """A small image (far below 200,000 relocations) is scanned by one
    thread by default; -j N and --threads=N set the count.  (Large
    images and the per-CPU default: test_threads.py.)"""
    require_compiler_ld("gcc", "bfd")
    image = link_q(tmp_path, "gcc", "bfd", build_objects(tmp_path, "gcc"),
                   "img")
    t = tmp_path / "t.o"
    assert threads_used(linkpass.scan(image, t, "--stats").stdout) == 1
    assert threads_used(linkpass.scan(image, t, "--stats", "-j", "2")
                        .stdout) == 2
    assert threads_used(linkpass.scan(image, t, "--stats", "--threads=3")
                        .stdout) == 3
    one = linkpass.run("sites", image, "-j", "1").stdout
    assert one == linkpass.run("sites", image, "--threads=4").stdout
    assert parse_sites(one) == sorted(ground_truth(image))


def test_obj_stats(linkpass, tmp_path):
    """obj --stats: one line per object with its counts; the counts are
    those of readelf (relocations against __fentry__) and dump."""
    require_compiler_ld("gcc", "bfd")
    objs = build_objects(tmp_path, "gcc")[:2]
    want = []
    for o in objs:
        # references to __fentry__ per relocation section; those of
        # .rela.mysec are dropped (an untraced section)
        relocs = run(["readelf", "-rW", o]).stdout
        refs = dropped = 0
        for part in relocs.split("Relocation section '")[1:]:
            n = len(re.findall(r"R_X86_64_PLT32\s+0+ __fentry__ - 4$", part,
                               re.M))
            refs += n
            dropped += n if part.startswith(".rela.mysec'") else 0
        want.append(f"linkpass obj {o}: {refs - dropped} entries ({refs} "
                    f"references, {dropped} dropped)")
    assert [w.split(": ")[1] for w in want] == [
        "8 entries (9 references, 1 dropped)",   # main.c: all but nf
        "1 entries (1 references, 0 dropped)"]   # strong.c: wf
    proc = linkpass.run("obj", "--stats", *objs)
    assert proc.stdout.splitlines() == want
    # without --stats no per-object line; the tables are there by now,
    # so each object only gets the "already present" notice
    out = linkpass.run("obj", *objs, check=False).stdout.splitlines()
    assert len(out) == 2 and all(l.endswith(
        ": __mcount_loc: already present; object left unchanged") for l in out)


# ---------------------------------------------------------------------------
# A second oracle: gcc's own -mrecord-mcount table


@pytest.mark.parametrize("mode", ["fentry", "mcount"])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("ld", LDS)
def test_gcc_record_mcount_oracle(linkpass, tmp_path, ld, opt, mode):
    """gcc -mrecord-mcount writes its own per-object table of the same
    objects.  Without its entries outside any live function (the dead
    weak body) or in untraced sections (.mysec), it must equal the table
    linkpass scan writes for the image, entry for entry.  And check on
    that image reports exactly those extra entries as stale.  In mcount
    mode (-pg without -mfentry) the call follows the prologue: the
    compiler, not a rule restated here, says where it is."""
    require_compiler_ld("gcc", ld)
    objs = build_objects(tmp_path, "gcc", [opt, "-mrecord-mcount"], mode)
    image = link_q(tmp_path, "gcc", ld, objs, "img")
    _, data = section_data(image, lpfacts.SECTION)
    gcc_table = [int.from_bytes(data[i:i + 8], "little")
                 for i in range(0, len(data), 8)]
    funcs = [s for s in symbols(image) if s["type"] == "FUNC" and s["size"]]

    def live_traced(addr):
        return any(f["value"] <= addr < f["value"] + f["size"]
                   and f["section"] in (".text", ".init.text")
                   for f in funcs)

    want = sorted(a for a in gcc_table if live_traced(a))
    extra = sorted(set(gcc_table) - set(want))
    # the dead weak body and mysecf, nothing else
    assert len(extra) == 2 and len(want) == len(gcc_table) - 2
    table = tmp_path / "t.o"
    linkpass.scan(image, table)
    assert [a for _, a in table_object_entries(table, image)] == want

    rc, chk = linkpass.check(image, "--allow-unsorted", "--max-list=0")
    stale = [int(a, 16) for a in
             re.findall(r"^stale 0x([0-9a-f]+) ", chk.stdout, re.M)]
    assert rc == 1 and sorted(stale) == extra, chk.stdout
    assert not re.search(r"^(missing|duplicate) ", chk.stdout, re.M)
    rc, chk = linkpass.check(image, "--allow-unsorted", "--max-list=0",
                             "--trace-section=.mysec")
    assert len(re.findall(r"^stale ", chk.stdout, re.M)) == 1, chk.stdout


@pytest.mark.parametrize("how", [
    "-Wl,-x", "-Wl,--discard-all",
    # Objects stripped before the link: crt1/crtbegin still bring local
    # function symbols, so "the image has no local function symbol" does
    # not fire; the stripped static function is refused because its
    # entry is called (linkpass/stripped.c).
    "strip -x"])
def test_discarded_local_symbols_refused(linkpass, tmp_path, how):
    """Linked with -x (or objects stripped with strip -x), static
    functions have no symbol: their live sites would be dropped as "no
    function symbol".  scan and check must refuse, naming the cause,
    never write a table without them."""
    require_compiler_ld("gcc", "bfd")
    objs = build_objects(tmp_path, "gcc")
    extra = []
    if how == "strip -x":
        require_tools("strip")
        for o in objs:
            run(["strip", "-x", o])
    else:
        extra = [how]
    image = link_q(tmp_path, "gcc", "bfd", objs, "img", *extra)
    out = tmp_path / "t.o"
    for cmd in (["scan", image, "-o", out], ["check", image]):
        proc = linkpass.run(*cmd, check=False)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
        assert proc.stderr.startswith(f"linkpass: {image}: ")
        assert "local symbols" in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("args, cause", [
    (["scan", "IMG", "-o", "T", "-j", "0"], "bad thread count '0'"),
    (["frobnicate", "IMG"], "frobnicate"),
    (["check", "IMG", "--no-such-option"], "--no-such-option"),
])
def test_usage_error_is_one_line(linkpass, tmp_path, args, cause):
    args = [str(tmp_path / a) if a in ("IMG", "T") else a for a in args]
    proc = linkpass.run(*args, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("linkpass: ") and cause in lines[0], lines
    assert len(lines) <= 2 and "--help" in lines[-1], lines
    assert "usage:" not in proc.stderr
