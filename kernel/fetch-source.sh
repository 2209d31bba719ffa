#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/fetch-source.sh VERSION DEST
#
# Puts Debian's linux-source-VERSION tarball at DEST (a .tar.xz path)
# when the machine's own suite does not ship that version: Linux 7.3 is
# in trixie-backports and 7.2 in sid, while the machine runs bookworm.
#
# The package is fetched with "apt-get download" through a private apt
# configuration (its own source list, lists, cache and state, next to
# DEST), whose archive URI is read from the machine's own Debian source
# entry.  The system's apt sources, lists and installed packages are
# never touched, and nothing of the newer suite is installed: only the
# tarball is taken out of the .deb.  Exits 2 with one line on failure.
set -euo pipefail

die() { printf 'fetch-source.sh: %s\n' "$*" >&2; exit 2; }

[ $# -eq 2 ] || die "usage: fetch-source.sh VERSION DEST.tar.xz"
v=$1
dest=$2
[ -e "$dest" ] && exit 0

# The suites asked, newest stable first: a backport is built for a
# released suite, sid only has what is newer still.
suites=${LINKPASS_SOURCE_SUITES:-"trixie-backports trixie sid"}

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

uri=$(archive_uri)
[ -n "$uri" ] || die "no Debian archive URI in /etc/apt/sources.list{,.d}: cannot fetch linux-source-$v"

work=$(dirname "$dest")/apt-private
mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/cache" "$work/deb"
: >"$work/sources.list"
for s in $suites; do
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main" >>"$work/sources.list"
done
apt_opts=(
	-o "Dir::Etc::SourceList=$work/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$work/lists"
	-o "Dir::Cache=$work/cache"
	-o "Dir::Cache::Archives=$work/archives"
	-o "Debug::NoLocking=1"
	-o "APT::Sandbox::User=root"
)

echo "fetch-source.sh: linux-source-$v from $suites (private apt lists in $work)"
apt-get "${apt_opts[@]}" -q update >"$work/update.log" 2>&1 ||
	die "apt-get update of the private lists failed; see $work/update.log"
rm -f "$work/deb"/*.deb
(cd "$work/deb" && apt-get "${apt_opts[@]}" -q download "linux-source-$v") >"$work/download.log" 2>&1 ||
	die "apt-get download linux-source-$v failed (is it in $suites?); see $work/download.log"
deb=$(find "$work/deb" -name "linux-source-${v}_*.deb" | sed -n 1p)
[ -n "$deb" ] || die "apt-get download left no linux-source-${v}_*.deb in $work/deb"

# Only the tarball, written next to DEST and renamed into place.
tmp=$dest.tmp.$$
trap 'rm -f "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$v.tar.xz" >"$tmp" ||
	die "$deb: no usr/src/linux-source-$v.tar.xz inside"
mv "$tmp" "$dest"
trap - EXIT
rm -f "$deb"
echo "fetch-source.sh: $dest ($(basename "$deb"))"
