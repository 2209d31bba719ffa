# kernel/bootfacts.sh and kernel/report.py on made-up inputs: the
# boot-time conversion's time is reported only where the clock ran.
# ftrace_update_code() runs early in boot; where local_clock() has not
# started yet (arm64 and riscv always, x86 in some boots under TCG) the
# instrument reads 0 ns for any number of records, which is no time
# measured, not a fast conversion.

import subprocess
import sys

from lptest import REPO

BOOTFACTS = REPO / "kernel" / "bootfacts.sh"
REPORT = REPO / "kernel" / "report.py"


def facts(tmp_path, lines):
    log = tmp_path / "boot.log"
    log.write_text("".join(f"LPK-FTUPD <6>[    0.079353] {ln}\n" for ln in lines))
    out = subprocess.run(["sh", BOOTFACTS, log], check=True,
                         capture_output=True, text=True).stdout
    return dict(ln.split("=", 1) for ln in out.splitlines())


def test_bootfacts_time_only_where_the_clock_ran(tmp_path):
    f = facts(tmp_path, ["lpk-ftrace-update: vmlinux: 60368 records, 0 converted, 13945394 ns",
                         "lpk-ftrace-update: configfs: 50 records, 0 converted, 2000 ns"])
    assert f["boot_records"] == "60368" and f["boot_converted"] == "0"
    assert f["boot_update_us"] == "13945.4"
    assert f["mod_update_us"] == "2.0"
    f = facts(tmp_path, ["lpk-ftrace-update: vmlinux: 60367 records, 60367 converted, 0 ns"])
    assert f["boot_converted"] == "60367"
    assert f["boot_update_us"] == ""


def pair(path, **kv):
    base = {"version": "7.3", "arch": "x86_64", "toolchain": "gcc",
            "run_start": "2026-12-06T03:20Z"}
    base.update(kv)
    path.write_text("".join(f"{k}={v}\n" for k, v in base.items()))


def report(results, *args):
    return subprocess.run([sys.executable, REPORT, results, *args], check=True,
                          capture_output=True, text=True).stdout


def boot_row(text, name):
    head = text.index("**Boot-time conversion**")
    return next(ln for ln in text[head:].splitlines()
                if ln.startswith(f"| {name} |"))


def test_report_shows_a_zero_boot_time_as_not_measured(tmp_path):
    # older facts carry 0.0, newer ones nothing: both are "—"
    pair(tmp_path / "7.3-x86_64-gcc.facts", stock_boot_converted="12573",
         stock_boot_update_us="26850.6", boot_converted="0",
         boot_update_us="0.0")
    pair(tmp_path / "7.3-arm64-gcc.facts", arch="arm64",
         stock_boot_converted="11691", stock_boot_update_us="",
         boot_converted="11691", boot_update_us="0.0")
    text = report(tmp_path)
    assert boot_row(text, "7.3 x86_64 gcc").split(" | ")[1:5] == \
        ["12,573", "26850.6", "—", "0"]
    assert boot_row(text, "7.3 arm64 gcc").split(" | ")[2] == "—"
    assert boot_row(text, "7.3 arm64 gcc").split(" | ")[5] == "—"


def test_growth_table_leaves_an_unmeasured_boot_time_out(tmp_path):
    pair(tmp_path / "7.3-x86_64-gcc.facts", run_start="2026-12-05T10:00Z",
         entries="12573", boot_update_us="0.0", stock_boot_update_us="26850.6")
    pair(tmp_path / "7.3-x86_64-gcc-big.facts", profile="big", entries="60368",
         boot_update_us="13945.4", stock_boot_update_us="0.0")
    text = report(tmp_path, "--profile", "big")
    rows = {ln.split(" | ")[0].lstrip("| "): ln.split(" | ")[1:]
            for ln in text.splitlines() if ln.startswith("| ")}
    assert rows["vmlinux sites (ours)"] == ["12,573", "60,368", "4.80 |"]
    assert rows["ftrace_update_code at boot, ours (µs)"] == ["—", "13945.4", "— |"]
    assert rows["ftrace_update_code at boot, stock (µs)"] == ["26850.6", "—", "— |"]


def post_link(text):
    head = text.index("**The post-link step**")
    return text[head:text.index("\n\n", text.index("| pair |", head))]


def test_post_link_names_the_binary_that_timed_ours(tmp_path):
    # facts before 6 December have no pl_tool: the full tool timed them
    pair(tmp_path / "7.3-x86_64-gcc.facts", pl_stock_ms="131.3",
         pl_lp_scans_check="35.2", pl_tool="in-tree")
    pair(tmp_path / "7.3-arm64-gcc.facts", arch="arm64", pl_stock_ms="92.4",
         pl_lp_scans_check="21.3", pl_tool="in-tree")
    text = post_link(report(tmp_path))
    assert "the in-tree tool a kernel build runs;" in text
    assert "full `linkpass`" not in text and "*" not in text.split("| pair |")[1]
    pair(tmp_path / "7.3-arm64-gcc.facts", arch="arm64", pl_stock_ms="92.4",
         pl_lp_scans_check="21.3")
    text = post_link(report(tmp_path))
    assert "except in the pairs marked *" in text
    assert "| 7.3 arm64 gcc* |" in text and "| 7.3 x86_64 gcc |" in text
    (tmp_path / "7.3-x86_64-gcc.facts").unlink()
    text = post_link(report(tmp_path))
    assert "by this repository's full `linkpass`" in text
    assert "| 7.3 arm64 gcc |" in text


