# Tests of scripts/link-vmlinux.sh, the driver that links an image, makes
# its __mcount_loc table with linkpass and relinks until the two agree.
#
# Each case links a small program with the real toolchain and compares
# `linkpass dump` of the result with a ground truth read from the
# instructions (lptest.ground_truth).

import os
import re
from pathlib import Path

import pytest

import lpfacts
from lptest import (LINK_VMLINUX, STUBS_S, assemble, compile_src, describe,
                    elf_type, ground_truth, have, link_driver, links_taken,
                    read_bytes, relative_relocs_in, require_compiler_ld,
                    require_tools, run, section_headers, symbol_value,
                    symbols, write)

# ---------------------------------------------------------------------------
# A user-space program: static and global functions in several files, a
# notrace function, a function in .init.text; exits with EXIT_CODE.

EXIT_CODE = 42

MAIN_C = """\
extern int util_add(int a, int b);
extern int util_scale(int x);
extern int untraced_helper(int x);
extern int init_setup(int x);

static __attribute__((noinline)) int local_twice(int x)
{
	return x * 2;
}

__attribute__((noinline)) int global_entry(int x)
{
	return local_twice(x) + util_add(x, 1);
}

int main(int argc, char **argv)
{
	int base = init_setup(argc);	/* 2 */

	(void)argv;
	/* 7 + 12 + 23 */
	return global_entry(base) + util_scale(base + 1) +
	       untraced_helper(base * 10);
}
"""

UTIL_C = """\
__attribute__((noinline)) int util_add(int a, int b)
{
	return a + b;
}

static __attribute__((noinline)) int util_square(int x)
{
	return x * x;
}

__attribute__((noinline)) int util_scale(int x)
{
	return util_square(x) + x;
}

/* notrace */
__attribute__((no_instrument_function, noinline)) int untraced_helper(int x)
{
	return x + 3;
}
"""

INIT_C = """\
__attribute__((section(".init.text"), noinline)) int init_setup(int x)
{
	return x + 1;
}
"""

# Functions that must be traced whatever the optimisation level does to
# the static ones.
PROGRAM_TRACED = {"main", "global_entry", "util_add", "util_scale",
                  "init_setup"}
PROGRAM_NOTRACE = {"untraced_helper", "__fentry__", "mcount", "_mcount"}

MODES = {
    "mcount": ["-pg"],
    "fentry": ["-pg", "-mfentry"],
}
PIE = {
    "pie": (["-fPIE"], ["-pie"]),
    "nopie": (["-fno-pie"], ["-no-pie"]),
}


class ProgramBuilder:
    """Compiles the test program once per configuration per module."""

    def __init__(self, root):
        self.root = root
        self.cache = {}

    def objects(self, cc, mode, opt, pie):
        key = (cc, mode, opt, pie)
        if key not in self.cache:
            require_tools(cc, "as")
            d = self.root / "-".join(key)
            flags = [opt, *MODES[mode], *PIE[pie][0]]
            objs = [compile_src(d, name, src, cc=cc, flags=flags)
                    for name, src in (("main.c", MAIN_C),
                                      ("util.c", UTIL_C),
                                      ("init.c", INIT_C))]
            objs.append(assemble(d, "stubs.s", STUBS_S))
            self.cache[key] = objs
        return self.cache[key]

    def link_cmd(self, cc, ld, mode, opt, pie):
        return [cc, f"-fuse-ld={ld}", *PIE[pie][1],
                *self.objects(cc, mode, opt, pie)]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return ProgramBuilder(tmp_path_factory.mktemp("program"))


def assert_driver_progress(stdout, links):
    lines = stdout.splitlines()
    assert "  LD      .tmp_image1" in lines, stdout
    assert "  MCOUNT  .tmp_image1" in lines, stdout
    assert f"  LD      .tmp_image{links}" in lines, stdout
    assert f"  CHECK   .tmp_image{links}" in lines, stdout
    assert links_taken(stdout) == links


def assert_table_matches(linkpass, image, truth, *dump_opts):
    got = linkpass.dump(image, *dump_opts)
    want = sorted(truth)
    missing = [f"{a:#x} {truth[a][0]}" for a in want if a not in got]
    extra = [f"{a:#x}" for a in got if a not in truth]
    assert got == want, (f"{image}: table differs from ground truth\n"
                         f"missing: {missing}\nextra: {extra}")


def no_temp_leftovers(directory):
    left = [p.name for p in Path(directory).iterdir()
            if p.name.startswith(".")]
    assert not left, f"temporary files left in {directory}: {left}"


# ---------------------------------------------------------------------------
# The matrix: gcc/clang x bfd/lld x mcount/fentry x -O0/-O2 x PIE/no-PIE


