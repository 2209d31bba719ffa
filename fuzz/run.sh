#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh SECONDS HARNESS...: run each libFuzzer harness
# build/fuzz/fuzz_HARNESS for SECONDS (one process), starting
# from its saved corpus build/fuzz/corpus-HARNESS and the seeds in
# build/fuzz/seeds and fuzz/seeds.  Appends one line per run to
# build/fuzz/history.tsv (date, harness, seconds actually run,
# executions, corpus entries, result) -- the figures docs/hardening.md
# quotes.
# Fails when a harness finds a crash; the input is left as
# build/fuzz/artifacts/HARNESS-crash-* for tests/hardening/regressions/.
#
# FUZZ_SEED and FUZZ_RUNS, when set, pass -seed and -runs: the smoke run
# of make test uses them so that, from a clean clone, it executes the
# same inputs every time (a reproducible regression run, not a lottery);
# SECONDS then only caps a slow machine.
set -uo pipefail

secs=${1:?usage: run.sh SECONDS HARNESS...}
shift
cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." || exit 2

status=0
mkdir -p build/fuzz/artifacts
for h in "$@"; do
	bin=build/fuzz/fuzz_$h
	corpus=build/fuzz/corpus-$h
	log=build/fuzz/$h.log
	mkdir -p "$corpus"
	seeds=(build/fuzz/seeds)
	[[ -d fuzz/seeds ]] && seeds+=(fuzz/seeds)
	# One allocation of more than 2 GB is a finding (-malloc_limit_mb).
	# The process as a whole may grow further: AddressSanitizer keeps
	# 1-2 KB for every thread ever started (docs/hardening.md), and
	# fuzz_image starts several an input, so at 2,500 inputs a second
	# its RSS passes 2 GB within the hour with nothing of ours leaked.
	args=(-max_total_time="$secs" -timeout=10 -malloc_limit_mb=2048
	      -rss_limit_mb=8192
	      -max_len=65536 -print_final_stats=1
	      -artifact_prefix="build/fuzz/artifacts/$h-")
	[[ -n ${FUZZ_SEED:-} ]] && args+=(-seed="$FUZZ_SEED")
	[[ -n ${FUZZ_RUNS:-} ]] && args+=(-runs="$FUZZ_RUNS")
	echo "  FUZZ    $h for ${secs}s (log: $log)"
	start=$SECONDS
	out=$(mktemp -d)
	LINKPASS_FUZZ_OUT=$out "$bin" "${args[@]}" "$corpus" "${seeds[@]}" \
		>"$log" 2>&1
	rc=$?
	rm -rf -- "$out"
	elapsed=$((SECONDS - start))
	execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
		awk '{ n += $2 } END { print n + 0 }')
	entries=$(find "$corpus" -type f | wc -l)
	result=ok
	if [[ $rc -ne 0 ]]; then
		result="failed (exit $rc)"
		status=1
		grep -E 'ERROR|contract broken|SUMMARY|Test unit written' "$log" | head -20
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$h" \
		"$elapsed" "$execs" "$entries" "$result" >>build/fuzz/history.tsv
	echo "  FUZZ    $h: $execs executions in ${elapsed}s, $entries corpus entries: $result"
done
exit $status
