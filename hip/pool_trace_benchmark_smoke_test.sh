#!/usr/bin/env bash
# pool_trace_benchmark replays a small trace in every configuration and prints each reserved/live ratio. The goal
# is not judged here (a small trace is not the benchmark's): exit status 1 (goal missed) passes; a failed replay,
# a crash, or a ratio that is missing, not finite or below 1 (the pool reserving less than is live) fails.
set -uo pipefail
benchmark="$1"
out=$("$benchmark" --trace_blocks=2 --trace_iterations=3 2>&1)
status=$?
echo "$out"
if ((status > 1)); then echo "pool_trace_benchmark exited with status $status" >&2; exit 1; fi
if grep -q "ERROR OCCURRED" <<<"$out"; then echo "a replay failed" >&2; exit 1; fi
lines=$(grep -c "^pool_trace: BM_PoolTrace/.* reserved/live = " <<<"$out")
if ((lines != 8)); then echo "expected 8 ratios, found $lines" >&2; exit 1; fi
bad=$(grep "^pool_trace: BM_PoolTrace/.* reserved/live = " <<<"$out" |
      awk '{ r = $NF; if (!(r ~ /^[0-9]+(\.[0-9]+)?$/) || r + 0 < 1) print }')
if [[ -n "$bad" ]]; then echo "ratio not finite or below 1: $bad" >&2; exit 1; fi
echo "pool_trace_benchmark smoke: OK"
