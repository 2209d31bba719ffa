#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel/export.sh TREE
#
# Writes linkpass into the Linux source tree TREE as an in-tree host
# program: scripts/linkpass/ gets a copy of the files linkpass/kernel-files
# lists, the kernel's subset of linkpass (scan, obj, check and nop, and
# what they need; the include/ headers they use too), unchanged, byte
# for byte, so that kernel/series.sh can verify a series against them;
# a .gitignore for the program, and a Kbuild makefile that builds them
# with HOSTCC and libelf when CONFIG_FTRACE_MCOUNT_USE_LINKPASS is set,
# as objtool and sorttable are built.  Its object list is the list's
# .c files.  scripts/Makefile descends into
# it, and MAINTAINERS gets the folder's entry.  Other files a series adds
# to the folder are left alone.  The files this repository keeps are
# the one source of truth: a series' tool patch is made from this output
# (kernel/series.sh generate), never edited.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

# The kernel set: the repository-relative paths of the files copied,
# as linkpass/kernel-files lists them (# starts a comment).
kernel_set() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$repo/linkpass/kernel-files"
}
if [ "${1:-}" = --list ]; then
	kernel_set
	exit 0
fi

[ $# -eq 1 ] || { echo "usage: $0 TREE | --list" >&2; exit 2; }
tree=$1
[ -e "$tree/scripts/Makefile" ] || { echo "export.sh: $tree: not a Linux source tree" >&2; exit 2; }

dst=$tree/scripts/linkpass
mkdir -p "$dst"
rm -f "$dst"/*.[ch] "$dst/Makefile"
files=$(kernel_set)
for f in $files; do
	cp "$repo/$f" "$dst/" || { echo "export.sh: $f: listed in linkpass/kernel-files, cannot copy" >&2; exit 1; }
done

objs=$(for f in $files; do basename "$f"; done | sed -n 's/\.c$/.o/p' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
{
	cat <<'EOF'
# SPDX-License-Identifier: GPL-2.0
#
# linkpass: the ftrace call-site table (__mcount_loc) of a whole linked
# image, made at final link (CONFIG_FTRACE_MCOUNT_USE_LINKPASS).  Its
# sources are kept in the linkpass repository and copied here unchanged.

hostprogs-always-$(CONFIG_FTRACE_MCOUNT_USE_LINKPASS) += linkpass
EOF
	printf 'linkpass-objs := '
	echo "$objs" | fold -s -w 60 | sed '2,$s/^/\t/; $!s/ *$/ \\/'
	cat <<'EOF'

HOST_EXTRACFLAGS += -D_GNU_SOURCE \
	$(shell $(HOSTPKG_CONFIG) libelf --cflags 2>/dev/null)
HOSTLDLIBS_linkpass := \
	$(shell $(HOSTPKG_CONFIG) libelf --libs 2>/dev/null || echo -lelf) \
	-lz -lpthread
EOF
} >"$dst/Makefile"
# the program built in the source tree is no file to commit
printf '# SPDX-License-Identifier: GPL-2.0-only\n/linkpass\n' >"$dst/.gitignore"

# scripts/Makefile descends into it (once).
if ! grep -q '^subdir-$(CONFIG_FTRACE_MCOUNT_USE_LINKPASS)' "$tree/scripts/Makefile"; then
	awk '
		/^subdir-\$\(CONFIG_GCC_PLUGINS\)/ && !done {
			print
			print "subdir-$(CONFIG_FTRACE_MCOUNT_USE_LINKPASS) += linkpass"
			done = 1
			next
		}
		{ print }
		END { if (!done) exit 1 }
	' "$tree/scripts/Makefile" >"$tree/scripts/Makefile.lp-tmp" ||
		{ echo "export.sh: $tree/scripts/Makefile: no subdir-\$(CONFIG_GCC_PLUGINS) line to add after" >&2; exit 1; }
	mv "$tree/scripts/Makefile.lp-tmp" "$tree/scripts/Makefile"
fi
# MAINTAINERS: the folder's entry (once), in its alphabetical place.
# The titles are not sorted throughout (some subsystems keep their own
# order), so the place is the boundary of the two sorted neighbours that
# share the longest prefix with the title.
title='LINKPASS (FTRACE MCOUNT TABLE AT FINAL LINK)'
if ! grep -qxF "$title" "$tree/MAINTAINERS"; then
	TITLE=$title NAME=${LINKPASS_SERIES_NAME:-$(git -C "$repo" config user.name || echo linkpass)} \
	EMAIL=${LINKPASS_SERIES_EMAIL:-$(git -C "$repo" config user.email || echo linkpass@localhost)} awk '
		function common(a, b,	n) {
			for (n = 0; n < length(a) && substr(a, n + 1, 1) == substr(b, n + 1, 1); n++)
				;
			return n
		}
		# first pass: titles (capitals, after an empty line, past the
		# preamble, which ends with the first "A:" entry at line 100+)
		NR == FNR {
			if (/^[A-Z0-9][^a-z]*$/ && prev == "" && FNR > 100)
				t[++nt] = $0 SUBSEP FNR
			prev = $0
			next
		}
		FNR == 1 {
			T = ENVIRON["TITLE"]
			for (i = 2; i <= nt; i++) {
				split(t[i - 1], a, SUBSEP)
				split(t[i], b, SUBSEP)
				if (a[1] < T && T < b[1]) {
					c = common(a[1], T)
					if (common(b[1], T) > c)
						c = common(b[1], T)
					if (c > best) { best = c; at = b[2] }
				}
			}
			if (!at)
				exit 1
		}
		FNR == at {
			print T
			print "M:\t" ENVIRON["NAME"] " <" ENVIRON["EMAIL"] ">"
			print "L:\tlinux-trace-kernel@vger.kernel.org"
			print "S:\tMaintained"
			print "F:\tscripts/linkpass/"
			print ""
		}
		{ print }
	' "$tree/MAINTAINERS" "$tree/MAINTAINERS" >"$tree/MAINTAINERS.lp-tmp" ||
		{ echo "export.sh: $tree/MAINTAINERS: no place for the entry" >&2; exit 1; }
	mv "$tree/MAINTAINERS.lp-tmp" "$tree/MAINTAINERS"
fi
echo "export.sh: $dst: $(ls "$dst" | wc -l) files"
