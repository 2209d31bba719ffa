"""scripts/link-vmlinux.sh --nop-sites (linkpass nop), the default when
the link command names the runtime: the sites of the final image are
NOPs at link time, for gcc and clang, with the table unchanged; the
runtime then only checks them at start, and copies no text page until
tracing is first enabled.  --no-nop-sites leaves the calls, and the
runtime writes the NOPs at start.  (linkpass nop on its own, images with
relocations and .ko-like objects: tests/test_nop.py.)

Truths used: the sites objdump finds in the image linked without the
option (lptest.ground_truth), the bytes at those addresses read by the
section headers of readelf, `linkpass dump` of both images, and the
program's own /proc/self/smaps (tests/runtime/nopstart.c).
"""

import re

import pytest

import lptest
from test_runtime import (NOP5, NOP6, PROGS, REPO, RUNTIME,  # noqa: F401
                          entries, key_values, read_trace, run, runtime_lib)

LINK = REPO / "scripts" / "link-vmlinux.sh"
CASES = [pytest.param(cc, ld, pie, id=f"{cc}-{ld}-{'pie' if pie else 'nopie'}")
         for cc, ld, pie in [("gcc", "bfd", False), ("gcc", "lld", True),
                             ("clang", "bfd", True), ("clang", "lld", False)]]


def build(tmp_path, linkpass, cc, ld, pie, nop, name="nopstart"):
    """@nop: the driver's default with liblptrace.a on the link line
    ("--nop-sites" also names the option), else --no-nop-sites."""
    obj = tmp_path / f"{name}.o"
    pic = "-fpie" if pie else "-fno-pie"
    run([cc, "-O2", pic, "-pg", "-mfentry", f"-I{RUNTIME}", f"-I{PROGS}",
         "-c", PROGS / f"{name}.c", "-o", obj])
    exe = tmp_path / (name + (".nop" if nop else ".plain"))
    opts = (["--nop-sites"] if nop == "--nop-sites" else
            [] if nop else ["--no-nop-sites"])
    proc = run([LINK, "--linkpass", linkpass.path, *opts, exe, "--", cc,
                "-pie" if pie else "-no-pie", f"-fuse-ld={ld}", obj,
                RUNTIME / "liblptrace.a", "-lpthread"], cwd=tmp_path)
    return exe, proc


@pytest.mark.parametrize("cc,ld,pie", CASES)
def test_nop_sites_link_and_start(cc, ld, pie, tmp_path, linkpass,
                                  runtime_lib):
    lptest.require_compiler_ld(cc, ld)
    plain, _ = build(tmp_path, linkpass, cc, ld, pie, nop=False)
    nopped, proc = build(tmp_path, linkpass, cc, ld, pie, nop=True)
    assert re.search(r"^  NOP     \S+nopstart\.nop$", proc.stdout, re.M), \
        proc.stdout

    # Same table; every site objdump finds in the plain image is a NOP
    # of the call's length in the other; the option says the same as
    # the default.
    assert linkpass.dump_entries(plain) == linkpass.dump_entries(nopped)
    (tmp_path / "named").mkdir()
    named, _ = build(tmp_path / "named", linkpass, cc, ld, pie,
                     nop="--nop-sites")
    assert linkpass.dump_entries(named) == linkpass.dump_entries(nopped)
    truth = lptest.ground_truth(plain)
    assert sorted(truth) == linkpass.dump(plain) and len(truth) >= 3
    for addr, (name, raw) in truth.items():
        want = bytes.fromhex((NOP6 if len(raw) == 6 else NOP5).replace(" ", ""))
        assert lptest.read_bytes(nopped, addr, len(raw)) == want, name
        assert lptest.read_bytes(named, addr, len(raw)) == want, name

    # Start: all checked, none written, no text page copied; the first
    # enable writes (copies) one.
    n = len(truth)
    for exe, start in ((plain, {"nopped": str(n), "already": "0"}),
                       (nopped, {"nopped": "0", "already": str(n)})):
        out = run([exe]).stdout
        first = key_values("phase=start", out)
        assert {k: first[k] for k in ("nopped", "already", "refused")} == \
            {**start, "refused": "0"}, out
        assert (first["copied_kb"] == "0") == (exe == nopped), out
        assert key_values("enable=", out)["enable"] == "1"
        after = key_values("phase=enabled", out)
        assert int(after["copied_kb"]) > 0 and after["enabled"] == "1", out
        assert key_values("sum=", out) == {"sum": "5", "events": "1"}


