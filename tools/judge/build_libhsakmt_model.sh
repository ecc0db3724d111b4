#!/usr/bin/env bash
# Builds the judge: AMD's libhsakmt in model mode plus hipmem's null emulator, as two shared libraries.
#
#   tools/judge/build_libhsakmt_model.sh [SRC_DIR] [OUT]
#
# SRC_DIR (default /work/judge) holds the upstream libhsakmt sources laid out as upstream has them
# (SRC_DIR/src/*.c, SRC_DIR/src/*.h, SRC_DIR/include/hsakmt/...); they are upstream code and are never
# committed to this repository (tools/judge/README.md says which files and from which commit).
# OUT (default SRC_DIR/libhsakmt.so) is the judge library; the null emulator lands next to it as
# libnull_hsakmt_model.so, where kfd_benchmark looks for it when HSA_MODEL_LIB is not set.
#
# Needs gcc and two Debian packages: libdrm-dev (amdgpu.h, xf86drm.h, drm.h, libdrm_amdgpu) and
# libnuma-dev (numa.h, numaif.h). If one is missing:  apt-get install -y libdrm-dev libnuma-dev
# Nothing in the Bazel build depends on this script or on its output.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src_dir="${1:-/work/judge}"
out="${2:-${src_dir}/libhsakmt.so}"
out_dir="$(dirname "${out}")"
model_out="${out_dir}/libnull_hsakmt_model.so"

# The libhsakmt sources on the measured path; the rest of libhsakmt (queues, events, debug, counters, SVM,
# SPM, PC sampling, AIS) is replaced by judge_stubs.c, see there.
sources=(fmm.c globals.c hsakmtmodel.c kfdcontext.c libhsakmt.c memory.c openclose.c rbtree.c topology.c
         version.c)

for f in "${sources[@]}"; do
  if [[ ! -f "${src_dir}/src/${f}" ]]; then
    echo "build_libhsakmt_model.sh: ${src_dir}/src/${f} is missing; see tools/judge/README.md for the files" >&2
    exit 1
  fi
done
for h in /usr/include/libdrm/amdgpu.h /usr/include/xf86drm.h /usr/include/numa.h; do
  if [[ ! -f "${h}" ]]; then
    echo "build_libhsakmt_model.sh: ${h} is missing: apt-get install -y libdrm-dev libnuma-dev" >&2
    exit 1
  fi
done

mkdir -p "${out_dir}"
obj_dir="$(mktemp -d)"
trap 'rm -rf "${obj_dir}"' EXIT

# Upstream's CMake builds with memfd support (HAVE_MEMFD_CREATE) and -O2; -fvisibility=hidden keeps the
# internal hsakmt_* names out of the dynamic symbol table, as upstream's version script does, so only the
# hsaKmt* API is exported.
cflags=(-O2 -fPIC -std=gnu11 -fvisibility=hidden -DHAVE_MEMFD_CREATE -D_GNU_SOURCE
        -I"${src_dir}/include" -I"${src_dir}/src" -I/usr/include/libdrm -w)
objs=()
for f in "${sources[@]}"; do
  gcc "${cflags[@]}" -c "${src_dir}/src/${f}" -o "${obj_dir}/${f%.c}.o"
  objs+=("${obj_dir}/${f%.c}.o")
done
gcc "${cflags[@]}" -c "${here}/judge_stubs.c" -o "${obj_dir}/judge_stubs.o"
objs+=("${obj_dir}/judge_stubs.o")

# -z defs: every symbol must resolve now, so a missing stub fails here and not at dlopen time.
gcc -shared -Wl,-z,defs -Wl,-soname,libhsakmt.so.1 -o "${out}" "${objs[@]}" \
    -ldrm -ldrm_amdgpu -lnuma -lpthread -ldl

gcc -O2 -fPIC -std=gnu11 -Wall -Wextra -Werror -I"${src_dir}/include" -shared -Wl,-z,defs \
    -o "${model_out}" "${here}/null_hsakmt_model.c"

echo "judge: ${out}"
echo "null emulator: ${model_out}"
