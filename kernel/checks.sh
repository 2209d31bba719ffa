# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# (SC2034/SC2154: the three test-kernel files share their globals.)
#
# kernel/checks.sh: the assertions of `make test-kernel` for one kernel
# version and toolchain, sourced by kernel/test-kernel.sh after both
# builds booted.  Each group is a function; every assertion goes
# through check(), which counts failures and never stops the run.
#
# Inputs (set by the caller): v, arch, tc, lp (linkpass), res (results
# dir), sv/ov (stock/our vmlinux), sl/ol (stock/our boot logs, each with
# its facts in LOG.facts, kernel/bootfacts.sh), n_stock/n_lp (entries
# the boots allocated), pad (--patchable-entries=N,M for arm64 and
# riscv, empty for mcount calls), sites (--sites=nop where ours has its
# NOPs written at link time, else empty).  Outputs: the variables the summary
# line prints (t_lp, zeroed_lp, m, s_zeroed, i, k, g, only_lp, ...).

failures=${failures:-0}
# check WHAT EXIT-STATUS: count, never stop at, a failure.
check() {
	if [ "$2" = 0 ]; then
		say "[$v $arch $tc] ok: $1"
	else
		say "[$v $arch $tc] FAIL: $1"
		failures=$((failures + 1))
	fi
}
note() { say "[$v $arch $tc] $*"; }
is() { [ "$@" ] && echo 0 || echo 1; }
# Function names on stdin without ThinLTO's suffix of a promoted local
# (NAME.llvm.HASH, the hash its own build's), so that two builds' names
# compare.
unhashed() { sed 's/\.llvm\.[0-9]*//'; }


