// Named simulated machines built from public facts about AMD GPUs: what `HIPMEM_SIM_PRESET` selects.
//
// Plays the hardware the KFD would enumerate: each preset is a Topology (CPU node, GPU nodes with their
// sysfs properties, caches and io links) as kfd_topology.c would report it for that machine. Sources are
// cited next to the values in presets.cc.
//
//   name       GPUs                        gfx_target_version  VRAM per GPU  CUs per GPU  links
//   mi300x     1 x Instinct MI300X (OAM)   90402 (gfx942)      192 GiB       304          PCIe Gen5
//   mi250x     1 x Instinct MI250X GCD     90010 (gfx90a)      64 GiB        110          PCIe Gen4
//   mi100      1 x Instinct MI100          90008 (gfx908)      32 GiB        120          PCIe Gen4
//   rx7900xtx  1 x Radeon RX 7900 XTX      110000 (gfx1100)    24 GiB        96 (wave32)  PCIe Gen4
//   2xmi250x   both GCDs of one MI250X     90010 (gfx90a)      64 GiB        110          + 4 XGMI links, 1 hive
//   8xmi300x   eight MI300X OAMs           90402 (gfx942)      192 GiB       304          + XGMI all-to-all, 1 hive
//   2xrx7900xtx two RX 7900 XTX, no P2P     110000 (gfx1100)    24 GiB        96 (wave32)  PCIe Gen4 to the CPU only
//
// VRAM is the board's; the bank each GPU reports is 16 MiB less (what amdgpu keeps, and what rocminfo prints).
// A single MI300X keeps its board's XGMI hive id (no peers), as one OAM of an 8-OAM platform does.
//
// The CPU node's memory is the RAM of the machine the simulator runs on (HostSystemMemory), whatever the platform
// would have: system memory buffers are that machine's real memory. A test that needs a fixed amount sets
// Topology::system_memory_bytes (and system_memory_limit_bytes) itself.
//
// Every GPU has a PCIe link to the CPU in both directions; GPUs of one hive have an XGMI link to every
// other member, in both directions. GPUs in no hive (2xrx7900xtx) have no link to each other: without large
// BAR the KFD lists no PCIe peer link, so neither GPU can map the other's VRAM. The default simulated machine is DefaultTopology() ("mi300x").
#ifndef HIPMEM_TESTING_KFD_SIM_PRESETS_H_
#define HIPMEM_TESTING_KFD_SIM_PRESETS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/units.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {

// Returns the RAM of the machine this runs on, as /proc/meminfo's MemTotal (sysinfo's totalram): what a real KFD
// reports for the CPU node of a single-NUMA-node host (kfd_fill_mem_info_for_cpu sums the node's managed pages).
Bytes HostSystemMemory();

// Returns every preset name PresetTopology accepts, in the order of the table above.
std::vector<std::string> PresetNames();

// Returns the topology of preset `name` (exact, lower-case match).
// Errors: kNotFound for an unknown name; the message lists the valid names.
absl::StatusOr<Topology> PresetTopology(absl::string_view name);

// Returns the machine the process's environment asks for: preset HIPMEM_SIM_PRESET (DefaultTopology() when unset or
// empty), then, when HIPMEM_SIM_NUM_GWS=<n> is set, n global wave sync slots (sysfs num_gws) on every GPU instead of
// the preset's. One reading for every way in (the thunk's in-process simulator and the LD_PRELOAD host), so the same
// environment makes the same machine. 0 GWS is a GPU without GWS, which no preset is: amdkfd reports 0 where it
// allocated none (no HWS, or CP firmware without GWS support: kfd_gws_init), and ROCr then offers no cooperative
// queues on the agent.
// Errors: kInvalidArgument for an unknown preset (the message names the setting and lists the valid presets) or a
// HIPMEM_SIM_NUM_GWS that is no unsigned 32-bit number.
absl::StatusOr<Topology> TopologyFromEnvironment();

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_PRESETS_H_
