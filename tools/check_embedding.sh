#!/usr/bin/env bash
# Builds and runs a client workspace that uses this repository as @hipmem, the way an embedder
# would: local_repository + hipmem_dependencies(), depending only on the public targets.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
client=$(mktemp -d)
trap 'cd "$client" && bazel shutdown >/dev/null 2>&1; rm -rf "$client"' EXIT
cp "$repo/tools/embedding/client.cc" "$repo/tools/embedding/hip_client.cc" "$repo/tools/embedding/hsa_client.cc" "$repo/tools/embedding/hsakmt_client.c" \
   "$repo/tools/embedding/rocr_client.c" "$client/"
cp "$repo/tools/embedding/pool_client.cc" "$repo/tools/embedding/managed_client.cc" "$repo/tools/embedding/kernel_client.hip" \
   "$client/"
cd "$client"
cat > WORKSPACE <<WS
workspace(name = "client")
local_repository(name = "hipmem", path = "$repo")
load("@hipmem//:deps.bzl", "hipmem_dependencies")
hipmem_dependencies()
WS
cat > .bazelrc <<'RC'
build --nosandbox_debug --cxxopt=-std=c++20 --host_cxxopt=-std=c++20
RC
cat > BUILD <<'B'
load("@hipmem//hip:defs.bzl", "hip_binary")
cc_binary(name = "client", srcs = ["client.cc"], deps = ["@hipmem//hip:hipmem"])
cc_binary(name = "hip_client", srcs = ["hip_client.cc"], deps = ["@hipmem//hip:hipmem"])
cc_binary(name = "pool_client", srcs = ["pool_client.cc"], deps = ["@hipmem//hip:hipmem"])
cc_binary(name = "managed_client", srcs = ["managed_client.cc"], deps = ["@hipmem//hip:hipmem"])
cc_binary(name = "hsa_client", srcs = ["hsa_client.cc"], deps = ["@hipmem//hsa:hsa_runtime64"])
cc_binary(name = "hsakmt_client", srcs = ["hsakmt_client.c"], deps = ["@hipmem//thunk:hsakmt"])
cc_binary(name = "rocr_client", srcs = ["rocr_client.c"], deps = ["@hipmem//hsa:hsa_runtime64"])
hip_binary(name = "kernel_client", srcs = ["kernel_client.hip"])
B
export HIPMEM_KFD_BACKEND=sim
if ! bazel build --noshow_progress //:client //:hip_client //:pool_client //:managed_client //:hsa_client //:hsakmt_client //:rocr_client \
    //:kernel_client >build.log 2>&1; then
  cat build.log >&2
  exit 1
fi
./bazel-bin/client | grep -q "embedded: hello hipSuccess"
./bazel-bin/hsa_client | grep -q "hsa_init: 0"
# A plain-C libhsakmt client (kfdtest's way: hand-built SDMA packets, a plain doorbell store) on one GPU and on two.
./bazel-bin/hsakmt_client | grep -q "hsakmt client: 1 GPU(s) OK"
HIPMEM_SIM_PRESET=2xmi250x ./bazel-bin/hsakmt_client | grep -q "hsakmt client: 2 GPU(s) OK"
# A plain-C ROCr client (rocminfo's and rocm_bandwidth_test's way): identity, regions, pools, pointer info, lock,
# copy chains, fill, profiling; a peer copy after allow_access on two GPUs; VRAM the CPU cannot reach on rx7900xtx.
for preset in mi300x:1 2xmi250x:2 rx7900xtx:1; do
  if ! HIPMEM_SIM_PRESET=${preset%%:*} ./bazel-bin/rocr_client >rocr.log 2>&1 ||
     ! grep -q "rocr client: ${preset##*:} GPU(s) OK" rocr.log; then
    echo "rocr_client on ${preset%%:*}:" >&2
    cat rocr.log >&2
    exit 1
  fi
done
# An application-style HIP program (<hip/hip_runtime.h>, streams, events, async chains, memsets, pitched 2D,
# registered memory, typed copies, threads, peers) on one GPU, two XGMI-linked GPUs and a consumer card.
for preset in mi300x:1 2xmi250x:2 rx7900xtx:1; do
  if ! HIPMEM_SIM_PRESET=${preset%%:*} ./bazel-bin/hip_client >hip.log 2>&1 ||
     ! grep -q "hip client: ${preset##*:} GPU(s) OK" hip.log; then
    echo "hip_client on ${preset%%:*}:" >&2
    cat hip.log >&2
    exit 1
  fi
done
# An application-style pool program (<hip/hip_runtime.h>): pool hits and accounting, cross-stream reuse safety, trim,
# explicit pools, pool access for a peer, on the same three presets.
for preset in mi300x:1 2xmi250x:2 rx7900xtx:1; do
  if ! HIPMEM_SIM_PRESET=${preset%%:*} ./bazel-bin/pool_client >pool.log 2>&1 ||
     ! grep -q "pool client: ${preset##*:} GPU(s) OK" pool.log; then
    echo "pool_client on ${preset%%:*}:" >&2
    cat pool.log >&2
    exit 1
  fi
done
# An application-style managed-memory program: advice read back, prefetch to every GPU and back on streams with the
# engines and the CPU touching the same pages, VRAM accounting, bad input; also with XNACK on where it exists.
for preset in mi300x:1 2xmi250x:2 rx7900xtx:1 mi300x/xnack:1; do
  name=${preset%%:*}
  xnack=0
  [[ $name == */xnack ]] && xnack=1 && name=${name%/xnack}
  if ! HSA_XNACK=$xnack HIPMEM_SIM_PRESET=$name ./bazel-bin/managed_client >managed.log 2>&1 ||
     ! grep -q "managed client: ${preset##*:} GPU(s) OK" managed.log; then
    echo "managed_client on ${preset%%:*}:" >&2
    cat managed.log >&2
    exit 1
  fi
done
# A HIP program with kernels built by hip_binary from @hipmem//hip:defs.bzl (clang++-19 in HIP mode for gfx908, gfx90a
# and gfx942): templates, dynamic shared memory, atomics, shuffles, symbols, streams and events, pinned and managed
# memory, every device, and a sticky illegal address, on each GFX9 preset.
for preset in mi300x:1 2xmi250x:2 mi100:1; do
  if ! HIPMEM_SIM_PRESET=${preset%%:*} ./bazel-bin/kernel_client >kernel.log 2>&1 ||
     ! grep -q "kernel client: ${preset##*:} GPU(s) OK" kernel.log; then
    echo "kernel_client on ${preset%%:*}:" >&2
    cat kernel.log >&2
    exit 1
  fi
done
echo "embedding: OK (@hipmem//hip:hipmem, @hipmem//hsa:hsa_runtime64, @hipmem//thunk:hsakmt from a client workspace; rocr_client, hip_client, pool_client and managed_client on mi300x, 2xmi250x, rx7900xtx; kernel_client, a hip_binary, on mi300x, 2xmi250x, mi100)"