# Kbuild's default flow (7.x): vmlinux is stripped of its static
# relocations as stock strips them, whatever the series linked in.
check_default_flow() {
	case $v in 6.*) return ;; esac
	local kind
	for kind in stock lp; do
		readelf -SW "$(bdir_of "$kind")/vmlinux" |
			sed -n 's/^ *\[ *[0-9]*\] \(\.rel[^ ]*\) .*/\1/p' >"$res/$(pair_id)-$kind.relsecs"
	done
	check "ours keeps vmlinux's relocation sections as stock's: $(tr '\n' ' ' <"$res/$(pair_id)-lp.relsecs")(stock: $(tr '\n' ' ' <"$res/$(pair_id)-stock.relsecs"))" \
		"$(cmp -s "$res/$(pair_id)-stock.relsecs" "$res/$(pair_id)-lp.relsecs"; echo $?)"
	# the series reads the compiler's lists from vmlinux.o and each
	# module's own: none is left in what it ships
	if [ -n "$pad" ]; then
		local f left=
		for f in "$ov" "$(bdir_of lp)/vmlinux" "$lmods"/*.ko; do
			[ -e "$f" ] || continue
			! readelf -SW "$f" | grep -q ' __patchable_function_entries ' ||
				left="$left $(basename "$f")"
		done
		check "no __patchable_function_entries in our vmlinux.unstripped, vmlinux or installed modules (readelf -S)${left:+: left in$left}" \
			"$(is -z "$left")"
	fi
	note "size of the linked image: stock $(stat -c %s "$sv") bytes, ours $(stat -c %s "$ov") ($(basename "$ov")); vmlinux: stock $(stat -c %s "$(bdir_of stock)/vmlinux"), ours $(stat -c %s "$(bdir_of lp)/vmlinux")"
}

check_boots() {
	check "stock kernel boots (ftrace: allocating ${n_stock:-?} entries)" "$(is -n "$n_stock")"
	check "our kernel boots (ftrace: allocating ${n_lp:-?} entries)" "$(is -n "$n_lp")"
	check "no ftrace failure or kernel warning in our boot (_stext at $(val "$ol" stext))" \
		"$(! grep -qE 'ftrace (failed|faulted|bug)|Failed on|WARNING:|BUG:|Oops' "$ol"; echo $?)"
	local z
	t_lp=$("$lp" dump "$ov" | wc -l)
	t_stock=$("$lp" dump "$sv" | wc -l)
	# 6.12 prints the count less the zero entries it skipped
	z=$("$lp" dump "$sv" | grep -c '^0x0000000000000000 ' || true)
	check "our boot allocates our table size ($n_lp == $t_lp)" "$(is "$n_lp" = "$t_lp")"
	check "stock boot allocates stock table size less its $z zero entries ($n_stock == $t_stock - $z)" \
		"$(is "$n_stock" = $((t_stock - z)))"
}

# available_filter_functions of vmlinux, stock against ours.
check_filter_functions() {
	sed -n 's/^LPK-AFF //p' "$sl" | unhashed | LC_ALL=C sort >"$res/$(pair_id)-stock.aff"
	sed -n 's/^LPK-AFF //p' "$ol" | unhashed | LC_ALL=C sort >"$res/$(pair_id)-lp.aff"
	grep -v '^__ftrace_invalid_address' "$res/$(pair_id)-stock.aff" >"$res/$(pair_id)-stock.valid.aff" || true
	m=$(grep -c '^__ftrace_invalid_address' "$res/$(pair_id)-stock.aff" || true)
	i=$(grep -c '^__ftrace_invalid_address' "$res/$(pair_id)-lp.aff" || true)
	# Line by line, a name listed twice counts twice: where ftrace has no
	# invalid-address test (riscv), the dead body of an overridden weak
	# function shows under the name of the live function before it, so
	# stock lists that name once more than ours ("misnamed").
	only_lp=$(LC_ALL=C comm -13 "$res/$(pair_id)-stock.valid.aff" "$res/$(pair_id)-lp.aff" | wc -l)
	only_stock=$(LC_ALL=C comm -23 <(uniq "$res/$(pair_id)-stock.valid.aff") <(uniq "$res/$(pair_id)-lp.aff") | wc -l)
	misnamed=$(( $(LC_ALL=C comm -23 "$res/$(pair_id)-stock.valid.aff" "$res/$(pair_id)-lp.aff" | wc -l) - only_stock ))
	note "available_filter_functions: stock $(wc -l <"$res/$(pair_id)-stock.aff") ($m invalid, $misnamed more lines of a name ours lists fewer times), ours $(wc -l <"$res/$(pair_id)-lp.aff") ($i invalid); names only in stock's valid: $only_stock, lines only in ours: $only_lp"
	check "boot printed the list ($(val "$ol" available) lines)" \
		"$([ "$(val "$ol" available)" = "$(wc -l <"$res/$(pair_id)-lp.aff")" ] && [ -s "$res/$(pair_id)-lp.aff" ]; echo $?)"
	# A function our link dropped: with LD_DEAD_CODE_DATA_ELIMINATION
	# stock's per-object lists keep every traced function alive, but
	# our table is made after the link's garbage collection.
	gcd=0
	if [ "$only_stock" != 0 ]; then
		gcd=$(LC_ALL=C comm -23 <(uniq "$res/$(pair_id)-stock.valid.aff") <(uniq "$res/$(pair_id)-lp.aff") |
			LC_ALL=C comm -23 - <("$(tool_of "$arch" "$tc" nm)" "$ov" | awk '{ print $NF }' |
				unhashed | LC_ALL=C sort -u) |
			wc -l)
	fi
	check "ours lists every valid function of stock's that our link kept ($gcd others dropped by its garbage collection)" \
		"$([ "$only_stock" = "$gcd" ] &&
			{ [ "$gcd" = 0 ] || grep -q '^CONFIG_LD_DEAD_CODE_DATA_ELIMINATION=y' "$(bdir_of lp)/.config"; }; echo $?)"
	check "ours has no __ftrace_invalid_address entry" "$(is "$i" = 0)"
	if [ "$only_stock" != 0 ] || [ "$only_lp" != 0 ]; then
		LC_ALL=C comm -3 "$res/$(pair_id)-stock.valid.aff" "$res/$(pair_id)-lp.aff" | head -n 20 | sed 's/^/    /' || true
	fi
}

check_tracer() {
	k=$(val "$ol" trace_lines)
	check "function tracer with filter vfs_read recorded $k calls, $(val "$ol" trace_other) of others" \
		"$([ "${k:-0}" -gt 0 ] && [ "$(val "$ol" trace_other)" = 0 ]; echo $?)"
	check "enabled_functions lists only vfs_read" \
		"$([ "$(val "$ol" enabled)" = 1 ] && [ "$(val "$ol" enabled_other)" = 0 ]; echo $?)"
	g=$(val "$ol" graph_lines)
	check "function_graph tracer with set_graph_function vfs_read: $g lines, $(val "$ol" graph_func) calls of vfs_read, $(val "$ol" graph_timed) with a duration" \
		"$([ "$(val "$ol" graph_func)" -gt 0 ] && [ "$(val "$ol" graph_timed)" -gt 0 ]; echo $?)"
	check "tracing every function: $(val "$ol" all_lines) records, $(val "$ol" all_funcs) functions in the first 2000" \
		"$([ "$(val "$ol" all_lines)" -gt 0 ] 2>/dev/null; echo $?)"
	check "the boot script ran without a failing command ($(val "$ol" errors) LPK-ERR lines)" \
		"$(is "$(val "$ol" errors)" = 0)"
	grep '^LPK-T1 ' "$ol" | grep -v '^LPK-T1 #' | head -n 3 | sed 's/^/    /' || true
}

# Our vmlinux: check exact, no zeroed entry, and upstream's zeroing step
# (nm -S + sorttable -s) finds nothing to zero or move in it.
check_our_table() {
	local c=0 tmp=$res/$(pair_id)-lp.sorttable last
	if [ -z "$pad" ]; then
		"$lp" check $pad $sites "$ov" >"$res/$(pair_id)-lp.check" 2>&1 || c=$?
	else
		# vmlinux has no list of the compiler's pads (the series reads
		# them from vmlinux.o), and holds the link-time states: audit
		# the pads' bytes in the final link as it was before the
		# states were written (kernel/prewrite.sh), which the build's
		# own tool must then turn into our vmlinux, byte for byte
		last=$res/$(pair_id)-lp.prewrite
		"$here/prewrite.sh" "$(bdir_of lp)" "$last"
		"$lp" check --byte-audit $pad --max-list=0 "$last" >"$res/$(pair_id)-lp.check" 2>&1 || c=$?
		check "the build's own linkpass --check --nop on the final link before its writes gives our vmlinux, byte for byte" \
			"$(ktool --check --nop $(kpad "$(bdir_of lp)") "$last" >/dev/null 2>&1 && cmp -s "$last" "$ov"; echo $?)"
		rm -f "$last"
		check "the build's own linkpass --check passes on our vmlinux (its states written)" \
			"$(ktool --check $(kpad "$(bdir_of lp)") "$ov" >/dev/null 2>&1; echo $?)"
	fi
	zeroed_lp=$(zeroed_in "$res/$(pair_id)-lp.check")
	check "linkpass check on our vmlinux: $(tail -n 1 "$res/$(pair_id)-lp.check")" "$c"
	check "our table has no zeroed entry ($zeroed_lp)" "$(is "$zeroed_lp" = 0)"
	if ! has_zeroing "$v"; then
		note "(stock $v has no nm -S + sorttable -s zeroing step to try on ours)"
		return
	fi
	# Stock's sorttable (ours is built without the mcount sort, which
	# linkpass does), on a copy without the static relocations, which
	# the arm64 RELA sort would take for the table's own (GNU objcopy:
	# llvm-objcopy 14 has no --remove-relocations).
	"$(cross_of "$arch")objcopy" --remove-relocations='*' "$ov" "$tmp.vmlinux"
	"$(tool_of "$arch" "$tc" nm)" -S "$tmp.vmlinux" >"$tmp.nm"
	c=0
	"$(bdir_of stock)/scripts/sorttable" -s "$tmp.nm" "$tmp.vmlinux" || c=$?
	"$lp" dump "$ov" >"$tmp.before"
	"$lp" dump "$tmp.vmlinux" >"$tmp.after"
	# Entries it changed: none can be dead (check passed), so each is a
	# live function it missed (its bsearch over "nm -S" lines trips on
	# zero-size symbols at the function's address, e.g. clang's
	# __do_softirq after __softirqentry_text_start); each must have
	# become 0, nothing else.
	LC_ALL=C comm -23 <(LC_ALL=C sort "$tmp.before") <(LC_ALL=C sort "$tmp.after") >"$tmp.lost"
	up_zeroed=$(wc -l <"$tmp.lost")
	check "upstream's nm -S + sorttable -s on our vmlinux only zeroes live entries it misses: $up_zeroed ($(awk '{ print $1 "=" $2 }' "$tmp.lost" | tr '\n' ' ')) (sorttable exit $c)" \
		"$([ "$c" = 0 ] &&
			[ "$(grep -c '^0x0000000000000000 ' "$tmp.after" || true)" = "$up_zeroed" ]; echo $?)"
	rm -f "$tmp".*
}

# Stock's table against the final symbol table, and linkpass check on it.
check_stock_table() {
	local dead dead_init inside c=0 stale stale_init stale_named missing sites
	"$lp" dump "$sv" >"$res/$(pair_id)-stock.dump"
	s_zeroed=$(grep -c '^0x0000000000000000 ' "$res/$(pair_id)-stock.dump" || true)
	if [ -n "$pad" ]; then
		check_stock_pads
		return
	fi
	# An entry in no function ("<none>") that is not zero: an
	# overridden weak body, shown at boot as __ftrace_invalid_address
	# (or, in .init.text, freed unseen).
	dead=$(grep -v '^0x0000000000000000 ' "$res/$(pair_id)-stock.dump" | grep -c ' <none> ' || true)
	dead_init=$(grep -c ' <none> \.init\.text$' "$res/$(pair_id)-stock.dump" || true)
	stock_stale=$dead
	inside=$(grep -v ' <none> ' "$res/$(pair_id)-stock.dump" | grep -vc '+0x[04] ' || true)
	check "stock table: $s_zeroed zeroed, $dead in no function = $m invalid at boot + $misnamed listed under a live function's name + $dead_init in .init.text; $inside not at a function entry (+0, or +4 after endbr64)" \
		"$([ "$dead" = $((m + misnamed + dead_init)) ] && [ "$inside" = 0 ]; echo $?)"
	check "stock table - dead - zeroed - functions our link dropped + functions only ours lists = our table ($t_stock - $dead - $s_zeroed - $gcd + $only_lp == $t_lp)" \
		"$(is $((t_stock - dead - s_zeroed - gcd + only_lp)) = "$t_lp")"
	"$lp" check --allow-unsorted --max-list=0 "$sv" >"$res/$(pair_id)-stock.check" 2>&1 || c=$?
	note "linkpass check on stock vmlinux (exit $c): $(tail -n 1 "$res/$(pair_id)-stock.check")"
	sites=$(tail -n 1 "$res/$(pair_id)-stock.check" | sed -n 's/.* \([0-9]*\) call sites.*/\1/p')
	if [ "${sites:-0}" -lt $((t_lp / 2)) ]; then
		# objtool --mcount (clang) NOPs the calls; lld does not keep
		# their R_X86_64_NONE relocations, so linkpass sees few sites.
		note "note: linkpass sees ${sites:-0} call sites in the objtool-NOPed stock vmlinux; stale entries judged by the dump above only"
		return
	fi
	stale=$(grep -c '^stale ' "$res/$(pair_id)-stock.check" || true)
	stale_init=$(grep '^stale ' "$res/$(pair_id)-stock.check" | grep -c ' \.init\.text' || true)
	stale_named=$(grep '^stale ' "$res/$(pair_id)-stock.check" | grep -vc ' <none>' || true)
	missing=$(grep -c '^missing ' "$res/$(pair_id)-stock.check" || true)
	check "linkpass check on stock: $stale stale = $m invalid at boot + $misnamed listed under a live function's name + $stale_init in .init.text; $(zeroed_in "$res/$(pair_id)-stock.check") zeroed = $s_zeroed; $missing missing = $only_lp only ours lists; $stale_named inside a live function" \
		"$([ "$c" = "$([ $((stale + missing + s_zeroed)) = 0 ] && echo 0 || echo 1)" ] && [ "$stale" = $((m + misnamed + stale_init)) ] && [ "$(zeroed_in "$res/$(pair_id)-stock.check")" = "$s_zeroed" ] && [ "$missing" = "$only_lp" ] && [ "$stale_named" = 0 ]; echo $?)"
}

