"""Shared libraries with their own __mcount_loc table (runtime/objects.c).

A library built with `-pg -mfentry -fPIC` and linked through
scripts/link-vmlinux.sh (-shared, with runtime/lptrace-dso.o for its own
hidden __fentry__) carries a table.  The program that loads it is a PIE
linked through link-vmlinux.sh too, with GNU ld or lld, gcc or clang.

Truths used: the number of table entries from readelf (not from the
runtime), the calls dlmain.c and dllib.c make (lib_mid calls lib_leaf
twice), and the bytes of the library's first function as the program
reads them.
"""

import re
from collections import Counter

import pytest

import lptest
from test_lptrace import report
from test_runtime import (NOP5, NOP6, PROGS, REPO, RUNTIME,  # noqa: F401
                          describe, is_call, is_nop, key_values, read_trace,
                          run, runtime_lib, table_entries)

LINK = REPO / "scripts" / "link-vmlinux.sh"
DSO_STUB = RUNTIME / "lptrace-dso.o"
MATRIX = [pytest.param(cc, ld, id=f"{cc}-{ld}")
          for cc in ("gcc", "clang") for ld in ("bfd", "lld")]


def site_len(cc):
    # gcc calls __fentry__ through the GOT under -fPIC/-fpie; the linker
    # relaxes it into the 6-byte `addr32 call`.
    return 6 if cc == "gcc" else 5


def build_lib(tmp_path, cc, ld, linkpass, name="libdl.so", symbolic=False,
              src="dllib", nop=False):
    """dllib.c as a traced shared library, linked through link-vmlinux.sh.

    No -Bsymbolic-functions needed: in a shared library linkpass anchors
    the entries on __ehdr_start, which no other object can preempt
    (docs/runtime.md).  @symbolic adds the flag, which must change
    nothing.  @nop: its sites are NOPs from the link (the default)."""
    obj = tmp_path / f"{src}.o"
    run([cc, "-O2", "-fPIC", "-pg", "-mfentry", f"-I{PROGS}", "-c",
         PROGS / f"{src}.c", "-o", obj])
    lib = tmp_path / name
    flags = ["-Wl,-Bsymbolic-functions"] if symbolic else []
    run([LINK, "--linkpass", linkpass.path, *nop_sites(nop), lib, "--", cc,
         f"-fuse-ld={ld}", "-shared", *flags, obj, DSO_STUB], cwd=tmp_path)
    return lib


def build_main(tmp_path, cc, ld, linkpass, name, extra=(), nop=False):
    obj = tmp_path / f"{name}.o"
    run([cc, "-O2", "-fpie", "-pg", "-mfentry", f"-I{RUNTIME}", f"-I{PROGS}",
         "-c", PROGS / f"{name}.c", "-o", obj])
    exe = tmp_path / name
    run([LINK, "--linkpass", linkpass.path, *nop_sites(nop), exe, "--", cc,
         "-pie", f"-fuse-ld={ld}", obj, *extra, RUNTIME / "liblptrace.a",
         "-lpthread"], cwd=tmp_path)
    return exe


def nop_sites(nop):
    """link-vmlinux.sh's options for an image whose sites are NOPs (the
    default with lptrace-dso.o or liblptrace.a) or calls."""
    return [] if nop else ["--no-nop-sites"]


def lines(prefix, stdout):
    return key_values(prefix, stdout)


def call_counts(txt):
    """{(function, caller): number of calls} of a text trace."""
    return dict(Counter((ev["func"], ev["caller"])
                        for ev in read_trace(txt)))


# NOPs from the link (the default with the runtime): the runtime builds
# the sites' records only at the first enable; --no-nop-sites: at start.
@pytest.mark.parametrize("cc,ld,nop", [
    *[pytest.param(cc, ld, False, id=f"{cc}-{ld}")
      for cc in ("gcc", "clang") for ld in ("bfd", "lld")],
    pytest.param("gcc", "bfd", True, id="gcc-bfd-nop-sites"),
    pytest.param("clang", "lld", True, id="clang-lld-nop-sites")])
