"""linkpass nop: the NOP over every site of the table at link time, in a
linked image that kept its relocations (as a kernel's vmlinux does) and
in a module-like object (`ld -r`, the table from `linkpass obj`); and
check --sites=call|nop|any, which says whether every site holds the
call or the NOP.

Truths used: the sites objdump finds before (lptest.ground_truth), the
bytes at each read by readelf's section headers, the relocations
`readelf -rW` lists, and `linkpass dump` and the table's own bytes
before and after.  (The driver's --nop-sites and the runtime on top of
it: tests/test_nop_sites.py.)
"""

import re

import pytest

import lpfacts
import lptest
import test_driver
from lptest import run

SRC = """\
__attribute__((weak)) int wf(int x) { return x + 1; }
int foo(int x) { return wf(x) * 2; }
__attribute__((section(".init.text"))) int initf(int x) { return x + 3; }
__attribute__((no_instrument_function)) int nf(int x) { return x + 4; }
int main(void) { return foo(1) + initf(2) + nf(3) - 34; }
"""
STRONG = "int wf(int x) { return x + 10; }\n"

NOP = {lpfacts.CALL_LEN: lpfacts.NOP5, lpfacts.CALL_ADDR32_LEN: lpfacts.NOP6}

CASES = [pytest.param(cc, ld, pie, id=f"{cc}-{ld}-{'pie' if pie else 'nopie'}")
         for cc in ("gcc", "clang") for ld in ("bfd", "lld")
         for pie in (False, True)]


def stats(path, nopped, already, zero=0, relocs=0):
    return (f"linkpass nop {path}: {nopped} sites NOP'd, {already} already "
            f"NOPs, {zero} zero entries skipped, {relocs} relocations made "
            "NONE\n")


def image_with_relocs(tmp_path, linkpass, cc="gcc", ld="bfd", pie=False):
    """SRC and STRONG linked through the driver, relocations kept."""
    lptest.require_compiler_ld(cc, ld)
    flags = ["-pg", "-mfentry", "-O2", "-fpie" if pie else "-fno-pie"]
    objs = [lptest.compile_src(tmp_path, "main.c", SRC, cc, flags),
            lptest.compile_src(tmp_path, "strong.c", STRONG, cc, flags),
            lptest.assemble(tmp_path, "stubs.S", lptest.STUBS_S)]
    image = tmp_path / "prog"
    lptest.link_driver(image, [cc, "-pie" if pie else "-no-pie",
                               f"-fuse-ld={ld}", *objs], "--keep-relocs",
                       linkpass=linkpass.path, cwd=tmp_path)
    return image


def relocs_at(path, section_rela=None):
    """{offset: (type, symbol)} of every relocation `readelf -rW` lists
    against __fentry__ (of @section_rela only, when given)."""
    out = run(["readelf", "-rW", path]).stdout
    got, current = {}, None
    for line in out.splitlines():
        m = re.match(r"^Relocation section '([^']+)'", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"^([0-9a-f]+)\s+[0-9a-f]+\s+(R_X86_64_\w+)\s+"
                     r"[0-9a-f]+\s+__fentry__", line)
        if m and section_rela in (None, current):
            got[int(m.group(1), 16)] = m.group(2)
    return got


def check_lines(linkpass, path, *opts):
    rc, proc = linkpass.check(path, *opts)
    return rc, proc.stdout.splitlines()


