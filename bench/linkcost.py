#!/usr/bin/python3
"""The link step of the whole-image way against a plain link.

    bench/linkcost.py UNITS REPS

On the objects of the bench's floor tree for UNITS
(/var/tmp/lp-bench/work/u<UNITS>f100s1/run/floor, made by
`bench/run.py --only-scan`), times in interleaved repetitions: a plain
link, the same with -q, scripts/link-vmlinux.sh, the driver with
--keep-relocs, and the driver with --reuse-table (primed by one run
before the timing, so every timed run finds the table of the same
command: the case where nothing that moves a site changed, one link and
a check); prints the medians and each way's number of links.
"""

import glob
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent


def main():
    size, reps = sys.argv[1], int(sys.argv[2])
    tree = f"/var/tmp/lp-bench/work/u{size}f100s1/run/floor"
    objs = sorted(glob.glob(tree + "/obj/unit*.o")) + [
        tree + "/obj/" + n for n in ("main.o", "asm_fentry.o", "fentry_stub.o")]
    link = ["gcc", "-O1", "-fuse-ld=bfd", "-no-pie", *objs]
    env = dict(os.environ, LINKPASS=str(TOP / "linkpass" / "linkpass"))
    lv = str(TOP / "scripts" / "link-vmlinux.sh")
    out = "/tmp/linkcost"
    cmds = {
        "plain link": link + ["-o", out + ".plain"],
        "plain link -q": link + ["-Wl,-q", "-o", out + ".q"],
        "driver": [lv, out + ".drv", "--", *link],
        "driver --keep-relocs": [lv, "--keep-relocs", out + ".keep", "--", *link],
        "driver --reuse-table": [lv, "--reuse-table", out + ".table.o",
                                 out + ".reuse", "--", *link],
    }
    for f in (out + ".table.o", out + ".table.o.key"):
        if os.path.exists(f):
            os.unlink(f)
    links = {}
    for n in ("driver", "driver --keep-relocs", "driver --reuse-table"):
        # the reuse run is primed here; its second run is the one counted
        for _ in range(2 if n.endswith("table") else 1):
            p = subprocess.run(cmds[n], check=True, env=env,
                               capture_output=True, text=True, cwd=tree)
        links[n] = [ln.split()[1] for ln in p.stdout.splitlines()
                    if ln.strip().startswith("LINKS")]
    t = {k: [] for k in cmds}
    names = list(cmds)
    for rep in range(reps):
        k = rep % len(names)
        for n in names[k:] + names[:k]:
            s = time.perf_counter()
            subprocess.run(cmds[n], check=True, env=env, capture_output=True,
                           cwd=tree)
            t[n].append(time.perf_counter() - s)
    for n in names:
        extra = f"; links {links[n][0]}" if links.get(n) else ""
        print(f"{n}: median {statistics.median(t[n]):.3f} s "
              f"({', '.join('%.2f' % x for x in t[n])}){extra}")


if __name__ == "__main__":
    main()
