# --patchable-entries: the table made from the compiler's
# __patchable_function_entries lists (-fpatchable-function-entry=N[,M]),
# live entries only, sorted; the driver keeps the lists while it checks
# and discards them in one last link.  x86_64 with gcc and clang, GNU ld
# and lld; aarch64 with gcc (bti landing pads, and the kernel's 4,2 form
# with two nops before the entry), run under qemu-user.

import re

import pytest

from lptest import (assemble, link_driver, links_taken, require_compiler_ld,
                    require_tools, run, section_data, section_headers,
                    symbols, write)

PROG = r"""
#include <stdio.h>
#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif
NOIPA int leaf(int x) { return x * 3 + 1; }
static NOIPA int st(int x) { return leaf(x) + 2; }
/* overridden by strong.c: its body and its list entry stay, dead */
__attribute__((weak)) NOIPA int weak_fn(int x) { return x * 100; }
__attribute__((patchable_function_entry(0, 0))) NOIPA int quiet(int x)
{
	return x - 1;
}
int main(void)
{
	printf("sum %d\n", st(1) + weak_fn(5) + quiet(4));
	return 0;
}
"""
STRONG = "int weak_fn(int x) { return x + 11; }\n"
EXPECTED_OUTPUT = "sum 25\n"	# st(1) 6 + weak_fn(5) 16 + quiet(4) 3
TRACED = {"main", "leaf", "st", "weak_fn"}

# (id, compiler, linker, -fpatchable-function-entry value, extra flags)
CASES = [
    ("x86_64-gcc-bfd", "gcc", "bfd", "5", ()),
    ("x86_64-gcc-lld", "gcc", "lld", "5", ()),
    ("x86_64-clang-bfd", "clang", "bfd", "5", ()),
    ("x86_64-clang-lld", "clang", "lld", "5", ()),
    ("x86_64-gcc-ibt", "gcc", "bfd", "5", ("-fcf-protection=branch",)),
    ("aarch64-gcc-bti", "aarch64-linux-gnu-gcc", None, "2",
     ("-mbranch-protection=standard",)),
    ("aarch64-gcc-4,2", "aarch64-linux-gnu-gcc", None, "4,2", ()),
]

NOPS = {"x86_64": ("nop", "nopl", "nopw", "xchg"), "aarch64": ("nop",)}
PREFIXES = ("endbr64", "bti")


def arch_of(cc):
    return "aarch64" if cc.startswith("aarch64") else "x86_64"


def objdump_of(cc):
    return "aarch64-linux-gnu-objdump" if arch_of(cc) == "aarch64" \
        else "objdump"


def runner(cc, image):
    if arch_of(cc) == "aarch64":
        require_tools("qemu-aarch64")
        return ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", image]
    return [image]


def build(tmp_path, cc, ld, entry, flags):
    require_tools(cc, objdump_of(cc), "readelf")
    if ld:
        require_compiler_ld(cc, ld)
    objs = []
    for name, src in (("prog.c", PROG), ("strong.c", STRONG)):
        path = write(tmp_path / name, src)
        obj = path.with_suffix(".o")
        run([cc, "-O2", f"-fpatchable-function-entry={entry}", *flags,
             "-c", path, "-o", obj])
        objs.append(obj)
    cmd = [cc] + ([f"-fuse-ld={ld}"] if ld else [])
    return cmd + [str(o) for o in objs]


_INSN = re.compile(r"^\s*([0-9a-f]+):\t[0-9a-f ]+?\s*\t(\S+)")


def ground_truth(cc, image, entry):
    """{address: function} from the final image's disassembly: for each
    function of the program, the first nop its entry holds (after
    endbr64/bti), or with N,M the first of the M nops before it."""
    pre = int(entry.split(",")[1]) if "," in entry else 0
    insn_len = 4 if arch_of(cc) == "aarch64" else None
    out = run([objdump_of(cc), "-d", "-w", "-j", ".text", image]).stdout
    insns = [(int(m[1], 16), m[2]) for m in map(_INSN.match, out.splitlines())
             if m]
    at = {a: i for i, (a, _) in enumerate(insns)}
    truth = {}
    for s in symbols(image):
        if s["name"] not in TRACED or s["type"] != "FUNC":
            continue
        i = at[s["value"]]
        if pre:
            # the M nops just before the symbol (aarch64: 4 bytes each)
            addr = s["value"] - pre * insn_len
            assert all(insns[at[addr + k * insn_len]][1] == "nop"
                       for k in range(pre)), s
            truth[addr] = s["name"]
            continue
        if insns[i][1] in PREFIXES:
            i += 1
        assert insns[i][1] in NOPS[arch_of(cc)], (s, insns[i])
        truth[insns[i][0]] = s["name"]
    return truth


