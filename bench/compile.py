"""Shared by the bench scripts: run a command, and compile many files
at once (one compiler per CPU), each script with its own flags."""

import os
import subprocess
import sys


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kw)


def compile_parallel(jobs, failed):
    """Run each compile command of jobs [(argv, object)], as many at once
    as there are CPUs; exit with the message failed if one fails.
    Returns the objects, in order."""
    procs = []
    for argv, _ in jobs:
        procs.append(subprocess.Popen(argv))
        if len(procs) >= (os.cpu_count() or 2):
            if procs.pop(0).wait():
                sys.exit(failed)
    for p in procs:
        if p.wait():
            sys.exit(failed)
    return [o for _, o in jobs]