@pytest.mark.parametrize("pie", ["pie", "nopie"])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("mode", ["mcount", "fentry"])
@pytest.mark.parametrize("ld", ["bfd", "lld"])
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_matrix(linkpass, program, tmp_path, cc, ld, mode, opt, pie):
    require_compiler_ld(cc, ld)
    cmd = program.link_cmd(cc, ld, mode, opt, pie)

    out = tmp_path / "prog"
    proc = link_driver(out, cmd, linkpass=linkpass)
    links = links_taken(proc.stdout)
    # docs/design.md: two links when the table lies after the code
    assert links == 2, proc.stdout
    assert_driver_progress(proc.stdout, links)
    assert f"  OBJCOPY {out}" in proc.stdout.splitlines()
    no_temp_leftovers(tmp_path)

    assert elf_type(out) == ("DYN" if pie == "pie" else "EXEC")
    assert run([out], check=False).returncode == EXIT_CODE

    truth = ground_truth(out, mode=mode)
    names = {name for name, _ in truth.values()}
    assert PROGRAM_TRACED <= names, f"ground truth lacks functions: {names}"
    assert not names & PROGRAM_NOTRACE, names
    assert any(s["name"] == "init_setup" and s["section"] == ".init.text"
               for s in symbols(out))
    dump = linkpass.run("dump", out).stdout.splitlines()
    assert any(" init_setup+0x" in ln and ln.endswith(" .init.text")
               for ln in dump), dump
    if cc == "gcc" and pie == "pie":
        # gcc calls through the GOT in a PIE; the linker relaxes that
        # into a 6-byte addr32 call (DESIGN.md section 7).
        assert all(raw[:2] == lpfacts.OP_ADDR32 + lpfacts.OP_CALL
                   for _, raw in truth.values())
    else:
        assert all(raw[:1] == lpfacts.OP_CALL for _, raw in truth.values())

    assert_table_matches(linkpass, out, truth)
    assert ".rela.text" not in section_headers(out)

    kept = tmp_path / "prog.relocs"
    proc = link_driver(kept, cmd, "--keep-relocs", linkpass=linkpass)
    assert links_taken(proc.stdout) == links
    assert ".rela.text" in section_headers(kept)
    status, check = linkpass.check(kept)
    assert status == 0, check.stdout + check.stderr
    assert linkpass.dump(kept) == sorted(truth)


# ---------------------------------------------------------------------------
# Kernel style: ld -T with a linker script, the table inside an init data
# section between __start_mcount_loc and __stop_mcount_loc.

KERNEL_LDS = lpfacts.fill("""\
OUTPUT_FORMAT("elf64-x86-64")
ENTRY(startup_64)
SECTIONS
{
	. = 0xffffffff81000000;
	_text = .;
	.text : {
		*(.head.text)
		*(.text .text.*)
	}
	_etext = .;
	. = ALIGN(4096);
	.rodata : { *(.rodata .rodata.*) }
	. = ALIGN(4096);
	__init_begin = .;
	.init.text : {
		_sinittext = .;
		*(.init.text)
		_einittext = .;
	}
	.init.data : {
		*(.init.data)
		. = ALIGN(8);
		@KERNEL_START@ = .;
		KEEP(*(@SECTION@))
		@KERNEL_STOP@ = .;
	}
	. = ALIGN(4096);
	__init_end = .;
	.data : { *(.data .data.*) }
	.bss : { *(.bss .bss.*) *(COMMON) }
	_end = .;
	/DISCARD/ : {
		*(.eh_frame) *(.note.GNU-stack) *(.comment) *(.note.*)
	}
}
""")

HEAD_S = """\
	.section .head.text, "ax"
	.globl	startup_64
	.type	startup_64, @function
startup_64:
	call	start_kernel
1:	hlt
	jmp	1b
	.size	startup_64, . - startup_64

	/* A data reference to __fentry__ is not a call site. */
	.data
	.globl	fentry_ref
fentry_ref:
	.quad	__fentry__

	.section .note.GNU-stack, "", @progbits
"""

KERNEL_INIT_C = """\
#define __init __attribute__((section(".init.text"), noinline))

extern int do_work(int x);
extern int weak_hook(int x);
int init_counter;

int __init setup_arch(int x)
{
	return x + 1;
}

static int __init parse_args(int x)
{
	return x * 2 + init_counter;
}

int __init start_kernel(void)
{
	return do_work(parse_args(setup_arch(1))) + weak_hook(2);
}
"""

KERNEL_WORK_C = """\
#define notrace __attribute__((no_instrument_function))

int work_counter;

notrace int raw_counter(int x)
{
	return x + work_counter;
}

static __attribute__((noinline)) int helper(int x)
{
	return x * 3 + work_counter;
}

int do_work(int x)
{
	return helper(x) + raw_counter(x);
}

/* Overridden in override.c: its body stays in .text without a symbol. */
__attribute__((weak)) int weak_hook(int x)
{
	return x - 1 + work_counter;
}

int after_weak(int x)
{
	return x + 5 + work_counter;
}
"""

KERNEL_OVERRIDE_C = """\
extern int work_counter;

int weak_hook(int x)
{
	return x + 100 + work_counter;
}
"""

KERNEL_TRACED = {"setup_arch", "start_kernel", "do_work", "helper",
                 "weak_hook", "after_weak"}
