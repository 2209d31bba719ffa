#!/usr/bin/python3
"""kernel/nm-count.py VMLINUX [BEFORE[,BEFORE...]]

An independent count of a vmlinux's ftrace table, for comparison with
`linkpass check --byte-audit`: it shares no code with linkpass.  The
table (__start_mcount_loc..__stop_mcount_loc, else the section
__mcount_loc) is read from the file's bytes with the section layout
of `readelf -SW`, or, where every word is zero, from the
R_RISCV_RELATIVE/R_AARCH64_RELATIVE addends of `readelf -rW`.  The functions are the sized t/T/w/W symbols of
`nm -S`.  BEFORE is how many bytes an entry lies before its function
(0 for -fpatchable-function-entry=N,0; 8 for arm64's 4,2 and riscv's
CALL_OPS 8,4; "0,-4" for x86_64 with IBT, whose call follows the
endbr64 where the function has one).

Prints one line: entries, zero words, non-zero entries at a function's
start (BEFORE applied), and non-zero entries inside no sized function
(stale: a dead body the link kept without its symbol).  The last two
are what the audit reports as call sites and as stale entries.
"""
import bisect
import struct
import subprocess
import sys


def out(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True,
                          check=True).stdout


def symbols(image):
    """The address of every defined symbol by name, and the sorted
    [start, end) of every sized function."""
    addr, funcs = {}, []
    for line in out("nm", "-S", "--defined-only", image).splitlines():
        f = line.split()
        if len(f) == 4:
            a, size, kind, n = int(f[0], 16), int(f[1], 16), f[2], f[3]
            if kind in "tTwW" and size:
                funcs.append((a, a + size))
        elif len(f) == 3:
            a, n = int(f[0], 16), f[2]
        else:
            continue
        addr[n] = a
    return addr, sorted(funcs)


def sections(image):
    """(name, address, file offset, size) of each section."""
    for line in out("readelf", "-SW", image).splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) < 7 or not f[0].startswith("[") or f[0] == "[Nr]":
            continue
        try:
            yield f[1], int(f[3], 16), int(f[4], 16), int(f[5], 16)
        except ValueError:
            continue


def table(image, start, stop):
    """The table's words, from the bytes or the relative addends."""
    for _, vaddr, off, size in sections(image):
        if vaddr and vaddr <= start < vaddr + size:
            break
    else:
        sys.exit(f"nm-count.py: {image}: no section holds the table")
    with open(image, "rb") as fh:
        fh.seek(off + start - vaddr)
        data = fh.read(stop - start)
    words = list(struct.unpack(f"<{len(data) // 8}Q", data))
    if any(words):
        return words
    addend = {}
    for line in out("readelf", "-rW", image).splitlines():
        f = line.split()
        if len(f) >= 4 and f[2].endswith("_RELATIVE"):
            r = int(f[0], 16)
            if start <= r < stop:
                addend[r] = int(f[-1], 16)
    return [addend.get(start + 8 * i, 0) for i in range(len(words))]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.splitlines()[0])
    image = sys.argv[1]
    before = [int(b) for b in sys.argv[2].split(",")] \
        if len(sys.argv) == 3 else [0]
    addr, funcs = symbols(image)
    if "__start_mcount_loc" in addr:
        start, stop = addr["__start_mcount_loc"], addr["__stop_mcount_loc"]
    else:
        sec = [s for s in sections(image) if s[0] == "__mcount_loc"]
        if not sec:
            sys.exit(f"nm-count.py: {image}: no __start_mcount_loc symbol "
                     "and no __mcount_loc section")
        start, stop = sec[0][1], sec[0][1] + sec[0][3]
    words = table(image, start, stop)
    starts = [a for a, _ in funcs]
    begin = set(starts)

    def inside(x):
        i = bisect.bisect_right(starts, x) - 1
        return i >= 0 and x < funcs[i][1]

    live = [w for w in words if w]
    print(f"{image}: entries={len(words)} zero={len(words) - len(live)} "
          f"at_function_start="
          f"{sum(any(w + b in begin for b in before) for w in live)} "
          f"in_no_function="
          f"{sum(not any(inside(w + b) for b in before) for w in live)}")


if __name__ == "__main__":
    main()
