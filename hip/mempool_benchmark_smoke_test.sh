#!/usr/bin/env bash
# mempool_benchmark runs to the end and prints every ratio. Timings this short prove nothing, so a missed goal
# (exit status 1) is not a failure here; a failed benchmark or a crash (exit status 2 and above, or a ratio whose
# benchmark did not run) is.
set -uo pipefail
benchmark="$1"
out=$("$benchmark" --benchmark_min_time=0.0001 --benchmark_repetitions=1 2>&1)
status=$?
echo "$out"
if ((status > 1)); then echo "mempool_benchmark exited with status $status" >&2; exit 1; fi
if grep -q "not measured" <<<"$out"; then echo "a ratio's benchmark did not run" >&2; exit 1; fi
for ratio in "BM_PoolHit/64/1/real_time / BM_GlibcMallocFree/64/real_time" \
             "BM_PoolHit/64/0/real_time / BM_GlibcMallocFree/64/real_time" \
             "BM_PoolHit/1048576/1/real_time / BM_GlibcMallocFree/64/real_time"; do
  grep -q "ratio: $ratio = " <<<"$out" || { echo "missing ratio: $ratio" >&2; exit 1; }
done
echo "mempool_benchmark smoke: OK"
