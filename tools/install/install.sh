#!/usr/bin/env bash
# Lays hipmem out as a ROCm install tree: install.sh MANIFEST PREFIX (see defs.bzl for the manifest). Run from the
# workspace's runfiles tree, as `bazel run` and tests do. A relative PREFIX is taken from where `bazel run` was
# started, not from the runfiles tree.
set -euo pipefail
if (($# != 2)); then
  echo "usage: bazel run //tools:install -- PREFIX" >&2
  exit 2
fi
manifest=$1
prefix=$2
if [[ $prefix != /* ]]; then
  prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix"
fi
count=0
while IFS=$'\t' read -r kind a b c; do
  case "$kind" in
    F)  # mode destination source
      mkdir -p "$(dirname "$prefix/$b")"
      rm -f "$prefix/$b"  # a previous install's file may be read-only, as Bazel's outputs are
      install -m "$a" "$c" "$prefix/$b"
      count=$((count + 1))
      ;;
    L)  # destination target
      ln -sfn "$b" "$prefix/$a"
      ;;
    "") ;;
    *)
      echo "install.sh: bad manifest line: $kind $a $b $c" >&2
      exit 1
      ;;
  esac
done < "$manifest"
echo "hipmem installed in $prefix ($count files)"
