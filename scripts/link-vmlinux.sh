#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# link-vmlinux.sh: link an image together with its __mcount_loc table.
#
# The table lists the address of every call to the mcount symbol in the
# final image, so it can only be made from a linked image, and linking it
# in may move the code it describes.  Hence the loop:
#
#   link 1 (relocations kept, no table) -> linkpass scan -> table 1
#   link 2 (+ table 1)                  -> linkpass check: stable?
#       yes: strip the relocations, write OUTPUT
#       no:  scan again, link again, at most --max-passes links in all
#
# Other generated objects that must ride in the same links (kallsyms) are
# made by --extra-gen hooks; the image is stable only when linkpass check
# passes and every hook, run on the image, reproduces byte for byte the
# object that was linked into it.
#
# Exit status: 0 done; 1 image not stable, a hook or a tool failed;
# 2 usage error; a failed link exits with the linker's status and a
# linkpass error (status 2 or worse) with linkpass's.  OUTPUT is written
# only on success; an existing OUTPUT is left alone on failure.

set -euo pipefail

prog=link-vmlinux.sh
script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(dirname -- "$script_dir")

usage()
{
	cat <<EOF
Usage: $prog [options] OUTPUT -- LINK-COMMAND...

Link LINK-COMMAND (a linker or compiler-driver command line without -o)
with its relocations kept, generate the __mcount_loc table with linkpass,
relink until the table matches the image, and write OUTPUT.

Options:
  --max-passes N     at most N links in all (default 8; at least 2 are
                     needed unless the image has no call sites at all)
  --keep-relocs      keep the static relocations in OUTPUT
  --nop-sites        write the NOP over every site in OUTPUT (linkpass nop;
                     the table unchanged; with --keep-relocs each site's
                     relocation becomes R_*_NONE): a program linked with
                     liblptrace.a then only checks its sites at start.
                     The default when LINK-COMMAND names the runtime
                     (liblptrace.a, -llptrace or lptrace-dso.o)
  --no-nop-sites     leave the calls in OUTPUT even with the runtime: it
                     then writes the NOPs at start
  --allow-empty      accept an empty table for an image that names an
                     mcount symbol (linkpass scan --allow-empty); without
                     it such an image, or a gcc -flto link without -pg
                     that gives an empty table, is an error
  --keep-temps       keep the temporary directory and say where it is
  --linkpass PATH    the linkpass binary (default: \$LINKPASS, else
                     linkpass/linkpass in this repository, else PATH)
  --scan-opt OPT     pass OPT to linkpass scan and check (repeatable), e.g.
                     --scan-opt=--mcount-sym --scan-opt=mcount
  --start-sym SYM    table start symbol, passed to check and dump
  --stop-sym SYM     table stop symbol, passed to check and dump
  --stats            pass --stats to linkpass scan and show its report
  --patchable-entries[=N,M]
                     the sites are the compiler's -fpatchable-function-entry
                     list (linkpass --patchable-entries[=N,M]: with N,M each
                     entry must start such a pad); it stays in every
                     link until stable, then one more link discards it
                     (/DISCARD/, INSERT AFTER .text) and must name the same
                     function+offset for every table entry
  --extra-gen CMD    after each link run 'CMD IMAGE OBJ'; OBJ is linked
                     into the next link (repeatable; e.g. kallsyms)
  --tmpdir DIR       where to make the temporary directory (default: the
                     directory of OUTPUT)
  --reuse-table FILE keep the table object of a successful run in FILE and
                     link it into the first link of the next run with the
                     same command: when check accepts that image, the run
                     takes one link (not with --extra-gen)
  --objcopy PATH     the objcopy that strips the relocations (default:
                     \$OBJCOPY, else the link command's cross prefix +
                     objcopy when there is one, e.g. aarch64-linux-gnu-objcopy
                     for aarch64-linux-gnu-gcc, else objcopy)
  --linker, --driver LINK-COMMAND is a linker (gets --emit-relocs) or a
                     compiler driver (gets -Wl,--emit-relocs); default:
                     guessed from the command's name (ld, ld.lld, *-ld...
                     are linkers, anything else a driver)
  -v, --verbose      print every command (also V=1 in the environment)
  -h, --help         show this help

