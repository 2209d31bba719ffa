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
# (kernel/series.sh refresh), never edited.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 TREE" >&2; exit 2; }
tree=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
[ -e "$tree/scripts/Makefile" ] || { echo "export.sh: $tree: not a Linux source tree" >&2; exit 2; }

dst=$tree/scripts/linkpass
mkdir -p "$dst"
rm -f "$dst"/*.[ch] "$dst/Makefile"
# the kernel's files, one path a line (# comments), from the repository's top
files=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$repo/linkpass/kernel-files")
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
# MAINTAINERS: the folder's entry (once), where its title sorts.
title='LINKPASS (FTRACE MCOUNT TABLES AT FINAL LINK)'
if ! grep -qxF "$title" "$tree/MAINTAINERS"; then
	TITLE=$title NAME=$(git -C "$repo" config user.name) \
	EMAIL=$(git -C "$repo" config user.email) awk '
		# a section title: capitals, after an empty line, past the
		# preamble (which ends at the first "A:" title)
		/^[A-Z0-9][^a-z]*$/ && prev == "" && NR > 100 && !done &&
		    $0 > ENVIRON["TITLE"] {
			print ENVIRON["TITLE"]
			print "M:\t" ENVIRON["NAME"] " <" ENVIRON["EMAIL"] ">"
			print "L:\tlinux-trace-kernel@vger.kernel.org"
			print "S:\tMaintained"
			print "F:\tscripts/linkpass/"
			print ""
			done = 1
		}
		{ print; prev = $0 }
		END { if (!done) exit 1 }
	' "$tree/MAINTAINERS" >"$tree/MAINTAINERS.lp-tmp" ||
		{ echo "export.sh: $tree/MAINTAINERS: no place for the entry" >&2; exit 1; }
	mv "$tree/MAINTAINERS.lp-tmp" "$tree/MAINTAINERS"
fi
echo "export.sh: $dst: $(ls "$dst" | wc -l) files"
