#!/usr/bin/env bash
# The README's two commands. Installs the Debian bookworm packages the build needs (only when some
# are missing, so a second run is fast), then:
#   tools/quickstart.sh tour   runs the main job, `hipmem tour`, on the simulated GPU
#   tools/quickstart.sh test   runs the whole test suite and the layering check
# Extra arguments go to bazel (e.g. `tools/quickstart.sh test --config=asan`).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(bazel-bootstrap bazel-rules-cc bazel-rules-java g++ clang libclang-rt-14-dev libabsl-dev libgtest-dev libgmock-dev
          libbenchmark-dev libre2-dev libdrm-dev linux-libc-dev clang-19 lld-19 llvm-19 clang-tools-19
          # the HIP device libraries (ocml.bc, ockl.bc), linked into kernels by hip/defs.bzl
          rocm-device-libs
          # AMD's ROCm 5.2.3 userspace, run unmodified on the simulator by //testing/kfd_sim/preload:preload_test
          rocminfo libhsa-runtime64-1 libhsakmt1
          # //tools/install:install_test builds a CMake project against an installed hipmem
          cmake)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "quickstart: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command="${1:-}"
shift || true
case "$command" in
  tour)
    bazel run --noshow_progress //tools:hipmem "$@" -- tour
    ;;
  test)
    bazel test //... "$@"
    tools/check_layering.sh
    tools/check_embedding.sh
    ;;
  *)
    echo "usage: tools/quickstart.sh tour|test [bazel flags]" >&2
    exit 2
    ;;
esac
