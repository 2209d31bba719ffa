#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/apt-private.sh DIR deb|deb-src "SUITE..." APT-GET-ARGS...
#
# Runs "apt-get APT-GET-ARGS" (in the current directory) against other
# Debian suites than the machine's, through a private apt configuration
# in DIR: its own source list, lists, cache and state.  The archive URI
# is read from the machine's own Debian source entry, so no host is
# named here.  The system's apt sources, lists and installed packages
# are never touched; use it to download (apt-get download, apt-get
# source), never to install.  deb-src lists source packages (apt-get
# source), deb binary ones.  The lists are updated once per DIR and
# KIND a day.  Exits 2 with one line on failure.
set -euo pipefail

die() { printf 'apt-private.sh: %s\n' "$*" >&2; exit 2; }

# The machine's Debian archive URI: the first "URIs:" of a deb822 entry
# whose suites are Debian's (not the security archive), else the first
# "deb URI SUITE" line of sources.list.
archive_uri() {
	local f u
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		u=$(awk '
			/^URIs:/ { uri = $2 }
			/^Suites:/ && uri != "" && $0 !~ /security/ { print uri; exit }
			/^$/ { uri = "" }' "$f")
		[ -n "$u" ] && { echo "$u"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		u=$(awk '$1 == "deb" && $0 !~ /security/ {
				for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f")
		[ -n "$u" ] && { echo "$u"; return; }
	done
}

# --uri: only print that URI (kernel/buildroot.sh's debootstrap uses it).
if [ "${1-}" = --uri ]; then
	u=$(archive_uri)
	[ -n "$u" ] || die "no Debian archive URI in /etc/apt/sources.list{,.d}"
	echo "$u"
	exit 0
fi

[ $# -ge 4 ] || die "usage: apt-private.sh DIR deb|deb-src \"SUITE...\" APT-GET-ARGS..."
dir=$1 kind=$2 suites=$3
shift 3
case $kind in deb | deb-src) ;; *) die "$kind: not deb or deb-src" ;; esac

uri=$(archive_uri)
[ -n "$uri" ] || die "no Debian archive URI in /etc/apt/sources.list{,.d}"

work=$dir/$kind
mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/cache"
list=$work/sources.list
want=$(for s in $suites; do
	echo "$kind [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main"
done)
opts=(
	-o "Dir::Etc::SourceList=$list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$work/lists"
	-o "Dir::Cache=$work/cache"
	-o "Dir::Cache::Archives=$work/archives"
	-o "Debug::NoLocking=1"
	-o "APT::Sandbox::User=root"
)
# update when the suites changed or the lists are a day old
if [ "$(cat "$list" 2>/dev/null)" != "$want" ] ||
   [ -z "$(find "$work/lists" -maxdepth 1 -name '*Sources*' -o -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | sed -n 1p)" ]; then
	echo "$want" >"$list"
	echo "apt-private.sh: updating the $kind lists of $suites (in $work)" >&2
	apt-get "${opts[@]}" -q update >"$work/update.log" 2>&1 ||
		die "apt-get update of the private lists failed; see $work/update.log"
fi
apt-get "${opts[@]}" "$@"