# Stock's table with -fpatchable-function-entry (arm64, riscv): the
# compiler's lists, linked.  Stock's vmlinux keeps no list of its own
# to check against, so the sites are the byte-level audit's: live
# functions with the pad the build compiled (a table read through the
# dynamic relocations where its bytes are zero, as on arm64).
check_stock_pads() {
	local c=0 out=$res/$(pair_id)-stock.check stale stale_init missing
	"$lp" check --byte-audit $pad --allow-unsorted --max-list=0 "$sv" >"$out" 2>&1 || c=$?
	note "linkpass check --byte-audit on stock vmlinux (exit $c): $(tail -n 1 "$out")"
	stale=$(grep -c '^stale ' "$out" || true)
	stale_init=$(grep '^stale ' "$out" | grep -c ' \.init\.text' || true)
	missing=$(grep -c '^missing ' "$out" || true)
	stock_stale=$stale
	# a stale entry is an overridden weak body: at boot it shows as
	# __ftrace_invalid_address, unless its .init.text was freed
	check "stock table: $s_zeroed zeroed; $stale stale = $m invalid at boot + $misnamed listed under a live function's name + $stale_init in .init.text; $missing missing = $only_lp only ours lists" \
		"$([ "$stale" = $((m + misnamed + stale_init)) ] && [ "$missing" = "$only_lp" ] && [ "$(zeroed_in "$out")" = "$s_zeroed" ]; echo $?)"
	check "stock table - stale - zeroed - functions our link dropped + functions only ours lists = our table ($t_stock - $stale - $s_zeroed - $gcd + $only_lp == $t_lp)" \
		"$(is $((t_stock - stale - s_zeroed - gcd + only_lp)) = "$t_lp")"
}

