#!/usr/bin/env bash
# The README's main job must run, verify its bytes, and list the simulated GPU's pools; the simulator's
# state and kernel log must show what the tour did.
set -euo pipefail
hipmem="$1"
export HIPMEM_KFD_BACKEND=sim  # the simulator sections need it, also on a machine with /dev/kfd
tour=$("$hipmem" tour)
grep -q "all bytes match" <<<"$tour"
grep -q "back to where it started" <<<"$tour"
grep -q "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU" <<<"$tour"
grep -q "hipFree(already freed) = hipErrorInvalidValue" <<<"$tour"
# The sequence chart is caller first, each call with its arguments: hipMalloc's line comes before the clr call it
# makes, drawn as an arrow.
malloc_line=$(grep -n "^hipMalloc(0x[0-9a-f]*, 1048576) = hipSuccess" <<<"$tour" | head -1 | cut -d: -f1)
clr_line=$(grep -n -- "-> Context::AllocDevice" <<<"$tour" | head -1 | cut -d: -f1)
[[ -n "$malloc_line" && -n "$clr_line" && "$malloc_line" -lt "$clr_line" ]]
grep -q "^  hsa_api .* ns" <<<"$tour"  # the cost table
# tour --trace FILE: the same run as a Chrome trace-event file, every layer's category and flows in it.
trace_file=$(mktemp)
"$hipmem" tour --trace "$trace_file" >/dev/null
for category in hip_api clr hsa_api hsakmt kfd sdma; do grep -q "\"cat\":\"$category\"" "$trace_file"; done
grep -q '"ph":"s"' "$trace_file"
tail -1 "$trace_file" | grep -q '^]$'
rm -f "$trace_file"
info=$("$hipmem" info)
grep -q "COARSE GRAINED" <<<"$info"
grep -q "Device Type:             GPU" <<<"$info"
grep -q "^Simulator$" <<<"$info"
grep -q "^Processes:  *1$" <<<"$info"  # the runtime's own, while `info` has it open
grep -q "^VRAM gpu 0x" <<<"$info"
# One process, several commands: the second sees what the first left in the simulated kernel.
both=$("$hipmem" tour info dmesg)
grep -q "queue 0 .* COMPUTE_AQL .* active" <<<"$both"  # the null stream's queue
grep -q "queue [0-9]* .* SDMA .* active" <<<"$both"      # the copy engine the 1 MiB D2H ran on
grep -q "kfd_sim: process 1 (pid [0-9]*) opened /dev/kfd" <<<"$both"
grep -q "created COMPUTE_AQL queue 0" <<<"$both"
grep -q "created SDMA queue [0-9]" <<<"$both"
grep -q "closed /dev/kfd: released" <<<"$both"  # info's own runtime, shut down again
dmesg=$("$hipmem" dmesg)
grep -q "^\[ *0\.[0-9]\{6\}\] info : kfd_sim: gpu_id 0x" <<<"$dmesg"
if "$hipmem" bogus 2>/dev/null; then echo "unknown command accepted" >&2; exit 1; fi
if "$hipmem" info bogus >/dev/null 2>&1; then echo "unknown command in a list accepted" >&2; exit 1; fi
echo "hipmem smoke: OK"
