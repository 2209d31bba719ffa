# The suite's rule on skips (conftest.py): a test may skip only when a
# tool it needs is absent, and under CI=true even that fails, so a CI
# set-up that lacks a tool cannot pass silently.  Opt-in cases (reasons
# starting with "slow:") stay skips.  Checked by running pytest on a
# small test file with the suite's conftest loaded as a plugin.

import sys

import pytest

from lptest import REPO, run

SAMPLE = """\
import pytest
from lptest import require_tools


def test_needs_a_missing_tool():
    require_tools("no-such-tool-for-linkpass-tests")


def test_opt_in():
    pytest.skip("slow: run with LP_SLOW=1")


def test_passes():
    pass
"""


@pytest.mark.parametrize("ci", ["true", "", "false"])
def test_missing_tool_fails_only_in_ci(tmp_path, ci):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    proc = run([sys.executable, "-m", "pytest", "-q", "-rs", "-p",
                "conftest", "-p", "no:cacheprovider", "--rootdir", tmp_path,
                "-c", "/dev/null", tmp_path / "test_sample.py"],
               env={"CI": ci, "PYTHONPATH": REPO / "tests"}, check=False)
    out = proc.stdout
    if ci == "true":
        assert proc.returncode == 1, out
        assert "1 failed, 1 passed, 1 skipped" in out, out
        assert ("CI=true: this test would skip (not installed: "
                "no-such-tool-for-linkpass-tests)") in out, out
    else:
        assert proc.returncode == 0, out
        assert "1 passed, 2 skipped" in out, out
        assert "not installed: no-such-tool-for-linkpass-tests" in out, out
    assert "slow: run with LP_SLOW=1" in out, out
