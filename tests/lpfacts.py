# Facts the tests need about the code and the table, read from their one
# home instead of being spelled out again:
#   include/x86-insn.h     the x86 instruction bytes (call, NOPs, endbr...)
#   include/mcount-table.h the table's section and bound symbol names
#   tests/mcount-stubs.S   the returning __fentry__/mcount/_mcount stub
#
# Plain Python, no pytest: also imported by tests/samples/gen.py and
# tests/hardening/*.py, which run as scripts.

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INCLUDE = REPO / "include"
STUBS_PATH = Path(__file__).resolve().parent / "mcount-stubs.S"

_DEFINE = re.compile(r"^#define\s+(\w+)\s+(.+?)\s*(?:/\*.*)?$", re.M)


def read_defines(header):
    """{NAME: value} of a header's object-like #defines: integers,
    strings, and brace lists of bytes (as bytes)."""
    text = Path(header).read_text()
    out = {}
    for name, value in _DEFINE.findall(text):
        if value.startswith('"'):
            out[name] = value.strip('"')
        elif value.startswith("{"):
            out[name] = bytes(int(b, 0) for b in value.strip("{} ").split(","))
        elif re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", value):
            out[name] = int(value, 0)
    return out


X86 = read_defines(INCLUDE / "x86-insn.h")
TABLE = read_defines(INCLUDE / "mcount-table.h")

# x86 bytes
OP_CALL = bytes([X86["X86_OP_CALL"]])
OP_ADDR32 = bytes([X86["X86_OP_ADDR32"]])
OP_INT3 = bytes([X86["X86_OP_INT3"]])
CALL_LEN = X86["X86_CALL_LEN"]
CALL_ADDR32_LEN = X86["X86_CALL_ADDR32_LEN"]
NOP5 = X86["X86_NOP5_BYTES"]
NOP6 = X86["X86_NOP6_BYTES"]
ENDBR64 = X86["X86_ENDBR64_BYTES"]
ENDBR32 = X86["X86_ENDBR32_BYTES"]
ENDBR_LEN = X86["X86_ENDBR_LEN"]

# table names
SECTION = TABLE["MCOUNT_SECTION"]
KERNEL_START = TABLE["MCOUNT_KERNEL_START"]
KERNEL_STOP = TABLE["MCOUNT_KERNEL_STOP"]
LINKER_START = TABLE["MCOUNT_LINKER_START"]
LINKER_STOP = TABLE["MCOUNT_LINKER_STOP"]
KERNEL_BOUNDS = ("--start-sym", KERNEL_START, "--stop-sym", KERNEL_STOP)
LINKER_BOUNDS = ("--start-sym", LINKER_START, "--stop-sym", LINKER_STOP)

# The stub every test program links for the mcount entry points.
MCOUNT_STUBS_S = STUBS_PATH.read_text()

_PLACEHOLDERS = {
    "@SECTION@": SECTION,
    "@KERNEL_START@": KERNEL_START,
    "@KERNEL_STOP@": KERNEL_STOP,
    "@LINKER_START@": LINKER_START,
    "@LINKER_STOP@": LINKER_STOP,
}


def fill(text):
    """text (C, assembler, a linker script) with @SECTION@, @KERNEL_START@,
    @KERNEL_STOP@, @LINKER_START@ and @LINKER_STOP@ replaced by the
    table's names."""
    for k, v in _PLACEHOLDERS.items():
        text = text.replace(k, v)
    return text
