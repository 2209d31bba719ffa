# The stripped-objects check's branch search (arch_x86_64.next_branch:
# 64 bytes at a time, then 16, then byte by byte) against a plain
# byte-by-byte reference, at every size and start up to 300 bytes, with
# filters that keep some, none or all targets (tests/arch/next_branch.c).

import pytest

from lptest import REPO, require_tools, run


@pytest.mark.parametrize("seed", [1, 2])
def test_next_branch_matches_byte_by_byte(tmp_path, seed):
    require_tools("gcc")
    srcs = sorted(str(p) for p in (REPO / "linkpass").glob("*.c")
                  if p.name != "main.c")
    exe = tmp_path / "next_branch"
    run(["gcc", "-O2", "-std=gnu11", "-D_GNU_SOURCE",
         f"-I{REPO / 'include'}", f"-I{REPO / 'linkpass'}", "-o", exe,
         str(REPO / "tests" / "arch" / "next_branch.c"), *srcs,
         "-lelf", "-lz", "-lpthread"])
    proc = run([exe, str(seed)], check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("ok "), proc.stdout
