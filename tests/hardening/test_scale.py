# Scale: an image of 1,000,000 traced functions and over 10,000,000
# relocations (tests/hardening/scalegen.py), scanned, relinked with its
# table and checked.  The table must be exactly the generated functions'
# entries.  Peak RSS (/usr/bin/time -v) of scan and check is reported
# against the bytes of the code relocation sections.
#
# Slow (minutes): skipped unless LINKPASS_SCALE=1, as `make test-scale`
# sets.  LINKPASS_SCALE_FUNCS changes the function count.

import json
import mmap
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402
import scalegen  # noqa: E402
from elfpatch import (EHDR, SHDR, SHDR_FIELDS, SHF_ALLOC,  # noqa: E402
                      SHF_EXECINSTR, SHT_RELA, SHT_SYMTAB, SYM)

NFUNCS = int(os.environ.get("LINKPASS_SCALE_FUNCS", "1000000"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.environ.get("LINKPASS_SCALE"),
                       reason="slow: run with `make test-scale` "
                              "(LINKPASS_SCALE=1)"),
]

_SITE = re.compile(r"^0x([0-9a-f]+) (\S+)\+0x0 \.text$")


def timed(args):
    """Run linkpass under /usr/bin/time -v: returns (CompletedProcess,
    seconds, peak RSS in KiB)."""
    cmd = ["/usr/bin/time", "-v", str(harness.linkpass_bin()),
           *map(str, args)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.monotonic() - t0
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                  proc.stderr)
    assert m, proc.stderr
    proc.stderr = proc.stderr[:proc.stderr.find("\tCommand being timed")]
    return proc, secs, int(m.group(1))


class Image:
    """Section headers and symbols of a big ELF64 image, read through
    mmap (the images are hundreds of MB; no copy is made)."""

    def __init__(self, path):
        self.f = open(path, "rb")
        self.m = mmap.mmap(self.f.fileno(), 0, access=mmap.ACCESS_READ)
        h = EHDR.unpack_from(self.m, 0)
        shoff, shnum = h[6], h[12]
        self.shdrs = [dict(zip(SHDR_FIELDS, SHDR.unpack_from(
            self.m, shoff + k * SHDR.size))) for k in range(shnum)]

    def close(self):
        self.m.close()
        self.f.close()

    def bytes_of(self, s):
        return self.m[s["sh_offset"]:s["sh_offset"] + s["sh_size"]]

    def code_relocs(self):
        """The non-allocated SHT_RELA sections of executable sections."""
        for s in self.shdrs:
            if s["sh_type"] != SHT_RELA or s["sh_flags"] & SHF_ALLOC:
                continue
            t = self.shdrs[s["sh_info"]]
            if t["sh_flags"] & (SHF_ALLOC | SHF_EXECINSTR) == \
                    SHF_ALLOC | SHF_EXECINSTR:
                yield s

    def functions(self):
        """{name: value} of the defined STT_FUNC symbols."""
        st = next(s for s in self.shdrs if s["sh_type"] == SHT_SYMTAB)
        strs = self.bytes_of(self.shdrs[st["sh_link"]])
        out = {}
        for st_name, info, _, shndx, value, _ in \
                SYM.iter_unpack(self.bytes_of(st)):
            if shndx and info & 0xf == 2:
                out[strs[st_name:strs.index(b"\0", st_name)].decode()] = value
        return out


def ground_truth(image):
    """{address: name} of the entries the table must hold, from the
    image's own symbol table (read here, not by linkpass)."""
    im = Image(image)
    funcs = im.functions()
    im.close()
    truth = {funcs[n]: n for n in scalegen.expected_names(NFUNCS)}
    assert len(truth) == len(scalegen.expected_names(NFUNCS))
    return truth


