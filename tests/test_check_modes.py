"""linkpass check beyond linked images with relocations (issue 9):

- on a relocatable object (a module's .ko is one): the table's entries
  are relocations, compared with the object's own call sites;
- zeroed entries (what upstream's `sorttable -s` leaves for dead
  functions) are counted apart from stale ones;
- --byte-audit: sites from function entries, for images that kept no
  relocations; it must agree with the relocation-based check.
"""
import re
import struct

import pytest

from lptest import STUBS_S, assemble, compile_src, require_tools, run, write

PROG = """\
__attribute__((weak)) int wf(int x) { return x + 1; }
int foo(int x) { return wf(x) * 2; }
static int st(int x) { return x * 3; }
__attribute__((section(".init.text"))) int initf(int x) { return st(x) + 3; }
__attribute__((no_instrument_function)) int nf(int x) { return x + 4; }
int main(void) { return foo(1) + initf(2) + nf(3) - 34; }
"""
STRONG = "int wf(int x) { return x + 10; }\n"

CCS = ["gcc", "clang"]


def summary(proc):
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("cc", CCS)
def test_obj_table_checks_exact(tmp_path, linkpass, cc):
    """`linkpass obj` output passes check; the same object untouched has
    no table; the exact summary names the section and the count."""
    obj = compile_src(tmp_path, "main.c", PROG, cc=cc,
                      flags=["-pg", "-mfentry", "-O2", "-fcf-protection=branch"])
    rc, proc = linkpass.check(obj)
    assert rc == 1
    assert f"check: {obj}: no ftrace table (no __mcount_loc section)" in proc.stdout
    linkpass.run("obj", obj)
    rc, proc = linkpass.check(obj)
    assert rc == 0, proc.stdout
    m = re.fullmatch(rf"check: {re.escape(str(obj))}: ok: (\d+) table entries "
                     r"\(section __mcount_loc\) match the (\d+) call sites",
                     summary(proc))
    assert m and m.group(1) == m.group(2) and int(m.group(1)) >= 4, proc.stdout


def test_object_without_sites_needs_no_table(tmp_path, linkpass):
    """A module whose only function is its notrace init (test_module.ko
    of Linux 6.12) has no call site: no table is right, and check says
    so; a call site without a table is not."""
    obj = compile_src(tmp_path, "init.c",
                      "__attribute__((no_instrument_function)) int f(int x) { return x; }\n",
                      flags=["-pg", "-mfentry", "-O2"])
    linkpass.run("obj", obj)
    rc, proc = linkpass.check(obj)
    assert rc == 0
    assert proc.stdout == f"check: {obj}: ok: no call sites and no __mcount_loc section\n"
    obj2 = compile_src(tmp_path, "t.c", "int g(int x) { return x; }\n",
                       flags=["-pg", "-mfentry", "-O2"])
    rc, proc = linkpass.check(obj2)
    assert rc == 1
    assert summary(proc) == (f"check: {obj2}: table absent: 0 entries, 1 call sites: "
                             "1 missing, 0 stale, 0 duplicate, 0 out of order")


def test_gcc_record_mcount_object_checks(tmp_path, linkpass):
    """gcc's own per-object table reads back through its relocations."""
    obj = compile_src(tmp_path, "main.c", PROG,
                      flags=["-pg", "-mfentry", "-mrecord-mcount", "-O2"])
    rc, proc = linkpass.check(obj)
    assert rc == 0, proc.stdout
    assert summary(proc).endswith("match the 4 call sites")


def test_ld_r_overridden_weak_is_stale(tmp_path, linkpass):
    """`ld -r` (how a .ko is made) of an object whose weak function is
    overridden: gcc's table keeps the dead body (its call after endbr64,
    at .text+0x4), and misses the strong function's call, which was
    compiled without -mrecord-mcount."""
    require_tools("ld")
    m = compile_src(tmp_path, "main.c", PROG,
                    flags=["-pg", "-mfentry", "-mrecord-mcount", "-O2",
                           "-fcf-protection=branch"])
    s = compile_src(tmp_path, "strong.c", STRONG,
                    flags=["-pg", "-mfentry", "-O2", "-fcf-protection=branch"])
    ko = tmp_path / "mod.ko"
    run(["ld", "-r", m, s, "-o", ko])
    rc, proc = linkpass.check(ko)
    assert rc == 1
    lines = proc.stdout.splitlines()
    assert [l for l in lines if l.startswith("stale ")] == ["stale .text+0x4 (<none>)"]
    missing = [l for l in lines if l.startswith("missing ")]
    assert len(missing) == 1 and re.fullmatch(r"missing \.text\+0x[0-9a-f]+ \(wf\+0x4\)",
                                              missing[0]), lines
    assert summary(proc).endswith(
        "4 entries, 4 call sites: 1 missing, 1 stale, 0 duplicate, 0 out of order")
    # Our own table for the same .ko: one pass over the whole module.
    run(["objcopy", "--remove-section=__mcount_loc",
         "--remove-section=.rela__mcount_loc", ko])
    linkpass.run("obj", ko)
    rc, proc = linkpass.check(ko)
    assert rc == 0, proc.stdout