@pytest.mark.parametrize("cc,ld,pie", CASES)
def test_nop_image_with_relocations(tmp_path, linkpass, cc, ld, pie):
    image = image_with_relocs(tmp_path, linkpass, cc, ld, pie)
    truth = lptest.ground_truth(image)
    assert sorted(truth) == linkpass.dump(image) and len(truth) == 4
    dump = linkpass.dump_entries(image)
    table = lptest.section_data(image, lpfacts.SECTION)

    # before: every site is the call
    rc, lines = check_lines(linkpass, image, "--sites=nop")
    assert rc == 1 and len([ln for ln in lines if ln.startswith("call 0x")]) == 4
    assert lines[-1].endswith("; 4 not the NOP"), lines
    assert check_lines(linkpass, image, "--sites=call")[0] == 0

    n = len(truth)
    out = linkpass.run("nop", "--stats", image).stdout
    assert out == stats(image, n, 0, relocs=n)

    # the table unchanged, the sites NOPs of their call's length, each
    # call's relocation (at its end) R_X86_64_NONE
    assert linkpass.dump_entries(image) == dump
    assert lptest.section_data(image, lpfacts.SECTION) == table
    relocs = relocs_at(image)
    for addr, (name, raw) in truth.items():
        assert lptest.read_bytes(image, addr, len(raw)) == NOP[len(raw)], name
        assert relocs[addr + len(raw) - 4] == "R_X86_64_NONE", name

    rc, lines = check_lines(linkpass, image, "--sites=nop")
    assert rc == 0 and lines[-1].endswith("match the 4 call sites (each the NOP)"), lines
    rc, lines = check_lines(linkpass, image, "--sites=call")
    assert rc == 1 and lines[-1].endswith("; 4 not the call"), lines
    assert re.fullmatch(r"nop 0x[0-9a-f]{16} \w+\+0x0 \.\S+: bytes "
                        r"(66 )?0f 1f 44 00 00.* \(--sites=call wants the call\)",
                        lines[0]), lines
    assert check_lines(linkpass, image)[0] == 0

    # a second run finds them done and writes nothing
    before = image.read_bytes()
    out = linkpass.run("nop", "--stats", image).stdout
    assert out == stats(image, 0, n)
    assert image.read_bytes() == before
    assert run([image], check=False).returncode == 0


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_nop_module_object(tmp_path, linkpass, cc):
    """A .ko-like object: the table's entries are relocations (section
    + offset); each site's call becomes the NOP and its R_X86_64_PLT32
    becomes R_X86_64_NONE, so a loader leaves the NOP alone."""
    flags = ["-pg", "-mfentry", "-O2", "-fno-pie"]
    objs = [lptest.compile_src(tmp_path, "main.c", SRC, cc, flags),
            lptest.compile_src(tmp_path, "strong.c", STRONG, cc, flags)]
    ko = tmp_path / "mod.ko"
    run(["ld", "-r", *objs, "-o", ko])
    linkpass.run("obj", ko)

    # the sites: the table's relocations, section + offset
    out = run(["readelf", "-rW", ko]).stdout
    rela = out[out.index(f"'.rela{lpfacts.SECTION}'"):]
    sites = [(sec, int(add, 16)) for sec, add in re.findall(
        r"R_X86_64_64\s+[0-9a-f]+\s+(\.\S+) \+ ([0-9a-f]+)", rela)]
    assert len(sites) == 4, rela
    table = [lptest.section_data(ko, s) for s in
             (lpfacts.SECTION, f".rela{lpfacts.SECTION}")]
    assert all(relocs_at(ko, f".rela{sec}")[off + 1] == "R_X86_64_PLT32"
               for sec, off in sites)

    rc, lines = check_lines(linkpass, ko, "--sites=nop")
    assert rc == 1 and re.fullmatch(r"call \.\S+\+0x[0-9a-f]+ \(\w+\+0x0\): "
                                    r"bytes e8 00 00 00 00.* \(--sites=nop "
                                    r"wants the NOP\)", lines[0]), lines
    out = linkpass.run("nop", "--stats", ko).stdout
    assert out == stats(ko, 4, 0, relocs=4)
    for sec, off in sites:
        assert relocs_at(ko, f".rela{sec}")[off + 1] == "R_X86_64_NONE"
        data = lptest.section_data(ko, sec)[1]
        assert data[off:off + 5] == lpfacts.NOP5, (sec, off)
    assert [lptest.section_data(ko, s) for s in
            (lpfacts.SECTION, f".rela{lpfacts.SECTION}")] == table
    assert check_lines(linkpass, ko, "--sites=nop")[0] == 0
    assert check_lines(linkpass, ko, "--sites=call")[0] == 1
    assert check_lines(linkpass, ko)[0] == 0

    before = ko.read_bytes()
    assert linkpass.run("nop", "--stats", ko).stdout == stats(ko, 0, 4)
    assert ko.read_bytes() == before


