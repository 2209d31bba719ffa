# The kernel's subset of linkpass (linkpass/kernel-files): the files
# kernel/export.sh copies into a Linux tree.  Built alone, with the
# kernel's host warnings, they make a linkpass with the commands scan,
# obj, check and nop only, whose output is byte for byte the full
# tool's on real toolchain output: an x86_64 image (gcc -pg -mfentry,
# GNU ld -q), an x86_64 object, and aarch64 with
# -fpatchable-function-entry=4,2 (an object and an image).

import shutil
from pathlib import Path

import pytest

from lptest import (REPO, STUBS_S, Linkpass, assemble, compile_src, run,
                    require_compiler_ld, require_tools, write)

KERNEL_FILES = REPO / "linkpass" / "kernel-files"
# KBUILD_HOSTCFLAGS' warnings, and the flags of the repository's build
HOST_CFLAGS = ["-O2", "-Wall", "-Wextra", "-Werror", "-Wmissing-prototypes",
               "-Wstrict-prototypes", "-std=gnu11", "-D_GNU_SOURCE",
               "-Iinclude"]
KERNEL_COMMANDS = ["scan", "check", "obj", "nop"]
# the options the kernel's patches pass (-o, --patchable-entries,
# --sites, obj's --check and --nop), and --help
KERNEL_OPTIONS = ["--output", "--patchable-entries", "--sites", "--check",
                  "--nop", "--help"]

SRC = r"""
static int __attribute__((noinline)) st(int x) { return x * 3; }
int __attribute__((weak)) weak_fn(int x) { return x + 1; }
int leaf(int x) { return st(x) + weak_fn(x); }
int main(void) { return leaf(2) == 9 ? 0 : 1; }
"""


def kernel_files():
    """The listed paths, from the repository's top."""
    lines = KERNEL_FILES.read_text().splitlines()
    return [ln.split("#")[0].strip() for ln in lines
            if ln.split("#")[0].strip()]


def kernel_lines():
    return sum(len((REPO / f).read_text().splitlines())
               for f in kernel_files())


@pytest.fixture(scope="module")
def kernel_linkpass(tmp_path_factory):
    """linkpass built from the listed files alone: they are copied to a
    folder of their own (no other file of linkpass/ to fall back on)."""
    require_tools("gcc")
    top = tmp_path_factory.mktemp("kernel-set")
    for f in kernel_files():
        (top / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / f, top / f)
    objs = []
    for f in kernel_files():
        if f.endswith(".c"):
            obj = top / (Path(f).stem + ".o")
            run(["gcc", *HOST_CFLAGS, "-c", f, "-o", obj], cwd=top)
            objs.append(obj)
    exe = top / "kernel-linkpass"
    run(["gcc", "-o", exe, *objs, "-lelf", "-lz", "-lpthread"])
    return Linkpass(exe)


def test_the_list_names_existing_files_and_leaves_the_extras_out():
    files = kernel_files()
    assert len(files) == len(set(files))
    for f in files:
        assert (REPO / f).is_file(), f
        assert f.startswith(("linkpass/", "include/")), f
    # the full tool's plug and what only it has stay out
    for extra in ("linkpass/extras.c", "linkpass/audit.c",
                  "linkpass/stripped.c", "linkpass/cmd_dump.c",
                  "linkpass/cmd_sites.c", "linkpass/table_asm.c"):
        assert extra not in files


def test_line_count_is_reported(capsys):
    n = kernel_lines()
    full = sum(len(p.read_text().splitlines())
               for p in [*(REPO / "linkpass").glob("*.[ch]"),
                         *(REPO / "include").glob("*.h")])
    with capsys.disabled():
        print(f"\nkernel set: {len(kernel_files())} files, {n} lines "
              f"of C and headers (the full tool: {full})")
    assert n < full


def test_usage_lists_only_the_kernel_commands(kernel_linkpass):
    out = kernel_linkpass.run("--help").stdout
    commands = [ln.split()[2] if ln.startswith("usage:") else ln.split()[1]
                for ln in out.splitlines() if "linkpass " in ln]
    assert commands == KERNEL_COMMANDS, out
    options = out.split("options (and the commands that take them):\n")[1]
    listed = [w.split("=")[0].split("[")[0] for ln in options.splitlines()
              if ln.startswith("  -")
              for w in ln.split() if w.startswith("--")][:len(KERNEL_OPTIONS)]
    assert sorted(listed) == sorted(KERNEL_OPTIONS), out
    assert "--byte-audit" not in out and "--stats" not in out, out