# check_pad_geometry KIND: the pads KIND's build compiled with
# (pad_opt_of: init/main.o's saved command line) are the ones its config
# implies (arch/*/Makefile): arm64's CALL_OPS 4,2; riscv's 8,4 with RVC
# (7.x takes RVC with gcc only from gcc 14: config.sh), else 4,2.
check_pad_geometry() {
	local b want got rvc=
	b=$(bdir_of "$1")
	case $arch in
	arm64) want=4,2 ;;
	riscv64)
		want=4,2
		if grep -q '^CONFIG_RISCV_ISA_C=y' "$b/.config"; then
			want=8,4 rvc=" (RVC)"
		fi
		;;
	*) return 0 ;;
	esac
	got=$(pad_opt_of "$b")
	got=${got#*=}
	check "$1 compiled its sites with -fpatchable-function-entry=${got:-?} (init/main.o's saved command), as its config$rvc implies: $want" \
		"$(is "$got" = "$want")"
}

# The byte-level audit agrees with the relocation-based check once the
# relocations are gone (ours; stock when linkpass can see its sites,
# which with patchable entries only the audit does).
check_byte_audit() {
	local kind img want got norel=$res/$(pair_id).norel
	for kind in lp stock; do
		img=$ov
		[ "$kind" = stock ] && img=$sv
		if [ -n "$pad" ]; then
			note "($kind's check above is the byte-level audit: nothing to compare it with)"
			continue
		fi
		want=$(tail -n 1 "$res/$(pair_id)-$kind.check" | sed "s|$img|IMAGE|")
		"$(cross_of "$arch")objcopy" --remove-relocations='*' "$img" "$norel"
		# (check exits 1 on findings: not an error here)
		# ours with its NOPs written at link time: the audit looks
		# for the NOP opening each function (--sites=nop)
		got=$({ "$lp" check --byte-audit $pad $([ "$kind" = stock ] || echo $sites) \
			--allow-unsorted --max-list=0 "$norel" 2>&1 || true; } |
			tail -n 1 | sed "s|$norel|IMAGE|")
		# objtool --mcount (stock clang) turned the calls into NOPs:
		# no byte-level audit can tell those from other NOPs.
		if [ "$kind" = stock ] &&
			grep -q '^CONFIG_FTRACE_MCOUNT_USE_OBJTOOL=y' "$(bdir_of stock)/.config"; then
			note "byte-level audit of stock (its calls are NOPed by objtool --mcount, which the audit cannot see; not compared): $got"
			continue
		fi
		check "byte-level audit of $kind vmlinux without relocations agrees: $got" \
			"$(is "$want" = "$got")"
	done
	# Without N,M the audit reads the pads' geometry from the table: it
	# must read the one our build compiled with (arm64 4,2; riscv's
	# CALL_OPS 4,2, or 8,4 with RVC).  Our vmlinux holds the link-time
	# states, which are not pads: the audit reads the final link as it
	# was before they were written (kernel/prewrite.sh).
	if [ -n "$pad" ]; then
		"$here/prewrite.sh" "$(bdir_of lp)" "$norel.pre"
		"$(cross_of "$arch")objcopy" --remove-relocations='*' "$norel.pre" "$norel"
		rm -f "$norel.pre"
		got=$({ "$lp" check --byte-audit --patchable-entries $sites \
			--allow-unsorted --max-list=0 "$norel" 2>&1 || true; } |
			sed -n 's/.*(-fpatchable-function-entry=\([0-9,]*\), read from the table.*/\1/p' |
			sed -n 1p)
		check "the byte-level audit without N,M reads the geometry our build compiled with: ${got:-none}, compiled ${pad#*=}" \
			"$(is "$got" = "${pad#*=}")"
	fi
	rm -f "$norel"
}

# linkpass check on a stock module.  With -fpatchable-function-entry
# (arm64, riscv) the stock loader takes the table from the compiler's
# list, __patchable_function_entries (FTRACE_CALLSITE_SECTION), which
# is also where check finds the sites: instead, "linkpass obj" on a
# copy counts the list's references and the dead ones it drops.
stock_ko_check() {
	local ko=$1 tmp out
	if [ -z "$pad" ] || readelf -SW "$ko" | grep -q ' __mcount_loc '; then
		"$lp" check --allow-unsorted $pad "$ko"
		return
	fi
	tmp=$(mktemp)
	cp "$ko" "$tmp"
	out=$("$lp" obj --stats $pad "$tmp" 2>&1) || { echo "$out"; rm -f "$tmp"; return 2; }
	rm -f "$tmp"
	out=$(sed -n 's/^linkpass obj [^:]*: //p' <<<"$out")
	echo "check: $ko: stock's table is the compiler's list: ${out:-no list}"
	case $out in *", 0 dropped)"|"") return 0 ;; *) return 1 ;; esac
}

