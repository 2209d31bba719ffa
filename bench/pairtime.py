#!/usr/bin/python3
"""Wall and CPU time of one command run with several binaries, interleaved.

    bench/pairtime.py RUNS 'CMD ARGS {} ...' BIN1 BIN2 ...

Runs the command RUNS times with each binary in place of {} (a
whitespace-split template; the binary may sit anywhere in it), the
binaries in rotated order each round so that a change of machine load
hits them alike.  Prints the median wall time and the median CPU time
(user + system of the child, from getrusage) of each binary, and each
as a ratio to the first binary's.  On a shared, noisy machine the ratios
are the figures to quote, not the absolute times.

Example (the scan of one bench tree, before and after a change):

    bench/pairtime.py 31 '{} scan image.q -o /tmp/t.o -j1' old/linkpass linkpass/linkpass
"""

import resource
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    runs, template, bins = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
    if "{}" not in template:
        sys.exit("pairtime: the command has no {} for the binary")
    wall = {b: [] for b in bins}
    cpu = {b: [] for b in bins}
    for i in range(runs):
        k = i % len(bins)
        for b in bins[k:] + bins[:k]:
            cmd = [b if w == "{}" else w for w in template]
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            t1 = time.perf_counter()
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall[b].append((t1 - t0) * 1e3)
            cpu[b].append((r1.ru_utime + r1.ru_stime -
                           r0.ru_utime - r0.ru_stime) * 1e3)
    w0 = statistics.median(wall[bins[0]])
    c0 = statistics.median(cpu[bins[0]])
    for b in bins:
        w, c = statistics.median(wall[b]), statistics.median(cpu[b])
        print(f"{b}: wall {w:.1f} ms ({w / w0:.3f}), "
              f"cpu {c:.1f} ms ({c / c0:.3f})")


if __name__ == "__main__":
    main()
