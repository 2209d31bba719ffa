# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154  # globals of test-kernel.sh and lib.sh
#
# kernel/modcost.sh: what the per-module mcount step costs, against the
# module links themselves.  Sourced by kernel/test-kernel.sh.
#
# Our .ko rule (scripts/Makefile.modfinal of the series) is the stock
# "ld -r" of the module, then "linkpass obj --check" (the table and its
# check) with "--nop" where the NOPs are written at link time (the 6.x
# series: "linkpass obj", "check" and "nop", three processes).  Kbuild saves that
# command line in .MODULE.ko.cmd; ko_step_cost replays it for every
# module of our build, into a scratch directory: all the ld -r links,
# then all the linkpass steps on what they wrote, ROUNDS times
# interleaved, and takes the median of each sum.  Stock's 7.x .ko rule
# is the ld -r alone (its table comes from the compiler).  On 6.1 the
# rule ends with the architecture's module postlink, which stock runs
# too: there it is counted in ours.
#
# Sets ko_count (modules replayed), ko_ld_ms (their links, summed) and
# ko_lp_ms (our steps, summed).

# ko_scripts DIR [BUILD_DIR]: write DIR/ld.sh (every module's ld -r,
# writing DIR/N.ko) and DIR/lp.sh (our steps on DIR/N.ko) from the saved
# commands of our build (or of BUILD_DIR), to run in that build's
# directory; prints the number of modules.
ko_scripts() {
	local dir=$1 b=${2:-} n=0 ko cmd ldpart lppart
	[ -n "$b" ] || b=$(bdir_of lp)
	: >"$dir/ld.sh"
	: >"$dir/lp.sh"
	while IFS= read -r ko; do
		cmd=$(sed -n "s|^savedcmd_$ko := ||p" "$b/$(dirname "$ko")/.$(basename "$ko").cmd")
		[ -n "$cmd" ] || die "$b: $ko: no saved command in its .cmd file"
		n=$((n + 1))
		# the link ends at the first ';', the steps follow it
		ldpart=${cmd%%;*}
		lppart=${cmd#*;}
		[ "$lppart" != "$cmd" ] ||
			die "$b: $ko: its saved command has no linkpass step"
		echo "${ldpart//$ko/$dir/$n.ko}" >>"$dir/ld.sh"
		echo "${lppart//$ko/$dir/$n.ko}" >>"$dir/lp.sh"
	done < <(built_kos "$b")
	echo "$n"
}

ko_step_cost() {
	local reps=$1 dir r t0 t1 t2
	local -a ld=() st=()
	dir=$res/kocost.$(pair_id)
	rm -rf "$dir"
	mkdir -p "$dir"
	ko_count=$(ko_scripts "$dir")
	for r in $(seq "$reps"); do
		stamp t0
		(cd "$(bdir_of lp)" && sh -e "$dir/ld.sh")
		stamp t1
		(cd "$(bdir_of lp)" && sh -e "$dir/lp.sh")
		stamp t2
		ld+=("$(ms "$t0" "$t1")")
		st+=("$(ms "$t1" "$t2")")
	done
	ko_ld_ms=$(median "${ld[@]}")
	ko_lp_ms=$(median "${st[@]}")
	rm -rf "$dir"
}
