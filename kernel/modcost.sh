# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154  # globals of test-kernel.sh and lib.sh
#
# kernel/modcost.sh: what the per-module mcount step costs, against the
# module links themselves.  Sourced by kernel/test-kernel.sh.
#
# Our .ko rule (scripts/Makefile.modfinal of the series) is the stock
# "ld -r" of the module, then its "MCOUNT [M]" step: scripts/linkpass
# writes the table as assembler, $(CC) assembles it, "ld -r" links it
# first into a relink of the .ko, and "linkpass --check" checks the result
# and writes the link-time states (the 6.x series: "linkpass obj", "check"
# and "nop", in the saved command).  Kbuild saves the link's command in
# .MODULE.ko.cmd; ko_step_cost replays it for every module of our build,
# into a scratch directory, then our step on what it wrote, made from the
# same pieces (the relink: the saved link's linker and flags), ROUNDS
# times interleaved, and takes the median of each sum.  Stock's 7.x .ko
# rule is the ld -r alone.
#
# Sets ko_count (modules replayed), ko_ld_ms (their links, summed) and
# ko_lp_ms (our steps, summed).

# ko_scripts DIR [BUILD_DIR]: write DIR/ld.sh (every module's ld -r,
# writing DIR/N.ko) and DIR/lp.sh (our step on DIR/N.ko) from the saved
# commands of our build (or of BUILD_DIR), to run in that build's
# directory; prints the number of modules.
ko_scripts() {
	local dir=$1 b=${2:-} n=0 ko cmd ldpart lppart kp nop= relink cc
	[ -n "$b" ] || b=$(bdir_of lp)
	kp=$(kpad "$b")
	! has_link_nops "$b" && ! has_link_init "$b" || nop=--nop
	relink=$(readlink -f "$b/source")/scripts/linkpass/relink.lds
	cc="$(asm_cmd_of "$b") -DMODULE"
	: >"$dir/ld.sh"
	: >"$dir/lp.sh"
	while IFS= read -r ko; do
		cmd=$(sed -n "s|^savedcmd_$ko := ||p" "$b/$(dirname "$ko")/.$(basename "$ko").cmd")
		[ -n "$cmd" ] || die "$b: $ko: no saved command in its .cmd file"
		n=$((n + 1))
		ldpart=${cmd%%;*}
		echo "${ldpart//$ko/$dir/$n.ko}" >>"$dir/ld.sh"
		if [ -e "$b/scripts/linkpass/linkpass" ]; then
			# 7.x: the MCOUNT [M] step, which Kbuild does not save
			lppart="scripts/linkpass/linkpass $kp $dir/$n.ko >$dir/$n.S &&"
			lppart+=" $cc -c -o $dir/$n.mo $dir/$n.S &&"
			lppart+=" $(sed "s| -T [^ ]*module.lds -o .*| -T $relink -o $dir/$n.tmp $dir/$n.mo $dir/$n.ko|" <<<"$ldpart") &&"
			lppart+=" mv $dir/$n.tmp $dir/$n.ko &&"
			lppart+=" scripts/linkpass/linkpass --check $nop $kp $dir/$n.ko"
		else
			lppart=${cmd#*;}
			[ "$lppart" != "$cmd" ] ||
				die "$b: $ko: its saved command has no linkpass step"
			lppart=${lppart//$ko/$dir/$n.ko}
		fi
		echo "$lppart" >>"$dir/lp.sh"
	done < <(built_kos "$b")
	echo "$n"
}

# in_build SCRIPT: run SCRIPT in our build's directory, in the
# toolchain's environment; prints its milliseconds, timed inside that
# environment (a root toolchain's chroot costs nothing of it).
in_build() {
	on_tc sh -ec 'cd "$1"; s=$(date +%s%N); . "$2" >/dev/null; e=$(date +%s%N)
		echo $(((e - s) / 1000)) | awk "{ printf \"%.1f\", \$1 / 1000 }"' \
		sh "$(bdir_of lp)" "$1"
}

ko_step_cost() {
	local reps=$1 dir r
	local -a ld=() st=()
	dir=$res/kocost.$(pair_id)
	rm -rf "$dir"
	mkdir -p "$dir"
	ko_count=$(ko_scripts "$dir")
	for r in $(seq "$reps"); do
		ld+=("$(in_build "$dir/ld.sh")")
		st+=("$(in_build "$dir/lp.sh")")
	done
	ko_ld_ms=$(median "${ld[@]}")
	ko_lp_ms=$(median "${st[@]}")
	rm -rf "$dir"
}
