# The kernel harness's toolchains (kernel/lib.sh's toolchain_table) on
# made-up inputs, without building anything: which pairs an entry of
# KERNELS names, what make is told for each toolchain, which binutils
# the checks run, and the facts a build's .config gives report.py (its
# tables per toolchain: tests/test_kernel_report.py).  The builds
# themselves are `make test-kernel`'s.

import subprocess

import pytest

from lptest import REPO

LIB = REPO / "kernel" / "lib.sh"
CACHE = "/var/tmp/linkpass-kernel"


def lib(script, toolchains="gcc clang", check=True):
    """Run @script after sourcing kernel/lib.sh, as test-kernel.sh does;
    returns the completed process."""
    head = (f"export LINKPASS_KERNEL_CACHE={CACHE} LINKPASS_ROOT_SUITE=trixie\n"
            f"here={REPO}/kernel cache={CACHE} toolchains='{toolchains}'\n"
            f". {LIB}\n")
    return subprocess.run(["bash", "-c", head + script], check=check,
                          capture_output=True, text=True)


def triples(entries, *extra, **kw):
    out = lib(f"triples_of KERNELS '{entries}' {' '.join(extra)}", **kw)
    return out.stdout.split()


def test_entries_name_the_new_toolchains():
    assert triples("7.3:gcc14 7.3:arm64:clang19 7.3:x86_64:clang19-lto "
                   "7.3:riscv64:gcc14") == \
        ["7.3:x86_64:gcc14", "7.3:arm64:clang19", "7.3:x86_64:clang19-lto",
         "7.3:riscv64:gcc14"]


def test_an_entry_without_toolchain_takes_those_that_build_its_arch():
    # riscv64: gcc only of the default "gcc clang"; gcc and gcc14 of these
    assert triples("6.12 6.12:riscv64") == \
        ["6.12:x86_64:gcc", "6.12:x86_64:clang", "6.12:riscv64:gcc"]
    assert triples("7.3:riscv64", toolchains="gcc14 clang19 clang19-lto") == \
        ["7.3:riscv64:gcc14"]


@pytest.mark.parametrize("entries,extra,message", [
    ("7.3:riscv64:clang19", "",
     "KERNELS: 7.3:riscv64:clang19: clang19 builds x86_64 arm64 in this test, not riscv64"),
    ("7.3:gcc15", "",
     "KERNELS: 7.3:gcc15: unknown toolchain gcc15 (known: gcc clang gcc14 clang19 clang19-lto)"),
    ("7.3:clang19", "full", "KERNELS: 7.3:clang19: expected VERSION:ARCH:TOOLCHAIN"),
])
def test_entries_refused_say_why(entries, extra, message):
    out = lib(f"triples_of KERNELS '{entries}' {extra}", check=False)
    assert out.returncode == 2
    assert out.stderr.strip() == f"test-kernel: error: {message}"


def test_the_sorttable_fix_entry_of_make_test():
    assert triples("7.3:x86_64:clang19", "full") == ["7.3:x86_64:clang19"]


@pytest.mark.parametrize("tc,arch,margs,nm,root", [
    ("gcc", "x86_64", "", "nm", False),
    ("gcc", "arm64", "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-", "aarch64-linux-gnu-nm", False),
    ("clang", "x86_64", "LLVM=1", "llvm-nm", False),
    ("gcc14", "x86_64", "", f"{CACHE}/bin/root/nm", True),
    ("gcc14", "riscv64", "ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-",
     f"{CACHE}/bin/root/riscv64-linux-gnu-nm", True),
    ("clang19", "arm64", "ARCH=arm64 LLVM=1", f"{CACHE}/bin/root/llvm-nm", True),
    ("clang19-lto", "x86_64", "LLVM=1", f"{CACHE}/bin/root/llvm-nm", True),
])
def test_make_arguments_and_binutils_of_each_toolchain(tc, arch, margs, nm, root):
    out = lib(f"margs_of {arch} {tc} 7.3 | tr '\\n' ' '; echo '|'\n"
              f"tool_of {arch} {tc} nm\n"
              f"tc_in_root {tc} && echo root || echo host\n").stdout.split("\n")
    args = out[0].rstrip(" |").split()
    host = [a for a in args if a.startswith("HOSTLDFLAGS=")]
    assert " ".join(a for a in args if a not in host) == margs
    assert out[1] == nm
    assert out[2] == ("root" if root else "host")
    # a root build's host programs load the root's libc from anywhere
    root_dir = f"{CACHE}/roots/trixie"
    assert host == ([f"HOSTLDFLAGS=-Wl,--dynamic-linker={root_dir}/lib64/"
                     f"ld-linux-x86-64.so.2,--disable-new-dtags,-rpath,"
                     f"{root_dir}/usr/lib/x86_64-linux-gnu:{root_dir}/lib/"
                     f"x86_64-linux-gnu"] if root else [])
    # every root tool the checks may ask for is one setup_root writes
    if root:
        assert nm.rsplit("/", 1)[1] in lib("echo $root_tools").stdout.split()


def test_only_the_lto_toolchain_adds_config():
    out = lib("for t in gcc clang gcc14 clang19 clang19-lto; do "
              "echo \"$t=$(tc_fact $t config)\"; done").stdout.split()
    assert out == ["gcc=", "clang=", "gcc14=", "clang19=",
                   "clang19-lto=LTO_CLANG_THIN"]


@pytest.mark.parametrize("config,facts", [
    ('CONFIG_CC_VERSION_TEXT="gcc (Debian 14.2.0-19) 14.2.0"\n'
     "CONFIG_LD_IS_BFD=y\nCONFIG_LD_VERSION=24400\n",
     ["cc=gcc (Debian 14.2.0-19) 14.2.0", "ld=GNU ld 2.44", "lto="]),
    ('CONFIG_CC_VERSION_TEXT="Debian clang version 19.1.7 (3+b1)"\n'
     "CONFIG_LD_IS_LLD=y\nCONFIG_LD_VERSION=0\nCONFIG_LLD_VERSION=190107\n"
     "CONFIG_LTO_CLANG_THIN=y\n",
     ["cc=Debian clang version 19.1.7 (3+b1)", "ld=ld.lld 19.1.7", "lto=ThinLTO"]),
])
def test_toolchain_facts_from_the_config(tmp_path, config, facts):
    (tmp_path / ".config").write_text(config)
    assert lib(f"toolchain_facts {tmp_path}").stdout.splitlines() == facts