Examples:
  $prog vmlinux -- ld -m elf_x86_64 -T vmlinux.lds head.o built-in.a
  $prog prog -- gcc -fuse-ld=lld main.o util.o
EOF
}

# Errors: "link-vmlinux.sh: <what>: <cause>" on stderr.
die()
{
	local status=$1
	shift
	echo "$prog: $*" >&2
	exit "$status"
}

usage_error()
{
	echo "$prog: $*" >&2
	echo "Try '$prog --help' for more information." >&2
	exit 2
}

# Kbuild-style progress line: "  LD      .tmp_image1".
progress()
{
	printf '  %-7s %s\n' "$1" "$2"
}

verbose=
case "${V:-}" in
*1*) verbose=1 ;;
esac

# Run a command, showing it first under -v / V=1.  The command goes to
# the script's stdout (fd 3) even when the caller captures the output.
exec 3>&1
run()
{
	if [[ -n $verbose ]]; then
		echo "+ ${*@Q}" >&3
	fi
	"$@"
}

# ---------------------------------------------------------------------
# Command line

max_passes=8
keep_relocs=
nop_sites=		# 1, 0 (--no-nop-sites), or empty: 1 with the runtime
allow_empty=
keep_temps=
linkpass=${LINKPASS:-}
objcopy=${OBJCOPY:-}
stats=
patchable=
tmp_base=
output=
scan_opts=()
table_opts=()
gen_cmds=()
reuse_table=

link_kind=

# Each option is parsed once: "--opt=value" and "--opt value" are split
# into opt and value first, then one case handles every option.
while [[ $# -gt 0 ]]; do
	opt=$1
	value=
	inline=
	case $opt in
	--*=*)
		value=${opt#*=}
		opt=${opt%%=*}
		inline=1
		;;
	esac
	case $opt in
	--max-passes | --linkpass | --scan-opt | --start-sym | --stop-sym | \
	--extra-gen | --tmpdir | --reuse-table | --objcopy)
		if [[ -z $inline ]]; then
			[[ $# -ge 2 ]] || usage_error "$opt: missing argument"
			value=$2
			shift
		fi
		;;
	--patchable-entries) ;;	# an optional =N,M
	*)
		[[ -z $inline ]] || usage_error "$opt: takes no argument"
		;;
	esac
	case $opt in
	--)
		shift
		break
		;;
	-h | --help)
		usage
		exit 0
		;;
	-v | --verbose) verbose=1 ;;
	--keep-relocs) keep_relocs=1 ;;
	--nop-sites) nop_sites=1 ;;
	--no-nop-sites) nop_sites=0 ;;
	--allow-empty) allow_empty=1 ;;
	--keep-temps) keep_temps=1 ;;
	--stats) stats=1 ;;
	--patchable-entries)
		patchable=1
		scan_opts+=("--patchable-entries${inline:+=$value}")
		;;
	--driver | --linker)
		[[ -z $link_kind || $link_kind == "${opt#--}" ]] ||
			usage_error "--driver and --linker: give at most one"
		link_kind=${opt#--}
		;;
	--max-passes) max_passes=$value ;;
	--linkpass) linkpass=$value ;;
	--scan-opt) scan_opts+=("$value") ;;
	--start-sym | --stop-sym) table_opts+=("$opt" "$value") ;;
	--extra-gen) gen_cmds+=("$value") ;;
	--tmpdir) tmp_base=$value ;;
	--reuse-table) reuse_table=$value ;;
	--objcopy) objcopy=$value ;;
	-?*)
		usage_error "$opt: unknown option"
		;;
	*)
		[[ -z $output ]] || usage_error "$opt: only one OUTPUT may be given (did you forget '--'?)"
		output=$opt
		;;
	esac
	shift
done

link_cmd=("$@")

