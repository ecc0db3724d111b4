#!/usr/bin/env bash
# install_test INSTALL_SH MANIFEST: see tools/install/BUILD.
set -euo pipefail
install_sh=$1
manifest=$2
project="$PWD/tools/install/testdata/cmake_project"
prefix="$TEST_TMPDIR/prefix"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$install_sh" "$manifest" "$prefix"
# Installing twice over the same prefix works (an upgrade in place).
"$install_sh" "$manifest" "$prefix" >/dev/null

# --- layout ---
for f in bin/hipmem lib/libamdhip64.so.7 lib/libhsa-runtime64.so.1 lib/libhsakmt.so.1 lib/libhipmem_kfd.so \
         include/hip/hip_runtime.h include/hip/hip_runtime_api.h include/hip/amd_detail/amd_hip_runtime_pt_api.h \
         include/hsa/hsa.h include/hsa/hsa_ext_amd.h include/hsakmt/hsakmt.h include/hsakmt/hsakmttypes.h \
         lib/cmake/hip/hip-config.cmake lib/cmake/hsa-runtime64/hsa-runtime64-config.cmake \
         lib/cmake/hsakmt/hsakmt-config.cmake lib/pkgconfig/hip.pc; do
  [[ -f "$prefix/$f" ]] || fail "$f not installed"
done
for link in libamdhip64.so:libamdhip64.so.7 libhsa-runtime64.so:libhsa-runtime64.so.1 libhsakmt.so:libhsakmt.so.1; do
  [[ $(readlink "$prefix/lib/${link%%:*}") == "${link#*:}" ]] || fail "lib/${link%%:*} does not link to ${link#*:}"
done

# --- sonames and symbol versions, as AMD's binaries record them ---
soname() { objdump -p "$1" | awk '$1 == "SONAME" {print $2}'; }
# "VERSION SYMBOL" per defined dynamic symbol, into a file (grep -q on a pipe would SIGPIPE it under pipefail).
exports() {
  local out="$TEST_TMPDIR/exports.$(basename "$1")"
  objdump -T "$1" | awk '$0 !~ /\*UND\*/ && NF >= 7 {print $(NF-1), $NF}' >"$out"
  echo "$out"
}
[[ $(soname "$prefix/lib/libamdhip64.so.7") == libamdhip64.so.7 ]] || fail "libamdhip64 soname"
[[ $(soname "$prefix/lib/libhsa-runtime64.so.1") == libhsa-runtime64.so.1 ]] || fail "libhsa-runtime64 soname"
[[ $(soname "$prefix/lib/libhsakmt.so.1") == libhsakmt.so.1 ]] || fail "libhsakmt soname"
expect_export() {  # library version symbol
  grep -qx "$2 $3" "$(exports "$1")" || fail "$(basename "$1") does not export $3@@$2"
}
hip="$prefix/lib/libamdhip64.so.7"
expect_export "$hip" hip_4.2 hipMalloc
expect_export "$hip" hip_4.2 hipMemcpy
expect_export "$hip" hip_4.2 __hipRegisterFatBinary
expect_export "$hip" hip_4.3 hipGraphCreate
expect_export "$hip" hip_5.1 hipMallocAsync
expect_export "$hip" hip_6.0 hipGetDevicePropertiesR0600
expect_export "$hip" hip_6.5 hipLaunchKernelExC
# C++ linkage where upstream's header declares the function outside extern "C" (AMD's 5.2.3 library exports these
# mangled names at hip_4.2).
expect_export "$hip" hip_4.2 _Z22hipCreateSurfaceObjectPP13__hip_surfacePK15hipResourceDesc
expect_export "$hip" hip_4.2 _Z23hipDestroySurfaceObjectP13__hip_surface
expect_export "$prefix/lib/libhsa-runtime64.so.1" ROCR_1 hsa_init
expect_export "$prefix/lib/libhsa-runtime64.so.1" ROCR_1 hsa_amd_memory_pool_allocate
expect_export "$prefix/lib/libhsakmt.so.1" HSAKMT_1 hsaKmtOpenKFD
expect_export "$prefix/lib/libhsakmt.so.1" HSAKMT_1 hsaKmtAllocMemory
# Every symbol Debian's rocminfo imports from ROCr is there at its version.
if [[ -x /usr/bin/rocminfo ]]; then
  for symbol in $(objdump -T /usr/bin/rocminfo | awk '/\*UND\*/ && $(NF-1) == "(ROCR_1)" {print $NF}'); do
    expect_export "$prefix/lib/libhsa-runtime64.so.1" ROCR_1 "$symbol"
  done
fi
# Internals stay private: no hipmem namespace, Abseil, or lower layer's C API leaks out of a library.
for lib in libamdhip64.so.7 libhsa-runtime64.so.1 libhsakmt.so.1; do
  leaked=$(awk '{print $2}' "$(exports "$prefix/lib/$lib")" | grep -E '^(_ZN6hipmem|_ZNK6hipmem|_ZN4absl)' || true)
  [[ -z $leaked ]] || fail "$lib exports internals: $leaked"
