#!/usr/bin/env bash
# Every function the public HSA headers declare is defined in one of the sources of //hsa:hsa_runtime64, so
# nothing a ROCr client can call is left to fail at link time. Arguments: the headers, then "--", then the
# sources. A declaration or a definition is a line that starts with its return type, optionally HSA_API and
# HSA_DEPRECATED, then the hsa_* name and "(" (the layout the headers and the C shells keep); the static
# inline helpers of hsa_ext_amd.h are not counted.
set -euo pipefail
headers=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  headers+=("$1")
  shift
done
shift
pattern='^[a-z_0-9]+( ?\*)? +(HSA_API +)?(HSA_DEPRECATED +)?hsa_[a-z0-9_]+\('
names() { grep -hoE "$pattern" "$@" | grep -oE 'hsa_[a-z0-9_]+\($' | tr -d '(' | sort -u; }
declared=$(names "${headers[@]}")
defined=$(names "$@")
missing=$(comm -23 <(echo "$declared") <(echo "$defined"))
count=$(echo "$declared" | wc -l)
if [[ "$count" -lt 250 ]]; then
  echo "only $count declarations found in ${headers[*]}: the pattern no longer matches the headers" >&2
  exit 1
fi
if [[ -n "$missing" ]]; then
  echo "declared in the HSA headers but defined in no hsa_runtime64 source:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "HSA headers: all $count functions defined"
