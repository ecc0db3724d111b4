#!/usr/bin/env bash
# hip_benchmark runs to the end: every configuration's child runs every benchmark without an error and prints
# every ratio. Timings this short prove nothing, so a missed goal (exit status 1) is not a failure here; a
# failed benchmark or a crashed child (exit status 2 and above) is.
set -uo pipefail
benchmark="$1"
out=$("$benchmark" --benchmark_min_time=0.0001 --benchmark_repetitions=1 --benchmark_color=false 2>&1)
status=$?
echo "$out"
if ((status > 1)); then echo "hip_benchmark exited with status $status" >&2; exit 1; fi
for configuration in "default" "cold allocations" "pageable copies through staging"; do
  grep -q "^==== configuration: $configuration" <<<"$out" || { echo "configuration $configuration did not run" >&2; exit 1; }
done
if grep -q "not measured" <<<"$out"; then echo "a ratio's benchmark did not run" >&2; exit 1; fi
grep -q "ratio: BM_HipMallocFree/1073741824/real_time / BM_HipMallocFree/4096/real_time" <<<"$out" || { echo "missing ratio: BM_HipMallocFree/1073741824/real_time / BM_HipMallocFree/4096/real_time" >&2; exit 1; }
grep -q "ratio: BM_PointerGetAttributes/1000000/real_time" <<<"$out" || { echo "missing ratio: BM_PointerGetAttributes/1000000/real_time" >&2; exit 1; }
echo "hip_benchmark smoke: OK"