def test_obj_check_nop_in_one_process(tmp_path, linkpass):
    """obj --check --nop, a module's .ko rule in one process, leaves the
    file byte for byte as obj, check and nop run one after the other
    do, and prints check's line; a check that fails stops it before the
    NOPs, and nop's error is its exit status."""
    flags = ["-pg", "-mfentry", "-O2", "-fno-pie"]
    objs = [lptest.compile_src(tmp_path, "main.c", SRC, "gcc", flags),
            lptest.compile_src(tmp_path, "strong.c", STRONG, "gcc", flags)]
    apart, joined = tmp_path / "apart.ko", tmp_path / "joined.ko"
    run(["ld", "-r", *objs, "-o", apart])
    joined.write_bytes(apart.read_bytes())
    linkpass.run("obj", apart)
    linkpass.run("check", apart)
    linkpass.run("nop", apart)
    out = linkpass.run("obj", "--check", "--nop", "--stats", joined).stdout
    assert joined.read_bytes() == apart.read_bytes()
    assert out.splitlines()[0] == (
        f"linkpass obj {joined}: 4 entries (5 references, 1 dropped)")
    assert out.splitlines()[1].startswith(f"check: {joined}: ok: 4 table entries")
    assert out.splitlines()[2:] == [stats(joined, 4, 0, relocs=4).rstrip()]

    # gcc's own table (-mrecord-mcount) lists a site in a section the
    # policy does not trace: obj leaves it, check finds it stale, no NOP
    odd = lptest.compile_src(
        tmp_path, "odd.c", SRC + '__attribute__((section(".odd"))) '
        "int oddf(int x) { return x + 5; }\n", "gcc", flags + ["-mrecord-mcount"])
    before = odd.read_bytes()
    proc = linkpass.run("obj", "--check", "--nop", odd, check=False)
    assert proc.returncode == 1, proc.stderr
    assert re.search(r"^stale \.odd\+0x0", proc.stdout, re.M), proc.stdout
    assert odd.read_bytes() == before

    lptest.require_tools("aarch64-linux-gnu-gcc")
    a64 = lptest.compile_src(tmp_path, "a.c", SRC, "aarch64-linux-gnu-gcc",
                             ["-pg", "-O2"])
    proc = linkpass.run("obj", "--check", "--nop", a64, check=False)
    assert proc.returncode == 2
    assert proc.stderr == (f"linkpass: {a64}: ELF header: not supported on "
                           "aarch64: only x86_64 sites get a NOP at link time\n")


def tamper(path, old, new):
    data = path.read_bytes()
    assert data.count(old) >= 1
    path.write_bytes(data.replace(old, new, 1))


def test_tampered_image_site_is_refused(tmp_path, linkpass):
    image = image_with_relocs(tmp_path, linkpass)
    truth = lptest.ground_truth(image)
    addr = next(a for a, (name, _) in truth.items() if name == "foo")
    raw = truth[addr][1]
    tamper(image, raw + lptest.read_bytes(image, addr + 5, 4),
           b"\xcc" * 5 + lptest.read_bytes(image, addr + 5, 4))
    before = image.read_bytes()
    nxt = lptest.read_bytes(image, addr + 5, 1).hex()
    proc = linkpass.run("nop", image, check=False)
    assert proc.returncode == 2
    entry = linkpass.dump(image).index(addr)
    assert proc.stderr == (
        f"linkpass: {image}: {lpfacts.SECTION} entry {entry}: {addr:#x} "
        f"(foo+0x0 .text), holding cc cc cc cc cc {nxt}, is neither a call "
        "to an mcount symbol nor the NOP; nothing written\n")
    assert image.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()
                  if p.name.startswith("prog")) == ["prog"]


