#!/usr/bin/env bash
# Every function the public HIP headers declare, and the registration / launch ABI that
# hipcc-compiled host code calls, is a text symbol of the libraries that make up //hip:hipmem, so
# nothing HIP host code calls is left to fail at link time. Arguments: the headers, then "--", then
# the built libraries (.a, or .lo for alwayslink ones). A declaration is a line that starts with its
# return type (optionally extern "C" and HIP_PUBLIC_API), then the hip* name and "("; static inline
# wrappers and C++ templates start with "static", "inline" or "template" and are not counted.
set -euo pipefail
headers=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  headers+=("$1")
  shift
done
shift
pattern='^(extern "C" )?(HIP_PUBLIC_API )?(struct )?[A-Za-z_0-9]+( ?\*)? +(__)?hip[A-Za-z0-9_]+\('
declared=$( (grep -hoE "$pattern" "${headers[@]}" | grep -oE '(__)?hip[A-Za-z0-9_]+\($' | tr -d '(';
  printf '%s\n' __hipRegisterFatBinary __hipUnregisterFatBinary __hipRegisterFunction \
    __hipRegisterVar __hipPushCallConfiguration __hipPopCallConfiguration hipLaunchKernel) |
  grep -vx 'hip_init' | sort -u)
archives=()
for f in "$@"; do
  [[ "$f" == *.a || "$f" == *.lo ]] && archives+=("$f")
done
if [[ ${#archives[@]} -eq 0 ]]; then
  echo "no static libraries among: $*" >&2
  exit 1
fi
# Demangled, cut at "(": the few functions upstream declares with C++ linkage count by their plain name.
defined=$(nm -g -C --defined-only "${archives[@]}" 2>/dev/null | awk '$2 == "T" {sub(/\(.*/, "", $3); print $3}' |
  sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$defined"))
count=$(echo "$declared" | wc -l)
if [[ "$count" -lt 450 ]]; then
  echo "only $count declarations found in ${headers[*]}: the pattern no longer matches the headers" >&2
  exit 1
fi
if [[ -n "$missing" ]]; then
  echo "declared in the HIP headers but defined in no //hip:hipmem library:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "HIP headers: all $count functions defined in ${archives[*]}"
