#!/usr/bin/env bash
# Fails if a layer depends on a layer above it or skips the one directly below it.
# Layers, bottom to top: kfd_uapi -> thunk -> hsa -> clr -> hip. base/ is below all of them; gpu_abi/ (the
# simulated GPU's packet formats) sits beside kfd_uapi for the engines that run packets and hsa/ and clr/ that build them;
# testing/ (the KFD simulator, which plays the kernel, its engines, which play the GPU, and engines/gfx9, the compute
# units the CP dispatches onto; all three sit on testing/kfd_sim/host, the host threads and fault hook) may use kfd_uapi,
# and gpu_abi for what the kernel knows of the hardware (which SDMA packet generation a GPU speaks); the thunk's simulator backend reaches the simulator (and the engines' doorbell protocol); tools/ is
# the top leaf, which nothing depends on, test-only targets included (base/bench holds the benchmarks' support).
# Bazel visibility should already refuse such a build; this checks the graph independently.
set -euo pipefail
cd "$(dirname "$0")/.."

# allowed[pkg] = the hipmem packages its libraries may depend on directly (tests, and the testonly libraries of a
# hip_test, may also use testing/).
declare -A allowed=(
  [base]="base"
  [kfd_uapi]="base"
  [gpu_abi]="base"
  # testing/kfd_sim/host: what the simulator takes from the host (its threads, the fault hook), below kernel and engines.
  [testing/kfd_sim/host]="base testing/kfd_sim/host"
  [testing/kfd_sim]="base kfd_uapi gpu_abi testing/kfd_sim testing/kfd_sim/host testing/kfd_sim/engines testing/kfd_sim/engines/gfx9"
  [testing/kfd_sim/engines]="base gpu_abi testing/kfd_sim/host testing/kfd_sim/engines testing/kfd_sim/engines/gfx9"
  [testing/kfd_sim/engines/gfx9]="base gpu_abi testing/kfd_sim/engines testing/kfd_sim/engines/gfx9"
  [testing/kfd_sim/preload]="base kfd_uapi testing/kfd_sim testing/kfd_sim/preload"
  [thunk]="base kfd_uapi testing/kfd_sim testing/kfd_sim/host testing/kfd_sim/engines thunk"
  [hsa]="base gpu_abi thunk hsa"
  [clr]="base gpu_abi hsa clr"
  [hip]="base clr hip"
)

status=0
for pkg in "${!allowed[@]}"; do
  deps=$(bazel query --noshow_progress --output=label \
    "kind('cc_library', deps(kind('cc_library', //${pkg}:all) except attr(testonly, 1, //${pkg}:all), 1)) except //${pkg}:all" 2>/dev/null |
    grep -v '^@' | sed -E 's|^//([^:]*):.*|\1|' | sort -u || true)
  for dep in $deps; do
    if [[ " ${allowed[$pkg]} " != *" ${dep} "* ]]; then
      echo "layering violation: //${pkg} depends on //${dep}" >&2
      status=1
    fi
  done
done
# Headers, bottom to top, by layer; what a layer's public headers include is what its clients compile against.
layer_order=(kfd_uapi thunk hsa clr hip)
layer_index() { local i; for i in "${!layer_order[@]}"; do if [[ ${layer_order[$i]} == "$1" ]]; then echo "$i"; fi; done; }

# 1. No header a layer exports (the hdrs of its non-testonly libraries) includes a header two or more layers down.
for pkg in thunk hsa clr hip; do
  own=$(layer_index "$pkg")
  headers=$(bazel query --noshow_progress --output=label \
    "labels(hdrs, kind('cc_library', //${pkg}:all) except attr(testonly, 1, //${pkg}:all))" 2>/dev/null |
    grep "^//${pkg}:" | sed -E 's|^//([^:]*):(.*)|\1/\2|' || true)
  for header in $headers; do
    while read -r line; do
      included=$(sed -E 's|.*#include "([^/"]+)/.*|\1|' <<<"$line")
      below=$(layer_index "$included")
      if [[ -n $below && $below -le $((own - 2)) ]]; then
        echo "layering violation: ${header} (${pkg}) includes a ${included}/ header: ${line}" >&2
        status=1
      fi
    done < <(grep -E '^#include "[a-z_]+/' "$header" || true)
  done
done

