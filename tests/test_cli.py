# The command line: option order, usage errors and --help.

import re

import pytest

from lptest import small_image

POLICY_C = """\
__attribute__((noinline)) int textf(int x) { return x + 1; }
__attribute__((section(".mysec"), noinline)) int mysecf(int x) { return x + 5; }
__attribute__((section(".init.text"), noinline)) int initf(int x) { return x + 3; }
int main(void) { return textf(1) + mysecf(1) + initf(1) - 11; }
"""


@pytest.fixture
def policy_image(tmp_path):
    return small_image(tmp_path, POLICY_C)


def traced(linkpass, image, *opts):
    out = linkpass.run("sites", image, *opts).stdout
    return sorted(ln.split()[1].split("+")[0] for ln in out.splitlines())


@pytest.mark.parametrize("opts", [
    ["--trace-section=.mysec", "--sections=.text,.text.*"],
    ["--sections=.text,.text.*", "--trace-section=.mysec"],
])
def test_trace_section_survives_sections_in_any_order(linkpass, policy_image,
                                                      opts):
    """--sections replaces the default list, not the --trace-section
    globs given before it (policy_set used to zero the whole list)."""
    names = traced(linkpass, policy_image, *opts)
    assert "mysecf" in names and "textf" in names, names
    assert "initf" not in names, names


def test_sections_twice_replaces_the_first(linkpass, policy_image):
    names = traced(linkpass, policy_image, "--sections=.mysec",
                   "--sections=.init.text")
    assert names == ["initf"], names


@pytest.mark.parametrize("args, message", [
    (["scan", "IMG"], "linkpass: scan: missing -o FILE"),
    (["frob"], "linkpass: unknown command 'frob'"),
    (["scan", "-j", "0", "IMG", "-o", "x"], "linkpass: scan: bad thread count '0'"),
    (["check"], "linkpass: check: expected exactly one IMAGE"),
    (["obj"], "linkpass: obj: expected one or more FILE.o"),
    (["dump", "--format=elf", "IMG"], "linkpass: dump: unrecognized option '--format=elf'"),
    (["scan", "--format=xml", "IMG", "-o", "x"], "linkpass: scan: unknown format 'xml' (elf or asm)"),
    (["scan", "--bogus", "IMG", "-o", "x"], "linkpass: scan: unrecognized option '--bogus'"),
    # another command's option, its argument the next word: the option named
    (["check", "-o", "x", "IMG"], "linkpass: check: unrecognized option '-o'"),
    (["check", "--output", "x", "IMG"], "linkpass: check: unrecognized option '--output'"),
])
def test_usage_error_is_one_line_with_a_hint(linkpass, tmp_path, args,
                                             message):
    proc = linkpass.run(*args, check=False, cwd=tmp_path)
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    assert proc.stderr == f"{message} (see 'linkpass --help')\n", proc.stderr


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["scan", "--help"]])
def test_help_goes_to_stdout(linkpass, args):
    proc = linkpass.run(*args)
    assert proc.stdout.startswith("usage: linkpass scan")
    assert proc.stderr == ""


def test_no_arguments_prints_usage(linkpass):
    proc = linkpass.run(check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: linkpass scan")


# A value each option's argument can take, by its name in the usage.
SAMPLE_ARG = {"FILE": "out.o", "elf|asm": "elf", "SYM|auto": "auto",
              "NAME": "__fentry__", "GLOB,...": ".text", "GLOB": ".text",
              "N": "1", "S": "__start_mcount_loc", "call|nop|any": "any"}


def usage_options(linkpass):
    """[(spelling with an argument, [commands])] from `linkpass --help`:
    the option table's lines."""
    out = linkpass.run("--help").stdout
    opts = []
    for m in re.finditer(r"^  (?:-\w, )?(--[\w-]+)(=\S+|\[=\S+\])?\s.*?"
                         r"(?:\[([a-z, ]+)\])?$", out, re.M):
        name, arg, cmds = m.groups()
        if name == "--help":
            continue
        if arg and not arg.startswith("["):
            name += "=" + SAMPLE_ARG[arg[1:]]
        opts.append((name, cmds.split(", ")))
    return opts


def test_each_command_takes_the_options_its_usage_lists(linkpass, tmp_path):
    """The usage, the parser and the commands' validity come from one
    table: an option the usage lists for a command is parsed by it, and
    every other command refuses it as unrecognized."""
    opts = usage_options(linkpass)
    assert len(opts) >= 19, opts
    commands = ["scan", "check", "dump", "sites", "obj", "nop"]
    for opt, cmds in opts:
        assert cmds and set(cmds) <= set(commands), (opt, cmds)
        for cmd in commands:
            extra = ["-o", "out.o"] if cmd == "scan" else []
            proc = linkpass.run(cmd, opt, "missing.o", *extra, check=False,
                                cwd=tmp_path)
            refused = f"linkpass: {cmd}: unrecognized option '{opt}'" in proc.stderr
            assert refused == (cmd not in cmds), (cmd, opt, proc.stderr)
