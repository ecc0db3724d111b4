#!/usr/bin/env bash
# managed_benchmark runs to the end and prints its ratio. The ratio has no goal, so a nonzero exit means a
# benchmark failed or did not run.
set -uo pipefail
benchmark="$1"
out=$("$benchmark" --benchmark_min_time=0.0001 --benchmark_repetitions=1 2>&1)
status=$?
echo "$out"
if ((status != 0)); then echo "managed_benchmark exited with status $status" >&2; exit 1; fi
if grep -q "not measured" <<<"$out"; then echo "a ratio's benchmark did not run" >&2; exit 1; fi
grep -q "ratio: BM_PrefetchRoundTrip/real_time / BM_MemcpyRoundTrip/real_time = " <<<"$out" ||
  { echo "missing ratio" >&2; exit 1; }
echo "managed_benchmark smoke: OK"