KERNEL_NOTRACE = {"raw_counter", "startup_64", "__fentry__"}
KERNEL_CFLAGS = ["-O2", "-ffreestanding", "-fno-pie", "-nostdlib", "-pg",
                 "-mfentry", "-mcmodel=kernel", "-fno-asynchronous-unwind-tables",
                 "-fno-stack-protector"]
KERNEL_TABLE_OPTS = list(lpfacts.KERNEL_BOUNDS)
LINKERS = {"bfd": ["ld", "-m", "elf_x86_64"], "lld": ["ld.lld"]}


def kernel_objects(d, cc, cflags):
    objs = [assemble(d, "head.s", HEAD_S), assemble(d, "entry.s", STUBS_S)]
    for name, src in (("init.c", KERNEL_INIT_C), ("work.c", KERNEL_WORK_C),
                      ("override.c", KERNEL_OVERRIDE_C)):
        objs.append(compile_src(d, name, src, cc=cc, flags=cflags))
    return objs


@pytest.mark.parametrize("cf", ["none", "branch"])
@pytest.mark.parametrize("ld", ["bfd", "lld"])
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_kernel_style(linkpass, tmp_path, cc, ld, cf):
    require_tools(cc, LINKERS[ld][0], "as")
    cflags = [*KERNEL_CFLAGS, f"-fcf-protection={cf}"]
    lds = write(tmp_path / "kernel.lds", KERNEL_LDS)
    objs = kernel_objects(tmp_path, cc, cflags)
    cmd = [*LINKERS[ld], "-T", lds, *objs]

    out = tmp_path / "vmlinux"
    proc = link_driver(out, cmd, "--keep-relocs", *KERNEL_TABLE_OPTS,
                       linkpass=linkpass)
    links = links_taken(proc.stdout)
    assert links == 2, proc.stdout
    assert_driver_progress(proc.stdout, links)
    assert elf_type(out) == "EXEC"

    truth = ground_truth(out, mode="fentry")
    names = {name for name, _ in truth.values()}
    assert KERNEL_TRACED <= names, names
    assert not names & KERNEL_NOTRACE, names
    # A site is at the entry or, with -fcf-protection=branch, right after
    # an endbr64 (static functions whose address is not taken have none).
    after_endbr = 0
    for addr, (name, _) in truth.items():
        entry = symbol_value(out, name)
        if addr != entry:
            assert addr == entry + lpfacts.ENDBR_LEN, (name, hex(addr))
            assert read_bytes(out, entry, lpfacts.ENDBR_LEN) == \
                lpfacts.ENDBR64
            after_endbr += 1
    assert (after_endbr > 0) == (cf == "branch"), after_endbr

    # The overridden weak body still calls __fentry__ with a relocation,
    # one more than the live functions of .text.
    relocs = run(["readelf", "-rW", out]).stdout
    text_relocs = relocs.split("Relocation section '.rela.text'")[1]
    text_relocs = text_relocs.split("Relocation section")[0]
    text_funcs = {s["name"] for s in symbols(out) if s["section"] == ".text"}
    text_sites = sum(1 for n, _ in truth.values() if n in text_funcs)
    assert text_relocs.count("__fentry__") == text_sites + 1, text_relocs

    assert_table_matches(linkpass, out, truth, *KERNEL_TABLE_OPTS)
    status, check = linkpass.check(out, *KERNEL_TABLE_OPTS)
    assert status == 0, check.stdout + check.stderr

    start = symbol_value(out, lpfacts.KERNEL_START)
    stop = symbol_value(out, lpfacts.KERNEL_STOP)
    assert stop - start == 8 * len(truth)
    start_sec = {s["section"] for s in symbols(out)
                 if s["name"] == lpfacts.KERNEL_START}
    assert start_sec == {".init.data"}, start_sec

    # The same link, relocations stripped.
    stripped = tmp_path / "vmlinux.stripped"
    proc = link_driver(stripped, cmd, *KERNEL_TABLE_OPTS, linkpass=linkpass)
    assert links_taken(proc.stdout) == 2
    assert not any(s.startswith(".rela") for s in section_headers(stripped))
    assert_table_matches(linkpass, stripped, truth, *KERNEL_TABLE_OPTS)


# Layouts where the table lies before code.  Linking the table in moves
# that code; whether the second table is still right depends on whether
# its entries' anchors moved with it.

TABLE_FIRST_LDS = lpfacts.fill("""\
ENTRY(_start)
SECTIONS
{
	. = 0x400000;
	@SECTION@ : { KEEP(*(@SECTION@)) }
	.text : { *(.text .text.*) }
	.init.text : { *(.init.text) }
	.data : { *(.data .data.*) }
	.bss : { *(.bss .bss.*) *(COMMON) }
	/DISCARD/ : {
		*(.eh_frame) *(.note.GNU-stack) *(.comment) *(.note.*)
	}
}
""")

