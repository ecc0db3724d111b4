#!/usr/bin/env bash
# Every function hsakmt.h declares is defined in one of the thunk's hsaKmt* sources, so nothing a
# libhsakmt client can call is left to fail at link time. Arguments: hsakmt.h, then the sources.
set -euo pipefail
header="$1"
shift
declared=$(grep -oE 'HSAKMTAPI[[:space:]]+hsaKmt[A-Za-z0-9_]+' "$header" | awk '{print $2}' | sort -u)
defined=$(cat "$@" | grep -oE '^HSAKMT_STATUS HSAKMTAPI hsaKmt[A-Za-z0-9_]+\(' | sed -E 's/.* (hsaKmt[A-Za-z0-9_]+)\(/\1/' |
  sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$defined"))
count=$(echo "$declared" | wc -l)
if [[ "$count" -lt 90 ]]; then
  echo "only $count declarations found in $header: the pattern no longer matches the header" >&2
  exit 1
fi
if [[ -n "$missing" ]]; then
  echo "declared in hsakmt.h but defined in no thunk source:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "hsakmt.h: all $count functions defined"
