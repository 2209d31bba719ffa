# How an output takes the target's place (util.c, replace_target()):
# the finished temp file is swapped with an existing regular target
# (RENAME_EXCHANGE, which spares ext4 the write-out that rename() over a
# file starts) and the old file unlinked, or renamed into place.  Either
# way the result must be what rename() gives: the target's name holds
# the new file, other names of the old file keep the old bytes, a
# symlink is replaced rather than followed, a directory is refused, and
# no temp file stays behind.  A device or a pipe is written in place.

import os
import stat

import pytest

from lptest import read_fifo_later, small_image

SRC_C = """\
__attribute__((noinline)) int f(int x) { return x + 1; }
int main(void) { return f(1) - 2; }
"""


@pytest.fixture
def image(tmp_path):
    return small_image(tmp_path, SRC_C)


@pytest.fixture
def fresh(linkpass, image, tmp_path):
    """The table a scan writes where nothing was before."""
    out = tmp_path / "fresh.o"
    linkpass.run("scan", image, "-o", out)
    return out.read_bytes()


def leftovers(d, name):
    return sorted(p.name for p in d.iterdir()
                  if p.name.startswith(name + ".tmp"))


@pytest.mark.parametrize("fmt", ["elf", "asm"])
def test_existing_file_is_replaced(linkpass, image, tmp_path, fmt):
    out = tmp_path / "t.o"
    linkpass.run("scan", image, "-o", out, f"--format={fmt}")
    want = out.read_bytes()
    out.write_bytes(b"old")
    os.chmod(out, 0o600)
    linkpass.run("scan", image, "-o", out, f"--format={fmt}")
    assert out.read_bytes() == want
    # the new file's mode, as a plain create under the umask gives it
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask
    assert leftovers(tmp_path, "t.o") == []


def test_other_hard_link_keeps_the_old_bytes(linkpass, image, tmp_path,
                                            fresh):
    out, other = tmp_path / "t.o", tmp_path / "other.o"
    out.write_bytes(b"old")
    os.link(out, other)
    linkpass.run("scan", image, "-o", out)
    assert out.read_bytes() == fresh
    assert other.read_bytes() == b"old"
    assert leftovers(tmp_path, "t.o") == []


def test_symlink_is_replaced_not_followed(linkpass, image, tmp_path, fresh):
    dest, out = tmp_path / "dest.o", tmp_path / "t.o"
    dest.write_bytes(b"old")
    out.symlink_to(dest)
    linkpass.run("scan", image, "-o", out)
    assert not out.is_symlink() and out.read_bytes() == fresh
    assert dest.read_bytes() == b"old"
    assert leftovers(tmp_path, "t.o") == []


def test_directory_target_is_refused(linkpass, image, tmp_path):
    out = tmp_path / "t.o"
    out.mkdir()
    (out / "inside").write_bytes(b"keep")
    proc = linkpass.run("scan", image, "-o", out, check=False)
    assert proc.returncode != 0
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"linkpass: {out}: "), \
        proc.stderr
    assert "cannot rename over the target" in lines[0], lines[0]
    assert out.is_dir() and (out / "inside").read_bytes() == b"keep"
    assert leftovers(tmp_path, "t.o") == []


def test_device_is_written_in_place(linkpass, image, tmp_path):
    """-o naming a device (here a private node like /dev/null): written
    in place, not replaced by a file (for root, -o /dev/null used to
    replace the system's /dev/null with the table)."""
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root")
    for fmt in ("elf", "asm"):
        linkpass.run("scan", image, "-o", dev, f"--format={fmt}")
        assert stat.S_ISCHR(os.lstat(dev).st_mode)
    assert leftovers(tmp_path, "null") == []


def test_pipe_gets_the_table(linkpass, image, tmp_path, fresh):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader, got = read_fifo_later(fifo)
    linkpass.run("scan", image, "-o", fifo)
    reader.join(timeout=60)
    assert got == [fresh]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
