"""check --byte-audit on an image whose sites were NOP'd by its build.

objtool --mcount --mnop (a clang-built Linux) writes the 5-byte NOP
`0f 1f 44 00 00` over every `call __fentry__`, at the function's entry
or after its endbr64, and no call is left.  The audit's default,
--sites=any ("either"), must read such an image as --sites=nop does:
on a clang-built Linux 7.3 it once found no site at all and called
every entry stale.

The image here is made the same way by hand: clang -pg -mfentry, a
table linked in, every site NOP'd by `linkpass nop`, the relocations
stripped as a shipped image's are, and one table entry zeroed as
sorttable zeroes a dead function's (its NOP stays in the code: one site
missing).  The ground truth comes from objdump, not from linkpass: the
functions whose first instruction (after an optional endbr64) is the
NOP, and the table's entries read from the file."""

import re
import struct

import pytest

import lpfacts
from lptest import (STUBS_S, assemble, compile_src, disassemble, link_driver,
                    require_tools, run, section_data, symbols)

PROG = """\
int leaf(int x) { return x * 3; }
int foo(int x) { return leaf(x) * 2; }
static int st(int x) { return foo(x) + 1; }
__attribute__((section(".init.text"))) int initf(int x) { return st(x) + 3; }
__attribute__((no_instrument_function)) int nf(int x) { return x + 4; }
int main(void) { return foo(1) + initf(2) + nf(3) - 34; }
"""

# check's summary when the table and the sites differ (cmd_check.c)
FAILED = re.compile(
    r"^check: \S+: table \S+ \S+: (\d+) entries, (\d+) call sites: "
    r"(\d+) missing, (\d+) stale, (\d+) duplicate, (\d+) out of order"
    r"; (\d+) zeroed$")


def nop_sites(image):
    """From objdump: the addresses of the NOPs that open a function of
    .text or .init.text (after an optional endbr64), how many of those
    follow an endbr64, and how many functions still open with a call."""
    funcs = [s for s in symbols(image) if s["type"] == "FUNC" and s["size"]]
    sites, endbr, calls = set(), 0, 0
    for sec in (".text", ".init.text"):
        insns = disassemble(image, sec)
        for f in (f for f in funcs if f["section"] == sec):
            body = [i for i in insns
                    if f["value"] <= i[0] < f["value"] + f["size"]]
            ibt = bool(body) and body[0][1] == lpfacts.ENDBR64
            body = body[1:] if ibt else body
            if body and body[0][1] == lpfacts.NOP5:
                sites.add(body[0][0])
                endbr += ibt
            calls += bool(body) and body[0][1][:1] == lpfacts.OP_CALL
    return sites, endbr, calls


def zero_first_entry(image):
    """Zero the first entry of __mcount_loc in the file, as sorttable
    zeroes a dead function's; its address."""
    addr, data = section_data(image, "__mcount_loc")
    first = struct.unpack_from("<Q", data)[0]
    raw = bytearray(image.read_bytes())
    off = raw.find(data)
    raw[off:off + 8] = bytes(8)
    image.write_bytes(bytes(raw))
    return first


def verdict(proc):
    """The counts of check's failed summary line."""
    m = FAILED.match(proc.stdout.strip().splitlines()[-1])
    assert m, proc.stdout
    keys = ("entries", "sites", "missing", "stale", "dups", "unordered",
            "zeroed")
    return dict(zip(keys, map(int, m.groups())))


@pytest.mark.parametrize("ibt", [False, True], ids=["entry", "endbr64"])
def test_default_audit_reads_a_nopped_image(tmp_path, linkpass, ibt):
    require_tools("clang", "objcopy", "objdump", "readelf")
    cf = "-fcf-protection=branch" if ibt else "-fcf-protection=none"
    objs = [compile_src(tmp_path, "prog.c", PROG, cc="clang",
                        flags=["-pg", "-mfentry", "-O2", "-fno-pie", cf]),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    image = tmp_path / "prog"
    link_driver(image, ["clang", "-no-pie", *objs], "--keep-relocs",
                linkpass=linkpass.path)
    linkpass.run("nop", image)
    shipped = tmp_path / "prog.shipped"
    run(["objcopy", "--remove-relocations=*", image, shipped])
    zeroed = zero_first_entry(shipped)

    # the ground truth: NOPs open the traced functions, no call does;
    # the table lists them all but the zeroed one
    sites, endbr, calls = nop_sites(shipped)
    assert len(sites) >= 4 and not calls, (sites, calls)
    assert endbr == (len(sites) if ibt else 0), (sites, endbr)
    assert zeroed in sites
    _, table = section_data(shipped, "__mcount_loc")
    entries = [e for (e,) in struct.iter_unpack("<Q", table)]
    assert sorted(e for e in entries if e) == sorted(sites - {zeroed})

    want = {"entries": len(entries), "sites": len(sites), "missing": 1,
            "stale": 0, "dups": 0, "unordered": 0, "zeroed": 1}
    rc, nop = linkpass.check(shipped, "--byte-audit", "--allow-zeroed",
                             "--sites=nop")
    assert rc == 1 and verdict(nop) == want, nop.stdout
    # the default says the same, without being told the sites are NOPs
    rc, default = linkpass.check(shipped, "--byte-audit", "--allow-zeroed")
    assert rc == 1 and verdict(default) == want, default.stdout
    assert f"missing 0x{zeroed:016x} " in default.stdout, default.stdout
