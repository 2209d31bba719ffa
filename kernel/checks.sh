# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# (SC2034/SC2154: the three test-kernel files share their globals.)
#
# kernel/checks.sh: the assertions of `make test-kernel` for one kernel
# version and toolchain, sourced by kernel/test-kernel.sh after both
# builds booted.  Each group is a function; every assertion goes
# through check(), which counts failures and never stops the run.
#
# Inputs (set by the caller): v, tc, lp (linkpass), res (results dir),
# sv/ov (stock/our vmlinux), sl/ol (stock/our boot logs), n_stock/n_lp
# (entries the boots allocated).  Outputs: the variables the summary
# line prints (t_lp, zeroed_lp, m, s_zeroed, i, k, only_lp, ...).

failures=${failures:-0}
# check WHAT EXIT-STATUS: count, never stop at, a failure.
check() {
	if [ "$2" = 0 ]; then
		say "[$v $tc] ok: $1"
	else
		say "[$v $tc] FAIL: $1"
		failures=$((failures + 1))
	fi
}
is() { [ "$@" ] && echo 0 || echo 1; }

# The number in "zeroed N entries" of a check output, else 0.
zeroed_in() { sed -n 's/^zeroed \([0-9]*\) entries.*/\1/p' "$1" | sed -n 1p | grep . || echo 0; }

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
	sed -n 's/^LPK-AFF //p' "$sl" | LC_ALL=C sort >"$res/$v-$tc-stock.aff"
	sed -n 's/^LPK-AFF //p' "$ol" | LC_ALL=C sort >"$res/$v-$tc-lp.aff"
	grep -v '^__ftrace_invalid_address' "$res/$v-$tc-stock.aff" >"$res/$v-$tc-stock.valid.aff" || true
	m=$(grep -c '^__ftrace_invalid_address' "$res/$v-$tc-stock.aff" || true)
	i=$(grep -c '^__ftrace_invalid_address' "$res/$v-$tc-lp.aff" || true)
	only_stock=$(LC_ALL=C comm -23 "$res/$v-$tc-stock.valid.aff" "$res/$v-$tc-lp.aff" | wc -l)
	only_lp=$(LC_ALL=C comm -13 "$res/$v-$tc-stock.valid.aff" "$res/$v-$tc-lp.aff" | wc -l)
	say "[$v $tc] available_filter_functions: stock $(wc -l <"$res/$v-$tc-stock.aff") ($m invalid), ours $(wc -l <"$res/$v-$tc-lp.aff") ($i invalid); only in stock's valid: $only_stock, only in ours: $only_lp"
	check "boot printed the list ($(val "$ol" available) lines)" \
		"$([ "$(val "$ol" available)" = "$(wc -l <"$res/$v-$tc-lp.aff")" ] && [ -s "$res/$v-$tc-lp.aff" ]; echo $?)"
	check "ours lists every valid function of stock's" "$(is "$only_stock" = 0)"
	check "ours has no __ftrace_invalid_address entry" "$(is "$i" = 0)"
	if [ "$only_stock" != 0 ] || [ "$only_lp" != 0 ]; then
		LC_ALL=C comm -3 "$res/$v-$tc-stock.valid.aff" "$res/$v-$tc-lp.aff" | head -n 20 | sed 's/^/    /' || true
	fi
}

check_tracer() {
	k=$(val "$ol" trace_lines)
	check "function tracer with filter vfs_read recorded $k calls, $(val "$ol" trace_other) of others" \
		"$([ "${k:-0}" -gt 0 ] && [ "$(val "$ol" trace_other)" = 0 ]; echo $?)"
	check "enabled_functions lists only vfs_read" \
		"$([ "$(grep -c '^LPK-ENABLED ' "$ol")" = 1 ] && grep -q '^LPK-ENABLED vfs_read ' "$ol"; echo $?)"
	check "tracing every function: $(val "$ol" all_lines) records of $(val "$ol" all_funcs) functions" \
		"$([ "$(val "$ol" all_lines)" -gt 0 ] 2>/dev/null; echo $?)"
	grep '^LPK-TRACE ' "$ol" | head -n 3 | sed 's/^/    /' || true
}

