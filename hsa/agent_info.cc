#include "hsa/agent_info.h"

#include <cstdint>
#include <cstring>
#include <algorithm>
#include <vector>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"

namespace hipmem::hsa {
namespace {

template <typename T>
absl::Status Put(void* value, const T& v) {
  std::memcpy(value, &v, sizeof(T));
  return absl::OkStatus();
}

// A NUL-terminated string in a caller buffer of `size` bytes (rocminfo's char[64] / char[24]).
absl::Status PutString(void* value, const std::string& s, size_t size) {
  char* out = static_cast<char*>(value);
  std::memset(out, 0, size);
  std::memcpy(out, s.data(), std::min(s.size(), size - 1));
  return absl::OkStatus();
}

constexpr size_t kNameSize = 64;
// "GPU-" + 16 hex digits + NUL: ROCr writes exactly this many bytes; rocminfo's buffer is 24.
constexpr size_t kUuidSize = 21;

absl::Status Unsupported(uint32_t attribute) {
  return absl::InvalidArgumentError(absl::StrCat("agent attribute 0x", absl::Hex(attribute), " is not supported"));
}

}  // namespace

bool XnackEnabled() { return EnvUint64("HSA_XNACK", 0) == 1; }

absl::Status WriteTopologySystemInfo(uint32_t attribute, void* value) {
  switch (attribute) {
    case HSA_SYSTEM_INFO_EXTENSIONS: {
      // One bit per hsa_extension_t this runtime implements. None yet: the finalizer, images,
      // performance counters, profiling events, the AMD profiler and loader tables are all absent
      // (hsa_unsupported.cc), so no bit is set and clients take their no-extension paths.
      uint8_t mask[128] = {};
      std::memcpy(value, mask, sizeof(mask));
      return absl::OkStatus();
    }
    case HSA_AMD_SYSTEM_INFO_BUILD_VERSION: return Put<const char*>(value, "hipmem");
    // No SVM: the simulated KFD does not implement AMDKFD_IOC_SVM and the thunk clears the capability.
    case HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED: return Put<bool>(value, false);
    case HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: return Put<bool>(value, false);
    // ROCr enables MWAITX waits only under HSA_ENABLE_MWAITX=1; this runtime's waits sleep on KFD events.
    case HSA_AMD_SYSTEM_INFO_MWAITX_ENABLED: return Put<bool>(value, false);
    // hsa_amd_portable_export_dmabuf is not implemented at this layer yet (hsa_unsupported.cc), so a
    // client must not plan on it, although the thunk exports dma-bufs.
    case HSA_AMD_SYSTEM_INFO_DMABUF_SUPPORTED: return Put<bool>(value, false);
    // hsa_amd_vmem_* are not implemented yet.
    case HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED: return Put<bool>(value, false);
    case HSA_AMD_SYSTEM_INFO_XNACK_ENABLED: return Put<bool>(value, XnackEnabled());
    // The version of the hsa_ext_amd.h this runtime ships, as ROCr reports its header's.
    case HSA_AMD_SYSTEM_INFO_EXT_VERSION_MAJOR: return Put<uint16_t>(value, HSA_AMD_INTERFACE_VERSION_MAJOR);
    case HSA_AMD_SYSTEM_INFO_EXT_VERSION_MINOR: return Put<uint16_t>(value, HSA_AMD_INTERFACE_VERSION_MINOR);
    case HSA_AMD_SYSTEM_INFO_FABRIC_HANDLES_SUPPORTED: return Put<bool>(value, false);
    case HSA_AMD_SYSTEM_INFO_HOST_ALLOC_DMA_BUF_SUPPORTED: return Put<bool>(value, false);
    default:
      return absl::InvalidArgumentError(absl::StrCat("system attribute 0x", absl::Hex(attribute), " is not supported"));
  }
}

absl::StatusOr<AgentDescription> DescribeRuntimeAgent(Runtime& runtime, const Agent& agent) {
  const std::vector<thunk::NodeProperties>& nodes = runtime.kfd().topology().nodes;
  if (agent.node.raw() >= nodes.size()) {
    return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(agent.id.raw()), ": node ", agent.node.raw(),
                                          " is not in the topology"));
  }
  return DescribeAgent(nodes[agent.node.raw()], agent.name, XnackEnabled());
}