[[ -n $output ]] || usage_error "no OUTPUT given"
[[ ${#link_cmd[@]} -gt 0 ]] || usage_error "no link command given after '--'"
[[ $max_passes =~ ^[1-9][0-9]*$ ]] ||
	usage_error "--max-passes: '$max_passes' is not a positive number"
[[ ! -d $output ]] || usage_error "$output: is a directory"

for arg in "${link_cmd[@]:1}"; do
	case $arg in
	-o | --output | --output=* | -Wl,-o,* | -Wl,--output*)
		usage_error "link command: must not contain '$arg' (the script chooses the output)"
		;;
	esac
done

out_dir=$(dirname -- "$output")
out_base=$(basename -- "$output")
[[ -d $out_dir ]] || die 1 "$output: directory '$out_dir' does not exist"
[[ -w $out_dir ]] || die 1 "$output: directory '$out_dir' is not writable"

# The linkpass binary: --linkpass, $LINKPASS, this repository's build,
# then PATH.
if [[ -z $linkpass ]]; then
	if [[ -x $repo_dir/linkpass/linkpass ]]; then
		linkpass=$repo_dir/linkpass/linkpass
	elif command -v linkpass >/dev/null 2>&1; then
		linkpass=$(command -v linkpass)
	else
		die 1 "linkpass: not found (run make, or pass --linkpass PATH)"
	fi
fi
if [[ $linkpass == */* ]]; then
	[[ -x $linkpass && ! -d $linkpass ]] ||
		die 1 "$linkpass: not an executable file"
else
	command -v "$linkpass" >/dev/null 2>&1 ||
		die 1 "$linkpass: not found in PATH"
fi

# A cross link (aarch64-linux-gnu-gcc, riscv64-linux-gnu-ld...) needs the
# objcopy of its target: the host's knows only its own machines.
if [[ -z $objcopy ]]; then
	objcopy=objcopy
	case $(basename -- "${link_cmd[0]}") in
	*-*-gcc | *-*-gcc-[0-9]* | *-*-cc | *-*-ld | *-*-ld.bfd)
		prefix=$(basename -- "${link_cmd[0]}")
		prefix=${prefix%-*}-
		! command -v "${prefix}objcopy" >/dev/null 2>&1 ||
			objcopy=${prefix}objcopy
		;;
	esac
fi
command -v "$objcopy" >/dev/null 2>&1 || [[ -n $keep_relocs ]] ||
	die 1 "$objcopy: not found (install binutils, or use --keep-relocs)"

# Keep relocations in the image: a linker takes --emit-relocs, a compiler
# driver passes it on with -Wl.  --linker/--driver say which; else the
# command's name decides (a wrapper with another name needs the switch).
if [[ -z $link_kind ]]; then
	case $(basename -- "${link_cmd[0]}") in
	ld | ld.bfd | ld.gold | ld.lld | ld.lld-* | ld.mold | lld | lld-* | mold | \
	*-ld | *-ld.bfd | *-ld.gold | *-ld.lld | *-ld.mold)
		link_kind=linker
		;;
	*)
		link_kind=driver
		;;
	esac
fi
if [[ $link_kind == linker ]]; then
	relocs_flag=--emit-relocs
else
	relocs_flag=-Wl,--emit-relocs
fi

# What the link command says about the program: the runtime linked in
# (then the NOPs are written at link time unless --no-nop-sites), and
# gcc's link-time code generation (-flto) with or without -pg.
runtime_linked=
lto=
pg=
fentry=
for arg in "${link_cmd[@]:1}"; do
	case $arg in
	-llptrace | -l:liblptrace.a | */liblptrace.a | liblptrace.a | \
	*/lptrace-dso.o | lptrace-dso.o)
		runtime_linked=1
		;;
	-flto | -flto=*) lto=1 ;;
	-fno-lto) lto= ;;
	-pg | -p) pg=1 ;;
	-mfentry) fentry=1 ;;
	esac
done
if [[ -z $nop_sites && -n $runtime_linked ]]; then
	nop_sites=1
