# Shared helpers of the hardening tests (test_malformed.py,
# test_crash_safety.py, test_threads.py, hardening/test_scale.py): which
# linkpass binary to run and how to run it so that a hang or a sanitizer
# report is a failure.
#
# LINKPASS_BIN names the binary under test (`make sanitize` points it at
# build/asan/linkpass); unset, linkpass/linkpass is built with make.

import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
REGRESSIONS = HERE / "regressions"

# Every run gets this long; a run that takes longer counts as a hang.
TIMEOUT = 60

# Sanitizer reports go to stderr and make the exit status 99, so a
# report is never mistaken for linkpass's own error line or status.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "exitcode=99:detect_leaks=1:abort_on_error=0",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:exitcode=99",
    "LSAN_OPTIONS": "exitcode=99",
}

_built = {}


def linkpass_bin():
    """Absolute path of the linkpass binary under test."""
    env = os.environ.get("LINKPASS_BIN")
    if env:
        path = Path(env)
        if not path.is_absolute():
            path = REPO / path
        if not os.access(path, os.X_OK):
            raise AssertionError(f"LINKPASS_BIN={env} is not executable")
        return path
    if "default" not in _built:
        proc = subprocess.run(["make", "-C", str(REPO), "linkpass/linkpass"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise AssertionError("building linkpass failed:\n" + proc.stdout
                                 + proc.stderr)
        _built["default"] = REPO / "linkpass" / "linkpass"
    return _built["default"]


def run_env():
    env = dict(os.environ)
    for k, v in SANITIZER_ENV.items():
        env.setdefault(k, v)
    return env


class Hang(AssertionError):
    pass


def run_linkpass(args, timeout=TIMEOUT, cwd=None):
    """Run linkpass ARGS; a run past timeout raises Hang."""
    cmd = [str(linkpass_bin()), *[str(a) for a in args]]
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              errors="replace", timeout=timeout, cwd=cwd,
                              env=run_env())
    except subprocess.TimeoutExpired:
        raise Hang(f"$ {' '.join(cmd)}\nstill running after {timeout} s")


def error_line_re(path, place=None):
    """The one stderr line an error must be: names the file, a place (the
    given one, when known) and a cause."""
    where = re.escape(place) if place else ".+"
    return re.compile(r"^linkpass: " + re.escape(str(path)) + r": " + where
                      + r": .+$")


def describe(proc):
    return (f"$ {' '.join(map(str, proc.args))}\nexit {proc.returncode}\n"
            f"--- stdout ---\n{proc.stdout[-2000:]}"
            f"--- stderr ---\n{proc.stderr[-4000:]}")


def check_error_run(proc, path, place=None):
    """Problems (a list of strings) with an error run: exit 2, exactly one
    well-formed stderr line naming path (and place, when given)."""
    bad = []
    lines = proc.stderr.splitlines()
    if proc.returncode != 2:
        bad.append(f"exit status {proc.returncode}, expected 2")
    if len(lines) != 1:
        bad.append(f"{len(lines)} lines on stderr, expected 1")
    elif not error_line_re(path, place).match(lines[0]):
        bad.append(f"stderr line not 'linkpass: {path}: "
                   f"{place or '<place>'}: <cause>'")
    return bad