@pytest.mark.parametrize("how", ["nops", "late-nops"])
@pytest.mark.parametrize("cc,ld,pie", CASES)
def test_nop_sites_tampered_site_refused(cc, ld, pie, how, tmp_path, linkpass,
                                         runtime_lib):
    """At start the runtime builds no record for the sites of a
    --nop-sites image, only checks them; a site holding something else
    than our NOP is still refused with the message of a plain link and
    never written, whether found at start ("nops": the other sites get
    their records at once) or written after start and found when the
    first enable builds the records ("late-nops")."""
    lptest.require_compiler_ld(cc, ld)
    exe, _ = build(tmp_path, linkpass, cc, ld, pie, nop=True, name="tamper")
    txt = tmp_path / "trace.txt"
    proc = run([exe, how, txt], env={"LPTRACE": "off"})
    assert "errors=0" in proc.stdout, proc.stdout

    late = how.startswith("late-")
    init = key_values("init=", proc.stdout)
    sites = int(init["sites"])
    assert sites == len(linkpass.dump(exe)) and sites >= 3
    assert (init["nopped"], init["already"], init["refused"]) == \
        ("0", str(sites), "0") if late else ("0", str(sites - 1), "1")
    assert key_values("enabled=", proc.stdout)["refused"] == "1"

    addr = re.search(r"^tampered (0x[0-9a-f]+)$", proc.stdout, re.M).group(1)
    ent = entries(proc.stdout)
    assert ent["victim-after"] == ent["victim-before"], "a refused site was written"
    found = " ".join(ent["victim-before"].split()[:6])
    want = (f"lptrace: {exe.name}: site {addr} (victim+0x0): unexpected bytes, "
            f"expected call __fentry__: {found}; not patched")
    assert proc.stderr.splitlines().count(want) == 1, proc.stderr

    funcs = {e["func"] for e in read_trace(txt)}
    assert "bystander" in funcs and "victim" not in funcs


def test_nop_sites_refuses_unexpected_bytes(tmp_path, linkpass, runtime_lib):
    """A site that holds something else than call __fentry__ (here a
    5-byte NOP nobody should write: 90 90 90 90 90) is named and the
    image is left as it was."""
    lptest.require_tools("gcc")
    plain, _ = build(tmp_path, linkpass, "gcc", "bfd", False, nop=False)
    truth = lptest.ground_truth(plain)
    addr = next(a for a, (name, _) in truth.items() if name == "work")
    entry = linkpass.dump(plain).index(addr)
    # the file offset of the site, by the section headers
    data = bytearray(plain.read_bytes())
    before = lptest.read_bytes(plain, addr, 5)
    off = data.find(before + lptest.read_bytes(plain, addr + 5, 11))
    assert off > 0
    data[off:off + 5] = b"\x90" * 5
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(data))
    proc = linkpass.run("nop", bad, check=False)
    assert proc.returncode == 2
    assert re.fullmatch(rf"linkpass: {re.escape(str(bad))}: __mcount_loc entry {entry}: "
                        rf"{addr:#x} \(work\+0x0 \.text\), holding 90 90 90 90 90 \S\S, "
                        r"is neither a call to an mcount symbol nor the NOP; "
                        r"nothing written\n", proc.stderr), proc.stderr
    assert bad.read_bytes() == bytes(data)
    # and an untouched copy is rewritten, then found already done
    good = tmp_path / "good"
    good.write_bytes(plain.read_bytes())
    out = linkpass.run("nop", "--stats", good).stdout
    n = len(truth)
    assert out == (f"linkpass nop {good}: {n} sites NOP'd, 0 already NOPs, "
                   "0 zero entries skipped, 0 relocations made NONE\n")
    out = linkpass.run("nop", "--stats", good).stdout
    assert out == (f"linkpass nop {good}: 0 sites NOP'd, {n} already NOPs, "
                   "0 zero entries skipped, 0 relocations made NONE\n")