def test_obj_entry_without_relocation_is_an_error(tmp_path, linkpass):
    src = """\
	.text
	.globl f
	.type f, @function
f:	call __fentry__
	ret
	.size f, . - f
	.section __mcount_loc, "a"
	.quad 0
"""
    obj = assemble(tmp_path, "t.s", src)
    proc = linkpass.run("check", obj, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"linkpass: {obj}: __mcount_loc: 1 entries but no relocation section: "
        "entries of an object must be relocated")


def linked(tmp_path, linkpass, cc, pie):
    """A program linked through the driver, with its relocations kept."""
    objs = [compile_src(tmp_path, "main.c", PROG, cc=cc,
                        flags=["-pg", "-mfentry", "-O2", "-fcf-protection=branch"]
                        + ([] if pie else ["-fno-pie"])),
            compile_src(tmp_path, "strong.c", STRONG, cc=cc,
                        flags=["-pg", "-mfentry", "-O2", "-fcf-protection=branch"]
                        + ([] if pie else ["-fno-pie"])),
            assemble(tmp_path, "stubs.s", STUBS_S)]
    out = tmp_path / "prog"
    run(["bash", linkpass.path.parent.parent / "scripts" / "link-vmlinux.sh",
         "--keep-relocs", out, "--", cc, "-pie" if pie else "-no-pie", *objs],
        env={"LINKPASS": linkpass.path})
    return out


@pytest.mark.parametrize("cc", CCS)
@pytest.mark.parametrize("pie", [False, True], ids=["nopie", "pie"])
def test_byte_audit_agrees_without_relocations(tmp_path, linkpass, cc, pie):
    img = linked(tmp_path, linkpass, cc, pie)
    rc, by_rel = linkpass.check(img)
    assert rc == 0, by_rel.stdout
    norel = tmp_path / "prog.norel"
    run(["objcopy", "--remove-relocations=*", img, norel])
    # Without relocations the ordinary check has nothing to go by ...
    proc = linkpass.run("check", norel, check=False)
    assert proc.returncode == 2, proc.stderr
    assert f"run 'linkpass check --byte-audit {norel}'" in proc.stderr
    # ... the audit has, and finds the same table exact.
    rc, audit = linkpass.check(norel, "--byte-audit")
    assert rc == 0, audit.stdout
    assert audit.stdout.splitlines()[0].startswith(
        f"check: {norel}: byte-level audit: no relocations used;")
    assert summary(audit).replace(str(norel), "X") == summary(by_rel).replace(str(img), "X")


@pytest.mark.parametrize("cc,pie", [("gcc", True), ("clang", False)],
                         ids=["gcc-pie", "clang-nopie"])
@pytest.mark.parametrize("nop", [False, True], ids=["calls", "nop-sites"])
def test_check_of_the_drivers_output_says_what_to_run(tmp_path, linkpass, cc,
                                                      pie, nop):
    """The driver's output keeps no static relocations: check says so in
    one line, with the command that checks it (--sites=nop added when
    the sites were NOP'd: gcc's PIE sites are 6 bytes, clang's 5), and
    that command accepts the output."""
    pic = [] if pie else ["-fno-pie"]
    objs = [compile_src(tmp_path, name, src, cc=cc,
                        flags=["-pg", "-mfentry", "-O2", *pic])
            for name, src in (("main.c", PROG), ("strong.c", STRONG))]
    objs.append(assemble(tmp_path, "stubs.s", STUBS_S))
    out = tmp_path / "prog"
    run(["bash", linkpass.path.parent.parent / "scripts" / "link-vmlinux.sh",
         *(["--nop-sites"] if nop else []), out, "--", cc,
         "-pie" if pie else "-no-pie", *objs], env={"LINKPASS": linkpass.path})
    proc = linkpass.run("check", out, check=False)
    assert proc.returncode == 2
    cmd = f"linkpass check --byte-audit{' --sites=nop' if nop else ''} {out}"
    assert proc.stderr == (
        f"linkpass: {out}: .text: no relocations kept for code, which check "
        f"compares the table with: for a shipped image or "
        f"scripts/link-vmlinux.sh's output run '{cmd}'; for a fresh one link "
        "with -q (--emit-relocs; link-vmlinux.sh --keep-relocs)\n"), proc.stderr
    rc, audit = linkpass.check(*cmd.split()[2:])
    assert rc == 0, audit.stdout
    assert re.search(r": ok: ([4-9]) table entries .* match the \1 call sites"
                     + (r" \(each the NOP\)$" if nop else "$"),
                     summary(audit)), audit.stdout


