# The one ELF writer (linkpass/elfwrite.c) in every relocation layout.
#
# x86_64 uses Rela with 64-bit entries and i386 Rel with 32-bit ones;
# before the writer was shared, the table object came out with all-zero
# relocations, silently, for the other two layouts (64-bit Rel, 32-bit
# Rela), and `linkpass obj` sized entries by a rule of its own.
# tests/elfwrite/layouts.c drives table_write_elf() in all four layouts
# and reads each object back with linkpass's reader, once with four
# entries and once with more than one piece of every section written
# piece by piece (table_write.c).

from lptest import build_linkpass_harness, run


def test_table_object_in_every_layout(tmp_path):
    exe = build_linkpass_harness(tmp_path, "elfwrite/layouts.c")
    proc = run([exe, tmp_path], check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split("\n")[:8] == [
        "rela64 ok", "rel64 ok", "rela32 ok", "rel32 ok", "rela64-big ok",
        "rel64-big ok", "rela32-big ok", "rel32-big ok"], proc.stdout
    for name in ("rela64", "rel64", "rela32", "rel32"):
        out = run(["readelf", "-rW", tmp_path / f"{name}.o"]).stdout
        assert out.count("anchor_a") == 3 and out.count("anchor_b") == 1, out