@pytest.mark.parametrize("args", [["dump", "x"], ["sites", "x"],
                                  ["check", "--byte-audit", "x"],
                                  ["scan", "--format=asm", "x", "-o", "y"]])
def test_the_full_tools_commands_and_options_are_refused(kernel_linkpass,
                                                        args):
    proc = kernel_linkpass.run(*args, check=False)
    assert proc.returncode == 2
    assert proc.stderr.endswith("(see 'linkpass --help')\n"), proc.stderr


def same_run(full, kernel, args, files=()):
    """Run both tools with @args ({} for each copy's folder); their exit
    status, stdout and stderr must agree (the folder's name aside), and
    so must the bytes of @files they wrote or changed."""
    procs = []
    for tool, d in ((full, "full"), (kernel, "kernel")):
        a = [str(x).replace("{}", d) for x in args]
        procs.append(tool.run(*a, check=False))
    f, k = procs
    assert f.returncode == k.returncode, (f, k)
    assert f.stdout.replace("full", "kernel") == k.stdout, (f.stdout, k.stdout)
    assert f.stderr.replace("full", "kernel") == k.stderr, (f.stderr, k.stderr)
    for name in files:
        a = Path(str(name).replace("{}", "full")).read_bytes()
        b = Path(str(name).replace("{}", "kernel")).read_bytes()
        assert a == b, name
    return f


def two_copies(path):
    """@path copied into full/ and kernel/ beside it: one for each tool."""
    for d in ("full", "kernel"):
        (path.parent / d).mkdir(exist_ok=True)
        shutil.copy(path, path.parent / d / path.name)
    return path.parent / "{}" / path.name


