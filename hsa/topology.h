// What the HSA runtime tells clients about each agent: identity, compute shape, caches and ISA. The
// derivation from the thunk's KFD node properties (DescribeAgent) is in topology_kfd.h, for hsa's own files.
//
// Plays the part of ROCr's GpuAgent/CpuAgent constructors that turn HsaNodeProperties and
// HsaCacheProperties into the values of hsa_agent_get_info (amd_gpu_agent.cpp, amd_cpu_agent.cpp), and of
// its core::Isa registry (isa.cpp) that names an agent's instruction set. Pure functions over a
// NodeProperties snapshot; thread-safe.
#ifndef HIPMEM_HSA_TOPOLOGY_H_
#define HIPMEM_HSA_TOPOLOGY_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hipmem::hsa {

// A target feature of an ISA name (":sramecc+", ":xnack-"): unsupported when the processor has no such
// setting; on or off; or any, when a name leaves a supported feature out (code built for either setting).
enum class FeatureState : uint8_t { kUnsupported, kAny, kOff, kOn };

// One instruction set: a processor ("gfx942") with its feature settings. Equal descriptions are one ISA.
struct IsaDescription {
  std::string processor;
  FeatureState sramecc = FeatureState::kUnsupported;
  FeatureState xnack = FeatureState::kUnsupported;
  uint32_t wavefront_size = 64;

  // "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-": ROCr's Isa::GetIsaName, the name the code object
  // loader matches.
  std::string FullName() const;
  friend bool operator==(const IsaDescription&, const IsaDescription&) = default;
};

// Parses a full ISA name. Errors: kInvalidArgument (HSA_STATUS_ERROR_INVALID_ISA_NAME) when the prefix is not
// "amdgcn-amd-amdhsa--", the processor is not one this runtime knows, or a feature is unknown, repeated,
// or not supported by the processor.
absl::StatusOr<IsaDescription> ParseIsaName(absl::string_view name);

// Returns the hsa_isa_t handle of `isa`: the same handle for equal descriptions, for the life of the process
// (ROCr's IsaRegistry hands out one core::Isa per name, valid before hsa_init and after shut-down). Thread-safe.
uint64_t InternIsa(const IsaDescription& isa);
// Returns the ISA behind a handle InternIsa gave out. Errors: kInvalidArgument (HSA_STATUS_ERROR_INVALID_ISA)
// for any other value.
absl::StatusOr<IsaDescription> LookupIsa(uint64_t handle);

// One cache as hsa_agent_iterate_caches reports it.
struct CacheDescription {
  std::string name;  // "L1", "L2", ...
  uint8_t level;
  uint32_t size_bytes;
};

// Everything hsa_agent_get_info answers from the topology, for one agent.
struct AgentDescription {
  bool gpu = false;
  std::string name;          // HSA_AGENT_INFO_NAME: "gfx942", or the CPU's model name
  std::string product_name;  // HSA_AMD_AGENT_INFO_PRODUCT_NAME
  std::string uuid;          // "GPU-<16 hex>", "GPU-XX" without a unique id, "CPU-XX" for CPUs
  uint32_t chip_id = 0;      // PCI device id
  uint32_t asic_revision = 0;
  uint32_t family_id = 0;
  uint32_t compute_units = 0;
  uint32_t simds_per_cu = 0;
  uint32_t shader_engines = 0;
  uint32_t shader_arrays_per_engine = 0;
  uint32_t max_clock_mhz = 0;
  uint32_t max_waves_per_cu = 0;
  uint32_t wavefront_size = 0;
  uint32_t bdfid = 0;
  uint32_t domain = 0;
  uint32_t cacheline_size = 0;
  std::array<uint32_t, 4> cache_size = {};  // HSA_AGENT_INFO_CACHE_SIZE: bytes per level L1..L4
  uint32_t watch_points = 0;
  uint32_t ucode_version = 0;
  uint32_t sdma_ucode_version = 0;
  uint32_t num_sdma_engines = 0;
  uint32_t num_sdma_xgmi_engines = 0;
  uint32_t num_xcc = 0;
  uint32_t driver_uid = 0;  // the KFD gpu_id
  uint32_t memory_width = 0;
  uint32_t memory_max_frequency = 0;
  uint32_t queues_max = 0;
  uint32_t queue_min_size = 0;
  uint32_t queue_max_size = 0;
  bool cooperative_queues = false;
  bool coherent_host_access = false;
  bool iommu_v2 = false;
  bool apu = false;
  bool large_bar = false;  // the CPU sees all of VRAM (its bank is FRAME_BUFFER_PUBLIC)
  uint64_t hive_id = 0;
  std::vector<CacheDescription> caches;
  std::optional<IsaDescription> isa;  // GPUs only
};

// Returns the first "model name" of a /proc/cpuinfo-format file, or "CPU" when there is none (the file is
// unreadable or, as on some arm64 kernels, lists no model name).
std::string CpuModelName(const std::string& cpuinfo_path = "/proc/cpuinfo");

// The queue limits ROCr reports for GPU agents: HSA_MAX_QUEUES' default, and the AQL ring sizes in
// packets (a 4 KiB page of 64-byte packets minimum, 128 Ki packets maximum).
inline constexpr uint32_t kGpuQueuesMax = 128;
inline constexpr uint32_t kAqlQueueMinSize = 64;
inline constexpr uint32_t kAqlQueueMaxSize = 131072;

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_TOPOLOGY_H_