absl::Status WriteTopologyAgentInfo(Runtime& runtime, const Agent& agent, uint32_t attribute, void* value) {
  ASSIGN_OR_RETURN(const AgentDescription d, DescribeRuntimeAgent(runtime, agent));
  const bool gpu = d.gpu;
  switch (attribute) {
    case HSA_AGENT_INFO_FEATURE:
      return Put(value, gpu ? HSA_AGENT_FEATURE_KERNEL_DISPATCH : static_cast<hsa_agent_feature_t>(0));
    case HSA_AGENT_INFO_MACHINE_MODEL: return Put(value, HSA_MACHINE_MODEL_LARGE);
    // A dGPU shares only runtime-allocated memory with the host: the base profile. The CPU is full.
    case HSA_AGENT_INFO_PROFILE: return Put(value, gpu ? HSA_PROFILE_BASE : HSA_PROFILE_FULL);
    case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
      return Put(value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
    case HSA_AGENT_INFO_FAST_F16_OPERATION: return Put<bool>(value, gpu);
    case HSA_AGENT_INFO_WAVEFRONT_SIZE: return Put<uint32_t>(value, d.wavefront_size);
    case HSA_AGENT_INFO_WORKGROUP_MAX_DIM: {
      const uint16_t dims[3] = {gpu ? uint16_t{1024} : uint16_t{0}, gpu ? uint16_t{1024} : uint16_t{0},
                                gpu ? uint16_t{1024} : uint16_t{0}};
      std::memcpy(value, dims, sizeof(dims));
      return absl::OkStatus();
    }
    case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE: return Put<uint32_t>(value, gpu ? 1024 : 0);
    case HSA_AGENT_INFO_GRID_MAX_DIM: {
      // What ROCm 6.x rocminfo dumps show for every GPU: UINT32_MAX in each dimension.
      const hsa_dim3_t grid = gpu ? hsa_dim3_t{UINT32_MAX, UINT32_MAX, UINT32_MAX} : hsa_dim3_t{0, 0, 0};
      return Put(value, grid);
    }
    case HSA_AGENT_INFO_GRID_MAX_SIZE: return Put<uint32_t>(value, gpu ? UINT32_MAX : 0);
    case HSA_AGENT_INFO_FBARRIER_MAX_SIZE: return Put<uint32_t>(value, gpu ? 32 : 0);
    case HSA_AGENT_INFO_QUEUES_MAX: return Put<uint32_t>(value, d.queues_max);
    case HSA_AGENT_INFO_QUEUE_MIN_SIZE: return Put<uint32_t>(value, d.queue_min_size);
    case HSA_AGENT_INFO_QUEUE_MAX_SIZE: return Put<uint32_t>(value, d.queue_max_size);
    case HSA_AGENT_INFO_QUEUE_TYPE: return Put(value, static_cast<hsa_queue_type32_t>(HSA_QUEUE_TYPE_MULTI));
    case HSA_AGENT_INFO_CACHE_SIZE: {
      std::memcpy(value, d.cache_size.data(), sizeof(uint32_t) * 4);
      return absl::OkStatus();
    }
    case HSA_AGENT_INFO_ISA: {
      if (!d.isa.has_value()) return Put(value, hsa_isa_t{0});
      return Put(value, hsa_isa_t{InternIsa(*d.isa)});
    }
    case HSA_AGENT_INFO_EXTENSIONS: {
      uint8_t mask[128] = {};  // see HSA_SYSTEM_INFO_EXTENSIONS
      std::memcpy(value, mask, sizeof(mask));
      return absl::OkStatus();
    }
    case HSA_AGENT_INFO_VERSION_MAJOR: return Put<uint16_t>(value, 1);
    case HSA_AGENT_INFO_VERSION_MINOR: return Put<uint16_t>(value, 1);
    case HSA_AMD_AGENT_INFO_CHIP_ID: return Put<uint32_t>(value, d.chip_id);
    case HSA_AMD_AGENT_INFO_CACHELINE_SIZE: return Put<uint32_t>(value, d.cacheline_size);
    case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
    case HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT: return Put<uint32_t>(value, d.compute_units);
    case HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY: return Put<uint32_t>(value, d.max_clock_mhz);
    case HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS: return Put<uint32_t>(value, d.watch_points);
    case HSA_AMD_AGENT_INFO_BDFID: return Put<uint32_t>(value, d.bdfid);
    case HSA_AMD_AGENT_INFO_MEMORY_WIDTH: return Put<uint32_t>(value, d.memory_width);
    case HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY: return Put<uint32_t>(value, d.memory_max_frequency);
    case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU: return Put<uint32_t>(value, d.max_waves_per_cu);
    case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU: return Put<uint32_t>(value, d.simds_per_cu);
    case HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES: return Put<uint32_t>(value, d.shader_engines);
    case HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE: return Put<uint32_t>(value, d.shader_arrays_per_engine);
    case HSA_AMD_AGENT_INFO_DOMAIN: return Put<uint32_t>(value, d.domain);
    case HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES: return Put<bool>(value, d.cooperative_queues);
    case HSA_AMD_AGENT_INFO_UUID: return PutString(value, d.uuid, gpu ? kUuidSize : sizeof("CPU-XX"));
    case HSA_AMD_AGENT_INFO_ASIC_REVISION: return Put<uint32_t>(value, d.asic_revision);
    case HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS: return Put<bool>(value, d.coherent_host_access);
    case HSA_AMD_AGENT_INFO_ASIC_FAMILY_ID: return Put<uint32_t>(value, d.family_id);
    case HSA_AMD_AGENT_INFO_UCODE_VERSION: return Put<uint32_t>(value, d.ucode_version);
    case HSA_AMD_AGENT_INFO_SDMA_UCODE_VERSION: return Put<uint32_t>(value, d.sdma_ucode_version);
    case HSA_AMD_AGENT_INFO_NUM_SDMA_ENG: return Put<uint32_t>(value, d.num_sdma_engines);
    case HSA_AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG: return Put<uint32_t>(value, d.num_sdma_xgmi_engines);
    case HSA_AMD_AGENT_INFO_IOMMU_SUPPORT:
      return Put(value, d.iommu_v2 ? HSA_IOMMU_SUPPORT_V2 : HSA_IOMMU_SUPPORT_NONE);
    case HSA_AMD_AGENT_INFO_NUM_XCC: return Put<uint32_t>(value, d.num_xcc);
    case HSA_AMD_AGENT_INFO_DRIVER_UID: return Put<uint32_t>(value, d.driver_uid);
    case HSA_AMD_AGENT_INFO_NEAREST_CPU: {
      // Every preset has one CPU node; ROCr picks the CPU agent of the GPU's NUMA node (or the first).
      for (const Agent& a : runtime.agents()) {
        if (a.type == DeviceType::kCpu) return Put(value, hsa_agent_t{a.id.raw()});
      }
      return Put(value, hsa_agent_t{0});
    }
    case HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES: {
      uint8_t flags[8] = {};
      if (d.apu) flags[0] |= HSA_AMD_MEMORY_PROPERTY_AGENT_IS_APU;
      std::memcpy(value, flags, sizeof(flags));
      return absl::OkStatus();
    }
    case HSA_AMD_AGENT_INFO_AQL_EXTENSIONS: {
      uint8_t flags[8] = {};  // ROCr defines none yet
      std::memcpy(value, flags, sizeof(flags));
      return absl::OkStatus();
    }
    default: return Unsupported(attribute);
  }
}

}  // namespace hipmem::hsa
