#!/bin/bash
# `hipmem bench --only trace_cost`: the launcher finds the program in its runfiles, runs it, and the table carries
# the program's goal row with a verdict (met or MISSED: this test does not judge the machine's speed).
set -uo pipefail
bench="$TEST_SRCDIR/hipmem/tools/hipmem_bench"
out="$TEST_TMPDIR/table.txt"
RUNFILES_DIR="$TEST_SRCDIR" "$bench" --repetitions 1 --only trace_cost -- --benchmark_min_time=0.01 >"$out"
status=$?
cat "$out"
fail() { echo "FAIL: $*"; exit 1; }
[[ $status -eq 0 || $status -eq 1 ]] || fail "exit status $status (0 or 1 expected: the program ran)"
head -1 "$out" | grep -q '^program  *ratio  *real  *cpu  *goal  *verdict$' || fail "no table header"
grep -Eq '^hip/trace_cost_benchmark +BM_TraceSitesOff/real_time / BM_CachedMallocFree/real_time +[0-9.]+ +[0-9.]+ +<= 0\.020 +(met|MISSED)$' "$out" ||
  fail "no goal row for the trace's off cost"
[[ $(grep -c '^hip/trace_cost_benchmark ' "$out") -eq 3 ]] || fail "not the program's three ratios"
grep -q '^hsa/' "$out" && fail "--only ran another program"
# A usage error is status 2 and runs nothing.
"$bench" --repetitions 0 >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "--repetitions 0 is not a usage error"
echo PASS
