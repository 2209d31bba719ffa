# pytest glue of the linkpass suite: the session's linkpass binary, and
# the CI rule on skips.  The helpers every test uses live in lptest.py
# (and the facts about bytes and names in lpfacts.py).
#
# The linkpass binary is built once per session with `make`.  Setting
# LINKPASS=/path/to/linkpass in the environment uses that binary instead.

import os
import subprocess
from pathlib import Path

import pytest

# REPO, require_tools and run are also imported from here by files of
# other owners (test_bench.py, test_overhead.py); new code imports lptest.
from lptest import REPO, Linkpass, describe, require_tools, run  # noqa: F401

# Skips that are a choice, not a missing tool: they stay skips in CI.
OPT_IN_SKIPS = ("slow:",)


def in_ci():
    return os.environ.get("CI", "").lower() == "true"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI=true a test that skips for a missing tool (or a toolchain
    that cannot link) fails instead: CI installs what the suite needs
    (scripts/install-deps.sh), so such a skip hides a broken set-up.
    Opt-in cases (reason starting with one of OPT_IN_SKIPS) still skip."""
    outcome = yield
    rep = outcome.get_result()
    if not (rep.skipped and in_ci()) or hasattr(rep, "wasxfail"):
        return
    reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else \
        str(rep.longrepr)
    reason = reason.removeprefix("Skipped: ")
    if reason.startswith(OPT_IN_SKIPS):
        return
    rep.outcome = "failed"
    rep.longrepr = (f"CI=true: this test would skip ({reason}); CI must "
                    "have every tool the suite needs "
                    "(scripts/install-deps.sh base)")


@pytest.fixture(scope="session")
def linkpass():
    """The linkpass binary, built once per session (or $LINKPASS)."""
    env_path = os.environ.get("LINKPASS")
    if env_path:
        path = Path(env_path)
        if not os.access(path, os.X_OK):
            pytest.fail(f"LINKPASS={env_path} is not executable")
        return Linkpass(path.resolve())
    require_tools("make")
    proc = subprocess.run(["make", "-C", str(REPO), "linkpass/linkpass"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail("building linkpass failed:\n" + describe(proc))
    return Linkpass(REPO / "linkpass" / "linkpass")
