#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel/bootfacts.sh LOG [FUNCTION]
#
# Reads the console log of a boot with the initramfs of
# kernel/initramfs.sh (the lines lpinit printed) and prints the facts
# the checks compare, one "name=value" a line:
#
#   errors               LPK-ERR lines (a command of the script failed)
#   stext                where _stext landed
#   available, invalid   available_filter_functions lines, and those
#                        named __ftrace_invalid_address___*
#   enabled, enabled_other   enabled_functions lines, and those not
#                        for FUNCTION
#   trace_lines, trace_other   function tracer records, and those for
#                        another function than FUNCTION
#   graph_lines, graph_func, graph_timed   function_graph lines, those
#                        that name FUNCTION, those with a duration
#   all_lines, all_funcs     records with every function traced, and the
#                        distinct functions in the first 2000
#   kprobe_refused       1 when the kprobe on FUNCTION was refused (EINVAL)
#   kprobe_lines, fprobe_lines   events of the kprobe and the fprobe on
#                        FUNCTION
#   profile_hits         the function profiler's count for FUNCTION
#   stack_lines          lines of the stack tracer's deepest stack
#   sys_lines            read(2) syscall events
#   boot_records, boot_converted, boot_update_us   ftrace_update_code()
#                        for vmlinux at boot (kernel/instrument); the
#                        time is empty where the clock had not started
#   mod_converted, mod_update_us   the same, summed over module loads
#   hello                test_module's "Hello, world" in the kernel log
#   mod_available        module lines of available_filter_functions
#   mod_trace_lines      records with the ':mod:binfmt_misc' filter
#   mod_after_rmmod, invalid_after_rmmod   what is left after rmmod
#   direct_enabled, direct_lines, direct_after   the direct-call sample:
#                        enabled_functions lines for wake_up_process
#                        with it loaded, its calls traced, and
#                        enabled_functions lines left after rmmod
#
# FUNCTION defaults to vfs_read, as in kernel/initramfs.sh.
set -eu

log=$1
func=${2:-vfs_read}

awk -v func_="$func" '
function body(line, prefix) { return substr(line, length(prefix) + 2) }
# the function of a function-tracer record: "... 1.2345: NAME <-CALLER"
function traced(s) { sub(/.*: /, "", s); sub(/ .*/, "", s); return s }
# A kprobe_events write refused with EINVAL is the kernel refusing a
# probe on an ftrace site (no KPROBES_ON_FTRACE): a fact of its own,
# with the failed enable of the event it did not make.
/^LPK-ERR .*\/kprobe_events: Invalid argument$/ { kprobe_refused = 1; next }
/^LPK-ERR .*\/lpk_kprobe\/enable: No such file or directory$/ { if (kprobe_refused) next }
/^LPK-ERR / { errors++ }
/^LPK-STEXT / { n = split(body($0, "LPK-STEXT"), w, " "); if (w[3] == "_stext") stext = w[1] }
/^LPK-AFF / { available++; if (index($0, "__ftrace_invalid_address")) invalid++ }
/^LPK-ENABLED / { enabled++; s = body($0, "LPK-ENABLED"); sub(/ .*/, "", s); if (s != func_) enabled_other++ }
/^LPK-T1 / {
	s = body($0, "LPK-T1")
	if (s ~ /^#/) next
	trace_lines++
	if (index(s, " " func_ " <-") == 0) trace_other++
}
/^LPK-G1 / {
	s = body($0, "LPK-G1")
	if (s ~ /^#/) next
	graph_lines++
	if (index(s, func_ "()")) graph_func++
	if (s ~ /[0-9] us /) graph_timed++
}
/^LPK-T2 / {
	s = body($0, "LPK-T2")
	if (s ~ /^#/) { t2_comments++; next }
	seen[traced(s)] = 1
}
/^LPK-T2-LINES / { all_lines = $2 - t2_comments }
/^LPK-KP / { if (index($0, "lpk_kprobe:")) kprobe_lines++ }
/^LPK-FP / { if (index($0, "lpk_fprobe:")) fprobe_lines++ }
/^LPK-PROF / { n = split(body($0, "LPK-PROF"), w, " "); if (w[1] == func_) profile_hits = w[2] }
/^LPK-STACK / { if (body($0, "LPK-STACK") ~ /^ *[0-9]+\)/) stack_lines++ }
/^LPK-SYS / { if (index($0, "sys_read(")) sys_lines++ }
/^LPK-FTUPD / {
	# "lpk-ftrace-update: NAME: N records, C converted, T ns"
	s = $0; sub(/.*lpk-ftrace-update: /, "", s)
	n = split(s, w, " ")
	if (w[1] == "vmlinux:") { boot_records = w[2]; boot_converted = w[4]; boot_ns = w[6] }
	else { mod_converted += w[4]; mod_ns += w[6] }
}
/^LPK-DIREN / { if (index($0, "wake_up_process")) direct_enabled++ }
/^LPK-DIRECT / { if (index($0, "waking up")) direct_lines++ }
/^LPK-DIREN2 / { direct_after++ }
/^LPK-HELLO / { hello++ }
/^LPK-MAFF / { mod_available++ }
/^LPK-T3 / { s = body($0, "LPK-T3"); if (s !~ /^#/) mod_trace_lines++ }
/^LPK-MAFF2 / { mod_after_rmmod++ }
/^LPK-INV2 / { invalid_after_rmmod++ }
END {
	for (k in seen) all_funcs++
	printf "errors=%d\nstext=%s\n", errors, stext
	printf "available=%d\ninvalid=%d\n", available, invalid
	printf "enabled=%d\nenabled_other=%d\n", enabled, enabled_other
	printf "trace_lines=%d\ntrace_other=%d\n", trace_lines, trace_other
	printf "graph_lines=%d\ngraph_func=%d\ngraph_timed=%d\n", graph_lines, graph_func, graph_timed
	printf "all_lines=%d\nall_funcs=%d\n", all_lines, all_funcs
	printf "hello=%d\nmod_available=%d\nmod_trace_lines=%d\n", hello, mod_available, mod_trace_lines
	printf "mod_after_rmmod=%d\ninvalid_after_rmmod=%d\n", mod_after_rmmod, invalid_after_rmmod
	printf "kprobe_refused=%d\n", kprobe_refused
	printf "kprobe_lines=%d\nfprobe_lines=%d\nprofile_hits=%d\nstack_lines=%d\nsys_lines=%d\n", kprobe_lines, fprobe_lines, profile_hits, stack_lines, sys_lines
	# 0 ns: local_clock() did not run yet when ftrace_init() did (arm64
	# before its timer starts the clock; x86 in some TCG boots): unknown
	printf "boot_records=%s\nboot_converted=%s\nboot_update_us=%s\n", boot_records, boot_converted, (boot_records == "" || boot_ns == 0) ? "" : sprintf("%.1f", boot_ns / 1000)
	printf "mod_converted=%d\nmod_update_us=%.1f\n", mod_converted, mod_ns / 1000
	printf "direct_enabled=%d\ndirect_lines=%d\ndirect_after=%d\n", direct_enabled, direct_lines, direct_after
}' "$log"