@pytest.mark.parametrize("how, holding, cause", [
    # a site's bytes overwritten
    ("bytes", "90 90 90 90 90", "is neither a call to an mcount symbol nor "
     "the NOP; nothing written"),
    # the call's relocation now names another symbol: NOP'd, it would
    # still be relocated by the loader
    ("symbol", "e8 00 00 00 00", "is a call without a relocation against an "
     r"mcount symbol; nothing written \(and more sites like it\)"),
])
def test_object_site_is_refused(tmp_path, linkpass, how, holding, cause):
    obj = lptest.compile_src(tmp_path, "main.c", SRC, "gcc",
                             ["-pg", "-mfentry", "-O2", "-fno-pie"])
    linkpass.run("obj", obj)
    if how == "bytes":
        text = lptest.section_data(obj, ".text")[1]
        tamper(obj, text, text.replace(b"\xe8" + bytes(4), b"\x90" * 5, 1))
    else:
        run(["objcopy", "--redefine-sym", "__fentry__=other", obj])
    before = obj.read_bytes()
    proc = linkpass.run("nop", obj, check=False)
    assert proc.returncode == 2
    assert re.fullmatch(rf"linkpass: {re.escape(str(obj))}: {lpfacts.SECTION} "
                        rf"entry \d+: \.\S+\+0x0 \(\w+\+0x0\), holding {holding} "
                        rf"\S\S, {cause}\n", proc.stderr), proc.stderr
    assert obj.read_bytes() == before


def test_zero_entries_are_skipped_and_files_fail_alone(tmp_path, linkpass):
    """An entry a post-link tool zeroed is skipped and counted; of two
    files, the bad one is left as it was and the good one is written."""
    good = image_with_relocs(tmp_path, linkpass)
    addr, data = lptest.section_data(good, lpfacts.SECTION)
    first = data[:8]
    tamper(good, data, bytes(8) + data[8:])
    bad = tmp_path / "bad"
    bad.write_bytes(good.read_bytes())
    site = int.from_bytes(data[8:16], "little")
    raw = lptest.read_bytes(bad, site, 9)
    tamper(bad, raw, b"\x90" * 5 + raw[5:])
    bad_before = bad.read_bytes()

    proc = linkpass.run("nop", "--stats", good, bad, check=False)
    assert proc.returncode == 2
    assert proc.stdout == stats(good, 3, 0, zero=1, relocs=3)
    assert proc.stderr.startswith(f"linkpass: {bad}: {lpfacts.SECTION} entry 1: ")
    assert bad.read_bytes() == bad_before
    # the zeroed entry's site is still the call
    assert lptest.read_bytes(good, int.from_bytes(first, "little"), 1) == \
        lpfacts.OP_CALL


def test_image_without_table(tmp_path, linkpass):
    image = lptest.small_image(tmp_path, SRC + "\n")
    proc = linkpass.run("nop", image, check=False)
    assert proc.returncode == 2
    assert proc.stderr == (
        f"linkpass: {image}: ftrace table: not found: no "
        f"{lpfacts.KERNEL_START}/{lpfacts.KERNEL_STOP} or "
        f"{lpfacts.LINKER_START}/{lpfacts.LINKER_STOP} symbols and no "
        f"{lpfacts.SECTION} section\n")


def test_other_architectures_are_refused(tmp_path, linkpass):
    lptest.require_tools("aarch64-linux-gnu-gcc")
    obj = lptest.compile_src(tmp_path, "a.c", SRC, "aarch64-linux-gnu-gcc",
                             ["-pg", "-O2"])
    before = obj.read_bytes()
    proc = linkpass.run("nop", obj, check=False)
    assert proc.returncode == 2
    assert proc.stderr == (f"linkpass: {obj}: ELF header: not supported on "
                           "aarch64: only x86_64 sites get a NOP at link time\n")
    assert obj.read_bytes() == before