# Our vmlinux: check exact, no zeroed entry, and upstream's zeroing step
# (nm -S + sorttable -s) finds nothing to zero or move in it.
check_our_table() {
	local c=0 tmp=$res/$v-$tc-lp.sorttable
	"$lp" check "$ov" >"$res/$v-$tc-lp.check" 2>&1 || c=$?
	zeroed_lp=$(zeroed_in "$res/$v-$tc-lp.check")
	check "linkpass check on our vmlinux: $(tail -n 1 "$res/$v-$tc-lp.check")" "$c"
	check "our table has no zeroed entry ($zeroed_lp)" "$(is "$zeroed_lp" = 0)"
	if ! has_zeroing "$v"; then
		say "[$v $tc] (stock $v has no nm -S + sorttable -s zeroing step to try on ours)"
		return
	fi
	cp "$ov" "$tmp.vmlinux"
	"$(nm_of "$tc")" -S "$tmp.vmlinux" >"$tmp.nm"
	c=0
	"$(bdir_of "$v" "$tc" lp)/scripts/sorttable" -s "$tmp.nm" "$tmp.vmlinux" || c=$?
	"$lp" dump "$ov" >"$tmp.before"
	"$lp" dump "$tmp.vmlinux" >"$tmp.after"
	# Entries it zeroed: none can be dead (check passed), so each is a
	# live function it missed (its bsearch over "nm -S" lines trips on
	# zero-size symbols at the function's address, e.g. clang's
	# __do_softirq after __softirqentry_text_start).
	LC_ALL=C comm -23 <(LC_ALL=C sort "$tmp.before") <(LC_ALL=C sort "$tmp.after") >"$tmp.lost"
	up_zeroed=$(wc -l <"$tmp.lost")
	check "upstream's nm -S + sorttable -s on our vmlinux finds no dead entry: it zeroes $up_zeroed, all live function entries it misses ($(awk '{ print $2 }' "$tmp.lost" | tr '\n' ' ')) (sorttable exit $c)" \
		"$([ "$c" = 0 ] && ! grep -q ' <none> ' "$tmp.lost" &&
			[ "$(grep -c '^0x0000000000000000 ' "$tmp.after" || true)" = "$up_zeroed" ]; echo $?)"
	rm -f "$tmp".*
}

# Stock's table against the final symbol table, and linkpass check on it.
check_stock_table() {
	local dead dead_init inside c=0 stale stale_init stale_named missing sites
	"$lp" dump "$sv" >"$res/$v-$tc-stock.dump"
	s_zeroed=$(grep -c '^0x0000000000000000 ' "$res/$v-$tc-stock.dump" || true)
	# An entry in no function ("<none>") that is not zero: an
	# overridden weak body, shown at boot as __ftrace_invalid_address
	# (or, in .init.text, freed unseen).
	dead=$(grep -v '^0x0000000000000000 ' "$res/$v-$tc-stock.dump" | grep -c ' <none> ' || true)
	dead_init=$(grep -c ' <none> \.init\.text$' "$res/$v-$tc-stock.dump" || true)
	inside=$(grep -v ' <none> ' "$res/$v-$tc-stock.dump" | grep -vc '+0x[04] ' || true)
	check "stock table: $s_zeroed zeroed, $dead in no function = $m invalid at boot + $dead_init in .init.text; $inside not at a function entry (+0, or +4 after endbr64)" \
		"$([ "$dead" = $((m + dead_init)) ] && [ "$inside" = 0 ]; echo $?)"
	check "stock table - dead - zeroed + functions only ours lists = our table ($t_stock - $dead - $s_zeroed + $only_lp == $t_lp)" \
		"$(is $((t_stock - dead - s_zeroed + only_lp)) = "$t_lp")"
	"$lp" check --allow-unsorted --max-list=0 "$sv" >"$res/$v-$tc-stock.check" 2>&1 || c=$?
	say "[$v $tc] linkpass check on stock vmlinux (exit $c): $(tail -n 1 "$res/$v-$tc-stock.check")"
	sites=$(tail -n 1 "$res/$v-$tc-stock.check" | sed -n 's/.* \([0-9]*\) call sites.*/\1/p')
	if [ "${sites:-0}" -lt $((t_lp / 2)) ]; then
		# objtool --mcount (clang) NOPs the calls; lld does not keep
		# their R_X86_64_NONE relocations, so linkpass sees few sites.
		say "[$v $tc] note: linkpass sees ${sites:-0} call sites in the objtool-NOPed stock vmlinux; stale entries judged by the dump above only"
		return
	fi
	stale=$(grep -c '^stale ' "$res/$v-$tc-stock.check" || true)
	stale_init=$(grep '^stale ' "$res/$v-$tc-stock.check" | grep -c ' \.init\.text' || true)
	stale_named=$(grep '^stale ' "$res/$v-$tc-stock.check" | grep -vc ' <none>' || true)
	missing=$(grep -c '^missing ' "$res/$v-$tc-stock.check" || true)
	check "linkpass check on stock: $stale stale = $m invalid at boot + $stale_init in .init.text; $(zeroed_in "$res/$v-$tc-stock.check") zeroed = $s_zeroed; $missing missing = $only_lp only ours lists; $stale_named inside a live function" \
		"$([ "$c" = "$([ $((stale + missing + s_zeroed)) = 0 ] && echo 0 || echo 1)" ] && [ "$stale" = $((m + stale_init)) ] && [ "$(zeroed_in "$res/$v-$tc-stock.check")" = "$s_zeroed" ] && [ "$missing" = "$only_lp" ] && [ "$stale_named" = 0 ]; echo $?)"
}

