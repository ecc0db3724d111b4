#!/usr/bin/env bash
# `hipmem info` on the mi300x preset prints every attribute rocminfo prints for each agent -- the agent section,
# its pools and its ISAs -- with rocminfo's labels, one "Label: value" per line, and the values real MI300X
# rocminfo dumps show (hsa/rocminfo_test.cc cites them).
set -euo pipefail
hipmem="$1"
export HIPMEM_KFD_BACKEND=sim HIPMEM_SIM_PRESET=mi300x
info=$("$hipmem" info)
fail() { echo "hipmem info: $*" >&2; exit 1; }

# rocminfo's system attributes, at column 0.
system_line() { grep -qxF "$(printf '%-25s%s' "$1" "$2")" <<<"$info" || fail "expected system '$1 $2'"; }
system_line "System Timestamp Freq.:" "1000.000000MHz"
system_line "Sig. Max Wait Duration:" "18446744073709551615 (0xFFFFFFFFFFFFFFFF) (timestamp count)"
system_line "Machine Model:" "LARGE"
system_line "System Endianness:" "LITTLE"
system_line "Mwaitx:" "DISABLED"
system_line "XNACK enabled:" "NO"
system_line "DMAbuf Support:" "NO"
system_line "VMM Support:" "NO"
grep -qE '^Runtime Version: +1\.[0-9]+$' <<<"$info" || fail "no Runtime Version"
grep -qE '^Runtime Ext Version: +1\.[0-9]+$' <<<"$info" || fail "no Runtime Ext Version"

# The sections: Agent 1 is the CPU, Agent 2 the GPU; the simulator's report follows the last agent.
cpu=$(sed -n '/^Agent 1$/,/^Agent 2$/p' <<<"$info")
gpu=$(sed -n '/^Agent 2$/,$p' <<<"$info" | sed -n '1,/^=====================$/p')
[[ -n "$cpu" && -n "$gpu" ]] || fail "no CPU and GPU agent sections"
[[ $(grep -c '^Agent [0-9]*$' <<<"$info") -eq 2 ]] || fail "mi300x has exactly two agents"

# Every label rocminfo's DisplayAgentInfo prints for a kernel agent, in its order.
labels=("Name:" "Uuid:" "Marketing Name:" "Vendor Name:" "Feature:" "Profile:" "Float Round Mode:"
  "Max Queue Number:" "Queue Min Size:" "Queue Max Size:" "Queue Type:" "Node:" "Device Type:" "Cache Info:"
  "Chip ID:" "ASIC Revision:" "Cacheline Size:" "Max Clock Freq. (MHz):" "BDFID:" "Internal Node ID:"
  "Compute Unit:" "SIMDs per CU:" "Shader Engines:" "Shader Arrs. per Eng.:" "WatchPts on Addr. Ranges:"
  "Coherent Host Access:" "Memory Properties:" "Features:" "Fast F16 Operation:" "Wavefront Size:"
  "Workgroup Max Size:" "Workgroup Max Size per Dimension:" "Max Waves Per CU:" "Max Work-item Per CU:"
  "Grid Max Size:" "Grid Max Size per Dimension:" "Max fbarriers/Workgrp:" "Packet Processor uCode::"
  "SDMA engine uCode::" "IOMMU Support::" "Pool Info:" "ISA Info:")
previous=0
for label in "${labels[@]}"; do
  line=$(grep -nF -m1 "  $label" <<<"$gpu" | cut -d: -f1) || fail "GPU agent: no '$label' line"
  (( line > previous )) || fail "GPU agent: '$label' out of rocminfo's order"
  previous=$line
done

