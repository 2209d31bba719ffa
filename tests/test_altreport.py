# kernel/altreport.py on made-up facts: the post-link work of each way is
# its timed steps less the sorting every way's sorttable does; dead
# entries, the check and the boot read as the facts say; a way with no
# facts gets no column; sorttable reading .symtab gets its own table.

import subprocess
import sys

from lptest import REPO

sys.path.insert(0, str(REPO / "kernel"))
import altreport  # noqa: E402

X86 = {
    "arch": "x86_64", "cc": "gcc (Debian 12.2.0-14) 12.2.0", "ld": "GNU ld 2.40",
    "stock_entries": "12649", "stock_zero": "76", "stock_stale": "0",
    "stock_check_mode": "relocs", "stock_check_exit": "0",
    "stock_pl_nm": "100.0", "stock_pl_sort": "42.0",
    "lp_entries": "12573", "lp_zero": "0", "lp_stale": "0",
    "lp_pl_scan": "30.0", "lp_pl_as": "5.5", "lp_pl_check": "18.0",
    "obj_entries": "12573", "obj_zero": "0", "obj_stale": "0",
    "obj_check_mode": "relocs", "obj_check_exit": "1", "obj_missing": "2",
    "obj_pl_obj": "70.0", "obj_pl_sort": "25.0",
    "objtool_entries": "12649", "objtool_zero": "76",
    "objtool_pl_full": "5000.0", "objtool_pl_nomcount": "4900.0",
    "objtool_pl_nm": "100.0", "objtool_pl_sort": "40.0",
    "symtab_sort_base": "20.0", "symtab_nm": "100.0", "symtab_sort_s": "41.0",
    "symtab_sort_y": "24.0", "symtab_zero_s": "76", "symtab_zero_y": "76",
    "symtab_differ": "0",
    "stock_boot_converted": "12573", "stock_boot_records": "12573",
    "lp_boot_converted": "0", "lp_boot_records": "12573",
}


def test_parse_takes_the_last_value_and_skips_junk():
    f = altreport.parse("arch=x86_64\nnot a fact\n=x\na=1\na=2\nobjtool_args=./o --a=b\n")
    assert f == {"arch": "x86_64", "a": "2", "objtool_args": "./o --a=b"}


def test_postlink_is_the_steps_less_the_common_sorting():
    assert altreport.postlink(X86, "stock")[0] == 100.0 + 42.0 - 20.0
    # the series' own sorttable has no mcount code: nothing subtracted
    assert altreport.postlink(X86, "lp")[0] == 30.0 + 5.5 + 18.0
    assert altreport.postlink(X86, "obj")[0] == 70.0 + 25.0 - 20.0
    # objtool's part is its run with --mcount --mnop less its run without
    assert altreport.postlink(X86, "objtool")[0] == 100.0 + 100.0 + 40.0 - 20.0
    assert "objtool's --mcount --mnop (5000.0 against 4900.0 without) 100.0" \
        in altreport.postlink(X86, "objtool")[1]


def test_objtool_below_its_noise_is_zero():
    """Two runs of seconds, the one with --mcount faster: its share is
    below their noise, shown as 0 with both runs."""
    f = dict(X86, objtool_pl_full="4800.0")
    work, how = altreport.postlink(f, "objtool")
    assert work == 0.0 + 100.0 + 40.0 - 20.0
    assert "(4800.0 against 4900.0 without) 0.0" in how


def test_unknown_steps_make_an_unknown_total():
    f = dict(X86, obj_pl_obj="")
    assert altreport.postlink(f, "obj")[0] is None
    assert "| — |" in altreport.arch_table(f).splitlines()[2]


def test_arch_table_reads_the_facts():
    t = altreport.arch_table(X86)
    head, _, *rows = t.splitlines()
    assert head.count("|") == 6          # label and four ways
    row = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]] for r in rows}
    assert row["table entries"] == ["12,649", "12,573", "12,573", "12,649"]
    assert row["dead entries"][0] == "76 zeroed, 0 stale"
    assert row["`linkpass check`"][0] == "ok (relocations)"
    assert row["`linkpass check`"][2] == "2 missing, 0 stale (relocations)"
    assert row["boot: sites converted / records"][:2] == ["12,573 / 12,573", "0 / 12,573"]


def test_a_way_without_facts_has_no_column():
    f = {k: v for k, v in X86.items() if not k.startswith("objtool_")}
    assert "objtool" not in altreport.arch_table(f).splitlines()[0]


def test_symtab_table_and_cli(tmp_path):
    (tmp_path / "x86_64.facts").write_text("".join(f"{k}={v}\n" for k, v in X86.items()))
    (tmp_path / "arm64.facts").write_text("arch=arm64\nstock_entries=1\n")
    out = subprocess.run([sys.executable, REPO / "kernel" / "altreport.py", tmp_path,
                          "-o", tmp_path / "out.md"], check=True,
                         capture_output=True, text=True).stdout
    assert out.index("**x86_64**") < out.index("**arm64**")
    line = next(ln for ln in out.splitlines() if ln.startswith("| x86_64 |"))
    assert line == "| x86_64 | 100.0 | 41.0 | 141.0 | 24.0 | 20.0 | 76 / 76 | 0 |"
    assert (tmp_path / "out.md").read_text() + "\n" == out


def test_no_facts_is_an_error(tmp_path):
    r = subprocess.run([sys.executable, REPO / "kernel" / "altreport.py", tmp_path],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no facts" in r.stderr