@pytest.mark.parametrize("args, message", [
    (["check", "--sites=both", "X"],
     "linkpass: check: unknown --sites 'both' (call, nop or any)"),
    (["check", "--sites=call", "--patchable-entries", "X"],
     "linkpass: check: --sites is for mcount calls, not --patchable-entries"),
    (["nop"], "linkpass: nop: expected one or more IMAGE or FILE.o"),
    (["nop", "--sections=.text", "X"],
     "linkpass: nop: unrecognized option '--sections=.text'"),
])
def test_usage_errors(linkpass, args, message):
    proc = linkpass.run(*args, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"{message} (see 'linkpass --help')\n"


# test_driver's hooked_a and hooked_b, which call my_hook, and a main
HOOK_S = """\
	.text
	.globl	main
	.type	main, @function
main:
	call	hooked_a
	call	hooked_b
	xorl	%eax, %eax
	ret
	.size	main, . - main
""" + test_driver.HOOK_S


def test_mcount_sym_and_bounds(tmp_path, linkpass):
    """--mcount-sym names the symbol the sites call (the driver passes
    its --scan-opt one on to nop); --start-sym/--stop-sym bound the
    table as for check and dump."""
    lptest.require_compiler_ld("gcc", "bfd")
    hook = lptest.assemble(tmp_path, "hook.s", HOOK_S)
    scan_opt = ["--scan-opt=--mcount-sym", "--scan-opt", "my_hook"]
    image = tmp_path / "prog"
    lptest.link_driver(image, ["gcc", "-no-pie", "-fuse-ld=bfd", hook],
                       "--keep-relocs", *scan_opt, linkpass=linkpass.path)
    assert linkpass.names(image) == ["hooked_a", "hooked_b"]
    before = image.read_bytes()

    proc = linkpass.run("nop", image, check=False)
    assert proc.returncode == 2 and proc.stderr == (
        f"linkpass: {image}: .symtab: nop: no mcount symbol (__fentry__...) "
        "is defined in the image\n")
    proc = linkpass.run("nop", "--start-sym=lp_lo", "--stop-sym=lp_hi",
                        "--mcount-sym=my_hook", image, check=False)
    assert proc.returncode == 2 and proc.stderr == (
        f"linkpass: {image}: lp_lo: table bound symbol not defined in the "
        "image\n")
    assert image.read_bytes() == before

    out = linkpass.run("nop", "--stats", "--mcount-sym=my_hook", image).stdout
    assert out == stats(image, 2, 0, relocs=2)
    assert check_lines(linkpass, image, "--sites=nop",
                       "--mcount-sym=my_hook")[0] == 0

    # the driver: --nop-sites with the scan's mcount symbol
    nopped = tmp_path / "prog.nop"
    lptest.link_driver(nopped, ["gcc", "-no-pie", "-fuse-ld=bfd", hook],
                       "--nop-sites", *scan_opt, linkpass=linkpass.path)
    for name, addr in zip(("hooked_a", "hooked_b"), linkpass.dump(nopped)):
        assert lptest.read_bytes(nopped, addr, 5) == lpfacts.NOP5, name
    assert run([nopped], check=False).returncode == 0


def test_byte_audit_of_nopped_sites(tmp_path, linkpass):
    """A NOP'd image without relocations (a kernel built with the NOPs
    written at link time, as shipped): --byte-audit --sites=nop finds the
    sites from the NOP opening each function and agrees with the
    relocation-based check, and so does the default (--sites=any);
    looking for calls alone (--sites=call), it finds none."""
    image = image_with_relocs(tmp_path, linkpass)
    linkpass.run("nop", image)
    rc, lines = check_lines(linkpass, image, "--sites=nop")
    assert rc == 0, lines
    norel = tmp_path / "prog.norel"
    run(["objcopy", "--remove-relocations=*", image, norel])
    rc, audit = check_lines(linkpass, norel, "--byte-audit", "--sites=nop")
    assert rc == 0, audit
    assert audit[0].endswith("is the NOP linkpass nop writes over a call to "
                             "__fentry__, not recorded in __jump_table or "
                             "the alternatives"), audit
    assert audit[-1].replace(str(norel), "IMG") == \
        lines[-1].replace(str(image), "IMG")
    rc, audit = check_lines(linkpass, norel, "--byte-audit")
    assert rc == 0 and audit[-1].endswith(
        ": ok: 4 table entries (section __mcount_loc) match the 4 call "
        "sites"), audit
    rc, audit = check_lines(linkpass, norel, "--byte-audit", "--sites=call")
    assert rc == 1 and audit[-1].endswith(
        "4 entries, 0 call sites: 0 missing, 4 stale, 0 duplicate, "
        "0 out of order"), audit