def test_dlopen_trace_dlclose(cc, ld, nop, tmp_path, linkpass, runtime_lib):
    lptest.require_compiler_ld(cc, ld)
    lib = build_lib(tmp_path, cc, ld, linkpass, nop=nop)
    exe = build_main(tmp_path, cc, ld, linkpass, "dlmain", nop=nop)
    nlib, nmain = table_entries(lib), table_entries(exe)
    assert nlib == 2            # lib_leaf, lib_mid

    txt = tmp_path / "trace.txt"
    proc = run([exe, lib, txt], env={"LPTRACE_VERBOSE": "1"})
    out = proc.stdout
    assert "FAIL" not in out and "errors=0" in out, describe(proc)

    # The table of the program at start, the library's added at dlopen,
    # forgotten at dlclose; nothing refused.
    assert lines("start ", out) == {"sites": str(nmain), "enabled": "0",
                                    "refused": "0"}
    assert lines("loaded ", out) == {"sites": str(nmain + nlib),
                                     "enabled": "0", "refused": "0"}
    assert lines("traced ", out)["enabled"] == "3"
    assert lines("closed ", out) == {"sites": str(nmain), "enabled": "1",
                                     "refused": "0"}
    assert lines("end ", out) == {"sites": str(nmain), "enabled": "1",
                                  "refused": "0"}
    assert re.search(rf"lptrace: dlmain: \S*libdl\.so: {nlib} sites$",
                     proc.stderr, re.M), proc.stderr
    assert re.search(rf"lptrace: dlmain: \S*libdl\.so: unloaded; its {nlib} sites are forgotten",
                     proc.stderr), proc.stderr

    # dlopen left NOPs at once; enabling made them calls.
    first, second = re.findall(r"^entry lib_leaf: (.*)$", out, re.M)
    n = site_len(cc)
    assert is_nop(first, n), first
    assert is_call(second, n), second
    assert key_values("enable lib=", out)["lib"] == "2"
    assert key_values("enable main=", out)["main"] == "1"

    # After dlclose: the library's functions match nothing, the page now
    # where its code was is not written, the program is traced still.
    assert lines("remapped=", out)["remapped"] == "1"
    assert key_values("after enable lib=", out)["lib"] == "0"
    assert key_values("after disable all=", out)["all"] == str(nmain)
    assert key_values("after enable main=", out)["main"] == "1"

    # lib_mid(0), lib_mid(1): two calls, four of lib_leaf; main_work once
    # before the dlclose and twice after.  Names from the library's own
    # symbols, though it is gone when the trace is written.
    assert call_counts(txt) == {("lib_mid", "main"): 2,
                                ("lib_leaf", "lib_mid"): 4,
                                ("main_work", "main"): 3}

    # Stream mode: the file names the library's functions too (a SYMS
    # record of the libraries at its end), in entry-only and graph mode.
    for graph in ("0", "1"):
        data = tmp_path / f"t{graph}.data"
        run([exe, lib, tmp_path / "unused.txt"],
            env={"LPTRACE_DATA": data, "LPTRACE_GRAPH": graph})
        rows, _, _ = report(data)
        assert rows == {"lib_mid": [2], "lib_leaf": [4], "main_work": [3]}


@pytest.mark.parametrize("cc,ld", [MATRIX[0], MATRIX[3]])
def test_library_loaded_at_start(cc, ld, tmp_path, linkpass, runtime_lib):
    """A library the program is linked against: its table is found at
    init (dl_iterate_phdr) and LPTRACE_FILTER reaches its functions."""
    lptest.require_compiler_ld(cc, ld)
    lib = build_lib(tmp_path, cc, ld, linkpass)
    exe = build_main(tmp_path, cc, ld, linkpass, "dlneeded",
                     extra=[lib, f"-Wl,-rpath,{tmp_path}"])
    txt = tmp_path / "trace.txt"
    proc = run([exe], env={"LPTRACE_VERBOSE": "1", "LPTRACE_FILTER": "lib_*",
                           "LPTRACE_OUT": txt})
    assert re.search(r"lptrace: dlneeded: \S*libdl\.so: 2 sites$",
                     proc.stderr, re.M), proc.stderr
    assert re.search(r"enable \"lib_\*\": 2 sites now enabled", proc.stderr), \
        proc.stderr
    assert call_counts(txt) == {("lib_mid", "main"): 3, ("lib_leaf", "lib_mid"): 6}