# "  Label:<padding to column 27>value", exactly.
expect() {  # section, label, value
  grep -qxF "$(printf '  %-25s%s' "$2" "$3")" <<<"$1" || fail "expected '$2 $3'"
}
expect "$gpu" "Name:" "gfx942"
expect "$gpu" "Uuid:" "GPU-5fa2c41d37e80000"
expect "$gpu" "Marketing Name:" "AMD Instinct MI300X"
expect "$gpu" "Vendor Name:" "AMD"
expect "$gpu" "Feature:" "KERNEL_DISPATCH"
expect "$gpu" "Profile:" "BASE_PROFILE"
expect "$gpu" "Max Queue Number:" "128(0x80)"
expect "$gpu" "Queue Max Size:" "131072(0x20000)"
expect "$gpu" "Device Type:" "GPU"
expect "$gpu" "Chip ID:" "29857(0x74a1)"
expect "$gpu" "ASIC Revision:" "1(0x1)"
expect "$gpu" "Max Clock Freq. (MHz):" "2100"
expect "$gpu" "Compute Unit:" "304"
expect "$gpu" "SIMDs per CU:" "4"
expect "$gpu" "Shader Engines:" "32"
expect "$gpu" "Shader Arrs. per Eng.:" "1"
expect "$gpu" "Wavefront Size:" "64(0x40)"
expect "$gpu" "Max Waves Per CU:" "32(0x20)"
expect "$gpu" "Max Work-item Per CU:" "2048(0x800)"
expect "$gpu" "Packet Processor uCode::" "166"
expect "$gpu" "SDMA engine uCode::" "22"
grep -qxE '    L1: +32\(0x20\) KB' <<<"$gpu" || fail "L1 32 KB"
grep -qxE '    L2: +4096\(0x1000\) KB' <<<"$gpu" || fail "L2 4096 KB"
grep -qxE '    L3: +262144\(0x40000\) KB' <<<"$gpu" || fail "L3 262144 KB"
bdfid=$(grep -E '^  BDFID: ' <<<"$gpu" | awk '{print $2}')
[[ "$bdfid" -eq $((0x0c << 8)) ]] || fail "BDFID $bdfid is not bus 0x0c"

# The GPU's four pools, each with rocminfo's seven lines, and its ISA.
[[ $(grep -cE '^    Pool [0-9]+ *$' <<<"$gpu") -eq 4 ]] || fail "the MI300X has 4 pools"
for flags in "COARSE GRAINED" "EXTENDED FINE GRAINED" "FINE GRAINED"; do
  grep -qxE "      Segment: +GLOBAL; FLAGS: $flags" <<<"$gpu" || fail "no $flags VRAM pool"
done
grep -qxE '      Segment: +GROUP' <<<"$gpu" || fail "no GROUP pool"
[[ $(grep -cxE '      Size: +201310208\(0xbffc000\) KB' <<<"$gpu") -eq 3 ]] || fail "VRAM pools of 201310208 KB"
for label in "Allocatable:" "Alloc Granule:" "Alloc Recommended Granule:" "Alloc Alignment:" "Accessible by all:"; do
  [[ $(grep -cF "      $label" <<<"$gpu") -eq 4 ]] || fail "every pool prints '$label'"
done
grep -qxE '      Name: +amdgcn-amd-amdhsa--gfx942:sramecc\+:xnack-' <<<"$gpu" || fail "ISA name"
for label in "Machine Models:" "Profiles:" "Default Rounding Mode:" "Fast f16:" "FBarrier Max Size:"; do
  grep -qF "      $label" <<<"$gpu" || fail "ISA: no '$label'"
done

# The CPU agent: no kernel-agent lines, its name from /proc/cpuinfo, no ISA.
expect "$cpu" "Uuid:" "CPU-XX"
expect "$cpu" "Device Type:" "CPU"
expect "$cpu" "Feature:" "None specified"
model=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')
[[ -z "$model" ]] || expect "$cpu" "Name:" "$model"
if grep -qF "Wavefront Size:" <<<"$cpu"; then fail "a CPU agent prints no kernel-agent lines"; fi
if grep -qE '^    ISA [0-9]' <<<"$cpu"; then fail "a CPU agent has no ISA"; fi
echo "hipmem info: OK"
