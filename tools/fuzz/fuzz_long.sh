#!/usr/bin/env bash
# Runs the fuzz targets for long with libFuzzer (--config=fuzz: clang, -fsanitize=fuzzer,address), each for
# SECONDS (default 3600), one after the other, keeping each corpus between runs. Prints each target's executions
# (libFuzzer's stat::number_of_executed_units); a crash leaves its input in the corpus directory's crashes/.
#   tools/fuzz/fuzz_long.sh [SECONDS] [TARGET...]     e.g. tools/fuzz/fuzz_long.sh 600 //thunk:topology_fuzzer
# Corpora live in $HIPMEM_FUZZ_DIR (default ~/.cache/hipmem-fuzz). Extra libFuzzer flags: $HIPMEM_FUZZ_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-3600}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(//testing/kfd_sim:ioctl_fuzzer //thunk:topology_fuzzer //hip:hip_ops_fuzzer)
fi
declare -A seeds_of=(
  [//testing/kfd_sim:ioctl_fuzzer]=//testing/kfd_sim:ioctl_fuzz_seeds
  [//thunk:topology_fuzzer]=//thunk:topology_fuzz_seeds
  [//hip:hip_ops_fuzzer]=//hip:hip_ops_fuzz_seeds
)
work=${HIPMEM_FUZZ_DIR:-$HOME/.cache/hipmem-fuzz}

seed_targets=()
for t in "${targets[@]}"; do seed_targets+=("${seeds_of[$t]:?no seed tool known for $t}"); done
bazel build --config=fuzz "${targets[@]}" "${seed_targets[@]}"
bin=$(bazel info --config=fuzz bazel-bin)

status=0
for t in "${targets[@]}"; do
  name=${t##*:}
  pkg=${t#//}; pkg=${pkg%%:*}
  seeds=${seeds_of[$t]##*:}
  corpus="$work/$name/corpus"
  crashes="$work/$name/crashes"
  mkdir -p "$corpus" "$crashes"
  "$bin/$pkg/$seeds" "$corpus"
  log="$work/$name/last.log"
  echo "fuzz_long: $t for ${seconds}s, corpus $corpus" >&2
  # -fork=0, one process: the simulator's threads live across inputs. -timeout: an input that runs 30 s is a hang.
  if ! TEST_TMPDIR="$work/$name" "$bin/$pkg/$name" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
      -artifact_prefix="$crashes/" ${HIPMEM_FUZZ_FLAGS:-} "$corpus" >"$log" 2>&1; then
    echo "fuzz_long: $t FOUND something: see $log and $crashes" >&2
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  echo "fuzz_long: $t: $runs executions"
done
exit $status
