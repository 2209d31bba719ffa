#!/usr/bin/python3
"""The kernel's post-link mcount step, stock's against linkpass's, interleaved.

    bench/postlink.py ROUNDS DIR LINKPASS...

kernel/lib.sh's postlink_cost, on the images a kernel test left, for
one or more linkpass binaries run side by side: DIR holds stock/vmlinux
and stock/sorttable (stock 6.12's step: nm -S, then sorttable -s on a
copy of vmlinux) and lp/tmp_vmlinux1, lp/tmp_vmlinux2 and lp/vmlinux
(ours: linkpass scan of the two images the build scanned, then
linkpass check of vmlinux; our sorttable without -s is left out, as
pl_lp_scans_check leaves it).  DIR's name gives the pair, VERSION-ARCH-
TOOLCHAIN (6.12-arm64-gcc): the cross nm, and --patchable-entries=4,2
on arm64 and =4 on riscv64.  Each round runs stock and every binary,
the order rotated; prints the medians and each binary's total against
stock's (and the median of the per-round ratios).
"""

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NM = {"x86_64": "nm", "arm64": "aarch64-linux-gnu-nm",
      "riscv64": "riscv64-linux-gnu-nm"}
PAD = {"x86_64": [], "arm64": ["--patchable-entries=4,2"],
       "riscv64": ["--patchable-entries=4"]}


def quiet(cmd, **kw):
    subprocess.run([str(c) for c in cmd], check=True,
                   stdout=subprocess.DEVNULL, **kw)


def stock(d, nm, tmp):
    vmlinux = tmp / "stock.vmlinux"
    shutil.copy(d / "stock" / "vmlinux", vmlinux)
    t0 = time.perf_counter()
    with open(tmp / "nm-sort", "w") as f:
        subprocess.run([nm, "-S", str(vmlinux)], stdout=f, check=True)
    t1 = time.perf_counter()
    quiet([d / "stock" / "sorttable", "-s", tmp / "nm-sort", vmlinux])
    return (t1 - t0) * 1e3, (time.perf_counter() - t0) * 1e3


def ours(d, lp, pad, tmp):
    vmlinux = tmp / "lp.vmlinux"
    shutil.copy(d / "lp" / "vmlinux", vmlinux)
    t0 = time.perf_counter()
    for img in ("tmp_vmlinux1", "tmp_vmlinux2"):
        quiet([lp, "scan", *pad, d / "lp" / img, "-o", tmp / "table.o"])
    t1 = time.perf_counter()
    quiet([lp, "check", *pad, vmlinux])
    return (t1 - t0) * 1e3, (time.perf_counter() - t0) * 1e3


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    rounds, d, bins = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
    arch = d.name.split("-")[1]
    names = ["stock"] + bins
    res = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for r in range(rounds):
            k = r % len(names)
            for n in names[k:] + names[:k]:
                res[n].append(stock(d, NM[arch], tmp) if n == "stock" else
                              ours(d, n, PAD[arch], tmp))
    med = {n: [statistics.median(x[i] for x in res[n]) for i in (0, 1)]
           for n in names}
    s = med["stock"]
    print(f"{d.name}: stock nm -S {s[0]:.1f} ms, with sorttable -s "
          f"{s[1]:.1f} ms")
    for b in bins:
        m = med[b]
        per = statistics.median(x[1] / y[1] for x, y in
                                zip(res[b], res["stock"]))
        print(f"  {b}: scans {m[0]:.1f} ms, with check {m[1]:.1f} ms: "
              f"{m[1] / s[1]:.3f} of stock (per round {per:.3f})")


if __name__ == "__main__":
    main()
