#!/usr/bin/python3
# A big image for the scale and crash-safety tests, written as assembler
# directly (no compiler): NFUNCS traced functions, each starting with
# `call __fentry__` and carrying nine more relocated instructions, plus
# functions that must stay out of the table:
#   n<i>  every 50th i: notrace (no __fentry__ call at all);
#   x<i>  every 1000th i: traced, but also takes __fentry__'s address
#         (a data reference) and calls it again mid-body (not an entry).
# So the ground truth is exactly the addresses of the f<i> and x<i>
# symbols, and the image has about 10.3 relocations per call site.
#
# The assembler is split into PIECES files, assembled in parallel and
# linked with `ld -q` (a static ET_EXEC, never run).
#
#   scalegen.py WORKDIR NFUNCS [PIECES]   prints the image path

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import lpfacts  # noqa: E402

# One traced function: 1 __fentry__ call + 9 other relocations (PC32
# loads and stores of data, PLT32 calls to the next function).
MACROS = r"""
	.macro	traced name, next, a, b, c
	.globl	\name
	.type	\name, @function
	.p2align 4
\name:
	call	__fentry__
	movl	d\a(%rip), %eax
	addl	d\b(%rip), %eax
	leaq	d\c(%rip), %rdx
	movl	%eax, (%rdx)
	movl	%eax, d\b(%rip)
	cmpl	d\c(%rip), %eax
	jne	1f
	call	\next
1:	subl	d\a(%rip), %eax
	movl	%eax, d\c(%rip)
	call	\next
	ret
	.size	\name, . - \name
	.endm

	.macro	notrace name, a, b
	.globl	\name
	.type	\name, @function
	.p2align 4
\name:
	movl	d\a(%rip), %eax
	addl	d\b(%rip), %eax
	movl	%eax, d\a(%rip)
	ret
	.size	\name, . - \name
	.endm

	.macro	odd name, a
	.globl	\name
	.type	\name, @function
	.p2align 4
\name:
	call	__fentry__
	leaq	__fentry__(%rip), %rax
	movl	d\a(%rip), %ecx
	testl	%ecx, %ecx
	je	1f
	call	__fentry__
1:	ret
	.size	\name, . - \name
	.endm
"""

STUB = r"""
	.text
	.globl	_start
	.type	_start, @function
_start:
	call	f0
	movl	$60, %eax
	xorl	%edi, %edi
	syscall
	.size	_start, . - _start
""" + lpfacts.MCOUNT_STUBS_S + """
	.data
	.p2align 3
""" + "".join(f"\t.globl\td{k}\nd{k}:\t.long\t{k}\n" for k in range(16)) + \
    "\t.section .note.GNU-stack, \"\", @progbits\n"

NDATA = 16


def _piece(first, last, nfuncs):
    """Assembler for functions first..last-1."""
    out = [MACROS, "\t.text\n"]
    for i in range(first, last):
        nxt = f"f{(i + 1) % nfuncs}"
        out.append(f"\ttraced\tf{i}, {nxt}, {i % NDATA}, {(i * 7 + 3) % NDATA}, "
                   f"{(i * 13 + 5) % NDATA}\n")
        if i % 50 == 0:
            out.append(f"\tnotrace\tn{i}, {i % NDATA}, {(i + 1) % NDATA}\n")
        if i % 1000 == 0:
            out.append(f"\todd\tx{i}, {(i + 2) % NDATA}\n")
    out.append("\t.section .note.GNU-stack, \"\", @progbits\n")
    return "".join(out)


def expected_names(nfuncs):
    """Names of the functions whose entry is a table entry."""
    return [f"f{i}" for i in range(nfuncs)] + \
           [f"x{i}" for i in range(0, nfuncs, 1000)]


def _run(cmd):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"$ {' '.join(map(str, cmd))}\n{proc.stderr}")


def objects(work, nfuncs, pieces=None, jobs=None):
    """Write and assemble the pieces; returns the object files."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    jobs = jobs or os.cpu_count() or 2
    pieces = pieces or max(1, min(32, nfuncs // 50000))
    bounds = [nfuncs * k // pieces for k in range(pieces + 1)]

    def build(k):
        src = work / f"piece{k}.s"
        src.write_text(_piece(bounds[k], bounds[k + 1], nfuncs))
        _run(["as", "--64", src, "-o", src.with_suffix(".o")])
        src.unlink()
        return src.with_suffix(".o")

    (work / "stub.s").write_text(STUB)
    _run(["as", "--64", work / "stub.s", "-o", work / "stub.o"])
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        objs = list(pool.map(build, range(pieces)))
    return [work / "stub.o", *objs]


def link(objs, out, extra=()):
    _run(["ld", "-q", "-e", "_start", "-z", "noexecstack", "-o", out,
          *objs, *extra])
    return Path(out)


def generate(work, nfuncs, pieces=None, jobs=None):
    """Build WORK/img; returns (image, objects)."""
    objs = objects(work, nfuncs, pieces, jobs)
    return link(objs, Path(work) / "img"), objs


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: scalegen.py WORKDIR NFUNCS [PIECES]\n")
        return 2
    img, _ = generate(argv[1], int(argv[2]),
                      int(argv[3]) if len(argv) > 3 else None)
    print(img)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
