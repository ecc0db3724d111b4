#!/usr/bin/env bash
# Fails if a layer depends on a layer above it or skips the one directly below it.
# Layers, bottom to top: kfd_uapi -> thunk -> hsa -> clr -> hip. base/ is below all of them; gpu_abi/ (the
# simulated GPU's packet formats) sits beside kfd_uapi for the engines that run packets and hsa/ and clr/ that build them;
# testing/ (the KFD simulator, which plays the kernel, its engines, which play the GPU, and engines/gfx9, the compute
# units the CP dispatches onto) may use kfd_uapi,
# and gpu_abi for what the kernel knows of the hardware (which SDMA packet generation a GPU speaks); the thunk's simulator backend reaches the simulator (and the engines' doorbell protocol); tools/ is
# a leaf.
# Bazel visibility should already refuse such a build; this checks the graph independently.
set -euo pipefail
cd "$(dirname "$0")/.."

# allowed[pkg] = the hipmem packages its libraries may depend on directly (tests, and the testonly libraries of a
# hip_test, may also use testing/).
declare -A allowed=(
  [base]="base"
  [kfd_uapi]="base"
  [gpu_abi]="base"
  [testing/kfd_sim]="base kfd_uapi gpu_abi testing/kfd_sim testing/kfd_sim/engines testing/kfd_sim/engines/gfx9"
  [testing/kfd_sim/engines]="base gpu_abi testing/kfd_sim/engines testing/kfd_sim/engines/gfx9"
  [testing/kfd_sim/engines/gfx9]="base gpu_abi testing/kfd_sim/engines testing/kfd_sim/engines/gfx9"
  [testing/kfd_sim/preload]="base kfd_uapi testing/kfd_sim testing/kfd_sim/preload"
  [thunk]="base kfd_uapi testing/kfd_sim testing/kfd_sim/engines thunk"
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
# The HSA runtime's client-facing C++ header speaks HSA only: the thunk side lives in hsa/runtime_kfd.h.
if grep -n '#include "thunk/' hsa/runtime.h >&2; then
  echo "layering violation: hsa/runtime.h includes a thunk header (use hsa/runtime_kfd.h inside hsa/)" >&2
  status=1
fi
[[ $status -eq 0 ]] && echo "layering: OK (kfd_uapi -> thunk -> hsa -> clr -> hip)"
exit $status
