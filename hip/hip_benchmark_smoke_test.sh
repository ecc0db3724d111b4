#!/usr/bin/env bash
# hip_benchmark runs to the end: every configuration's child runs every benchmark without an error and prints
# every ratio. Timings this short prove nothing, so a missed goal (exit status 1) is not a failure here; a
# failed benchmark or a crashed child (exit status 2 and above) is. The 10^6-allocation pointer queries are left
# out: making a million allocations takes a minute unoptimised and far longer under the sanitizers, and the
# 10^5 case runs the same code.
set -uo pipefail
benchmark="$1"
out=$("$benchmark" --benchmark_min_time=0.0001 --benchmark_repetitions=1 --benchmark_filter='-/1000000/' 2>&1)
status=$?
echo "$out"
if ((status > 1)); then echo "hip_benchmark exited with status $status" >&2; exit 1; fi
for configuration in "default" "cold allocations" "pageable copies through staging"; do
  grep -q "^==== configuration: $configuration" <<<"$out" || { echo "configuration $configuration did not run" >&2; exit 1; }
done
if grep "not measured" <<<"$out" | grep -qv "/1000000/"; then echo "a ratio's benchmark did not run" >&2; exit 1; fi
for ratio in "BM_HipMallocFree/1073741824/real_time / BM_HipMallocFree/4096/real_time" \
             "BM_PinnedRoundTrip/0/real_time / BM_FutexRoundTrip/real_time" \
             "BM_PageableCopy/67108864/1/real_time / BM_PinnedCopy/67108864/1/real_time" \
             "BM_PointerGetAttributes/100000/real_time / BM_StdMapLookup/100000/real_time"; do
  grep -q "ratio: $ratio = " <<<"$out" || { echo "missing ratio: $ratio" >&2; exit 1; }
done
echo "hip_benchmark smoke: OK"
