#!/usr/bin/env bash
# HIP host code compiles unchanged with clang as well as g++ (issue #9 §1): the C and C++ test sources that
# include <hip/hip_runtime.h> and <hip/hip_runtime_api.h> pass clang's front end in each language standard
# application code commonly uses. Bazel's toolchain builds and runs them with g++; this checks the other
# compiler without a second toolchain. Arguments: the public headers' include root, then the sources.
set -euo pipefail
include_root="$1"
shift
cxx=$(command -v clang++ || true)
cc=$(command -v clang || true)
if [[ -z "$cxx" || -z "$cc" ]]; then
  echo "clang/clang++ not found: install Debian's clang package (tools/quickstart.sh does)" >&2
  exit 1
fi
status=0
for source in "$@"; do
  case "$source" in
    *.c) standards=(c99 c11 c17); compiler="$cc" ;;
    *) standards=(c++17 c++20); compiler="$cxx" ;;
  esac
  for std in "${standards[@]}"; do
    if ! "$compiler" -std="$std" -fsyntax-only -Wall -Werror -Wno-unused-function -I "$include_root" -I . "$source"; then
      echo "FAILED: clang -std=$std $source" >&2
      status=1
    fi
  done
done
[[ $status -eq 0 ]] && echo "clang accepted $# sources"
exit $status