def test_x86_64_image_scan_check_nop(linkpass, kernel_linkpass, tmp_path):
    require_compiler_ld("gcc", "bfd")
    objs = [compile_src(tmp_path, "prog.c", SRC, "gcc",
                        ["-pg", "-mfentry", "-O2", "-fno-pie"]),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    image = tmp_path / "img"
    run(["gcc", "-fuse-ld=bfd", "-no-pie", "-Wl,-q", *objs, "-o", image])
    img = two_copies(image)
    table = tmp_path / "{}" / "table.o"
    same_run(linkpass, kernel_linkpass, ["scan", img, "-o", table], [table])
    # the image linked with its table: check, then nop and check again
    final = tmp_path / "final"
    run(["gcc", "-fuse-ld=bfd", "-no-pie", "-Wl,-q", *objs,
         str(table).replace("{}", "full"), "-o", final])
    fin = two_copies(final)
    assert same_run(linkpass, kernel_linkpass, ["check", fin]).returncode == 0
    same_run(linkpass, kernel_linkpass, ["nop", fin], [fin])
    assert same_run(linkpass, kernel_linkpass,
                    ["check", "--sites=nop", fin]).returncode == 0


# One call to __fentry__, in the middle of a function: no site.
MID_CALL_S = r"""
	.text
	.globl	main
	.type	main, @function
main:
	nop
	call	__fentry__
	xorl	%eax, %eax
	ret
	.size	main, .-main
"""


def test_calls_but_no_site_is_an_error_in_both(linkpass, kernel_linkpass,
                                               tmp_path):
    """A table of 0 entries from an image whose code calls __fentry__
    is never written: the full tool's error names its ways out, the
    kernel's set says what it found, in one line."""
    require_compiler_ld("gcc", "bfd")
    objs = [assemble(tmp_path, "mid.S", MID_CALL_S),
            assemble(tmp_path, "stubs.S", STUBS_S)]
    image = tmp_path / "img"
    run(["gcc", "-fuse-ld=bfd", "-no-pie", "-Wl,-q", *objs, "-o", image])
    for tool in (linkpass, kernel_linkpass):
        out = tmp_path / "table.o"
        proc = tool.run("scan", image, "-o", out, check=False)
        assert proc.returncode == 2, proc
        assert "no call site: none of the 1 calls to an mcount symbol " \
               "opens a traced function" in proc.stderr, proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr
        assert not out.exists()


def test_x86_64_object_obj_check_nop(linkpass, kernel_linkpass, tmp_path):
    obj = two_copies(compile_src(tmp_path, "mod.c", SRC, "gcc",
                                 ["-pg", "-mfentry", "-O2", "-fno-pie"]))
    same_run(linkpass, kernel_linkpass, ["obj", obj], [obj])
    assert same_run(linkpass, kernel_linkpass, ["check", obj]).returncode == 0
    same_run(linkpass, kernel_linkpass, ["nop", obj], [obj])
    assert same_run(linkpass, kernel_linkpass,
                    ["check", "--sites=nop", obj]).returncode == 0
    # the 7.3 series' .ko rule: the three in one process
    (tmp_path / "one").mkdir()
    one = two_copies(compile_src(tmp_path / "one", "mod.c", SRC, "gcc",
                                 ["-pg", "-mfentry", "-O2", "-fno-pie"]))
    assert same_run(linkpass, kernel_linkpass,
                    ["obj", "--check", "--nop", one], [one]).returncode == 0
    assert (tmp_path / "one" / "kernel" / "mod.o").read_bytes() == \
        (tmp_path / "kernel" / "mod.o").read_bytes()


def test_aarch64_patchable_object_and_image(linkpass, kernel_linkpass,
                                            tmp_path):
    cc = "aarch64-linux-gnu-gcc"
    require_tools(cc)
    pad = "--patchable-entries=4,2"
    obj = compile_src(tmp_path, "mod.c", SRC, cc,
                      ["-O2", "-fpatchable-function-entry=4,2"])
    image = tmp_path / "img"
    run([cc, "-Wl,-q", obj, "-o", image])
    two = two_copies(obj)
    same_run(linkpass, kernel_linkpass, ["obj", pad, two], [two])
    assert same_run(linkpass, kernel_linkpass,
                    ["check", pad, two]).returncode == 0
    img = two_copies(image)
    table = tmp_path / "{}" / "table.o"
    same_run(linkpass, kernel_linkpass, ["scan", pad, img, "-o", table],
             [table])
    final = tmp_path / "final"
    run([cc, "-Wl,-q", obj, str(table).replace("{}", "full"), "-o", final])
    fin = two_copies(final)
    assert same_run(linkpass, kernel_linkpass,
                    ["check", pad, fin]).returncode == 0


def test_export_copies_the_list_and_builds_its_objects(tmp_path):
    tree = tmp_path / "linux"
    write(tree / "scripts" / "Makefile",
          "subdir-$(CONFIG_GCC_PLUGINS) += gcc-plugins\n")
    # past the preamble (line 100), two sorted neighbours of the title
    write(tree / "MAINTAINERS",
          "".join(f"T{i}\n\n" for i in range(60))
          + "LINEAR RANGES HELPERS\nF:\ta\n\n"
          + "LINUX FOR POWER MACINTOSH\nF:\tb\n")
    run([REPO / "kernel" / "export.sh", tree])
    entry = (tree / "MAINTAINERS").read_text().split("\n\n")
    assert entry[61].startswith(
        "LINKPASS (FTRACE MCOUNT TABLE AT FINAL LINK)\n"), entry[60:63]
    dst = tree / "scripts" / "linkpass"
    got = sorted(p.name for p in dst.iterdir() if p.suffix in (".c", ".h"))
    assert got == sorted(Path(f).name for f in kernel_files())
    for f in kernel_files():
        assert (dst / Path(f).name).read_bytes() == (REPO / f).read_bytes()
    makefile = (dst / "Makefile").read_text()
    objs = sorted(Path(f).stem + ".o" for f in kernel_files()
                  if f.endswith(".c"))
    listed = makefile.split("linkpass-objs :=")[1].split("\n\n")[0]
    assert sorted(listed.replace("\\", " ").split()) == objs
    # series.sh verify: the same files pass; one more is refused
    run([REPO / "kernel" / "series.sh", "verify", "6.12", tree])
    write(dst / "audit.c", "")
    proc = run([REPO / "kernel" / "series.sh", "verify", "6.12", tree],
               check=False)
    assert proc.returncode == 2 and "audit.c: not in linkpass/kernel-files" \
        in proc.stderr, proc.stderr