# Every global symbol lies before the table, and the code after it has
# static functions only: no anchor the table can name moves with that
# code, so link 2's table is stale and a third link is needed, whatever
# anchor linkpass picks.
TABLE_BETWEEN_LDS = lpfacts.fill("""\
ENTRY(_start)
SECTIONS
{
	. = 0x400000;
	.text : { *(.text .text.*) }
	.data : { *(.data .data.*) }
	.bss : { *(.bss .bss.*) *(COMMON) }
	@SECTION@ : { KEEP(*(@SECTION@)) }
	.init.text : { *(.init.text) }
	/DISCARD/ : {
		*(.eh_frame) *(.note.GNU-stack) *(.comment) *(.note.*)
	}
}
""")

BOOT_S = """\
	.text
	.globl	_start
	.type	_start, @function
_start:
	hlt
	.size	_start, . - _start
	.section .note.GNU-stack, "", @progbits
"""

LATE_C = """\
#define __init_static static __attribute__((section(".init.text"), used, noinline))

__init_static int late_one(int x)
{
	return x * 7 + 1;
}

__init_static int late_two(int x)
{
	return late_one(x) * 2 + 1;
}
"""

SMALL_CFLAGS = ["-O2", "-ffreestanding", "-fno-pie", "-nostdlib", "-pg",
                "-mfentry", "-fno-asynchronous-unwind-tables",
                "-fno-stack-protector", "-fcf-protection=none"]


@pytest.fixture
def table_layout(tmp_path):
    """link_cmd(linker, script) for the layouts above."""
    require_tools("gcc", "as")
    d = tmp_path / "obj"
    objs = [assemble(d, "boot.s", BOOT_S), assemble(d, "entry.s", STUBS_S),
            compile_src(d, "work.c", KERNEL_WORK_C, flags=SMALL_CFLAGS),
            compile_src(d, "late.c", LATE_C, flags=SMALL_CFLAGS)]

    def link_cmd(linker, script):
        require_tools(LINKERS[linker][0])
        lds = write(d / "layout.lds", script)
        return [*LINKERS[linker], "-T", lds, *objs]
    return link_cmd


@pytest.mark.parametrize("ld", ["bfd", "lld"])
@pytest.mark.parametrize("layout", ["first", "between"])
def test_table_before_code(linkpass, table_layout, tmp_path, ld, layout):
    script = TABLE_FIRST_LDS if layout == "first" else TABLE_BETWEEN_LDS
    out = tmp_path / "image"
    proc = link_driver(out, table_layout(ld, script), "--keep-relocs",
                       linkpass=linkpass)
    links = links_taken(proc.stdout)
    # between: no anchor moves with the code after the table, so the
    # second table is stale (docs/design.md); first: every section has a
    # global anchor that moves with it, so the second table is right
    assert links == (3 if layout == "between" else 2), proc.stdout
    assert_driver_progress(proc.stdout, links)
    truth = ground_truth(out, mode="fentry")
    names = {n for n, _ in truth.values()}
    assert {"late_one", "late_two", "do_work", "helper"} <= names, names
    assert_table_matches(linkpass, out, truth)
    assert linkpass.check(out)[0] == 0


def test_max_passes_too_few_for_layout(linkpass, table_layout, tmp_path):
    out = tmp_path / "image"
    proc = link_driver(out, table_layout("bfd", TABLE_BETWEEN_LDS),
                       "--max-passes", "2", linkpass=linkpass, check=False)
    assert proc.returncode == 1, proc.stderr
    assert ("link-vmlinux.sh: " + str(out) +
            ": not stable after 2 links (--max-passes 2)") in proc.stderr
    assert "linkpass check still reports for .tmp_image2:" in proc.stderr
    # What check printed is shown, indented, after that line.
    report = proc.stderr.split("still reports for .tmp_image2:\n")[1]
    assert report.startswith("    ") and report.strip(), proc.stderr
    assert not out.exists()
    no_temp_leftovers(tmp_path)


# ---------------------------------------------------------------------------
# Driver behaviour on a small gcc PIE program


@pytest.fixture
def gcc_prog(program):
    require_compiler_ld("gcc", "bfd")
    return program.link_cmd("gcc", "bfd", "fentry", "-O2", "pie")


@pytest.mark.parametrize("form", [["--max-passes", "1"], ["--max-passes=1"]])
def test_max_passes_1_fails_clearly(linkpass, gcc_prog, tmp_path, form):
    out = tmp_path / "prog"
    proc = link_driver(out, gcc_prog, *form, linkpass=linkpass, check=False)
    assert proc.returncode == 1, proc.stderr
    assert (f"link-vmlinux.sh: {out}: not stable after 1 link "
            "(--max-passes 1)") in proc.stderr
    assert "linkpass check still reports for .tmp_image1:" in proc.stderr
    assert proc.stdout.count("  LD   ") == 1
    assert not out.exists()
    no_temp_leftovers(tmp_path)