# our_ko_check KO: linkpass check on one of our modules.  With pads the
# relink that added its table dropped the compiler's list, and the
# module holds the link-time states: the build's own tool checks it
# (it did before it wrote them, and does again, states and all).
our_ko_check() {
	if [ -z "$pad" ]; then
		"$lp" check $sites "$1"
	elif ktool --check $(kpad "$(bdir_of lp)") "$1"; then
		echo "check: $1: ok (scripts/linkpass --check $(kpad "$(bdir_of lp)"))"
	else
		return 1
	fi
}

# Modules: tables, signatures, and what the boots printed about them.
check_modules() {
	local kind b f m name e_s e_l c
	mods=0
	module_entries=0
	stock_module_entries=0
	for m in $(modules_of lp); do
		mods=$((mods + 1))
		e_l=$(ko_entries "$lmods/$m.ko" "$pad")
		e_s=$(ko_entries "$smods/$m.ko" "$pad")
		module_entries=$((module_entries + e_l))
		stock_module_entries=$((stock_module_entries + e_s))
		c=0
		our_ko_check "$lmods/$m.ko" >"$res/$(pair_id)-lp.$m.check" 2>&1 || c=$?
		check "module $m (installed, signed $(ko_signed "$lmods/$m.ko" && echo yes || echo no)): $e_l entries ours, $e_s stock; $(tail -n 1 "$res/$(pair_id)-lp.$m.check" | sed 's|.*: ok:|ok:|')" \
			"$([ "$c" = 0 ] && ko_signed "$lmods/$m.ko"; echo $?)"
		c=0
		stock_ko_check "$smods/$m.ko" >"$res/$(pair_id)-stock.$m.check" 2>&1 || c=$?
		note "linkpass check on stock $m.ko (exit $c): $(tail -n 1 "$res/$(pair_id)-stock.$m.check")"
	done
	for kind in stock lp; do
		b=$sl
		[ "$kind" = lp ] && b=$ol
		for m in $(modules_of "$kind"); do
			check "$kind boot: insmod $m" "$(grep -q "^LPK insmod $m ok" "$b"; echo $?)"
			check "$kind boot: rmmod $m" "$(grep -q "^LPK rmmod ${m//-/_} ok" "$b"; echo $?)"
		done
		check "$kind boot: test_module's init ran (hello=$(val "$b" hello))" "$(is "$(val "$b" hello)" = 1)"
		check "$kind boot: rmmod leaves $(val "$b" mod_after_rmmod) module entries, and $(val "$b" invalid_after_rmmod) invalid ones as at boot ($(val "$b" invalid))" \
			"$([ "$(val "$b" mod_after_rmmod)" = 0 ] && [ "$(val "$b" invalid_after_rmmod)" = "$(val "$b" invalid)" ]; echo $?)"
		sed -n 's/^LPK-MAFF //p' "$b" | unhashed | LC_ALL=C sort >"$res/$(pair_id)-$kind.maff"
		sed -n 's/^LPK-T3 //p' "$b" | grep -v '^#' |
			sed -n 's/.*: \([^ ]*\) <-.*/\1/p' | LC_ALL=C sort -u >"$res/$(pair_id)-$kind.mtraced"
	done
	maff_lp=$(wc -l <"$res/$(pair_id)-lp.maff")
	maff_stock=$(wc -l <"$res/$(pair_id)-stock.maff")
	check "module functions in available_filter_functions: ours $maff_lp, stock $maff_stock, $(LC_ALL=C comm -3 "$res/$(pair_id)-stock.maff" "$res/$(pair_id)-lp.maff" | wc -l) different" \
		"$([ "$maff_lp" -gt 0 ] && cmp -s "$res/$(pair_id)-stock.maff" "$res/$(pair_id)-lp.maff"; echo $?)"
	LC_ALL=C comm -3 "$res/$(pair_id)-stock.maff" "$res/$(pair_id)-lp.maff" | head -n 10 | sed 's/^/    /' || true
	u=$(val "$ol" mod_trace_lines)
	# every traced function is one of binfmt_misc's
	name=$(sed -n 's/ \[binfmt_misc\]$//p' "$res/$(pair_id)-lp.maff" | LC_ALL=C sort)
	check "function tracer with ':mod:binfmt_misc' recorded $u calls to $(wc -l <"$res/$(pair_id)-lp.mtraced") functions ($(tr '\n' ' ' <"$res/$(pair_id)-lp.mtraced")), all binfmt_misc's" \
		"$([ "${u:-0}" -gt 0 ] && [ -z "$(LC_ALL=C comm -23 "$res/$(pair_id)-lp.mtraced" <(echo "$name"))" ]; echo $?)"
}

# Every .ko our build made (modules.order): its table was written at its
# link (the series' .ko rule runs linkpass obj and check there), and
# linkpass check passes on it again here (a module whose only code is
# __init has no site and no table: check says so, and passes).  Sets
# built_modules (tables that pass), ko_files, and the sites of all
# modules, ours and stock's (all_module_entries, stock_all_module_entries).
check_built_modules() {
	local lb sb ko bad=0 c n
	lb=$(bdir_of lp)
	sb=$(bdir_of stock)
	built_modules=0 ko_files=0 all_module_entries=0 stock_all_module_entries=0
	: >"$res/$(pair_id)-lp.modules.check"
	while IFS= read -r ko; do
		ko_files=$((ko_files + 1))
		c=0
		our_ko_check "$lb/$ko" >>"$res/$(pair_id)-lp.modules.check" 2>&1 || c=$?
		if [ "$c" = 0 ]; then
			built_modules=$((built_modules + 1))
		elif [ "$bad" -lt 5 ]; then
			bad=$((bad + 1))
			note "module $ko: linkpass check failed (exit $c); see $res/$(pair_id)-lp.modules.check"
		fi
		all_module_entries=$((all_module_entries + $(ko_entries "$lb/$ko" "$pad")))
		[ ! -e "$sb/$ko" ] ||
			stock_all_module_entries=$((stock_all_module_entries + $(ko_entries "$sb/$ko" "$pad")))
	done < <(built_kos "$lb")
	check "every module of our build has its table and passes linkpass check: $built_modules of $ko_files .ko files; sites in all modules: ours $all_module_entries, stock $stock_all_module_entries" \
		"$(is "$ko_files" -gt 0 -a "$built_modules" = "$ko_files")"
	n=$(built_kos "$sb" | wc -l)
	check "stock built the same modules ($n .ko files)" "$(is "$n" = "$ko_files")"
	if [ "$(profile_of)" = big ]; then
		check "the big profile built at least 200 modules ($built_modules)" \
			"$(is "$built_modules" -ge 200)"
	fi
}

# Boot-time conversion of call sites to NOPs (kernel/instrument: the
# "lpk-ftrace-update" lines of ftrace_update_code()), vmlinux at boot
# and each module at load.  With the NOPs written at link time
# (FTRACE_MCOUNT_LINKPASS_NOP) ours must convert nothing.
check_boot_conversion() {
	local kind b
	for kind in stock lp; do
		b=$sl
		[ "$kind" = lp ] && b=$ol
		note "$kind: ftrace_update_code at boot: $(val "$b" boot_records) records, $(val "$b" boot_converted) converted, $(val "$b" boot_update_us) us; at module load: $(val "$b" mod_converted) converted, $(val "$b" mod_update_us) us"
	done
	check "the boot log has ftrace_update_code's line for vmlinux (stock and ours)" \
		"$([ -n "$(val "$sl" boot_records)" ] && [ -n "$(val "$ol" boot_records)" ]; echo $?)"
	if has_link_nops "$(bdir_of lp)" ||
	   { has_link_init "$(bdir_of lp)" && [ "$arch" = arm64 ]; }; then
		check "ours converts no site at boot or module load: their state was written at link time ($(val "$ol" boot_converted) + $(val "$ol" mod_converted))" \
			"$([ "$(val "$ol" boot_converted)" = 0 ] && [ "$(val "$ol" mod_converted)" = 0 ]; echo $?)"
	elif has_link_init "$(bdir_of lp)"; then
		# riscv: a module's distance to ftrace_caller is known at load
		check "ours converts no site of vmlinux at boot: their state was written at link time ($(val "$ol" boot_converted); modules at load: $(val "$ol" mod_converted))" \
			"$(is "$(val "$ol" boot_converted)" = 0)"
	fi
}

# The ftrace users distributions enable, each on vfs_read (or, for the
# direct-call sample, wake_up_process), stock against ours: each must
# work in ours, and give what it gives in stock.  What a config lacks
# is left out of the script (kernel/initramfs.sh) and here.
check_consumers() {
	local f s o cfg=$(bdir_of lp)/.config
	has() { grep -q "^CONFIG_$1=[ym]" "$cfg"; }
	# the same work gives the same counts; the stack tracer's deepest
	# stack may differ, so it must only be there
	for f in kprobe_lines:KPROBE_EVENTS:= fprobe_lines:FPROBE_EVENTS:= \
		 profile_hits:FUNCTION_PROFILER:= sys_lines:FTRACE_SYSCALLS:= \
		 stack_lines:STACK_TRACER:any; do
		IFS=: read -r name sym how <<<"$f"
		has "$sym" || { note "(no CONFIG_$sym here: $name not tested)"; continue; }
		s=$(val "$sl" "$name")
		o=$(val "$ol" "$name")
		# A kprobe on an ftrace site needs KPROBES_ON_FTRACE, else
		# check_ftrace_location() (kernel/kprobes.c) refuses it with
		# EINVAL.  riscv's site is the function's first byte and riscv
		# 6.12 has no KPROBES_ON_FTRACE: stock refuses the probe as
		# ours does, which is the kernel's limit, not the table's.
		if [ "$name" = kprobe_lines ] && ! has KPROBES_ON_FTRACE &&
			[ "$(val "$sl" kprobe_refused)" = 1 ] && [ "$(val "$ol" kprobe_refused)" = 1 ]; then
			note "KPROBE_EVENTS: the kprobe on vfs_read's entry, its ftrace site, is refused (EINVAL) by stock and by ours alike: this kernel has no KPROBES_ON_FTRACE"
			continue
		fi
		check "$sym: $name ours $o, stock $s" \
			"$([ "${o:-0}" -gt 0 ] && [ "${s:-0}" -gt 0 ] &&
				{ [ "$how" = any ] || [ "$o" = "$s" ]; }; echo $?)"
	done
	if has SAMPLE_FTRACE_DIRECT; then
		# Under LTO wake_up_process is mostly inlined: its out-of-line
		# body may see no call in the window, in both boots alike; then
		# the calls are not asked for (but attached and detached are)
		local calls_needed=1
		[ "$(val "$sl" direct_lines)" != 0 ] || [ "$(val "$ol" direct_lines)" != 0 ] ||
			! grep -qE '^CONFIG_LTO_CLANG_(THIN|FULL)=y' "$(bdir_of lp)/.config" || calls_needed=0
		for b in "$sl" "$ol"; do
			check "$([ "$b" = "$ol" ] && echo ours || echo stock): the direct-call sample attached to wake_up_process ($(val "$b" direct_enabled) enabled_functions line), called it $(val "$b" direct_lines) times$([ "$calls_needed" = 1 ] || echo ' (LTO: neither boot called it)'), and left nothing after rmmod ($(val "$b" direct_after))" \
				"$([ "$(val "$b" direct_enabled)" = 1 ] && { [ "$calls_needed" = 0 ] || [ "$(val "$b" direct_lines)" -gt 0 ]; } && [ "$(val "$b" direct_after)" = 0 ]; echo $?)"
		done
	fi
}

