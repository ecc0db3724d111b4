// What ROCclr knows about one GPU: the device::Info that hipGetDeviceProperties and hipDeviceGetAttribute
// answer from.
//
// Plays roc::Device::populateOCLDeviceConstants (rocdevice.cpp): each value is derived from the HSA agent's
// attributes and pools the way ROCclr derives it, or is ROCclr's fixed answer where it has one. Filled once,
// when the Context is created; plain data afterwards.
#ifndef HIPMEM_CLR_DEVICE_INFO_H_
#define HIPMEM_CLR_DEVICE_INFO_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "base/units.h"
#include "clr/settings.h"
#include "hsa/runtime.h"

namespace hipmem::clr {

struct DeviceInfo {
  // Identity.
  std::string name;           // the processor: "gfx942"
  std::string gcn_arch_name;  // the target id: "gfx942:sramecc+:xnack-"
  std::string board_name;     // the marketing name: "AMD Instinct MI300X"
  uint32_t gfx_major = 0;     // gfx942 -> 9, 4, 2; gfx90a -> 9, 0, 10; gfx1100 -> 11, 0, 0
  uint32_t gfx_minor = 0;
  uint32_t gfx_stepping = 0;
  uint32_t pci_device_id = 0;  // the chip id
  uint32_t asic_revision = 0;
  // The 16 characters after "GPU-" in the agent's UUID, as ROCclr copies them (ASCII, not binary); zero
  // bytes where the agent has no unique id ("GPU-XX" gives "XX" and 14 zeros).
  std::array<uint8_t, 16> uuid = {};

  // PCI location, from the KFD's location_id (BDF) and domain.
  uint32_t pci_domain = 0;
  uint32_t pci_bus = 0;
  uint32_t pci_device = 0;
  uint32_t pci_function = 0;

  // Compute shape.
  uint32_t compute_units = 0;           // per WGP on gfx10+ in WGP mode (what HIP calls multiprocessors)
  uint32_t physical_compute_units = 0;  // the CUs the KFD reports
  uint32_t simds_per_cu = 0;
  uint32_t wavefront_size = 0;
  uint32_t max_waves_per_cu = 0;
  uint32_t max_threads_per_cu = 0;          // wavefront x max waves per CU
  uint32_t available_registers_per_cu = 0;  // VGPRs per SIMD x SIMDs per CU x wavefront
  uint32_t available_vgprs = 0;             // addressable VGPRs per thread
  // The register files as ROCclr's occupancy arithmetic sees them (comgr's TotalNumVGPRs and VGPRAllocGranule ISA
  // metadata, for the ISA's default wavefront; ROCclr's fixed SGPR file per SIMD).
  uint32_t vgprs_per_simd = 0;
  uint32_t vgpr_alloc_granule = 0;
  uint32_t sgprs_per_simd = 0;  // UINT32_MAX on gfx10+, whose waves do not share SGPRs
  uint32_t max_work_group_size = 0;         // 1024
  std::array<uint32_t, 3> max_work_item_sizes = {};
  uint32_t num_xcc = 0;
  uint32_t num_sdma_engines = 0;
  bool cooperative_groups = false;  // the KFD grants GWS (cooperative queues)

  // Clocks, in MHz, and the memory interface.
  uint32_t max_engine_clock_mhz = 0;
  uint32_t max_memory_clock_mhz = 0;
  uint32_t memory_bus_width_bits = 0;
  uint32_t timestamp_frequency_khz = 0;  // the s_memtime / wall-clock counter HIP reports as clockInstructionRate

  // Caches and on-chip memory.
  uint32_t l2_cache_size = 0;       // bytes (HSA's CACHE_SIZE[1])
  uint32_t cacheline_size = 0;
  Bytes local_mem_per_cu;           // the group segment (LDS) pool

  // Memory.
  Bytes vram_size;        // the coarse-grained VRAM pool
  Bytes global_mem_size;  // vram_size x GPU_MAX_HEAP_SIZE %
  Bytes max_alloc_size;   // global_mem_size x GPU_SINGLE_ALLOC_PERCENT %
  Bytes max_constant_buffer_size;  // ROCclr: the single-allocation limit

  // Capabilities, as this machine really has them.
  bool large_bar = false;            // the CPU reaches all of VRAM
  bool ecc_enabled = false;          // ROCclr reports no error correction
  bool managed_memory = false;       // HMM/SVM ranges (hipMallocManaged)
  bool pageable_memory_access = false;  // XNACK on: GPUs reach any CPU page
  bool xnack_enabled = false;
  bool coherent_host_access = false;
  bool apu = false;
};

// Fills the DeviceInfo of GPU `agent` from its HSA description and pools. `vram` is the pool device memory
// comes from; `settings` gives GPU_MAX_HEAP_SIZE, GPU_SINGLE_ALLOC_PERCENT and GPU_ENABLE_WGP_MODE (on gfx10+,
// compute units are counted per WGP, with twice the SIMDs and waves each, as ROCclr counts them). Errors: the
// runtime's for an unknown agent or pool; kFailedPrecondition for an agent that is not a GPU or has no ISA.
absl::StatusOr<DeviceInfo> DescribeDevice(hsa::Runtime& runtime, const hsa::Agent& agent, hsa::PoolId vram,
                                          const Settings& settings);

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_DEVICE_INFO_H_
