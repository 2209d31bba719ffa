# Issue 15: an image whose local symbols were discarded (ld -x,
# --discard-all, strip -x) has no symbol for its static functions, so
# their call sites look like code no function covers.  linkpass must not
# drop them silently: scan, check and sites refuse such an image with
# one line naming the cause.

import re

import pytest

from lptest import (STUBS_S, assemble, compile_src, require_compiler_ld,
                    require_tools, run)

SRC = """\
int g;
static __attribute__((noinline)) int twice(int x) { g += x; return 2 * x; }
int f1(int x) { return twice(x) + 1; }
int main(void) { return f1(1) - 3; }
"""


@pytest.fixture
def objs(tmp_path):
    require_tools("gcc", "strip")
    return [compile_src(tmp_path, "a.c", SRC, "gcc",
                        ["-pg", "-mfentry", "-O2", "-fno-pie"]),
            assemble(tmp_path, "stubs.S", STUBS_S)]


def link(tmp_path, objs, name, *flags):
    out = tmp_path / name
    run(["gcc", "-no-pie", "-Wl,-q", *flags, *objs, "-o", out])
    return out


def discarded(tmp_path, objs, how):
    if how == "strip -x":
        image = link(tmp_path, objs, "img-strip")
        run(["strip", "-x", image])
        return image
    return link(tmp_path, objs, "img" + how, "-Wl," + how)


@pytest.mark.parametrize("how", ["-x", "--discard-all", "strip -x"])
@pytest.mark.parametrize("cmd", ["scan", "check", "sites"])
def test_discarded_locals_are_refused(linkpass, tmp_path, objs, how, cmd):
    image = discarded(tmp_path, objs, how)
    args = [cmd, image] + (["-o", tmp_path / "t.o"] if cmd == "scan" else [])
    proc = linkpass.run(*args, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"linkpass: {image}: .symtab: no local "
                                  "function symbols"), proc.stderr
    assert "1 call site in traced sections" in proc.stderr
    assert not (tmp_path / "t.o").exists()


# Two static functions, and a global one (in asm) that calls __fentry__
# again after its entry: that call is dropped as "not at entry", and
# with the local symbols discarded it is still covered by mid's symbol,
# so only the two statics' calls count.  The scan judges the drops of
# such an image without the sorted function index (count_uncovered() in
# locals.c); sites judges them all with it: both must say 2.
TWO_C = """\
int g;
static __attribute__((noinline)) int twice(int x) { g += x; return 2 * x; }
static __attribute__((noinline)) int thrice(int x) { g -= x; return 3 * x; }
int mid(int);
int f1(int x) { return twice(x) + thrice(x) + mid(x); }
int main(void) { return f1(1) - 6; }
"""
MID_S = """\
	.text
	.globl mid
	.type mid, @function
mid:
	call __fentry__
	nop
	call __fentry__
	leal 1(%rdi), %eax
	ret
	.size mid, .-mid
	.section .note.GNU-stack,"",@progbits
"""


