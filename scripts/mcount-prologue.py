#!/usr/bin/python3
"""mcount-prologue.py OBJDUMP OBJ...: for every function of objects built
with -pg, what precedes its first _mcount call (from OBJDUMP -dr): how
many instructions at most, which mnemonics, and whether any call, return
or branch does.  The evidence for the aarch64/riscv64 site rule
(docs/arch.md)."""
import re, subprocess, sys, collections
objdump, objs = sys.argv[1], sys.argv[2:]
mnems = collections.Counter(); maxpre = (0, None); nfunc = 0; nocall = 0; calls_before = []
last_before = collections.Counter(); multi = 0
for o in objs:
    out = subprocess.run([objdump, "-dr", "--no-show-raw-insn", o], capture_output=True, text=True).stdout
    func = None; insns = []
    def finish():
        global nfunc, maxpre, nocall, multi
        if func is None: return
        nfunc += 1
        idx = [i for i, x in enumerate(insns) if x[2] == "_mcount"]
        if not idx: nocall += 1; return
        if len(idx) > 1: multi += 1
        k = idx[0]; pre = insns[:k]
        for a, m, _ in pre:
            mnems[m] += 1
            if m in ("bl", "blr", "br", "ret", "b", "jal", "jalr", "j", "jr", "call", "tail"):
                calls_before.append((o, func, m))
        if pre: last_before[pre[-1][1] + " " + pre[-1][3] if len(pre[-1]) > 3 else pre[-1][1]] += 0
        if len(pre) > maxpre[0]: maxpre = (len(pre), f"{o}:{func}")
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m and m.group(1).startswith(".L"): continue  # riscv keeps local labels
        if m: finish(); func = m.group(1); insns = []; continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(R_\S+)\s+(\S+)", line)
        if m and insns:
            sym = m.group(2).split("+")[0]
            if insns[-1][2] is None: insns[-1][2] = sym
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and func is not None:
            insns.append([int(m.group(1),16), m.group(2), None]); continue
    finish()
print(f"functions {nfunc}, without _mcount call {nocall}, with more than one {multi}")
print(f"longest run before the call: {maxpre[0]} instructions ({maxpre[1]})")
print("calls/branches before the first _mcount call:", calls_before[:10], len(calls_before))
print("mnemonics before the call:", dict(mnems.most_common()))