def test_byte_audit_sees_stale_entries_of_a_per_object_table(tmp_path, linkpass):
    """gcc -mrecord-mcount keeps the overridden weak body: both ways of
    finding sites call that entry stale, and nothing else."""
    out = tmp_path / "stock"
    src_m = write(tmp_path / "main.c", PROG)
    src_s = write(tmp_path / "strong.c", STRONG)
    stubs = assemble(tmp_path, "stubs.s", STUBS_S)
    run(["gcc", "-no-pie", "-fno-pie", "-Wl,-q", "-pg", "-mfentry", "-mrecord-mcount", "-O2",
         src_m, src_s, stubs, "-o", out])
    norel = tmp_path / "stock.norel"
    run(["objcopy", "--remove-relocations=*", out, norel])
    rc1, a = linkpass.check(out, "--allow-unsorted")
    rc2, b = linkpass.check(norel, "--allow-unsorted", "--byte-audit")
    assert rc1 == rc2 == 1
    stale_a = [l for l in a.stdout.splitlines() if l.startswith("stale ")]
    stale_b = [l for l in b.stdout.splitlines() if l.startswith("stale ")]
    assert len(stale_a) == 1 and stale_a[0].split(";")[0] == stale_b[0]
    assert " <none> .text: bytes " in stale_b[0]
    assert summary(b).replace(str(norel), "X") == summary(a).replace(str(out), "X")


def test_byte_audit_refuses_objects_and_images_without_fentry(tmp_path, linkpass):
    obj = compile_src(tmp_path, "main.c", PROG, flags=["-pg", "-mfentry", "-O2"])
    proc = linkpass.run("check", "--byte-audit", obj, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"linkpass: {obj}: ELF header: --byte-audit is for linked images; "
        "a relocatable object keeps all its relocations")
    plain = tmp_path / "plain"
    run(["gcc", "-O2", write(tmp_path / "p.c", "int main(void) { return 0; }\n"),
         "-o", plain])
    proc = linkpass.run("check", "--byte-audit", plain, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"linkpass: {plain}: .symtab: byte-level audit: no mcount symbol "
        "(__fentry__...) is defined in the image")


def zero_entry(image, index):
    """Overwrite table entry `index` of image's __mcount_loc with 0, as
    sorttable -s does for an entry in no function."""
    out = run(["readelf", "-SW", image]).stdout
    m = re.search(r"\]\s+__mcount_loc\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)", out)
    assert m, out
    off = int(m.group(2), 16) + 8 * index
    data = bytearray(image.read_bytes())
    data[off:off + 8] = struct.pack("<Q", 0)
    image.write_bytes(bytes(data))


def test_zeroed_entries_are_reported_apart(tmp_path, linkpass):
    img = linked(tmp_path, linkpass, "gcc", False)
    rc, before = linkpass.check(img)
    assert rc == 0
    n = int(re.search(r"ok: (\d+) table entries", before.stdout).group(1))
    zero_entry(img, 0)
    rc, proc = linkpass.check(img)
    assert rc == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == ("zeroed 1 entries hold 0 (dead entries zeroed after the link; "
                        "ftrace skips them) (--allow-zeroed accepts them)")
    # The zeroed entry's function is now missing; nothing is stale.
    assert sum(l.startswith("missing ") for l in lines) == 1
    assert not any(l.startswith("stale ") for l in lines)
    assert summary(proc).endswith(
        f"{n} entries, {n} call sites: 1 missing, 0 stale, 0 duplicate, 0 out of order; 1 zeroed")
    rc, proc = linkpass.check(img, "--allow-zeroed")
    assert rc == 1      # still one missing
    assert "zeroed 1 entries hold 0" in proc.stdout and "(--allow-zeroed" not in proc.stdout