@pytest.mark.parametrize("threads", [[], ["-j2"]])
@pytest.mark.parametrize("how", ["-x", "strip -x"])
def test_discarded_locals_count_only_uncovered(linkpass, tmp_path, how,
                                               threads):
    require_tools("gcc", "strip")
    objs = [compile_src(tmp_path, "a.c", TWO_C, "gcc",
                        ["-pg", "-mfentry", "-O2", "-fno-pie"]),
            assemble(tmp_path, "mid.S", MID_S),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    whole = link(tmp_path, objs, "whole")
    dropped = linkpass.run("sites", whole, "--dropped").stdout
    assert "mid+0x6 .text: not at a function entry" in dropped, dropped
    image = discarded(tmp_path, objs, how)
    out = tmp_path / "t.o"
    for args in (["scan", image, "-o", out, *threads],
                 ["check", image, *threads], ["sites", image]):
        proc = linkpass.run(*args, check=False)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr
        assert "no local function symbols" in proc.stderr, proc.stderr
        assert "2 call sites in traced sections" in proc.stderr, proc.stderr
    assert not out.exists()


def test_same_program_with_local_symbols_is_scanned(linkpass, tmp_path, objs):
    image = link(tmp_path, objs, "img")
    names = {ln.split()[1].split("+")[0]
             for ln in linkpass.run("sites", image).stdout.splitlines()}
    assert {"main", "f1"} <= names
    assert any(n.startswith("twice") for n in names), names


# ---------------------------------------------------------------------------
# Objects stripped with strip -x before the link (linkpass/stripped.c).  crt1
# and crtbegin still bring local function symbols, so the image as a whole
# does not look stripped; a stripped static function's call lies in no
# function symbol, like an overridden weak function's dead body.  What
# tells them apart: something calls, jumps to or takes the address of the
# static function's entry, and nothing reaches a dead weak body.

CCS = ("gcc", "clang")
LDS = ("bfd", "lld")

# How the static function twice() is reached, each the only way:
#  call     a call in its own section, resolved by the assembler (e8)
#  tail     a tail call in its own section (e9 jmp)
#  sections -ffunction-sections: a call through a relocation against a
#           section symbol (kept by -q)
#  pointer  only its address, stored in data (R_X86_64_64)
REACHED = {
    "call": ("""\
int g;
static __attribute__((noinline)) int twice(int x) { g += x; return 2 * x; }
int f1(int x) { return twice(x) + 1; }
""", []),
    # twice() and the code after f1's tail call both over 128 bytes, so
    # the jump is a 5-byte jmp rel32 whichever order the compiler emits
    # the two functions in
    "tail": ("""\
static volatile int a[64];
static __attribute__((noinline)) int twice(int x)
{
	a[1] = x;
	a[2] = x;
	a[3] = x;
	a[4] = x;
	a[5] = x;
	a[6] = x;
	a[7] = x;
	a[8] = x;
	a[9] = x;
	a[10] = x;
	a[11] = x;
	a[12] = x;
	a[13] = x;
	a[14] = x;
	a[15] = x;
	a[16] = x;
	a[17] = x;
	a[18] = x;
	a[19] = x;
	a[20] = x;
	a[21] = x;
	a[22] = x;
	a[23] = x;
	a[24] = x;
	a[25] = x;
	a[26] = x;
	a[27] = x;
	a[28] = x;
	a[29] = x;
	a[30] = x;
	return 2 * x;
}
int f1(int x)
{
	if (__builtin_expect(x != 0, 1))
		return twice(x);
	a[1] = 0;
	a[2] = 0;
	a[3] = 0;
	a[4] = 0;
	a[5] = 0;
	a[6] = 0;
	a[7] = 0;
	a[8] = 0;
	a[9] = 0;
	a[10] = 0;
	a[11] = 0;
	a[12] = 0;
	a[13] = 0;
	a[14] = 0;
	a[15] = 0;
	a[16] = 0;
	a[17] = 0;
	a[18] = 0;
	a[19] = 0;
	a[20] = 0;
	a[21] = 0;
	a[22] = 0;
	a[23] = 0;
	a[24] = 0;
	a[25] = 0;
	a[26] = 0;
	a[27] = 0;
	a[28] = 0;
	a[29] = 0;
	a[30] = 0;
	return 0;
}
""", []),
    # the same tail call within 128 bytes: a 2-byte "jmp rel8"
    "tail-short": ("""\
int g;
static __attribute__((noinline)) int twice(int x) { g += x; return 2 * x; }
int f1(int x) { g++; return twice(x); }
""", []),
    "sections": ("""\
int g;
static __attribute__((noinline)) int twice(int x) { g += x; return 2 * x; }
int f1(int x) { return twice(x) + 1; }
""", ["-ffunction-sections"]),
    "pointer": ("""\
int g;
static __attribute__((noinline)) int twice(int x) { g += x; return 2 * x; }
int (*volatile fp)(int) = twice;
int f1(int x) { return fp(x) + 1; }
""", []),
}

MAIN_C = "int f1(int);\nint main(void) { return f1(1) - 3; }\n"

# A weak function overridden by a strong one in another object: its body
# stays in the image, dead.  walk() calls itself: gcc -O2 makes those
# calls "call walk.localalias", resolved by the assembler to the dead
# body's own entry; the local alias symbol goes with strip -x.
WEAK_C = """\
struct n { struct n *l, *r; int v; };
__attribute__((weak)) int wf(int x) { return x + 1; }
__attribute__((weak)) int walk(struct n *t)
{
	if (!t)
		return 0;
	return walk(t->l) + walk(t->r) + t->v;
}
"""
STRONG_C = """\
struct n { struct n *l, *r; int v; };
int wf(int x) { return x + 10; }
int walk(struct n *t) { return t ? t->v : 0; }
int main(void) { struct n a = { 0, 0, 1 }; return wf(1) + walk(&a) - 12; }
"""

CFLAGS = ["-pg", "-mfentry", "-O2", "-fno-pie"]


def link_with(tmp_path, cc, ld, objs, name):
    out = tmp_path / name
    run([cc, f"-fuse-ld={ld}", "-no-pie", "-Wl,-q", *objs, "-o", out])
    return out


def refused_line(proc, image):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize("cf", ["", "-fcf-protection=full"])
@pytest.mark.parametrize("reached", [
    "call", "tail", "sections", "pointer",
    # Not looked at: a 2-byte jump hits a given entry by chance with
    # probability 2^-16 per position, about 1 in 25 dead weak bodies
    # (docs/design.md, "Discarded local symbols").
    pytest.param("tail-short", marks=pytest.mark.xfail(strict=True, reason=(
        "a static function reached only by a short jmp (rel8) from a "
        "neighbour is not detected")))])
@pytest.mark.parametrize("ld", LDS)
@pytest.mark.parametrize("cc", CCS)
def test_stripped_static_is_refused(linkpass, tmp_path, cc, ld, reached, cf):
    """strip -x on the objects: scan and check refuse, naming the static
    function's entry, and write nothing; linked from the unstripped
    objects, the same program is accepted with twice() in the table."""
    require_compiler_ld(cc, ld)
    require_tools("strip", "nm", "objdump", "readelf")
    src, flags = REACHED[reached]
    flags = CFLAGS + flags + ([cf] if cf else [])
    objs = [compile_src(tmp_path, "a.c", src, cc, flags),
            compile_src(tmp_path, "main.c", MAIN_C, cc, flags),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    whole = link_with(tmp_path, cc, ld, objs, "img")
    names = {ln.split()[1].split("+")[0]
             for ln in linkpass.run("sites", whole).stdout.splitlines()}
    assert {"main", "f1", "twice"} <= names, names
    entry = int(next(ln.split()[0] for ln in run(
        ["nm", whole]).stdout.splitlines() if ln.endswith(" twice")), 16)

    # the premise: twice() is reached the one way the case is about
    refs = re.findall(r"^\s*[0-9a-f]+:\s+((?:[0-9a-f]{2} )+)\s*\S+\s+"
                      r"[0-9a-f]+ <twice>$", run(["objdump", "-d", whole]).stdout,
                      re.M)
    want = {"call": ["e8"], "tail": ["e9"], "tail-short": ["eb"],
            "sections": ["e8"], "pointer": []}[reached]
    assert [r.split()[0] for r in refs] == want, refs
    relocs = run(["readelf", "-rW", objs[0]]).stdout
    assert (".text.twice" in relocs) == (reached == "sections"), relocs

    run(["strip", "-x", objs[0]])
    image = link_with(tmp_path, cc, ld, objs, "img-stripped")
    out = tmp_path / "t.o"
    # -j2: the check runs on its own thread while the table is written
    # (or read, by check), and must still stop it from replacing @out
    out.write_bytes(b"the previous table")
    for cmd in (["scan", image, "-o", out], ["check", image],
                ["scan", image, "-o", out, "--stats"],
                ["scan", image, "-o", out, "-j2"], ["check", image, "-j2"],
                ["scan", image, "-o", out, "--format=asm", "-j2"]):
        line = refused_line(linkpass.run(*cmd, check=False), image)
        m = re.fullmatch(
            rf"linkpass: {re.escape(str(image))}: \.text\+0x([0-9a-f]+) "
            r"\(0x([0-9a-f]+)\): 1 function entry in no function symbol "
            r"is called or referenced, .*local symbols were discarded "
            r"from its object \(strip -x\?\); link objects that keep "
            r"local symbols", line)
        assert m, line
        # the same layout: the stripped twice() sits where it did
        assert int(m.group(2), 16) == entry, (line, hex(entry))
    assert out.read_bytes() == b"the previous table"
    assert [p.name for p in tmp_path.glob("t.o.tmp*")] == []


@pytest.mark.parametrize("strip", [False, True])
@pytest.mark.parametrize("ld", LDS)
@pytest.mark.parametrize("cc", CCS)
def test_overridden_weak_stays_dropped(linkpass, tmp_path, cc, ld, strip):
    """Dead weak bodies are not reached, stripped or not, even the one
    that calls itself: scan and check accept the image, and the two dead
    calls are dropped as dead bodies."""
    require_compiler_ld(cc, ld)
    require_tools("strip", "nm")
    weak = compile_src(tmp_path, "weak.c", WEAK_C, cc, CFLAGS)
    if cc == "gcc":
        # the self-recursion this test is about
        syms = run(["nm", weak]).stdout
        assert " t walk.localalias" in syms, syms
    objs = [weak, compile_src(tmp_path, "strong.c", STRONG_C, cc, CFLAGS),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    if strip:
        run(["strip", "-x", weak])
    image = link_with(tmp_path, cc, ld, objs, "img")
    table = tmp_path / "t.o"
    proc = linkpass.run("scan", image, "-o", table, "--stats")
    assert proc.stderr == ""
    # the check on its own thread (-j2) decides the same
    threaded = tmp_path / "t2.o"
    proc2 = linkpass.run("scan", image, "-o", threaded, "--stats", "-j2")
    assert "(on its own thread, while the table is written)" in proc2.stdout
    assert threaded.read_bytes() == table.read_bytes()
    dead = re.search(r"dropped: dead body \(overridden weak\)\s+(\d+)",
                     proc.stdout)
    # gcc's walk.localalias is a live function symbol when not stripped
    want = 1 if (cc == "gcc" and not strip) else 2
    assert dead and int(dead.group(1)) == want, proc.stdout
    final = link_with(tmp_path, cc, ld, [*objs, table], "final")
    linkpass.run("check", final)
    names = [ln.split()[1].split("+")[0]
             for ln in linkpass.run("sites", image).stdout.splitlines()]
    assert names.count("wf") == 1 and names.count("walk") == 1, names


# ---------------------------------------------------------------------------
# The byte search for branches the assembler resolved looks only at the
# stripped object's own code, bounded by local function symbols of other
# objects (stripped.c, find_windows()).  Its edges: the branch at the far
# end of a big object, forward or backward; from another section of the
# object (a relocation, looked up wherever it lies); and an object that
# kept some of its local symbols, so that the nearest local symbol on the
# caller's side is its own (objcopy --strip-symbol=twice).  The object is
# assembler text, so that its layout is exact: caller, keep(), 70,000
# bytes of fill, twice() (or the other way round), between two C objects
# with static functions of their own.

NEIGHBOUR_C = """\
int g{n};
static __attribute__((noinline)) int s{n}(int x) {{ g{n} += x; return x * 5; }}
int f{n}(int x) {{ return s{n}(x) + 1; }}
"""
FAR_MAIN_C = """\
int f1(int); int fb(int); int fa(int); int fill(int);
int main(void) { return f1(1) + fb(1) + fa(1) + fill(0) > 0 ? 0 : 1; }
"""
FAR_FUNC = """\
	.type	{name}, @function
{name}:
	call	__fentry__
{body}
	.size	{name}, .-{name}
"""
# reach: (the caller's branch to twice, in the caller's section, and
# whether the caller comes after twice)
FAR_REACH = {
    "call-far": ("\tcall\ttwice\n\tret", ".text", False),
    "tail-far": ("\tjmp\ttwice", ".text", False),
    "jcc-far": ("\ttestl\t%edi, %edi\n\tjne\ttwice\n\tret", ".text", False),
    "backward": ("\tcall\ttwice\n\tret", ".text", True),
    "other-section": ("\tcall\ttwice\n\tret", ".text.unlikely", False),
}


def far_object_s(reach):
    branch, section, caller_last = FAR_REACH[reach]
    f1 = (f'\t.section\t{section},"ax",@progbits\n\t.globl\tf1\n' +
          FAR_FUNC.format(name="f1", body=branch) + "\t.text\n")
    parts = [
        FAR_FUNC.format(name="keep", body="\tleal\t3(%rdi), %eax\n\tret"),
        "\t.globl\tfill\n" + FAR_FUNC.format(
            name="fill", body="\t.skip\t70000, 0x90\n\tcall\tkeep\n\tret"),
    ]
    twice = FAR_FUNC.format(name="twice", body="\tleal\t(%rdi,%rdi), %eax\n\tret")
    body = [twice, *parts, f1] if caller_last else [f1, *parts, twice]
    return ('\t.file\t"far.c"\n\t.text\n' + "".join(body) +
            '\t.section\t.note.GNU-stack,"",@progbits\n')


@pytest.mark.parametrize("how", ["strip -x", "strip-symbol"])
@pytest.mark.parametrize("reach", list(FAR_REACH))
@pytest.mark.parametrize("ld", LDS)
@pytest.mark.parametrize("cc", CCS)
def test_stripped_static_reached_from_afar(linkpass, tmp_path, cc, ld, reach,
                                           how):
    """A stripped static function reached only from the far end of its
    object, or from another section of it, is refused as when reached
    from nearby; so is one whose object kept its other local symbols."""
    require_compiler_ld(cc, ld)
    require_tools("strip", "objcopy", "nm", "objdump", "readelf")
    before = compile_src(tmp_path, "before.c", NEIGHBOUR_C.format(n="b"),
                         cc, CFLAGS)
    after = compile_src(tmp_path, "after.c", NEIGHBOUR_C.format(n="a"),
                        cc, CFLAGS)
    far = assemble(tmp_path, "far.s", far_object_s(reach))
    objs = [before, far, after,
            compile_src(tmp_path, "main.c", FAR_MAIN_C, cc, CFLAGS),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    whole = link_with(tmp_path, cc, ld, objs, "img")
    names = {ln.split()[1].split("+")[0]
             for ln in linkpass.run("sites", whole).stdout.splitlines()}
    assert {"f1", "keep", "twice", "sb", "sa"} <= names, names
    addr = {ln.split()[2]: int(ln.split()[0], 16)
            for ln in run(["nm", whole]).stdout.splitlines()
            if len(ln.split()) == 3}

    # the premises: twice() is reached by the one branch, from afar or
    # through a relocation, and the neighbours' statics lie around it
    branch = {"call-far": "e8", "tail-far": "e9", "jcc-far": "0f",
              "backward": "e8", "other-section": "e8"}[reach]
    refs = re.findall(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*\S+\s+"
                      r"[0-9a-f]+ <twice>$",
                      run(["objdump", "-d", whole]).stdout, re.M)
    assert [r[1].split()[0] for r in refs] == [branch], refs
    site = int(refs[0][0], 16)
    if reach == "other-section":
        # a relocation: wherever the linker put .text.unlikely (GNU ld:
        # before every object's .text)
        assert f"{site + 1:016x}" in run(["readelf", "-rW", whole]).stdout
    else:
        assert abs(addr["twice"] - site) > 65536, (hex(site), addr)
        assert addr["sb"] < min(addr["twice"], site) and \
            addr["sa"] > max(addr["twice"], site), addr

    if how == "strip -x":
        run(["strip", "-x", far])
        first, count = min(addr["keep"], addr["twice"]), 1 + 1
    else:
        run(["objcopy", "--strip-symbol=twice", far])
        first, count = addr["twice"], 1
    image = link_with(tmp_path, cc, ld, objs, "img-stripped")
    syms = run(["nm", image]).stdout
    assert " twice\n" not in syms and (" keep\n" in syms) == (how != "strip -x")
    out = tmp_path / "t.o"
    out.write_bytes(b"the previous table")
    for cmd in (["scan", image, "-o", out], ["check", image],
                ["scan", image, "-o", out, "-j2"], ["check", image, "-j2"]):
        line = refused_line(linkpass.run(*cmd, check=False), image)
        m = re.fullmatch(
            rf"linkpass: {re.escape(str(image))}: \.text\+0x[0-9a-f]+ "
            r"\(0x([0-9a-f]+)\): (\d+) function entr(?:y|ies) in no "
            r"function symbol (?:is|are) called or referenced, .*", line)
        assert m, line
        assert (int(m.group(1), 16), int(m.group(2))) == (first, count), line
    assert out.read_bytes() == b"the previous table"
