#!/usr/bin/env bash
# The README's main job must run, verify its bytes, and list the simulated GPU's pools.
set -euo pipefail
hipmem="$1"
tour=$("$hipmem" tour)
grep -q "all bytes match" <<<"$tour"
grep -q "back to where it started" <<<"$tour"
grep -q "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU" <<<"$tour"
grep -q "hipFree(already freed) = hipErrorInvalidValue" <<<"$tour"
info=$("$hipmem" info)
grep -q "COARSE GRAINED" <<<"$info"
grep -q "Device Type:             GPU" <<<"$info"
if "$hipmem" bogus 2>/dev/null; then echo "unknown command accepted" >&2; exit 1; fi
echo "hipmem smoke: OK"