def stats(text):
    return {m.group(1).strip(): int(m.group(2)) for m in
            re.finditer(r"^  (\D+?)\s+(\d+)\s*$", text, re.M)}


@pytest.mark.parametrize("cc,ld,entry,flags", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_patchable_table(tmp_path, linkpass, cc, ld, entry, flags):
    """The driver's table holds exactly the live functions' entries, in
    order; the stable image checks clean, its dead weak body's entry is
    dropped; the output has no compiler list left and runs."""
    cmd = build(tmp_path, cc, ld, entry, flags)
    image = tmp_path / "prog"
    proc = link_driver(image, cmd, "--patchable-entries", "--keep-relocs",
                       "--keep-temps", linkpass=linkpass)
    # two links to be stable, one to discard the compiler's lists
    assert links_taken(proc.stdout) == 3
    assert "__patchable_function_entries" not in section_headers(image)
    truth = ground_truth(cc, image, entry)
    assert set(truth.values()) == TRACED
    assert linkpass.dump(image) == sorted(truth)

    # the stable image (link 2) still has the lists: check and stats
    tmp = re.search(r"temporary files kept in (\S+)", proc.stderr)[1]
    stable = f"{tmp}/.tmp_image2"
    status, chk = linkpass.check(stable, "--patchable-entries")
    assert status == 0, chk.stdout
    st = stats(linkpass.run("scan", stable, "-o", tmp_path / "t.o",
                            "--patchable-entries", "--stats").stdout)
    assert st["dropped: no function symbol"] == 1, st	# the weak body
    assert st["table entries"] == len(TRACED), st
    assert run(runner(cc, image)).stdout == EXPECTED_OUTPUT

    stripped = tmp_path / "prog.stripped"
    link_driver(stripped, cmd, "--patchable-entries", linkpass=linkpass)
    assert run(runner(cc, stripped)).stdout == EXPECTED_OUTPUT


def test_check_lists_every_entry_missing(tmp_path, linkpass):
    """An image linked with -q and no table: check --patchable-entries
    names each live entry as missing, nothing else."""
    cmd = build(tmp_path, "gcc", "bfd", "5", ())
    image = tmp_path / "plain"
    run(cmd + ["-Wl,-q", "-o", image])
    truth = ground_truth("gcc", image, "5")
    status, proc = linkpass.check(image, "--patchable-entries")
    assert status == 1
    missing = re.findall(r"^\s*missing 0x([0-9a-f]+) ", proc.stdout, re.M)
    assert sorted(int(m, 16) for m in missing) == sorted(truth)


def test_errors(tmp_path, linkpass):
    """No list, or a list without its relocations: one line naming the
    file, the section and the fix; exit 2; no table written."""
    cmd = build(tmp_path, "gcc", "bfd", "5", ())
    out = tmp_path / "t.o"
    image = tmp_path / "norelocs"
    run(cmd + ["-o", image])
    proc = linkpass.run("scan", image, "-o", out, "--patchable-entries",
                        check=False)
    assert proc.returncode == 2
    assert proc.stderr == (
        f"linkpass: {image}: __patchable_function_entries: no relocations "
        "kept for it; link the image with -q (--emit-relocs)\n")
    assert not out.exists()

    plain = tmp_path / "plain.c"
    write(plain, "int main(void) { return 0; }\n")
    image = tmp_path / "nolist"
    run(["gcc", "-Wl,-q", plain, "-o", image])
    proc = linkpass.run("scan", image, "-o", out, "--patchable-entries",
                        check=False)
    assert proc.returncode == 2
    assert proc.stderr == (
        f"linkpass: {image}: __patchable_function_entries: no such section: "
        "compile with -fpatchable-function-entry and keep the section in "
        "every link\n")
    assert not out.exists()


# ---------------------------------------------------------------------------
# Modules (linkpass obj on a .ko) and the byte-level audit of pads, on the
# geometries the kernels use: arm64 2 (with bti) and 4,2 (CALL_OPS),
# riscv64 4 (RVC: c.nop), 8,4 (CALL_OPS with RVC) and 2 (no RVC).

# A module-like pair of objects: ld -r with the kernel's module.lds rule
# for a linkpass build, which keeps the compiler's list unloaded (INFO).
MODULE_LDS = """SECTIONS {
	__patchable_function_entries 0 (INFO) : { *(__patchable_function_entries) }
}
"""

# (id, compiler, -fpatchable-function-entry, extra flags, nop size)
PAD_CASES = [
    ("aarch64-2-bti", "aarch64-linux-gnu-gcc", "2",
     ("-mbranch-protection=standard",), 4),
    ("aarch64-4,2", "aarch64-linux-gnu-gcc", "4,2", (), 4),
    ("riscv64-4-rvc", "riscv64-linux-gnu-gcc", "4", (), 2),
    # riscv CALL_OPS (Linux 7.2+) with RVC: the entry 8 bytes before
    ("riscv64-8,4-rvc", "riscv64-linux-gnu-gcc", "8,4", (), 2),
    ("riscv64-2", "riscv64-linux-gnu-gcc", "2", ("-march=rv64g",), 4),
]


def cross_tool(cc, tool):
    return cc.replace("-gcc", "-" + tool)


def geometry(entry):
    n, _, m = entry.partition(",")
    return int(n), int(m or 0)


def pad_truth(cc, obj, entry, nop):
    """{(section, offset)} the table must hold, from the object's symbols:
    each traced function's value, less M nops, or past its landing pad
    (bti: 4 bytes) when M is 0."""
    _, m = geometry(entry)
    syms = {s["name"]: s for s in symbols(obj) if s["type"] == "FUNC"}
    truth = set()
    for name in MODULE_TRACED:
        s = syms[name]
        start = s["value"] - m * nop
        if not m:
            _, data = section_data(obj, s["section"])
            if data[s["value"]:s["value"] + 4] == bytes.fromhex("5f2403d5"):
                start += 4	# past "bti c"
        truth.add((s["section"], start))
    return truth


MODULE_SRC = PROG.replace("#include <stdio.h>\n", "") \
    .replace("int main(void)", "int mod_init(void)") \
    .replace('printf("sum %d\\n", ', "return (").replace("\treturn 0;\n", "")
MODULE_TRACED = TRACED - {"main"} | {"mod_init"}


def build_module(tmp_path, cc, entry, flags):
    require_tools(cc, cross_tool(cc, "ld"), cross_tool(cc, "readelf"))
    objs = []
    for name, src in (("mod.c", MODULE_SRC), ("strong.c", STRONG)):
        path = write(tmp_path / name, src)
        obj = path.with_suffix(".o")
        run([cc, "-O2", f"-fpatchable-function-entry={entry}", *flags,
             "-c", path, "-o", obj])
        objs.append(obj)
    lds = write(tmp_path / "module.lds", MODULE_LDS)
    ko = tmp_path / "mod.ko"
    run([cross_tool(cc, "ld"), "-r", "-T", lds, *objs, "-o", ko])
    return ko


def table_places(cc, ko):
    """{(section, offset)} of the .ko's __mcount_loc, from `readelf -r`."""
    out = run([cross_tool(cc, "readelf"), "-rW", ko]).stdout
    part = out.split("Relocation section '.rela__mcount_loc'")
    assert len(part) == 2, out
    places = set()
    for line in part[1].split("\n\n")[0].splitlines():
        m = re.match(r"^[0-9a-f]+\s+[0-9a-f]+\s+\S+\s+[0-9a-f]+\s+(\S+)\s*\+\s*([0-9a-f]+)",
                     line)
        if m:
            places.add((m.group(1), int(m.group(2), 16)))
    return places


@pytest.mark.parametrize("cc,entry,flags,nop", [c[1:] for c in PAD_CASES],
                         ids=[c[0] for c in PAD_CASES])
def test_module_table_from_list(tmp_path, linkpass, cc, entry, flags, nop):
    """linkpass obj --patchable-entries=N,M on a module's .ko: its table is
    the live functions' pads (not the overridden weak body's, not the
    notrace function's), each where N,M puts it; check agrees; the
    compiler's list stays unloaded."""
    ko = build_module(tmp_path, cc, entry, flags)
    opt = f"--patchable-entries={entry}"
    status, proc = linkpass.check(ko, opt)
    assert status == 1 and "no ftrace table" in proc.stdout, proc.stdout
    assert len(re.findall(r"^missing ", proc.stdout, re.M)) == len(MODULE_TRACED)

    linkpass.run("obj", opt, ko)
    hdrs = section_headers(ko)
    assert "A" not in hdrs["__patchable_function_entries"][2], hdrs
    assert "A" in hdrs["__mcount_loc"][2], hdrs
    assert table_places(cc, ko) == pad_truth(cc, ko, entry, nop)
    status, proc = linkpass.check(ko, opt)
    assert status == 0, proc.stdout
    assert f"ok: {len(MODULE_TRACED)} table entries" in proc.stdout


def test_wrong_geometry_is_an_error(tmp_path, linkpass):
    """Code built with 4,2 and a caller that says 2: one line naming the
    entry, its function and the fix; no table written."""
    ko = build_module(tmp_path, "aarch64-linux-gnu-gcc", "4,2", ())
    before = ko.read_bytes()
    proc = linkpass.run("obj", "--patchable-entries=2", ko, check=False)
    assert proc.returncode == 2
    assert re.fullmatch(
        rf"linkpass: {ko}: \.text: entry 0x[0-9a-f]+ of \w+ does not start a "
        r"pad of 2 nops with 0 before the entry \(--patchable-entries=2,0\): "
        r"the code was compiled with another -fpatchable-function-entry\n",
        proc.stderr), proc.stderr
    assert ko.read_bytes() == before


@pytest.mark.parametrize("cc,entry,flags,nop", [c[1:] for c in PAD_CASES],
                         ids=[c[0] for c in PAD_CASES])
def test_byte_audit_of_pads(tmp_path, linkpass, cc, entry, flags, nop):
    """check --byte-audit --patchable-entries=N,M on an image without
    relocations finds what the relocation-based check finds: the driver's
    table exact; a table that also lists the dead weak body (the linker's
    own concatenation) one stale entry."""
    require_tools(cc, cross_tool(cc, "objcopy"))
    objs = build(tmp_path, cc, None, entry, flags)
    opt = f"--patchable-entries={entry}"
    image = tmp_path / "prog"
    proc = link_driver(image, objs, opt, "--keep-temps", linkpass=linkpass)
    # the stable image still has the lists and its relocations
    stable = re.search(r"temporary files kept in (\S+)", proc.stderr)[1] + \
        "/.tmp_image2"
    status, proc = linkpass.check(stable, opt)
    assert status == 0, proc.stdout
    norel = tmp_path / "prog.norel"
    run([cross_tool(cc, "objcopy"), "--remove-relocations=*", image, norel])
    status, audit = linkpass.check(norel, opt, "--byte-audit")
    assert status == 0, audit.stdout
    assert "byte-level audit: no relocations used" in audit.stdout
    assert audit.stdout.splitlines()[-1].replace(str(norel), "IMG") == \
        proc.stdout.splitlines()[-1].replace(stable, "IMG")

    # the compiler's own lists as the table: the weak body's entry is stale
    plain = tmp_path / "plain"
    run(objs + ["-Wl,-u,__start___patchable_function_entries",
                "-Wl,-u,__stop___patchable_function_entries", "-o", plain])
    status, audit = linkpass.check(plain, "--byte-audit", opt,
                                   "--start-sym=__start___patchable_function_entries",
                                   "--stop-sym=__stop___patchable_function_entries",
                                   "--allow-unsorted")
    assert status == 1, audit.stdout
    assert "1 stale" in audit.stdout.splitlines()[-1], audit.stdout
    assert " 0 missing" in audit.stdout.splitlines()[-1], audit.stdout


def test_module_without_list(tmp_path, linkpass):
    """A module whose only code is notrace has no list: obj leaves it as
    it is and check says there is nothing to trace (6.12's test_module)."""
    cc = "aarch64-linux-gnu-gcc"
    require_tools(cc)
    src = write(tmp_path / "quiet.c", "__attribute__((patchable_function_entry(0, 0))) int f(int x) { return x; }\n")
    ko = tmp_path / "quiet.ko"
    run([cc, "-O2", "-fpatchable-function-entry=4,2", "-c", src, "-o", ko])
    before = ko.read_bytes()
    proc = linkpass.run("obj", "--patchable-entries=4,2", ko)
    assert proc.stdout == "" and ko.read_bytes() == before
    status, proc = linkpass.check(ko, "--patchable-entries=4,2")
    assert status == 0
    assert proc.stdout == f"check: {ko}: ok: no call sites and no __mcount_loc section\n"


def test_stock_module_list_with_an_address(tmp_path, linkpass):
    """A stock module keeps its list allocated, and ld -r gives that
    section an address (scripts/module.lds.S names none): the list's
    offsets still count from the section.  check reads the live entries
    and, the table being absent, lists them all as missing."""
    cc = "aarch64-linux-gnu-gcc"
    require_tools(cc, cross_tool(cc, "ld"))
    objs = []
    for name, src in (("mod.c", MODULE_SRC), ("strong.c", STRONG)):
        path = write(tmp_path / name, src)
        run([cc, "-O2", "-fpatchable-function-entry=4,2", "-c", path,
             "-o", path.with_suffix(".o")])
        objs.append(path.with_suffix(".o"))
    lds = write(tmp_path / "stock.lds",
                "SECTIONS { __patchable_function_entries : "
                "{ *(__patchable_function_entries) } }\n")
    ko = tmp_path / "stock.ko"
    run([cross_tool(cc, "ld"), "-r", "-T", lds, *objs, "-o", ko])
    out = run([cross_tool(cc, "readelf"), "-SW", ko]).stdout
    assert re.search(r"__patchable_function_entries\s+PROGBITS\s+0*[1-9a-f]", out), out
    status, proc = linkpass.check(ko, "--patchable-entries=4,2")
    assert status == 1, proc.stdout
    assert len(re.findall(r"^missing ", proc.stdout, re.M)) == len(MODULE_TRACED)



# ---------------------------------------------------------------------------
# scan and check judge a linked image's list by the scan's entry maps
# (pads.c, pad_at()); what those cannot tell goes to the full judgement
# (patchable_scan(), which sites and --stats use): a function covering
# the nops before an entry, an entry inside a function, the wrong
# geometry, no local function symbols.  Each must give the table and the
# error line the full judgement gives.  x86_64 assembler, so that the
# layout is exact: -fpatchable-function-entry=4,2 as gcc writes it.

PAD_FUNC_S = """\
	.section	__patchable_function_entries,"awo",@progbits,{name}
	.align 8
	.quad	{entry}
	.text
	.p2align 4
{head}{pre}{label}:
	nop
	nop
{name}:
	nop
	nop
{body}
"""
PAD_TAIL_S = '\t.section\t.note.GNU-stack,"",@progbits\n'


def pad_func(name, body="\tret", glob=True, entry=None, pre=""):
    label = f".Lpfe_{name}"
    head = (f"\t.globl\t{name}\n" if glob else "") + \
        f"\t.type\t{name}, @function\n"
    return PAD_FUNC_S.format(name=name, entry=entry or label, label=label,
                             head=head, pre=pre,
                             body=body + f"\n\t.size\t{name}, .-{name}")


# (the program's functions, the names whose entries the table keeps)
PAD_LAYOUTS = {
    # all plain: the maps decide every entry
    "plain": ([pad_func("main", "\txorl %eax, %eax\n\tret"),
               pad_func("f1"), pad_func("st", glob=False)],
              {"main", "f1", "st"}),
    # big's symbol covers f2's nops before its entry: not at an entry
    "covered": ([pad_func("main", "\txorl %eax, %eax\n\tret"),
                 pad_func("f2", pre="\t.type\tbig, @function\nbig:\n\t.skip 12, 0x90\n"
                          "\t.size\tbig, 16\n")],
                {"main"}),
    # an entry listed inside mid, past its own pad: not at an entry
    "inside": ([pad_func("main", "\txorl %eax, %eax\n\tret"),
                pad_func("mid", "\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n"
                         ".Linside:\n\tnop\n\tret") +
                "\t.section\t__patchable_function_entries,\"awo\",@progbits,mid\n"
                "\t.quad\t.Linside\n\t.text\n"],
               {"main", "mid"}),
}


# A listed pad whose function has no symbol: an overridden weak body.
DEAD_PAD_S = """\
	.section	__patchable_function_entries,"aw",@progbits
	.align 8
	.quad	.Lpfe_gone
	.text
	.p2align 4
.Lpfe_gone:
	nop
	nop
	nop
	nop
	ret
"""


def pad_image(tmp_path, layout, *flags):
    funcs, _ = PAD_LAYOUTS[layout]
    # a static function of its own keeps local function symbols around
    src = assemble(tmp_path, f"{layout}.s", "".join(funcs) + PAD_TAIL_S)
    image = tmp_path / f"{layout}.img"
    run(["gcc", "-no-pie", "-nostartfiles", "-Wl,-q", "-Wl,-e,main", *flags,
         src, "-o", image])
    return image


def scan_table(linkpass, image, *opts):
    """The addresses of the table scan writes, from its assembler form."""
    out = image.with_suffix(".table.s")
    linkpass.run("scan", image, "-o", out, "--format=asm", *opts)
    value = {s["name"]: s["value"] for s in symbols(image)}
    return [value[m.group(1)] + int(m.group(2) + m.group(3), 16)
            for m in re.finditer(r"^\t\.quad (\S+) ([+-]) 0x([0-9a-f]+)$",
                                 out.read_text(), re.M)]


def test_pad_entries_named_before_their_function(tmp_path, linkpass):
    """An entry M nops before its function is named func-0x<M nops>
    (dump, sites, check), not <none>; one inside a function as before."""
    require_tools("gcc", "as")
    image = pad_image(tmp_path, "inside")
    value = {s["name"]: s["value"] for s in symbols(image)}
    opts = ("--patchable-entries=4,2",)
    assert linkpass.run("sites", image, *opts).stdout == "".join(
        f"0x{value[f] - 2:016x} {f}-0x2 .text\n" for f in ("main", "mid"))
    dropped = linkpass.run("sites", image, "--dropped", *opts).stdout
    inside = value["mid"] + 2 + 6
    assert f"dropped 0x{inside:016x} mid+0x8 .text: not at a function " \
        "entry" in dropped, dropped
    status, proc = linkpass.check(image, *opts)
    assert status == 1
    assert f"missing 0x{value['mid'] - 2:016x} mid-0x2 .text" in \
        proc.stdout.splitlines(), proc.stdout


@pytest.mark.parametrize("layout", list(PAD_LAYOUTS))
def test_pad_maps_agree_with_full_judgement(tmp_path, linkpass, layout):
    """scan's table is the sites the full judgement keeps (sites), and
    check of the image with that table linked in passes."""
    require_tools("gcc", "as")
    image = pad_image(tmp_path, layout)
    opts = ("--patchable-entries=4,2",)
    lines = linkpass.run("sites", image, *opts).stdout.splitlines()
    kept = {ln.split()[0]: re.split(r"[+-]0x", ln.split()[1])[0]
            for ln in lines}
    assert set(kept.values()) == PAD_LAYOUTS[layout][1], kept
    assert scan_table(linkpass, image, *opts) == sorted(
        int(a, 16) for a in kept)
    dropped = linkpass.run("sites", image, "--dropped", *opts).stdout
    if layout != "plain":
        assert ": not at a function entry" in dropped, dropped
    status, proc = linkpass.check(image, *opts)
    assert status == 1 and proc.stdout.count("\nmissing ") + \
        proc.stdout.startswith("missing ") == len(kept), proc.stdout


def test_pad_errors_as_full_judgement(tmp_path, linkpass):
    """Where the maps stop, the full judgement's error line: the wrong
    geometry, and entries in no function of an image linked -x."""
    require_tools("gcc", "as")
    image = pad_image(tmp_path, "plain")
    out = tmp_path / "t.o"
    for opts in (("--patchable-entries=4,1",), ("--patchable-entries=5,2",)):
        want = linkpass.run("sites", image, *opts, check=False)
        assert want.returncode == 2 and "does not start a pad" in want.stderr
        for cmd in (["scan", image, "-o", out], ["check", image]):
            proc = linkpass.run(*cmd, *opts, check=False)
            assert (proc.returncode, proc.stderr) == (2, want.stderr)
            assert not out.exists()
    # a dead body's pad in no function, with no local function symbol
    body = "".join(PAD_LAYOUTS["plain"][0][:2]) + DEAD_PAD_S + PAD_TAIL_S
    src = assemble(tmp_path, "x.s", body)
    image = tmp_path / "x.img"
    run(["gcc", "-no-pie", "-nostartfiles", "-Wl,-q", "-Wl,-x", "-Wl,-e,main",
         src, "-o", image])
    want = linkpass.run("sites", image, "--patchable-entries=4,2",
                        check=False)
    assert want.returncode == 2 and "no local function symbols" in \
        want.stderr, want.stderr
    for cmd in (["scan", image, "-o", out], ["check", image]):
        proc = linkpass.run(*cmd, "--patchable-entries=4,2", check=False)
        assert (proc.returncode, proc.stderr) == (2, want.stderr)
