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
# configuration next to DEST (scripts/apt-private.sh), whose archive URI
# is read from the machine's own Debian source entry.  The system's apt
# sources, lists and installed packages are never touched, and nothing
# of the newer suite is installed: only the tarball is taken out of the
# .deb.  Exits 2 with one line on failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
die() { printf 'fetch-source.sh: %s\n' "$*" >&2; exit 2; }

[ $# -eq 2 ] || die "usage: fetch-source.sh VERSION DEST.tar.xz"
v=$1
dest=$2
[ -e "$dest" ] && exit 0

# The suites asked, newest stable first: a backport is built for a
# released suite, sid only has what is newer still.
suites=${LINKPASS_SOURCE_SUITES:-"trixie-backports trixie sid"}

work=$(dirname "$dest")/apt-private
mkdir -p "$work/deb"
echo "fetch-source.sh: linux-source-$v from $suites (private apt lists in $work)"
rm -f "$work/deb"/*.deb
(cd "$work/deb" && "$here/../scripts/apt-private.sh" "$work" deb "$suites" \
	-q download "linux-source-$v") >"$work/download.log" 2>&1 ||
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