# 2. Side doors: a header of the layer below that a client's code includes, or any header of that layer it reaches
# through them, must not include a header of the layer below that one, or the client compiles against a layer it
# may not use. Checked for clr's use of hsa (the thunk side lives in hsa/runtime_kfd.h, topology_kfd.h and
# system_events_kfd.h, and signal_allocator.h, which hsa headers only forward-declare, for hsa's own files), and
# for hip's use of clr.
# Known side doors (" pkg/x.h "), decided, not overlooked:
# - hsa: none since issue #26.
# - clr: the headers below carry hsa's value types in clr's own API (hsa::AgentId in clr::Device, hsa::SignalRef
#   in a Marker, hsa::PoolAllocation in a memory object...), as ROCclr's device objects carry ROCr's handles and
#   hipamd compiles against hsa.h through them. hip never names hsa itself: section 2b checks that.
known_hsa_side_doors=" "
known_clr_side_doors=" clr/context.h clr/device_faults.h clr/device_info.h clr/device_printf.h clr/memory.h
  clr/program.h clr/stream.h clr/svm.h "
# side_doors CLIENT PROVIDER BELOW_REGEX KNOWN: walks PROVIDER's headers CLIENT's sources include, transitively.
side_doors() {
  local client=$1 provider=$2 below=$3 known=$4 header next pending
  declare -A reached=()
  pending=$(grep -rhoE "^#include \"${provider}/[a-z_0-9]+\.h\"" --include='*.h' --include='*.cc' \
              --exclude='*_test.cc' "$client" | sed -E 's|#include "(.*)"|\1|' | sort -u)
  while [[ -n $pending ]]; do
    next=""
    for header in $pending; do
      [[ -n ${reached[$header]:-} || ! -f $header ]] && continue
      reached[$header]=1
      next+=" $(grep -hoE "^#include \"${provider}/[a-z_0-9]+\.h\"" "$header" | sed -E 's|#include "(.*)"|\1|' |
                tr '\n' ' ' || true)"
    done
    pending=$(tr ' ' '\n' <<<"$next" | sed '/^$/d' | sort -u || true)
  done
  for header in $(printf '%s\n' "${!reached[@]}" | sort); do
    if grep -qE "^#include \"(${below})/" "$header"; then
      [[ $known == *" ${header} "* || $known == *" ${header}"$'\n'* ]] && continue
      echo "layering violation: ${client} reaches ${header}, which includes a header below ${provider}:" >&2
      grep -nE "^#include \"(${below})/" "$header" >&2
      status=1
    fi
  done
}
side_doors clr hsa 'thunk|kfd_uapi' "$known_hsa_side_doors"
side_doors hip clr 'hsa|thunk|kfd_uapi' "$known_clr_side_doors"
# 2b. A client's own sources include only the layer right below it (and base/, gpu_abi/, their own package).
# Exempt: hip/fuzz_steady_state.cc, the fuzzer's check (test-only) that reads the simulated kernel's accounting.
for pair in "hip:hsa|thunk|kfd_uapi" "clr:thunk|kfd_uapi"; do
  client=${pair%%:*}
  for file in $(grep -rlE "^#include \"(${pair#*:})/" --include='*.h' --include='*.cc' "$client" 2>/dev/null |
                grep -v -e '_test\.cc$' -e '^hip/fuzz_steady_state\.cc$' || true); do
    echo "layering violation: ${file} (${client}) includes a header more than one layer down:" >&2
    grep -nE "^#include \"(${pair#*:})/" "$file" >&2
    status=1
  done
done
for file in $(grep -rlE '^#include "hsa/runtime_kfd\.h"' clr hip 2>/dev/null | grep -v '_test\.cc$' || true); do
  echo "layering violation: ${file} includes hsa/runtime_kfd.h, the runtime's own KFD binding" >&2
  status=1
done
# 3. Test-only targets too: tools/ is the top leaf, so nothing outside it depends on a target in it; and base/bench,
# the benchmarks' support below every layer that benchmarks, depends only on base/. Exempt: the build machinery the
# macros add (tools/fuzz's drivers, tools/build) and the `hipmem` binary, which preload_test runs as data.
tools_leaf='//tools/...:* except (//tools/fuzz/...:* + //tools/build/...:* + //tools:hipmem)'
upward=$(bazel query --noshow_progress --output=label "kind(rule, rdeps(//..., ${tools_leaf}, 1)) except //tools/...:*" \
  2>/dev/null || true)
for target in $upward; do
  echo "layering violation: ${target} depends on tools/, the top leaf" >&2
  status=1
done
bench_deps=$(bazel query --noshow_progress --output=label "kind(rule, deps(//base/bench:all, 1)) except //base/...:*" 2>/dev/null |
  grep -v '^@' || true)
for target in $bench_deps; do
  echo "layering violation: //base/bench depends on ${target}" >&2
  status=1
done
[[ $status -eq 0 ]] && echo "layering: OK (kfd_uapi -> thunk -> hsa -> clr -> hip)"
exit $status