# The sorttable fix (kernel/sorttable-fix, separate from the series): on
# stock x86 (6.12, 7.3), relinked with the fixed sorttable, the table may
# only keep entries stock zeroed, each a live function's: with gcc at
# tinyconfig size nothing changes; with clang the live entries stock's
# sorttable zeroes at a shared address (__do_softirq) come back, and at
# defconfig size with gcc a function after one-letter absolute symbols
# (i2c_acpi_add_device).  A boot of the fixed build lists the first of
# them, which stock's boot does not list, and enables it as the only
# function of a filter (enabled_functions), which only a live record
# allows.  Its calls are counted too; they are asserted only where
# fix_must_trace=1 (run_sorttable_fix: __do_softirq, called in the trace
# window), since a function of boot-time probing (i2c_acpi_add_device)
# is not called again after boot.
# Sets fix_kept (entries the fix keeps), fix_name (the first of them)
# and fix_traced (its calls in the fixed build's boot) for the caller's
# summary.
check_sorttable_fix() {
	local sf before=$res/$(pair_id)-stock.dump after kept name log n boots
	fix_kept=0 fix_name= fix_traced=
	has_sorttable_fix || return 0
	sf=$(stock_with_sorttable_fix)
	after=$res/$(pair_id)-stockfix.dump
	kept=$res/$(pair_id)-stockfix.kept
	"$lp" dump "$sf/vmlinux" >"$after"
	# entries the fixed build keeps that stock zeroed
	LC_ALL=C comm -13 <(grep -v '^0x0000000000000000 ' "$before" | LC_ALL=C sort) \
		<(grep -v '^0x0000000000000000 ' "$after" | LC_ALL=C sort) >"$kept"
	n=$(wc -l <"$kept")
	check "the sorttable fix keeps $n entries stock's sorttable zeroed ($(awk '{ print $2 }' "$kept" | tr '\n' ' ')), all live functions, and zeroes no other" \
		"$(! grep -q ' <none> ' "$kept" &&
			[ "$(grep -vc '^0x0000000000000000 ' "$after")" = $(( $(grep -vc '^0x0000000000000000 ' "$before") + n )) ]; echo $?)"
	if [ "$n" = 0 ]; then
		note "the sorttable fix changes nothing in this build's table"
		return
	fi
	name=$(sed -n '1s/^[^ ]* \([^+ ]*\)+.*/\1/p' "$kept")
	fix_kept=$n fix_name=$name
	log=$res/$(pair_id)-stockfix.boot.log
	"$here/initramfs.sh" "$res/$(pair_id)-stockfix.cpio" "$(karch_of "$arch")" \
		"$sf/.config" "$name"
	# __do_softirq is called only when a softirq is pending as the boot
	# script's processes come and go in the trace window.  With 10 execs
	# many 7.3 clang19 boots recorded none (a run's 5 boots all empty;
	# 2 of 4 by hand); a longer sleep gave none in 4, 50 execs calls in
	# 6 of 6.  Where its calls are asserted, a boot whose trace is empty
	# is tried again, up to 5 boots (about 6 s each at this size).
	for boots in 1 2 3 4 5; do
		"$here/boot.sh" "$(karch_of "$arch")" "$sf/$(image_of "$arch")" \
			"$res/$(pair_id)-stockfix.cpio" "$log" >/dev/null || true
		"$here/bootfacts.sh" "$log" "$name" >"$log.facts"
		[ "${fix_must_trace:-0}" = 1 ] && [ "$(val "$log" trace_lines)" = 0 ] || break
	done
	fix_traced=$(val "$log" trace_lines)
	check "stock with the sorttable fix lists $name ($(grep -c "^LPK-AFF $name\$" "$log") lines; stock: $(grep -c "^LPK-AFF $name\$" "$sl")) and enables it alone ($(val "$log" enabled) enabled_functions line, $(val "$log" enabled_other) of others)" \
		"$(grep -q "^LPK-AFF $name\$" "$log" && ! grep -q "^LPK-AFF $name\$" "$sl" &&
			[ "$(val "$log" enabled)" = 1 ] && [ "$(val "$log" enabled_other)" = 0 ]; echo $?)"
	if [ "${fix_must_trace:-0}" = 1 ]; then
		check "stock with the sorttable fix traces $name ($fix_traced calls, $(val "$log" trace_other) of others; boot $boots of at most 5)" \
			"$([ "$fix_traced" -gt 0 ] && [ "$(val "$log" trace_other)" = 0 ]; echo $?)"
	else
		note "stock with the sorttable fix: $name called $fix_traced times in the trace window ($(val "$log" trace_other) records of others; its calls are asserted only in the reproducer, run_sorttable_fix)"
	fi
}

