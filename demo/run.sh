#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo/run.sh: what `make demo` does, from a fresh clone.
#   1. install missing Debian packages, build linkpass and the runtime;
#   2. generate a mid-size sample kernel (UNITS x FUNCS functions);
#   3. compile it with -pg -mfentry and link it through
#      scripts/link-vmlinux.sh with the runtime library (the passes show;
#      with the runtime the driver writes the NOPs at link time);
#   4. run it: the runtime checks every site at start, four threads run the
#      workload while tracing (function graph, streamed to trace.data) is
#      switched on and off for a subset;
#   5. print the first trace lines (lptrace dump), lptrace report, a
#      check of call counts against the sample's manifest (lptrace record
#      -- demo --count 3), and a summary line.
# Variables: UNITS (40), FUNCS (100), SEED (1), CC (gcc), LD (bfd),
# OUT (build/demo).
set -euo pipefail

top=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
UNITS=${UNITS:-40}
FUNCS=${FUNCS:-100}
SEED=${SEED:-1}
CC=${CC:-gcc}
LD=${LD:-bfd}
OUT=${OUT:-$top/build/demo}
jobs=$(nproc 2>/dev/null || echo 2)

step() { printf '\n== %s\n' "$*"; }

step "set-up: Debian packages, linkpass, runtime"
"$top/scripts/install-deps.sh" base
make -C "$top" -s all

step "sample kernel: $UNITS units x $FUNCS functions (seed $SEED)"
rm -rf "$OUT" && mkdir -p "$OUT/obj"
/usr/bin/python3 "$top/tests/samples/gen.py" --units "$UNITS" \
	--funcs-per-unit "$FUNCS" --seed "$SEED" --out "$OUT/src" >/dev/null
make -s -j"$jobs" -f "$top/demo/demo.mk" TOP="$top" OUT="$OUT" CC="$CC" objects
echo "compiled $(ls "$OUT"/obj/*.o | wc -l) objects with -pg -mfentry"

step "final link through scripts/link-vmlinux.sh"
make -s -f "$top/demo/demo.mk" TOP="$top" OUT="$OUT" CC="$CC" LD="$LD" link |
	tee "$OUT/link.log"
links=$(sed -n 's/^  LINKS   \([0-9]*\) .*/\1/p' "$OUT/link.log")
entries=$("$top/linkpass/linkpass" dump "$OUT/demo" | wc -l)
echo "table: $entries entries in __mcount_loc ($("$top/linkpass/linkpass" dump "$OUT/demo" | awk '{print $3}' | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}'))"

step "run: sites NOP'd at link time, checked at start; trace a subset while 4 threads run the workload"
lptrace=$top/lptrace/lptrace
cd "$OUT"
# Stream mode: a writer thread drains the rings to trace.data while the
# program runs; function-graph mode: entry and exit with durations.
LPTRACE_DATA=trace.data LPTRACE_GRAPH=1 ./demo 'u000[0-3]_*' | tee run.log
"$lptrace" dump -i trace.data --text >trace.txt
"$lptrace" dump -i trace.data --chrome >trace.json
echo "wrote trace.txt (ftrace function_graph text), trace.json (Chrome JSON, opens in Perfetto)"

step "first trace lines (${OUT#"$top"/}/trace.txt)"
awk '!/^#/ && n++ < 16' trace.txt

step "lptrace report -i trace.data (top 10 by total time)"
"$lptrace" report -i trace.data >report.txt
head -13 report.txt

step "call counts: lptrace record -- ./demo --count 3, against the sample's manifest"
"$lptrace" record --graph -o count.data -- ./demo --count 3
"$lptrace" report -i count.data -s name >count.txt
/usr/bin/python3 - "$OUT/src/manifest.json" count.txt <<'PY'
import json, sys
man = json.load(open(sys.argv[1]))
want = {}
for f in man["functions"]:
    if f["trace"] != "never" and f["calls_per_round"]:
        want[f["name"]] = want.get(f["name"], 0) + 3 * f["calls_per_round"]
want["workload"] = 1
got = {}
for line in open(sys.argv[2]):
    parts = line.split()
    if line.startswith("  ") and parts[-1] != "====================" and parts[-2].isdigit():
        got[parts[-1]] = got.get(parts[-1], 0) + int(parts[-2])   # statics share names
bad = sorted(n for n in want if got.get(n) != want[n])
extra = sorted(set(got) - set(want))
print(f"counts: {len(want) - len(bad)} of {len(want)} functions called as the manifest says"
      + (f"; differ: {bad[:5]}" if bad else "") + (f"; unexpected: {extra[:5]}" if extra else ""))
sys.exit(1 if bad or extra else 0)
PY

start="s/^demo: start: \([0-9]*\) sites, \([0-9]*\) NOP'd, \([0-9]*\) already NOPs, \([0-9]*\) refused.*"
sites=$(sed -n "$start/\1/p" run.log)
nopped=$(sed -n "$start/\2/p" run.log)
already=$(sed -n "$start/\3/p" run.log)
refused=$(sed -n "$start/\4/p" run.log)
traced=$(sed -n 's/^# lptrace report: .* calls=\([0-9]*\) .*/\1/p' report.txt)
dropped=$(sed -n 's/^# lptrace report: .* dropped=\([0-9]*\) .*/\1/p' report.txt)
[[ $sites == "$entries" ]] || { echo "demo: the runtime saw $sites sites, the table has $entries" >&2; exit 1; }
[[ $refused == 0 && $((nopped + already)) == "$sites" && $traced -gt 0 ]] ||
	{ echo "demo: unexpected result (see above)" >&2; exit 1; }
echo
echo "demo: sites=$sites nopped=$nopped already=$already refused=$refused traced_calls=$traced links=$links dropped=$dropped"