# The byte-level audit agrees with the relocation-based check once the
# relocations are gone (ours; stock when linkpass can see its sites).
check_byte_audit() {
	local kind img want got norel=$res/$v-$tc.norel
	for kind in lp stock; do
		img=$ov
		[ "$kind" = stock ] && img=$sv
		want=$(tail -n 1 "$res/$v-$tc-$kind.check" | sed "s|$img|IMAGE|")
		objcopy --remove-relocations='*' "$img" "$norel" 2>/dev/null ||
			llvm-objcopy --remove-relocations='*' "$img" "$norel"
		# (check exits 1 on findings: not an error here)
		got=$({ "$lp" check --byte-audit --allow-unsorted --max-list=0 "$norel" 2>&1 || true; } |
			tail -n 1 | sed "s|$norel|IMAGE|")
		# objtool --mcount (stock clang) turned the calls into NOPs:
		# no byte-level audit can tell those from other NOPs.
		if [ "$kind" = stock ] &&
			grep -q '^CONFIG_FTRACE_MCOUNT_USE_OBJTOOL=y' "$(bdir_of "$v" "$tc" stock)/.config"; then
			say "[$v $tc] byte-level audit of stock (its calls are NOPed by objtool --mcount, which the audit cannot see; not compared): $got"
			continue
		fi
		check "byte-level audit of $kind vmlinux without relocations agrees: $got" \
			"$(is "$want" = "$got")"
	done
	rm -f "$norel"
}

# Modules: tables, signatures, and what the boots printed about them.
check_modules() {
	local kind b f m name e_s e_l c
	mods=0
	module_entries=0
	for m in $MODULES_LOAD_ORDER; do
		mods=$((mods + 1))
		e_l=$(ko_entries "$lmods/$m.ko")
		e_s=$(ko_entries "$smods/$m.ko")
		module_entries=$((module_entries + e_l))
		c=0
		"$lp" check "$lmods/$m.ko" >"$res/$v-$tc-lp.$m.check" 2>&1 || c=$?
		check "module $m (installed, signed $(ko_signed "$lmods/$m.ko" && echo yes || echo no)): $e_l entries ours, $e_s stock; $(tail -n 1 "$res/$v-$tc-lp.$m.check" | sed 's|.*: ok:|ok:|')" \
			"$([ "$c" = 0 ] && ko_signed "$lmods/$m.ko"; echo $?)"
		c=0
		"$lp" check --allow-unsorted "$smods/$m.ko" >"$res/$v-$tc-stock.$m.check" 2>&1 || c=$?
		say "[$v $tc] linkpass check on stock $m.ko (exit $c): $(tail -n 1 "$res/$v-$tc-stock.$m.check")"
	done
	for kind in stock lp; do
		b=$sl
		[ "$kind" = lp ] && b=$ol
		for m in $MODULES_LOAD_ORDER; do
			check "$kind boot: insmod $m" "$(grep -q "^LPK insmod $m ok" "$b"; echo $?)"
			check "$kind boot: rmmod $m" "$(grep -q "^LPK rmmod $m ok" "$b"; echo $?)"
		done
		check "$kind boot: test_module's init ran (hello=$(val "$b" hello))" "$(is "$(val "$b" hello)" = 1)"
		check "$kind boot: rmmod leaves $(val "$b" mod_after_rmmod) module entries and $(val "$b" invalid_after_rmmod) invalid ones" \
			"$([ "$(val "$b" mod_after_rmmod)" = 0 ] && [ "$(val "$b" invalid_after_rmmod)" = 0 ]; echo $?)"
		sed -n 's/^LPK-MAFF //p' "$b" | LC_ALL=C sort >"$res/$v-$tc-$kind.maff"
		sed -n 's/^LPK-MTRACED //p' "$b" | LC_ALL=C sort >"$res/$v-$tc-$kind.mtraced"
	done
	maff_lp=$(wc -l <"$res/$v-$tc-lp.maff")
	maff_stock=$(wc -l <"$res/$v-$tc-stock.maff")
	check "module functions in available_filter_functions: ours $maff_lp, stock $maff_stock, $(LC_ALL=C comm -3 "$res/$v-$tc-stock.maff" "$res/$v-$tc-lp.maff" | wc -l) different" \
		"$([ "$maff_lp" -gt 0 ] && cmp -s "$res/$v-$tc-stock.maff" "$res/$v-$tc-lp.maff"; echo $?)"
	LC_ALL=C comm -3 "$res/$v-$tc-stock.maff" "$res/$v-$tc-lp.maff" | head -n 10 | sed 's/^/    /' || true
	u=$(val "$ol" mod_trace_lines)
	# every traced function is one of binfmt_misc's
	name=$(sed -n 's/ \[binfmt_misc\]$//p' "$res/$v-$tc-lp.maff" | LC_ALL=C sort)
	check "function tracer with ':mod:binfmt_misc' recorded $u calls to $(wc -l <"$res/$v-$tc-lp.mtraced") functions ($(tr '\n' ' ' <"$res/$v-$tc-lp.mtraced")), all binfmt_misc's" \
		"$([ "${u:-0}" -gt 0 ] && [ -z "$(LC_ALL=C comm -23 "$res/$v-$tc-lp.mtraced" <(echo "$name"))" ]; echo $?)"
}