def test_failing_link_shows_linker_message(linkpass, program, gcc_prog,
                                           tmp_path):
    bad = compile_src(tmp_path / "src", "bad.c",
                      "extern int missing_function(void);\n"
                      "int use_it(void) { return missing_function(); }\n",
                      flags=["-fPIE"])
    out = tmp_path / "prog"
    proc = link_driver(out, [*gcc_prog, bad], linkpass=linkpass, check=False)
    assert proc.returncode != 0
    assert "missing_function" in proc.stderr  # the linker's own message
    assert re.search(r"^link-vmlinux\.sh: link 1: 'gcc' failed with status \d+",
                     proc.stderr, re.M), proc.stderr
    assert "LINKS" not in proc.stdout
    assert not out.exists()
    no_temp_leftovers(tmp_path)


def test_failure_leaves_existing_output_untouched(linkpass, gcc_prog,
                                                  tmp_path):
    out = tmp_path / "prog"
    out.write_bytes(b"previous output\n")
    os.utime(out, (1_000_000_000, 1_000_000_000))

    proc = link_driver(out, [*gcc_prog, "-lthis_library_does_not_exist"],
                       linkpass=linkpass, check=False)
    assert proc.returncode != 0
    assert out.read_bytes() == b"previous output\n"
    assert out.stat().st_mtime == 1_000_000_000

    proc = link_driver(out, gcc_prog, "--max-passes", "1",
                       linkpass=linkpass, check=False)
    assert proc.returncode == 1
    assert out.read_bytes() == b"previous output\n"

    # And a successful run replaces it.
    link_driver(out, gcc_prog, linkpass=linkpass)
    assert run([out], check=False).returncode == EXIT_CODE
    no_temp_leftovers(tmp_path)