def code_reloc_figures(image):
    """Bytes and count of code relocations, and the floor: the time to
    read those bytes once from the page cache (best of three)."""
    im = Image(image)
    secs = list(im.code_relocs())
    nbytes = sum(s["sh_size"] for s in secs)
    count = sum(s["sh_size"] // s["sh_entsize"] for s in secs)
    best = None
    for _ in range(3):
        t0 = time.monotonic()
        for s in secs:
            os.pread(im.f.fileno(), s["sh_size"], s["sh_offset"])
        t = time.monotonic() - t0
        best = t if best is None else min(best, t)
    im.close()
    return nbytes, count, best


def parse_table(text):
    out = []
    for line in text.splitlines():
        m = _SITE.match(line)
        assert m, f"unexpected line: {line!r}"
        out.append((int(m.group(1), 16), m.group(2)))
    return out


def test_scale(tmp_path):
    for tool in ("as", "ld", "/usr/bin/time"):
        if not shutil.which(tool):
            pytest.skip(f"not installed: {tool}")
    fig = {"functions": NFUNCS}
    t0 = time.monotonic()
    objs = scalegen.objects(tmp_path / "build", NFUNCS)
    fig["assemble_s"] = round(time.monotonic() - t0, 1)
    t0 = time.monotonic()
    img = scalegen.link(objs, tmp_path / "img")
    fig["link_s"] = round(time.monotonic() - t0, 1)
    fig["image_bytes"] = img.stat().st_size
    fig["reloc_bytes"], fig["relocs"], floor = code_reloc_figures(img)
    fig["read_once_ms"] = round(floor * 1000, 1)
    truth = ground_truth(img)
    fig["sites"] = len(truth)
    if NFUNCS >= 1_000_000:
        assert fig["sites"] >= 1_000_000 and fig["relocs"] >= 10_000_000

    # scan: the table must be exactly the generated entries, sorted
    table = tmp_path / "table.o"
    proc, secs, rss = timed(["scan", img, "-o", table, "--stats"])
    assert proc.returncode == 0, harness.describe(proc)
    fig["scan_s"], fig["scan_rss_kib"] = round(secs, 2), rss
    m = re.search(r"time: relocation scan\s+([0-9.]+) ms", proc.stdout)
    fig["scan_reloc_phase_ms"] = float(m.group(1))
    m = re.search(r"table entries\s+(\d+)", proc.stdout)
    assert int(m.group(1)) == len(truth), proc.stdout
    for what in ("not a call", "not at entry"):
        m = re.search(rf"dropped: {what}\s+(\d+)", proc.stdout)
        assert int(m.group(1)) == NFUNCS // 1000 + (NFUNCS % 1000 > 0), \
            proc.stdout
    sites = harness.run_linkpass(["sites", img], timeout=600)
    assert sites.returncode == 0, harness.describe(sites)
    got = parse_table(sites.stdout)
    assert got == sorted(truth.items())

    # relink with the table; check agrees and dump reads it back
    t0 = time.monotonic()
    img2 = scalegen.link(objs, tmp_path / "img2", extra=[table])
    fig["relink_s"] = round(time.monotonic() - t0, 1)
    proc, secs, rss = timed(["check", img2])
    assert proc.returncode == 0, harness.describe(proc)
    fig["check_s"], fig["check_rss_kib"] = round(secs, 2), rss
    truth2 = ground_truth(img2)
    assert truth2 == truth, "relinking moved the code"
    dump = harness.run_linkpass(["dump", img2], timeout=600)
    assert dump.returncode == 0, harness.describe(dump)
    assert parse_table(dump.stdout) == sorted(truth.items())

    fig["scan_rss_per_reloc_byte"] = round(
        fig["scan_rss_kib"] * 1024 / fig["reloc_bytes"], 2)
    fig["check_rss_per_reloc_byte"] = round(
        fig["check_rss_kib"] * 1024 / fig["reloc_bytes"], 2)
    report = json.dumps(fig, indent=1)
    print("\nscale figures:\n" + report)
    out = os.environ.get("LINKPASS_SCALE_REPORT")
    if out:
        Path(out).write_text(report + "\n")
