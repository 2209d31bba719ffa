#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/postlink.sh VERSION:ARCH:TOOLCHAIN [PROFILE]
#
# Time the post-link mcount step again on the two build directories a
# kernel test left for that pair (PROFILE: distro, the default, or big):
# lib.sh's postlink_cost, the same 5 interleaved rounds as the test
# (stock's nm -S + sorttable -s against our scans, sorttable and check,
# and nop where the build writes NOPs, by the build's own in-tree
# scripts/linkpass/linkpass; the least work).  It prints the figures and
# puts them in place of the pair's in $cache/results/PAIR.facts, which
# kernel/report.py tabulates.  For a pair whose builds take long to
# redo (make test-kernel-big): the images are the ones the test built,
# checked and booted; only their timing is new.
set -euo pipefail
# shellcheck disable=SC2034,SC2154  # globals shared with lib.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${LINKPASS_KERNEL_CACHE:-/var/tmp/linkpass-kernel}
res=$cache/results

# shellcheck source=kernel/lib.sh
. "$here/lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: kernel/postlink.sh VERSION:ARCH:TOOLCHAIN [distro|big]" >&2
	exit 2
fi
IFS=: read -r v arch tc <<<"$1"
profile=${2:-distro}
[ -n "$tc" ] || die "$1: expected VERSION:ARCH:TOOLCHAIN"
case $profile in distro | big) ;; *) die "$profile: expected distro or big" ;; esac
facts=$res/$(pair_id).facts
[ -f "$facts" ] || die "$facts: no facts of this pair (run its kernel test first)"
for k in stock lp; do
	[ -e "$(bdir_of "$k")/vmlinux" ] || die "$(bdir_of "$k"): no build of this pair"
done

# the least-work yardstick, as the test builds it
make -s -C "$repo" build/bench/leastwork
leastwork=$repo/build/bench/leastwork

postlink_cost 5
postlink_say "[$v $arch $tc $profile]"

# the facts: the new figures (every pl_ line) in place of the old ones
tmp=$facts.tmp
grep -v '^pl_' "$facts" >"$tmp" || true
{
	postlink_facts
	echo "pl_retimed=$(date -u +%Y-%m-%dT%H:%MZ)"
} >>"$tmp"
mv "$tmp" "$facts"
say "[$v $arch $tc $profile] $facts: post-link figures replaced"