def test_linkpass_error_is_propagated(gcc_prog, tmp_path):
    fake = write(tmp_path / "bin" / "linkpass",
                 "#!/bin/sh\n"
                 "echo \"linkpass: $2: fake failure\" >&2\n"
                 "exit 2\n")
    fake.chmod(0o755)
    out = tmp_path / "prog"
    proc = link_driver(out, gcc_prog, "--linkpass", fake, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "fake failure" in proc.stderr
    assert "link-vmlinux.sh: linkpass scan" in proc.stderr
    assert not out.exists()


def test_extra_gen_rides_in_the_same_links(linkpass, gcc_prog, tmp_path):
    calls = tmp_path / "calls.log"
    gen = write(tmp_path / "gen.sh",
                "#!/bin/sh\n"
                "set -e\n"
                "test -f \"$1\"\n"
                f"echo \"$1\" >> {calls}\n"
                "printf '.section .kallsyms_demo,\"a\"\\n.quad 1\\n' "
                "| as -o \"$2\"\n")
    gen.chmod(0o755)
    out = tmp_path / "prog"
    proc = link_driver(out, gcc_prog, "--extra-gen", gen, linkpass=linkpass)
    assert links_taken(proc.stdout) == 2, proc.stdout
    assert proc.stdout.count("  GEN     ") == 2, proc.stdout
    assert len(calls.read_text().splitlines()) == 2
    assert ".kallsyms_demo" in section_headers(out)
    assert run([out], check=False).returncode == EXIT_CODE
    assert_table_matches(linkpass, out, ground_truth(out, mode="fentry"))


def test_extra_gen_that_never_settles_fails(linkpass, gcc_prog, tmp_path):
    counter = tmp_path / "counter"
    gen = write(tmp_path / "gen.sh",
                "#!/bin/sh\n"
                "set -e\n"
                f"n=$(cat {counter} 2>/dev/null || echo 0)\n"
                f"echo $((n + 1)) > {counter}\n"
                "printf '.section .kallsyms_demo,\"a\"\\n.quad %s\\n' $n "
                "| as -o \"$2\"\n")
    gen.chmod(0o755)
    out = tmp_path / "prog"
    proc = link_driver(out, gcc_prog, "--extra-gen", gen, "--max-passes", "3",
                       linkpass=linkpass, check=False)
    assert proc.returncode == 1, proc.stderr
    assert "not stable after 3 links (--max-passes 3)" in proc.stderr
    assert "--extra-gen objects still change" in proc.stderr
    assert not out.exists()


def test_extra_gen_failure_stops(linkpass, gcc_prog, tmp_path):
    out = tmp_path / "prog"
    proc = link_driver(out, gcc_prog, "--extra-gen", "false",
                       linkpass=linkpass, check=False)
    assert proc.returncode == 1
    assert "link-vmlinux.sh: --extra-gen 'false': failed" in proc.stderr
    assert not out.exists()


def test_stripped_pie_keeps_dynamic_relocations(linkpass, gcc_prog, tmp_path):
    out = tmp_path / "prog"
    link_driver(out, gcc_prog, linkpass=linkpass)
    secs = section_headers(out)
    assert elf_type(out) == "DYN"
    assert ".rela.text" not in secs
    assert ".rela.dyn" in secs
    # The table's entries are the RELATIVE relocations of its section,
    # one per site, in table order.
    assert relative_relocs_in(out, lpfacts.SECTION) == \
        sorted(ground_truth(out, mode="fentry"))
    assert run([out], check=False).returncode == EXIT_CODE


@pytest.mark.parametrize("how", ["-v", "V=1"])
def test_verbose_prints_commands(linkpass, gcc_prog, tmp_path, how):
    out = tmp_path / "prog"
    if how == "-v":
        proc = link_driver(out, gcc_prog, "-v", "--stats", linkpass=linkpass)
    else:
        proc = link_driver(out, gcc_prog, "--stats", linkpass=linkpass,
                           env={"V": "1"})
    cmds = [ln for ln in proc.stdout.splitlines() if ln.startswith("+ ")]
    assert any("-Wl,--emit-relocs" in c and "'-o'" in c for c in cmds), cmds
    scans = [c for c in cmds if "'scan'" in c]
    assert scans and all("'--stats'" in c for c in scans), cmds
    assert any("'check'" in c for c in cmds), cmds
    assert any("objcopy" in c and "--remove-relocations=*" in c
               for c in cmds), cmds


HOOK_S = """\
	.text
	.globl	hooked_a, hooked_b, my_hook
	.type	hooked_a, @function
hooked_a:
	call	my_hook
	ret
	.size	hooked_a, . - hooked_a
	.type	hooked_b, @function
hooked_b:
	call	my_hook
	ret
	.size	hooked_b, . - hooked_b
	.type	my_hook, @function
my_hook:
	ret
	.size	my_hook, . - my_hook
	.section .note.GNU-stack, "", @progbits
"""


def test_scan_opts_are_passed_on(linkpass, gcc_prog, tmp_path):
    """--scan-opt reaches scan and check: with a non-default mcount
    symbol the table holds exactly that symbol's call sites."""
    hook = assemble(tmp_path / "hook", "hook.s", HOOK_S)
    out = tmp_path / "prog"
    proc = link_driver(out, [*gcc_prog, hook], "-v", "--keep-relocs",
                       "--scan-opt=--mcount-sym", "--scan-opt", "my_hook",
                       linkpass=linkpass)
    cmds = [ln for ln in proc.stdout.splitlines() if ln.startswith("+ ")]
    for sub in ("'scan'", "'check'"):
        assert any(sub in c and "'--mcount-sym' 'my_hook'" in c
                   for c in cmds), cmds
    truth = ground_truth(out, mode="fentry", mcount_syms=("my_hook",))
    assert sorted(n for n, _ in truth.values()) == ["hooked_a", "hooked_b"]
    assert_table_matches(linkpass, out, truth)
    assert run([out], check=False).returncode == EXIT_CODE


def test_keep_temps_and_tmpdir(linkpass, gcc_prog, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    out = tmp_path / "prog"
    proc = link_driver(out, gcc_prog, "--keep-temps", "--tmpdir", scratch,
                       linkpass=linkpass)
    m = re.search(r"temporary files kept in (\S+)", proc.stderr)
    assert m, proc.stderr
    kept = Path(m.group(1))
    assert kept.parent == scratch
    names = {p.name for p in kept.iterdir()}
    assert {".tmp_image1", ".tmp_image2", ".tmp_mcount1.o"} <= names, names


def test_direct_linker_gets_emit_relocs(linkpass, tmp_path):
    """A cross-style linker name (*-ld) is called with --emit-relocs."""
    require_tools("x86_64-linux-gnu-ld", "gcc", "as")
    lds = write(tmp_path / "kernel.lds", KERNEL_LDS)
    objs = kernel_objects(tmp_path, "gcc", KERNEL_CFLAGS)
    out = tmp_path / "vmlinux"
    proc = link_driver(out, ["x86_64-linux-gnu-ld", "-T", lds, *objs], "-v",
                       *KERNEL_TABLE_OPTS, linkpass=linkpass)
    links = [ln for ln in proc.stdout.splitlines()
             if ln.startswith("+ ") and "x86_64-linux-gnu-ld" in ln]
    assert links and all("'--emit-relocs'" in ln for ln in links), links


@pytest.mark.parametrize("kind", ["guess", "--linker", "--driver"])
@pytest.mark.parametrize("wrapped", ["ld", "gcc"])
def test_linker_or_driver_switch(linkpass, tmp_path, wrapped, kind):
    """The command's name decides between --emit-relocs (a linker) and
    -Wl,--emit-relocs (a compiler driver).  A wrapper whose name says the
    opposite (a linker called 'mylink', a compiler driver called
    'cross-ld') fails on the guess and links with the right switch."""
    require_compiler_ld("gcc", "bfd")
    name = "mylink" if wrapped == "ld" else "cross-ld"
    wrapper = write(tmp_path / "bin" / name,
                    f"#!/bin/sh\nexec {wrapped} \"$@\"\n")
    wrapper.chmod(0o755)
    if wrapped == "ld":
        lds = write(tmp_path / "kernel.lds", KERNEL_LDS)
        objs = kernel_objects(tmp_path, "gcc", KERNEL_CFLAGS)
        cmd = [wrapper, "-m", "elf_x86_64", "-T", lds, *objs]
        opts = list(KERNEL_TABLE_OPTS)
        right = "--linker"
    else:
        d = tmp_path / "prog"
        objs = [compile_src(d, "main.c", MAIN_C, flags=["-pg", "-mfentry",
                                                        "-O2"]),
                compile_src(d, "util.c", UTIL_C, flags=["-pg", "-mfentry",
                                                        "-O2"]),
                compile_src(d, "init.c", INIT_C, flags=["-pg", "-mfentry",
                                                        "-O2"]),
                assemble(d, "stubs.s", STUBS_S)]
        cmd = [wrapper, *objs]
        opts = []
        right = "--driver"
    out = tmp_path / "out"
    switch = [] if kind == "guess" else [kind]
    proc = link_driver(out, cmd, "-v", "--keep-relocs", *switch, *opts,
                       linkpass=linkpass, check=False)
    links = [ln for ln in proc.stdout.splitlines()
             if ln.startswith("+ ") and name in ln]
    if kind == right:
        assert proc.returncode == 0, proc.stderr
        want = "'--emit-relocs'" if kind == "--linker" else \
            "'-Wl,--emit-relocs'"
        assert len(links) == 2 and all(want in ln for ln in links), links
        assert linkpass.dump(out, *opts) == \
            sorted(ground_truth(out, mode="fentry"))
    else:
        # the guess (from the name) or the wrong switch: the command gets
        # the other flag and fails
        assert proc.returncode != 0
        failed = (rf"^link-vmlinux\.sh: link 1: '{re.escape(str(wrapper))}'"
                  r" failed with status \d+")
        assert re.search(failed, proc.stderr, re.M), proc.stderr
        assert not out.exists()


LOGGING_LINKPASS = """\
#!/bin/sh
echo "{tag} $1" >> {log}
exec {real} "$@"
"""


@pytest.mark.parametrize("source", ["option", "env", "repo", "path",
                                    "none"])
def test_linkpass_fallbacks(linkpass, gcc_prog, tmp_path, source):
    """--linkpass, else $LINKPASS, else the repository's build next to the
    script, else linkpass in PATH; else a clear error.  Each candidate is
    a logging wrapper, so the log shows which one ran."""
    log = tmp_path / "used.log"

    def wrapper(path, tag):
        w = write(path, LOGGING_LINKPASS.format(tag=tag, log=log,
                                                real=linkpass.path))
        w.chmod(0o755)
        return w

    # a copy of the script, so "the repository's build" can be chosen
    repo = tmp_path / "repo"
    script = write(repo / "scripts" / "link-vmlinux.sh",
                   LINK_VMLINUX.read_text())
    opt = wrapper(tmp_path / "opt" / "linkpass", "option")
    env_lp = wrapper(tmp_path / "env" / "linkpass", "env")
    wrapper(tmp_path / "pathdir" / "linkpass", "path")
    env = {"PATH": f"{tmp_path / 'pathdir'}:{os.environ['PATH']}", "V": ""}
    if source == "none":
        env["PATH"] = os.environ["PATH"]
    args = []
    if source == "option":
        args = ["--linkpass", opt]
        env["LINKPASS"] = env_lp
    elif source == "env":
        env["LINKPASS"] = env_lp
    if source in ("option", "env", "repo"):
        wrapper(repo / "linkpass" / "linkpass", "repo")
    out = tmp_path / "prog"
    proc = run(["bash", script, *args, out, "--", *gcc_prog], env=env,
               clear_env=("LINKPASS",), check=False)
    if source == "none":
        if have("linkpass"):
            pytest.fail("a linkpass in PATH hides the 'not found' case")
        assert proc.returncode == 1
        assert proc.stderr == ("link-vmlinux.sh: linkpass: not found (run "
                               "make, or pass --linkpass PATH)\n")
        assert not out.exists()
        return
    assert proc.returncode == 0, describe(proc)
    used = {line.split()[0] for line in log.read_text().splitlines()}
    assert used == {source}, log.read_text()
    assert "scan" in log.read_text() and "check" in log.read_text()


# extra.c for the --reuse-table tests: NAME is the first global of
# .sched.text, so the anchor of its entries in the kept table; a long
# body (K > 9) moves extra_two's call site.
EXTRA_C = """\
__attribute__((section(".sched.text"), noinline)) int %s(int x)
{
	volatile int v = x;
	for (int i = 0; i < %d; i++)
		v += i;
	BODY
	return v;
}
__attribute__((section(".sched.text"), noinline)) int extra_two(int x)
{
	return x * 3;
}
"""


def extra_c(name, k):
    more = "".join(f"v ^= v >> {i};" for i in range(1, 30)) if k > 9 else ""
    return (EXTRA_C % (name, k)).replace("BODY", more)


@pytest.fixture
def reuse_build(linkpass, tmp_path):
    """build(extra_name, constant, *opts, cmd=None) -> (links, reused):
    link the test program and extra.c through the driver with
    --reuse-table, and check the result against the ground truth."""
    require_compiler_ld("gcc", "bfd")
    flags = ["-pg", "-mfentry", "-O2", "-fno-pie"]
    d = tmp_path / "src"
    objs = [compile_src(d, n, src, flags=flags)
            for n, src in (("main.c", MAIN_C), ("util.c", UTIL_C),
                           ("init.c", INIT_C))]
    objs.append(assemble(d, "stubs.s", STUBS_S))
    extra = d / "extra.o"
    base_cmd = ["gcc", "-no-pie", *objs, extra]
    keep = tmp_path / "table.o"
    out = tmp_path / "prog"

    def build(name="extra_one", k=2, *opts, cmd=None):
        compile_src(d, "extra.c", extra_c(name, k), flags=flags)
        proc = link_driver(out, cmd or base_cmd, "--keep-relocs",
                           "--reuse-table", keep, *opts, linkpass=linkpass)
        assert linkpass.check(out)[0] == 0
        truth = ground_truth(out, sections=(".text", ".init.text",
                                            ".sched.text"))
        assert linkpass.dump(out) == sorted(truth)
        assert run([out], check=False).returncode == EXIT_CODE
        lines = proc.stdout.splitlines()
        reused = [ln.split(None, 1)[1] for ln in lines
                  if ln.startswith("  REUSE   ")]
        return links_taken(proc.stdout), reused
    build.keep = keep
    build.cmd = base_cmd
    return build


def test_reuse_table(reuse_build):
    """--reuse-table FILE: an unchanged relink, or an edit that moves no
    call site, takes one link; an edit that moves sites takes two and
    still gives the right table (checked against the ground truth)."""
    build = reuse_build
    assert build("extra_one", 5) == (2, [])
    assert build.keep.exists()
    assert build("extra_one", 5) == (1, ["table.o"])    # unchanged
    assert build("extra_one", 6) == (1, ["table.o"])    # same-size edit
    assert build("extra_one", 10) == (2, ["table.o"])   # a site moves
    assert build("extra_one", 10) == (1, ["table.o"])


def test_reuse_table_only_for_the_same_command(reuse_build):
    build = reuse_build
    assert build() == (2, [])
    assert build(cmd=[*build.cmd, "-Wl,-z,now"]) == (2, [])
    assert build("extra_one", 2, "--scan-opt=--mcount-sym=__fentry__") == \
        (2, [])
    assert build("extra_one", 2, "--scan-opt=--mcount-sym=__fentry__") == \
        (1, ["table.o"])


def test_reuse_table_dropped_when_it_does_not_link(reuse_build):
    """The kept table's anchor (extra_one) is gone: link 1 fails with it,
    so link 1 is done again without it, and the run goes on as usual."""
    build = reuse_build
    assert build() == (2, [])
    assert build("extra_other", 2) == \
        (2, ["table.o", "dropped: link 1 failed with it"])
    assert build("extra_other", 2) == (1, ["table.o"])


# ---------------------------------------------------------------------------
# Usage errors (no linkpass needed)


@pytest.mark.parametrize("args, message", [
    (["out"], "no link command given after '--'"),
    (["--", "gcc", "a.o"], "no OUTPUT given"),
    (["out", "--", "gcc", "a.o", "-o", "x"], "must not contain '-o'"),
    (["--max-passes", "0", "out", "--", "gcc"], "not a positive number"),
    (["--max-passes"], "--max-passes: missing argument"),
    (["--frobnicate", "out", "--", "gcc"], "--frobnicate: unknown option"),
    (["out", "other", "--", "gcc"], "only one OUTPUT"),
    (["--max-passes=0", "out", "--", "gcc"], "not a positive number"),
    (["--keep-relocs=yes", "out", "--", "gcc"],
     "--keep-relocs: takes no argument"),
    (["--tmpdir"], "--tmpdir: missing argument"),
    (["--linker", "--driver", "out", "--", "ld"],
     "--driver and --linker: give at most one"),
])
def test_usage_errors(tmp_path, args, message):
    require_tools("bash")
    proc = run(["bash", LINK_VMLINUX, *args], cwd=tmp_path, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("link-vmlinux.sh: "), proc.stderr
    assert message in proc.stderr
    assert not (tmp_path / "out").exists()


def test_help():
    proc = run(["bash", LINK_VMLINUX, "--help"])
    assert proc.stdout.startswith("Usage: link-vmlinux.sh [options] OUTPUT --")
    for opt in ("--max-passes", "--keep-relocs", "--keep-temps", "--linkpass",
                "--scan-opt", "--stats", "--extra-gen", "--tmpdir", "-v",
                "--linker", "--driver", "--start-sym", "--stop-sym"):
        assert opt in proc.stdout


@pytest.mark.parametrize("script", ["link-vmlinux.sh", "install-deps.sh"])
def test_shellcheck_clean(script):
    # shellcheck is in install-deps.sh base, so in CI this never skips
    require_tools("shellcheck")
    proc = run(["shellcheck", LINK_VMLINUX.parent / script], check=False)
    assert proc.returncode == 0, proc.stdout