@pytest.mark.parametrize("cc,ld", MATRIX)
def test_library_dlopens_a_library(cc, ld, tmp_path, linkpass, runtime_lib):
    """A library's own dlopen() (dlloader.c loads dllib.c; the program
    never calls dlopen) reaches the program's wrapper: the program
    exports dlopen and dlclose, as libc.so defines them, so ld.so binds
    the library's call to it.  The new table is there when that dlopen
    returns, LPTRACE_FILTER enables it at once, and dlclose forgets it."""
    lptest.require_compiler_ld(cc, ld)
    lib = build_lib(tmp_path, cc, ld, linkpass)
    loader = build_lib(tmp_path, cc, ld, linkpass, name="libloader.so",
                       src="dlloader")
    exe = build_main(tmp_path, cc, ld, linkpass, "dlnested",
                     extra=[loader, f"-Wl,-rpath,{tmp_path}"])
    dyn = run(["readelf", "--dyn-syms", "-W", exe]).stdout
    for fn in ("dlopen", "dlclose"):
        assert re.search(rf"FUNC\s+GLOBAL\s+DEFAULT\s+\d+ {fn}$", dyn,
                         re.M), dyn
    nlib, nloader, nmain = (table_entries(lib), table_entries(loader),
                            table_entries(exe))
    assert (nlib, nloader) == (2, 2)
    txt = tmp_path / "trace.txt"
    proc = run([exe, lib, txt], env={"LPTRACE_VERBOSE": "1",
                                     "LPTRACE_FILTER": "*"})
    out = proc.stdout
    assert "errors=0" in out, describe(proc)
    before = nmain + nloader
    assert lines("start ", out) == {"sites": str(before),
                                    "enabled": str(before)}
    assert lines("loaded ", out) == {"sites": str(before + nlib),
                                     "enabled": str(before + nlib)}
    assert lines("closed ", out) == {"sites": str(before),
                                     "enabled": str(before)}
    assert re.search(r"\S*libdl\.so: unloaded; its 2 sites are forgotten",
                     proc.stderr), proc.stderr
    calls = call_counts(txt)
    # loader_call tail-calls lib_mid, so lib_mid's caller is main
    assert calls[("loader_call", "main")] == 2, calls
    assert calls[("lib_mid", "main")] == 2, calls
    assert calls[("lib_leaf", "lib_mid")] == 4, calls


@pytest.mark.parametrize("mode", ["stream", "crash-file"])
def test_crash_trace_names_a_dlopened_library(mode, tmp_path, linkpass,
                                              runtime_lib):
    """A program that dies of SIGSEGV after a library it loaded (by its
    loader library's dlopen) ran: the trace the fatal-signal handler
    completes names the library's functions.  Their SYMS record is built
    at load and written by the writer, or by the handler, not at exit."""
    lptest.require_compiler_ld("gcc", "bfd")
    lib = build_lib(tmp_path, "gcc", "bfd", linkpass)
    loader = build_lib(tmp_path, "gcc", "bfd", linkpass,
                       name="libloader.so", src="dlloader")
    exe = build_main(tmp_path, "gcc", "bfd", linkpass, "dlnested",
                     extra=[loader, f"-Wl,-rpath,{tmp_path}"])
    data = tmp_path / "t.data"
    var = "LPTRACE_DATA" if mode == "stream" else "LPTRACE_CRASH"
    proc = run([exe, lib, tmp_path / "unused.txt", "crash"],
               env={var: data, "LPTRACE_FILTER": "*"}, check=False)
    assert proc.returncode == -11, describe(proc)
    rows, _, _ = report(data)
    assert rows["lib_mid"] == [2] and rows["lib_leaf"] == [4], rows
    assert rows["loader_call"] == [2], rows


@pytest.mark.parametrize("symbolic", [False, True],
                         ids=["plain", "Bsymbolic-functions"])
@pytest.mark.parametrize("cc,ld", MATRIX)
def test_two_libraries_out_of_address_order(cc, ld, symbolic, tmp_path,
                                            linkpass, runtime_lib):
    """A copy of the library preloaded (mapped first, high) and the
    library dlopen'ed (mapped below it): the objects' list is not in
    address order, and one rewrite covers sites of both.  Each copy's
    entries stay in that copy: an entry bound to the other copy's
    lib_leaf would make lib=2, not 4 (docs/runtime.md)."""
    lptest.require_compiler_ld(cc, ld)
    lib = build_lib(tmp_path, cc, ld, linkpass, symbolic=symbolic)
    pre = build_lib(tmp_path, cc, ld, linkpass, name="libpre.so",
                    symbolic=symbolic)
    exe = build_main(tmp_path, cc, ld, linkpass, "dlmain")
    nmain = table_entries(exe)
    txt = tmp_path / "trace.txt"
    proc = run([exe, lib, txt], env={"LD_PRELOAD": pre})
    out = proc.stdout
    assert "errors=0" in out, out
    assert lines("start ", out)["sites"] == str(nmain + 2)
    assert lines("loaded ", out)["sites"] == str(nmain + 4)
    assert key_values("enable lib=", out)["lib"] == "4"
    assert lines("traced ", out)["enabled"] == "5"
    # dlclose: the preloaded copy stays, traced
    assert lines("closed ", out) == {"sites": str(nmain + 2), "enabled": "3",
                                     "refused": "0"}
    assert key_values("after enable lib=", out)["lib"] == "2"
    assert key_values("after disable all=", out)["all"] == str(nmain + 2)
    assert call_counts(txt) == {("lib_mid", "main"): 2,
                                ("lib_leaf", "lib_mid"): 4,
                                ("main_work", "main"): 3}
