# `linkpass check`, finding by finding.  Each image here is built from
# assembler whose __mcount_loc table is written by hand, so it has exactly
# one kind of fault: a missing entry, a stale one, a duplicate, entries out
# of order, or more than --max-list of one kind.  The expected report is
# computed from the image's symbols (readelf), never from linkpass, and
# compared line for line, with the exit status, under --allow-unsorted and
# --max-list.  The table bounds check finds by itself, and the bounds it
# is given, are tested the same way.

import pytest

import lpfacts
from lptest import (STUBS_S, assemble, read_bytes, require_tools, run,
                    symbols)

LINKERS = {"bfd": ["ld.bfd"], "lld": ["ld.lld"]}


def program(nfuncs, table, extra=""):
    """Assembler for _start, functions f0..f{nfuncs-1} that each begin
    with a call to __fentry__, a function `mid` whose call is not at its
    entry, and a table whose entries are the expressions in table (e.g.
    "f1", "mid+1"), in that order, in the __mcount_loc section."""
    lines = ["\t.text", "\t.globl _start", "\t.type _start, @function",
             "_start:", "\tcall f0", "\thlt", "\t.size _start, . - _start"]
    for k in range(nfuncs):
        lines += [f"\t.globl f{k}", f"\t.type f{k}, @function",
                  f"f{k}:", "\tcall __fentry__", "\tret",
                  f"\t.size f{k}, . - f{k}"]
    lines += ["\t.globl mid", "\t.type mid, @function", "mid:", "\tnop",
              "\tcall __fentry__", "\tret", "\t.size mid, . - mid"]
    lines += [f'\t.section {lpfacts.SECTION}, "a", @progbits']
    lines += [f"\t.quad {e}" for e in table]
    lines += [extra, '\t.section .note.GNU-stack, "", @progbits', ""]
    return "\n".join(lines)


