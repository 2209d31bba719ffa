# The stripped-objects check's branch search (arch-refs.c, x86_next_branch:
# 64 bytes at a time, then 16, then byte by byte) against a plain
# byte-by-byte reference, at every size and start up to 300 bytes, with
# filters that keep some, none or all targets (tests/arch/next_branch.c).

import pytest

from lptest import build_linkpass_harness, run


@pytest.mark.parametrize("seed", [1, 2])
def test_next_branch_matches_byte_by_byte(tmp_path, seed):
    exe = build_linkpass_harness(tmp_path, "arch/next_branch.c", opt="-O2")
    proc = run([exe, str(seed)], check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("ok "), proc.stdout