def test_a_reused_build_dir_has_no_full_build_time(tmp_path):
    pair(tmp_path / "7.3-x86_64-gcc.facts", full_stock="", full_lp="",
         full_reused="1", incr_stock="14.7", incr_lp="13.5")
    text = report(tmp_path)
    head = text.index("**Build time**")
    assert "`LINKPASS_KERNEL_REUSE=1`), which makes no full build)." in \
        text[head:text.index("\n", head)]
    row = next(ln for ln in text[head:].splitlines()
               if ln.startswith("| 7.3 x86_64 gcc |"))
    assert row.split(" | ")[1:5] == ["—", "—", "—", "14.7"]


# Toolchain names with digits and dashes (clang19-lto), and the cc, ld and
# lto facts of each build (kernel/lib.sh, toolchain_facts).
def test_report_has_one_set_of_tables_per_toolchain(tmp_path):
    pair(tmp_path / "7.3-x86_64-clang19-lto.facts", toolchain="clang19-lto",
         cc="Debian clang version 19.1.7 (3+b1)", ld="ld.lld 19.1.7", lto="ThinLTO")
    pair(tmp_path / "7.3-arm64-gcc14.facts", arch="arm64", toolchain="gcc14",
         cc="gcc (Debian 14.2.0-19) 14.2.0", ld="GNU ld 2.44")
    pair(tmp_path / "7.3-x86_64-gcc14.facts", toolchain="gcc14",
         cc="gcc (Debian 14.2.0-19) 14.2.0", ld="GNU ld 2.44")
    pair(tmp_path / "7.3-x86_64-gcc.facts")
    text = report(tmp_path)
    heads = [ln for ln in text.splitlines() if ln.startswith("### ")]
    assert heads == [
        "### Toolchain `gcc`",
        "### Toolchain `gcc14`: gcc (Debian 14.2.0-19) 14.2.0, GNU ld 2.44",
        "### Toolchain `clang19-lto`: Debian clang version 19.1.7 (3+b1), "
        "ld.lld 19.1.7, ThinLTO",
    ]
    # each heading's tables hold its pairs only, every table each of them
    sections = text.split("### ")[1:]
    rows = [{ln.split(" | ")[0].lstrip("| ") for ln in s.splitlines()
             if ln.startswith("| 7.3 ")} for s in sections]
    assert rows == [{"7.3 x86_64 gcc"},
                    {"7.3 x86_64 gcc14", "7.3 arm64 gcc14"},
                    {"7.3 x86_64 clang19-lto"}]
    assert sections[1].count("| 7.3 arm64 gcc14 |") == 7


def test_later_toolchains_name_each_table_in_its_first_heading(tmp_path):
    # the captions are written once; a later toolchain's tables say which
    # they are in the heading cell that is "pair" in the first
    pair(tmp_path / "7.3-x86_64-gcc14.facts", toolchain="gcc14")
    pair(tmp_path / "7.3-arm64-clang19.facts", arch="arm64",
         toolchain="clang19", image_stock="8898352", image_lp="8585584")
    first, later = report(tmp_path).split("### Toolchain `clang19`")
    assert first.count("| pair |") == 7 and "**Sizes** (MiB)" in first
    assert "| pair |" not in later and "**" not in later
    heads = [ln.split(" | ")[0] for ln in later.splitlines()
             if ln.startswith("| ") and not ln.startswith("| 7.3 ")]
    assert heads == ["| tables and boots", "| build time",
                     "| the post-link step", "| sizes", "| modules",
                     "| boot-time conversion", "| the ftrace users"]
    assert "| 7.3 arm64 clang19 | 8.5 | 8.2 | 0.96 |" in later


def test_a_debug_block_has_its_sizes_and_costs_against_distro(tmp_path):
    pair(tmp_path / "7.3-arm64-gcc14.facts", arch="arm64", toolchain="gcc14",
         run_start="2026-12-05T10:00Z", image_stock="10485760",
         image_lp="10485760", ko_bytes_stock="1048576", ko_bytes_lp="943718",
         full_stock="50.0")
    pair(tmp_path / "7.3-arm64-gcc14-debug.facts", arch="arm64",
         toolchain="gcc14", profile="debug", image_stock="52428800",
         image_lp="41943040", ko_bytes_stock="4194304", ko_bytes_lp="3145728",
         full_stock="80.0", check="ok")
    text = report(tmp_path, "--profile", "debug")
    titles = [ln.split("**")[1] for ln in text.splitlines()
              if ln.startswith("**")]
    assert titles == ["Tables and boots.", "The post-link step", "Sizes",
                      "Modules", "How the figures grew"]
    assert "| 7.3 arm64 gcc14 | 50.0 | 40.0 | 0.80 |" in text
    assert "| 4.00 | 3.00 | 0.75 |" in text
    rows = {ln.split(" | ")[0].lstrip("| "): ln.split(" | ")[1:]
            for ln in text.split("How the figures grew")[1].splitlines()
            if ln.startswith("| ")}
    assert rows["linked image, ours (MiB)"] == ["10.0", "40.0", "4.00 |"]
    assert rows[".ko files summed, ours (MiB)"] == ["0.9", "3.0", "3.33 |"]
    assert "full build, stock (s)" not in rows
    assert "| figure | distro | debug | debug / distro |" in text


def test_a_reused_build_dir_counts_no_links(tmp_path):
    pair(tmp_path / "7.3-x86_64-gcc.facts", full_reused="1", links_stock="0",
         links_lp="0", check="ok")
    row = next(ln for ln in report(tmp_path).splitlines()
               if ln.startswith("| 7.3 x86_64 gcc |"))
    assert row.endswith("| — | ok |"), row