def build(tmp_path, ld, nfuncs, table, extra=""):
    """Link program(...) with -q; returns (image, {symbol: address})."""
    require_tools(LINKERS[ld][0], "as")
    objs = [assemble(tmp_path, "prog.S", program(nfuncs, table, extra)),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    image = tmp_path / "img"
    run([*LINKERS[ld], "-q", *objs, "-o", image])
    addr = {s["name"]: s["value"] for s in symbols(image)}
    return image, addr


def check(linkpass, image, *opts):
    proc = linkpass.run("check", image, *opts, check=False)
    assert proc.stderr == "", proc.stderr
    return proc.returncode, proc.stdout.splitlines()


def summary(image, how, entries, sites, missing=0, stale=0, dup=0, order=0):
    return (f"check: {image}: table {how}: {entries} entries, {sites} call "
            f"sites: {missing} missing, {stale} stale, {dup} duplicate, "
            f"{order} out of order")


def ok_line(image, how, n, unsorted=False):
    return (f"check: {image}: ok: {n} table entries ({how}) match the {n} "
            f"call sites" + (" (unsorted)" if unsorted else ""))


SECTION_HOW = f"section {lpfacts.SECTION}"
ALL3 = ["f0", "f1", "f2"]


@pytest.fixture(params=sorted(LINKERS))
def ld(request):
    return request.param


def test_exact_table_passes(linkpass, tmp_path, ld):
    image, _ = build(tmp_path, ld, 3, ALL3)
    for opts in ((), ("--allow-unsorted",), ("--max-list=1",)):
        assert check(linkpass, image, *opts) == \
            (0, [ok_line(image, SECTION_HOW, 3)])


def test_missing_entry(linkpass, tmp_path, ld):
    image, a = build(tmp_path, ld, 3, ["f0", "f2"])
    want = [f"missing 0x{a['f1']:016x} f1+0x0 .text",
            summary(image, SECTION_HOW, 2, 3, missing=1)]
    assert check(linkpass, image) == (1, want)
    # not an ordering fault: --allow-unsorted does not excuse it
    assert check(linkpass, image, "--allow-unsorted") == (1, want)


def test_stale_entry_names_bytes_and_reason(linkpass, tmp_path, ld):
    """A table entry at a call that is no site (mid-function) and one at
    no call at all: each a stale line with its function, section, the
    bytes there and, for a dropped call, why it was dropped."""
    image, a = build(tmp_path, ld, 3, ["f0", "f1", "f2", "f2+5", "mid+1"])
    mid_call = a["mid"] + 1
    mid_bytes = " ".join(f"{b:02x}" for b in read_bytes(image, mid_call, 6))
    after = " ".join(f"{b:02x}" for b in read_bytes(image, a["f2"] + 5, 6))
    stale = sorted([
        (a["f2"] + 5, f"stale 0x{a['f2'] + 5:016x} f2+0x5 .text: "
                      f"bytes {after}"),
        (mid_call, f"stale 0x{mid_call:016x} mid+0x1 .text: "
                   f"bytes {mid_bytes}; call not at a function entry"),
    ])
    want = [line for _, line in stale] + \
        [summary(image, SECTION_HOW, 5, 3, stale=2)]
    assert mid_bytes.startswith("e8 ")
    assert check(linkpass, image) == (1, want)


def test_duplicate_entry(linkpass, tmp_path, ld):
    image, a = build(tmp_path, ld, 3, ["f0", "f1", "f1", "f2"])
    want = [f"duplicate 0x{a['f1']:016x} f1+0x0 .text",
            summary(image, SECTION_HOW, 4, 3, dup=1)]
    assert check(linkpass, image) == (1, want)
    assert check(linkpass, image, "--allow-unsorted") == (1, want)


def test_disorder(linkpass, tmp_path, ld):
    image, a = build(tmp_path, ld, 3, ["f1", "f0", "f2"])
    unordered = (f"unordered 0x{a['f0']:016x} (entry 1) after "
                 f"0x{a['f1']:016x} (entry 0)")
    assert check(linkpass, image) == \
        (1, [unordered, summary(image, SECTION_HOW, 3, 3, order=1)])
    # reported, but no longer a failure
    assert check(linkpass, image, "--allow-unsorted") == \
        (0, [unordered, ok_line(image, SECTION_HOW, 3, unsorted=True)])


N_MANY = 60


def test_more_than_fifty_of_one_kind(linkpass, tmp_path, ld):
    """59 missing entries: 50 lines by default, then a count of the rest;
    --max-list=N lists N; --max-list=0 lists all."""
    image, a = build(tmp_path, ld, N_MANY, ["f0"])
    lines = [f"missing 0x{a[f'f{k}']:016x} f{k}+0x0 .text"
             for k in range(1, N_MANY)]
    total = summary(image, SECTION_HOW, 1, N_MANY, missing=N_MANY - 1)

    def more(n):
        return (f"missing: ... and {N_MANY - 1 - n} more (--max-list=0 "
                "lists all)")

    assert check(linkpass, image) == (1, [*lines[:50], more(50), total])
    assert check(linkpass, image, "--max-list=3") == \
        (1, [*lines[:3], more(3), total])
    assert check(linkpass, image, "--max-list=0") == (1, [*lines, total])


def test_many_unordered_allowed(linkpass, tmp_path, ld):
    """A table in reverse order: 59 ordering faults, capped by --max-list,
    and --allow-unsorted still passes it."""
    names = [f"f{k}" for k in reversed(range(N_MANY))]
    image, a = build(tmp_path, ld, N_MANY, names)
    lines = [f"unordered 0x{a[names[i]]:016x} (entry {i}) after "
             f"0x{a[names[i - 1]]:016x} (entry {i - 1})"
             for i in range(1, N_MANY)]
    more = (f"unordered: ... and {N_MANY - 1 - 2} more (--max-list=0 "
            "lists all)")
    assert check(linkpass, image, "--max-list=2") == \
        (1, [*lines[:2], more,
             summary(image, SECTION_HOW, N_MANY, N_MANY,
                     order=N_MANY - 1)])
    assert check(linkpass, image, "--max-list=2", "--allow-unsorted") == \
        (0, [*lines[:2], more, ok_line(image, SECTION_HOW, N_MANY,
                                       unsorted=True)])


# The right table, bracketed by other symbols than the section: the
# __mcount_loc section itself holds a wrong one-entry table.
BRACKETED = """\
	.data
	.p2align 3
	.globl	{start}, {stop}
{start}:
	.quad	f0, f1, f2
{stop}:
"""


@pytest.mark.parametrize("pair", ["kernel", "custom"])
def test_bounds(linkpass, tmp_path, ld, pair):
    """check and dump find the kernel's __start_mcount_loc pair before the
    section by themselves; other symbols are used only when named."""
    start, stop = ((lpfacts.KERNEL_START, lpfacts.KERNEL_STOP)
                   if pair == "kernel" else ("my_start", "my_stop"))
    image, a = build(tmp_path, ld, 3, ["f0"],
                     BRACKETED.format(start=start, stop=stop))
    sites = [a["f0"], a["f1"], a["f2"]]
    how = f"{start}..{stop}"
    opts = ("--start-sym", start, "--stop-sym", stop)
    assert check(linkpass, image, *opts) == (0, [ok_line(image, how, 3)])
    assert linkpass.dump(image, *opts) == sites
    if pair == "kernel":
        assert check(linkpass, image) == (0, [ok_line(image, how, 3)])
        assert linkpass.dump(image) == sites
    else:
        assert check(linkpass, image) == \
            (1, [f"missing 0x{a['f1']:016x} f1+0x0 .text",
                 f"missing 0x{a['f2']:016x} f2+0x0 .text",
                 summary(image, SECTION_HOW, 1, 3, missing=2)])
        assert linkpass.dump(image) == [a["f0"]]


def test_linker_defined_bounds(linkpass, tmp_path, ld):
    """With a reference to __start___mcount_loc the linker defines the
    second pair, and check says it used it."""
    ref = (f"\t.data\n\t.quad {lpfacts.LINKER_START}, "
           f"{lpfacts.LINKER_STOP}\n")
    image, a = build(tmp_path, ld, 3, ALL3, ref)
    how = f"{lpfacts.LINKER_START}..{lpfacts.LINKER_STOP}"
    assert check(linkpass, image) == (0, [ok_line(image, how, 3)])


def test_no_table(linkpass, tmp_path, ld):
    require_tools(LINKERS[ld][0], "as")
    src = program(2, []).replace(
        f'\t.section {lpfacts.SECTION}, "a", @progbits', "\t.data")
    objs = [assemble(tmp_path, "p.S", src),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    image = tmp_path / "img"
    run([*LINKERS[ld], "-q", *objs, "-o", image])
    rc, lines = check(linkpass, image)
    assert rc == 1
    assert lines[-1] == summary(image, "absent", 0, 2, missing=2)
    assert lines[-2].startswith("missing 0x")
    assert lines[0] == (
        f"check: {image}: no ftrace table (no {lpfacts.KERNEL_START}/"
        f"{lpfacts.KERNEL_STOP} or {lpfacts.LINKER_START}/"
        f"{lpfacts.LINKER_STOP} symbols, no {lpfacts.SECTION} section)")



# A kernel-style table in .data, bracketed by the kernel's bounds, with
# an entry for a dead body (code no function symbol covers, in an image
# that has local function symbols): the stock 6.1 vmlinux in small.
DEAD_BODY = """\
	.text
	.type	lf, @function
lf:
	ret
	.size	lf, . - lf
.Ldead:
	call	__fentry__
	ret
	.data
	.p2align 3
	.globl	{start}, {stop}
{start}:
	.quad	f0, .Ldead
{stop}:
"""


def test_bracketed_table_entry_is_not_a_reference(linkpass, tmp_path, ld):
    """The table's own entry for a dead body is stale, not evidence that
    the body is reached (stripped.c skips the bracketed range): check
    reports it and does not refuse the image as stripped."""
    image, a = build(tmp_path, ld, 1, ["f0"],
                     DEAD_BODY.format(start=lpfacts.KERNEL_START,
                                      stop=lpfacts.KERNEL_STOP))
    dead = a["lf"] + 1
    how = f"{lpfacts.KERNEL_START}..{lpfacts.KERNEL_STOP}"
    rc, lines = check(linkpass, image)
    assert rc == 1, lines
    assert lines[0].startswith(f"stale 0x{dead:016x} "), lines
    assert lines[-1] == summary(image, how, 2, 1, stale=1)