done
grep -qE ' (hsa_|hsaKmt)' "$(exports "$hip")" && fail "libamdhip64 exports the HSA runtime's or thunk's C API"
grep -q ' hsaKmt' "$(exports "$prefix/lib/libhsa-runtime64.so.1")" && fail "libhsa-runtime64 exports the thunk's C API"

# --- pkg-config ---
if command -v pkg-config >/dev/null; then
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs hip)
  [[ $flags == *"-I$prefix/lib/pkgconfig/../../include"* || $flags == *"-I$prefix/include"* ]] ||
    fail "pkg-config hip: $flags"
  [[ $flags == *-lamdhip64* ]] || fail "pkg-config hip: $flags"
fi

# --- a CMake project on the installed packages, run on the simulated machine ---
export HIPMEM_KFD_BACKEND=sim HIPMEM_SIM_PRESET=mi100
# Under --config=asan or tsan the installed libraries are instrumented, and the programs below (built here, and
# Debian's rocminfo) are not: the sanitizer's runtime must be loaded first, as for any uninstrumented program using
# instrumented libraries, and their leaks at exit (the simulated machine lives as long as the process) are not this
# test's subject. `hipmem run` keeps a preload it finds in front of its own.
san_runtime=$(objdump -p "$prefix/lib/libamdhip64.so.7" | awk '$1 == "NEEDED" && $2 ~ /^lib[at]san\.so/ {print $2}')
with_sanitizer() {
  if [[ -n $san_runtime ]]; then
    LD_PRELOAD="$(gcc -print-file-name="$san_runtime")" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@"
  else
    "$@"
  fi
}
if command -v cmake >/dev/null; then
  build="$TEST_TMPDIR/build"
  with_kernel=OFF
  compiler=()
  if command -v clang++-19 >/dev/null; then
    with_kernel=ON
    compiler=(-DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19)
  fi
  cmake -S "$project" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DWITH_KERNEL=$with_kernel "${compiler[@]}" \
    >"$TEST_TMPDIR/cmake.log" 2>&1 || { cat "$TEST_TMPDIR/cmake.log"; fail "cmake configure"; }
  cmake --build "$build" >>"$TEST_TMPDIR/cmake.log" 2>&1 || { cat "$TEST_TMPDIR/cmake.log"; fail "cmake build"; }
  out=$(with_sanitizer "$build/hip_copy") || fail "hip_copy: $out"
  [[ $out == *"MI100"*"gfx908"*"round trip ok"* ]] || fail "hip_copy printed: $out"
  out=$(with_sanitizer "$build/hsa_agents") || fail "hsa_agents: $out"
  [[ $out == "hsa_agents: 1 GPU agent(s)" ]] || fail "hsa_agents printed: $out"
  out=$(with_sanitizer "$build/kmt_version") || fail "kmt_version: $out"
  [[ $out == "kmt_version: KFD 1."*", 2 node(s)" ]] || fail "kmt_version printed: $out"
  if [[ $with_kernel == ON ]]; then
    out=$(with_sanitizer "$build/hip_kernel") || fail "hip_kernel: $out"
    [[ $out == "hip_kernel: 1000 threads ok" ]] || fail "hip_kernel printed: $out"
  else
    echo "SKIP: hip::device kernel (clang++-19 not installed)"
  fi
  # Each binary loaded the prefix's library, not some other ROCm's.
  LD_DEBUG=libs with_sanitizer "$build/hip_copy" 2>"$TEST_TMPDIR/hip_copy.ld" >/dev/null
  grep -q "calling init: $prefix/lib/libamdhip64.so.7" "$TEST_TMPDIR/hip_copy.ld" ||
    fail "hip_copy did not load $prefix/lib/libamdhip64.so.7"
else
  echo "SKIP: CMake project (cmake not installed; tools/quickstart.sh installs it)"
fi

# --- Debian's unmodified rocminfo on the prefix's libhsa-runtime64.so.1 ---
if [[ -x /usr/bin/rocminfo ]]; then
  unset HIPMEM_KFD_BACKEND
  log="$TEST_TMPDIR/rocminfo.log"
  LD_LIBRARY_PATH="$prefix/lib" LD_DEBUG=libs with_sanitizer "$prefix/bin/hipmem" run -- rocminfo >"$TEST_TMPDIR/rocminfo.out" 2>"$log" ||
    { cat "$TEST_TMPDIR/rocminfo.out" "$log" | tail -40; fail "rocminfo under hipmem run"; }
  grep -q "calling init: $prefix/lib/libhsa-runtime64.so.1" "$log" || fail "rocminfo did not load the prefix's ROCr"
  grep -q "Marketing Name: *AMD Instinct MI100" "$TEST_TMPDIR/rocminfo.out" || fail "rocminfo: no MI100 agent"
  grep -q "Name: *gfx908" "$TEST_TMPDIR/rocminfo.out" || fail "rocminfo: no gfx908 agent"
else
  echo "SKIP: Debian's rocminfo (package rocminfo not installed; tools/quickstart.sh installs it)"
fi
echo PASS
