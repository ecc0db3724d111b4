#!/usr/bin/env bash
# A fuzz target's bounded run for `bazel test` (tools/fuzz/fuzz.bzl): writes the seed corpus, then runs the
# fuzzer over it plus RUNS mutated inputs. Fails on any crash, sanitizer report or leak the fuzzer reports.
# Usage: run_fuzz_test.sh FUZZER SEEDS_TOOL RUNS MAX_LEN
set -euo pipefail
fuzzer=$1 seeds=$2 runs=$3 max_len=$4
corpus="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
mkdir -p "$corpus"
"$seeds" "$corpus"
count=$(find "$corpus" -type f | wc -l)
if [[ $count -eq 0 ]]; then
  echo "run_fuzz_test: the seed tool wrote no seeds" >&2
  exit 1
fi
echo "run_fuzz_test: $count seeds, $runs runs"
# libFuzzer: -runs counts every execution; new inputs it finds go to the corpus directory, in TEST_TMPDIR.
exec "$fuzzer" -runs="$runs" -seed=1 -max_len="$max_len" -print_final_stats=1 "$corpus"