fi
[[ $nop_sites != 0 ]] || nop_sites=

# gcc instruments -flto code when it generates it, at link time, and only
# with -pg on the link line (the objects do not record -pg).  gcc_lto_pg:
# that case; gcc_lto_no_pg: -flto without -pg, whose table comes out empty.
gcc_lto_pg=
gcc_lto_no_pg=
cc_version=
if [[ $link_kind == driver && -n $lto ]]; then
	cc_version=$'\n'$("${link_cmd[0]}" -v 2>&1 || true)
fi
if [[ $cc_version == *$'\ngcc version '* ]]; then
	if [[ -n $pg ]]; then
		gcc_lto_pg=1
	else
		gcc_lto_no_pg=1
	fi
fi

# ---------------------------------------------------------------------
# Temporary files

tmp=
out_tmp=

cleanup()
{
	local status=$?

	if [[ -n $out_tmp && -e $out_tmp ]]; then
		rm -f -- "$out_tmp"
	fi
	if [[ -n $tmp && -d $tmp ]]; then
		if [[ -n $keep_temps ]]; then
			echo "$prog: temporary files kept in $tmp" >&2
		else
			rm -rf -- "$tmp"
		fi
	fi
	return "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

tmp_base=${tmp_base:-$out_dir}
[[ -d $tmp_base ]] || die 1 "--tmpdir: '$tmp_base' is not a directory"
tmp=$(mktemp -d "$tmp_base/.link-vmlinux.XXXXXX") ||
	die 1 "--tmpdir: cannot create a temporary directory in '$tmp_base'"

# gcc -flto -pg: two additions to each link.
# - -pg on the link line also links gprof's start file, gcrt1.o, whose
#   start-up and exit write gmon.out.  A spec file (gcc's -specs=, see
#   "Spec Files" in gcc's manual) hides -pg and -p from the start-file
#   spec only, with %>: the normal start file is linked, and -pg stays in
#   COLLECT_GCC_OPTIONS, where lto-wrapper takes it for code generation.
# - The code that calls the mcount symbol exists only after the archives
#   were searched, so an archive's definition (liblptrace.a's __fentry__)
#   would not be pulled and glibc's would be called through the GOT:
#   -u makes the linker pull it first.
lto_flags=()
if [[ -n $gcc_lto_pg ]]; then
	printf '%s\n' '%rename startfile link_vmlinux_startfile' '' \
		'*startfile:' '%>pg %>p %(link_vmlinux_startfile)' '' \
		>"$tmp/lto-pg.specs"
	lto_flags=("-specs=$tmp/lto-pg.specs")
	if [[ -n $fentry ]]; then
		lto_flags+=("-Wl,-u,__fentry__")
	else
		lto_flags+=("-Wl,-u,mcount")
	fi
fi

# ---------------------------------------------------------------------
# Steps

# link N OBJ...: link image N with the extra objects OBJ...
link()
{
	local n=$1 image=$tmp/.tmp_image$1 status=0
	shift

	progress LD ".tmp_image$n"
	run "${link_cmd[0]}" "$relocs_flag" "${lto_flags[@]}" -o "$image" \
		"${link_cmd[@]:1}" "$@" || status=$?
	if [[ $status -ne 0 ]]; then
		die "$status" "link $n: '${link_cmd[0]}' failed with status $status (its messages are above)"
	fi
	[[ -f $image ]] ||
		die 1 "link $n: '${link_cmd[0]}' exited 0 but wrote no image"
}

# link_try N OBJ...: link image N, returning the linker's status; its
# messages go to .tmp_link$N.log, not to the terminal.
link_try()
{
	local n=$1 image=$tmp/.tmp_image$1
	shift

	run "${link_cmd[0]}" "$relocs_flag" "${lto_flags[@]}" -o "$image" \
		"${link_cmd[@]:1}" "$@" >"$tmp/.tmp_link$n.log" 2>&1
}

# Run linkpass and propagate an error status.  scan and dump exit 0 or 2;
# check exits 0 (stable), 1 (differences) or 2.
lp()
{
	local status=0

	run "$linkpass" "$@" || status=$?
	if [[ $status -ge 2 ]]; then
		die "$status" "linkpass $1 ${2##*/}: failed with status $status (its message is above)"
	fi
	return "$status"
}

# scan N: table N from image N.
scan()
{
	local n=$1
	local own_opts=()	# the options scan takes and check does not

	[[ -z $stats ]] || own_opts=(--stats)
	[[ -z $allow_empty ]] || own_opts+=(--allow-empty)
	progress MCOUNT ".tmp_image$n"
	lp scan "$tmp/.tmp_image$n" -o "$tmp/.tmp_mcount$n.o" \
		"${own_opts[@]}" "${scan_opts[@]}" ||
		die 1 "linkpass scan .tmp_image$n: unexpected status $?"
}

# check N: 0 when the table in image N matches its sites, else 1; the
# report is kept in .tmp_check$N.log.
check()
{
	local n=$1 log=$tmp/.tmp_check$1.log status=0

	progress CHECK ".tmp_image$n"
	run "$linkpass" check "$tmp/.tmp_image$n" "${table_opts[@]}" \
		"${scan_opts[@]}" >"$log" 2>&1 || status=$?
	if [[ $status -ge 2 ]]; then
		cat -- "$log" >&2
		die "$status" "linkpass check .tmp_image$n: failed with status $status (its message is above)"
	fi
	if [[ -n $verbose ]]; then
		cat -- "$log"
	fi
	return "$status"
}

# gen N: run every hook on image N; its objects go into link N+1.
# Returns 0 when each object is byte-identical to the one linked into
# image N.
gen()
{
	local n=$1 i status=0 changed=0 obj prev

	for i in "${!gen_cmds[@]}"; do
		obj=$tmp/.tmp_gen$((i + 1))_$n.o
		prev=$tmp/.tmp_gen$((i + 1))_$((n - 1)).o
		progress GEN "${obj##*/}"
		rm -f -- "$obj"
		run bash -c "${gen_cmds[i]} \"\$@\"" "$prog" \
			"$tmp/.tmp_image$n" "$obj" || status=$?
		if [[ $status -ne 0 ]]; then
			die 1 "--extra-gen '${gen_cmds[i]}': failed with status $status on .tmp_image$n"
		fi
		[[ -f $obj ]] ||
			die 1 "--extra-gen '${gen_cmds[i]}': wrote no object $obj"
		if [[ ! -f $prev ]] || ! cmp -s -- "$prev" "$obj"; then
			changed=1
			if [[ -n $verbose ]]; then
				echo "$prog: --extra-gen '${gen_cmds[i]}': object changed after link $n"
			fi
		fi
	done
	return "$changed"
}

# gen_objs N: the hook objects made from image N.
gen_objs()
{
	local i

	gen_objs_list=()
	for i in "${!gen_cmds[@]}"; do
		gen_objs_list+=("$tmp/.tmp_gen$((i + 1))_$1.o")
	done
}

# Print at most 40 lines of a check report, indented, on stderr.
show_report()
{
	local lines

	lines=$(wc -l <"$1")
	sed -n '1,40s/^/    /p' -- "$1" >&2
	if [[ $lines -gt 40 ]]; then
		echo "    ... $((lines - 40)) more lines (--keep-temps keeps the whole report)" >&2
	fi
}

# ---------------------------------------------------------------------
# The link loop

n=1
gen_objs_list=()
table=

# --reuse-table: the table of the last successful run with the same link
# command and scan options goes into link 1.  check decides as for any
# image; a table that does not even link (a function it names is gone)
# is dropped and link 1 done again without it.
reused=
if [[ -n $reuse_table ]]; then
	printf '%s\n' "${link_cmd[@]}" -- "${scan_opts[@]}" >"$tmp/.tmp_key"
	if [[ ${#gen_cmds[@]} -eq 0 && -f $reuse_table && -f $reuse_table.key ]] &&
		cmp -s -- "$tmp/.tmp_key" "$reuse_table.key"; then
		cp -- "$reuse_table" "$tmp/.tmp_mcount0.o"
		progress REUSE "${reuse_table##*/}"
		progress LD .tmp_image1
		if link_try 1 "$tmp/.tmp_mcount0.o"; then
			reused=1
			table=$tmp/.tmp_mcount0.o
		else
			progress REUSE "dropped: link 1 failed with it"
		fi
	fi
fi
[[ -n $reused ]] || link 1

while :; do
	table_ok=
	hooks_ok=

	# Image 1 carries no table, so it cannot be stable unless it has no
	# sites at all; check it only when there is no other pass to run.
	if [[ $n -gt 1 || $n -eq $max_passes || -n $reused ]]; then
		check "$n" && table_ok=1
	fi
	if [[ ${#gen_cmds[@]} -gt 0 ]]; then
		gen "$n" && [[ $n -gt 1 ]] && hooks_ok=1
	else
		hooks_ok=1
	fi
	if [[ -n $table_ok && -n $hooks_ok ]]; then
		break
	fi

	if [[ $n -ge $max_passes ]]; then
		links="links"
		[[ $n -gt 1 ]] || links="link"
		echo "$prog: $output: not stable after $n $links (--max-passes $max_passes)" >&2
		if [[ -z $table_ok ]]; then
			echo "$prog: $output: linkpass check still reports for .tmp_image$n:" >&2
			show_report "$tmp/.tmp_check$n.log"
		fi
		if [[ -z $hooks_ok ]]; then
			echo "$prog: $output: --extra-gen objects still change from link to link" >&2
		fi
		exit 1
	fi

	# A table that check accepted still fits; only a hook changed.
	if [[ -z $table_ok ]]; then
		scan "$n"
		table=$tmp/.tmp_mcount$n.o
	fi
	gen_objs "$n"
	n=$((n + 1))
	link "$n" "$table" "${gen_objs_list[@]}"
done

image=$tmp/.tmp_image$n

# gcc -flto without -pg on the link line: the code was generated without
# the calls, whatever the objects were compiled with.
if [[ -n $gcc_lto_no_pg && -z $allow_empty ]]; then
	lp dump "$image" "${table_opts[@]}" >"$tmp/.tmp_dump_lto" ||
		die 1 "linkpass dump .tmp_image$n: unexpected status"
	[[ -s $tmp/.tmp_dump_lto ]] ||
		die 1 "$output: empty table: gcc -flto generates code at link time and instruments it only with -pg there: add -pg (and -mfentry) to the link command, or give --allow-empty"
fi

# ---------------------------------------------------------------------
# --patchable-entries: the compiler's lists (one per object) were linked
# in so that check could compare the table with them; the output drops
# them.  Discarding a section may move others (lld places it before
# .text), so the discarding link is checked against the stable image:
# every table entry must name the same function, offset and section.
if [[ -n $patchable ]]; then
	frag=$tmp/.tmp_discard.ld
	printf '%s\n' 'SECTIONS' '{' \
		'	/DISCARD/ : { *(__patchable_function_entries) }' \
		'}' 'INSERT AFTER .text;' >"$frag"
	if [[ $link_kind == linker ]]; then
		frag_args=(-T "$frag")
	else
		frag_args=("-Wl,-T,$frag")
	fi
	# the objects linked into the stable image are still listed
	n=$((n + 1))
	link "$n" "$table" "${gen_objs_list[@]}" "${frag_args[@]}"
	lp dump "$image" "${table_opts[@]}" | cut -d' ' -f2- \
		>"$tmp/.tmp_names_before" ||
		die 1 "linkpass dump ${image##*/}: unexpected status"
	image=$tmp/.tmp_image$n
	lp dump "$image" "${table_opts[@]}" | cut -d' ' -f2- \
		>"$tmp/.tmp_names_after" ||
		die 1 "linkpass dump ${image##*/}: unexpected status"
	if ! cmp -s -- "$tmp/.tmp_names_before" "$tmp/.tmp_names_after"; then
		echo "$prog: $output: discarding __patchable_function_entries moved the table's sites (linkpass dump, function+offset, before/after):" >&2
		diff -- "$tmp/.tmp_names_before" "$tmp/.tmp_names_after" | sed -n '1,40s/^/    /p' >&2 || true
		exit 1
	fi
fi

# ---------------------------------------------------------------------
# OUTPUT, written atomically: a temporary file next to it, then mv.

out_tmp=$(mktemp "$out_dir/.$out_base.XXXXXX") ||
	die 1 "$output: cannot create a temporary file in '$out_dir'"

if [[ -n $keep_relocs ]]; then
	progress CP "$output"
	run cp -- "$image" "$out_tmp"
else
	# Only static relocations go; .rela.dyn and .rela.plt are allocated
	# sections and objcopy keeps them.  The guard makes sure the table
	# still reads the same (a PIE's table lives in .rela.dyn when lld
	# leaves zeros in the section).
	progress OBJCOPY "$output"
	status=0
	run "$objcopy" --remove-relocations='*' "$image" "$out_tmp" || status=$?
	[[ $status -eq 0 ]] ||
		die 1 "$output: $objcopy --remove-relocations failed with status $status"
	lp dump "$image" "${table_opts[@]}" >"$tmp/.tmp_dump_before" ||
		die 1 "linkpass dump .tmp_image$n: unexpected status"
	lp dump "$out_tmp" "${table_opts[@]}" >"$tmp/.tmp_dump_after" ||
		die 1 "linkpass dump $output: unexpected status"
	if ! cmp -s -- "$tmp/.tmp_dump_before" "$tmp/.tmp_dump_after"; then
		echo "$prog: $output: stripping relocations changed the table (linkpass dump before/after):" >&2
		diff -- "$tmp/.tmp_dump_before" "$tmp/.tmp_dump_after" | sed -n '1,40s/^/    /p' >&2 || true
		exit 1
	fi
fi
# --nop-sites: the sites become NOPs in OUTPUT (linkpass nop checks
# each first, as the runtime would, and writes nothing if one is not a
# call to the mcount symbol); the table must read the same afterwards.
# The mcount symbols given to scan (--scan-opt --mcount-sym) are the
# ones nop accepts.
if [[ -n $nop_sites ]]; then
	nop_opts=()
	for i in "${!scan_opts[@]}"; do
		case ${scan_opts[i]} in
		--mcount-sym=*) nop_opts+=("${scan_opts[i]}") ;;
		--mcount-sym) nop_opts+=("${scan_opts[i]}=${scan_opts[i + 1]:-}") ;;
		esac
	done
	progress NOP "$output"
	lp dump "$out_tmp" "${table_opts[@]}" >"$tmp/.tmp_dump_nop_before" ||
		die 1 "linkpass dump $output: unexpected status"
	lp nop "$out_tmp" "${table_opts[@]}" "${nop_opts[@]}" ||
		die 1 "linkpass nop $output: unexpected status $?"
	lp dump "$out_tmp" "${table_opts[@]}" >"$tmp/.tmp_dump_nop_after" ||
		die 1 "linkpass dump $output: unexpected status"
	cmp -s -- "$tmp/.tmp_dump_nop_before" "$tmp/.tmp_dump_nop_after" ||
		die 1 "$output: linkpass nop changed the table"
fi
chmod --reference="$image" -- "$out_tmp"
run mv -f -- "$out_tmp" "$output"
out_tmp=

# The table linked into the image, for the next run.
if [[ -n $reuse_table && -n $table ]]; then
	if ! { cp -- "$table" "$reuse_table.tmp" &&
		cp -- "$tmp/.tmp_key" "$reuse_table.key.tmp" &&
		mv -f -- "$reuse_table.tmp" "$reuse_table" &&
		mv -f -- "$reuse_table.key.tmp" "$reuse_table.key"; }; then
		die 1 "--reuse-table: cannot write '$reuse_table'"
	fi
fi

progress LINKS "$n (stable)"