# The full builds' compiler and Kconfig warnings: ours may add none to
# stock's (the host tool is built with the kernel's host warnings,
# -Wmissing-prototypes among them).  Paths and line numbers are left out,
# so that a file the series changes still matches its stock warnings.
build_warnings() {
	sed -n '/warning:/p' "$res/$(pair_id)-$1.full.log" |
		sed -E "s#$(src_of "$1")/##g; s#$(bdir_of "$1")/##g; s#:[0-9]+(:[0-9]+)?:#:#" |
		LC_ALL=C sort -u
}
check_build_warnings() {
	local new said
	# a reused build dir (LINKPASS_KERNEL_REUSE=1) recompiles a few files
	# at most: comparing their warnings would pass saying nothing.  Every
	# full build compiles init/main.o.
	if ! grep -qE '^ +CC +init/main\.o$' "$res/$(pair_id)-lp.full.log" ||
		! grep -qE '^ +CC +init/main\.o$' "$res/$(pair_id)-stock.full.log"; then
		note "build warnings not compared: a reused build is not a full build"
		return
	fi
	new=$(LC_ALL=C comm -13 <(build_warnings stock) <(build_warnings lp))
	check "our build adds no warning to stock's ($(grep -c . <<<"$new") new${new:+: $(head -n 1 <<<"$new")})" \
		"$(is -z "$new")"
	# Kbuild's quiet lines only (MCOUNT, AS, MCHECK): a table that
	# passes its check prints no report
	said=$(grep -E '^(check|linkpass): ' "$res/$(pair_id)-lp.full.log" || true)
	check "our build prints no linkpass report when the tables are exact ($(grep -c . <<<"$said") lines${said:+: $(head -n 1 <<<"$said")})" \
		"$(is -z "$said")"
}
