#include "hsa/agent_info.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "hsa/extensions.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime_kfd.h"
#include "hsa/topology_kfd.h"

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

// "GPU-" + 16 hex digits + NUL: ROCr writes exactly this many bytes; rocminfo's buffer is 24.
constexpr size_t kUuidSize = 21;

absl::Status Unsupported(uint32_t attribute) {
  return absl::InvalidArgumentError(absl::StrCat("agent attribute 0x", absl::Hex(attribute), " is not supported"));
}

// Opaque handle bases for caches and wavefronts; no agent, pool or ISA handle shares them.
constexpr uint64_t kCacheHandleBase = 0x4341'0000'0000'0000ull;      // "CA"
constexpr uint64_t kWavefrontHandleBase = 0x5746'0000'0000'0000ull;  // "WF"
constexpr uint64_t kHandleBaseMask = 0xffff'0000'0000'0000ull;

absl::Status InvalidCache(uint64_t cache, absl::string_view cause) {
  return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat("cache 0x", absl::Hex(cache), ": ", cause)),
                       HSA_STATUS_ERROR_INVALID_CACHE);
}

absl::Status InvalidWavefront(uint64_t wavefront, absl::string_view cause) {
  return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat("wavefront 0x", absl::Hex(wavefront), ": ", cause)),
                       HSA_STATUS_ERROR_INVALID_WAVEFRONT);
}

// The index of `agent` in the runtime's agent list.
absl::StatusOr<size_t> AgentIndex(Runtime& runtime, AgentId agent) {
  const std::vector<Agent>& agents = runtime.agents();
  for (size_t i = 0; i < agents.size(); ++i) {
    if (agents[i].id == agent) return i;
  }
  return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(agent.raw()), " is not an agent of this runtime"));
}

// The agent's caches in hsa_agent_iterate_caches order, with their index in the KFD list.
std::vector<size_t> CacheOrder(const AgentDescription& d) {
  std::vector<size_t> order(d.caches.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return d.caches[a].level < d.caches[b].level; });
  return order;
}

bool FeaturesCompatible(FeatureState code, FeatureState agent) {
  return code == FeatureState::kAny || agent == FeatureState::kAny || code == agent;
}

// HSA_LINKPROPERTY flag bits of an io_link (hsakmttypes.h).
constexpr uint32_t kLinkNonCoherent = 1u << 1;
constexpr uint32_t kLinkNoAtomics32 = 1u << 2;
constexpr uint32_t kLinkNoAtomics64 = 1u << 3;

const thunk::IoLink* FindLink(const thunk::SystemTopology& topology, thunk::NodeId from, thunk::NodeId to) {
  if (from.raw() >= topology.nodes.size()) return nullptr;
  for (const thunk::IoLink& link : topology.nodes[from.raw()].io_links) {
    if (link.node_to == to) return &link;
  }
  return nullptr;
}

// The io_links from `from` to `to`: the direct one, or, for memory on a CPU node, two through another CPU node
// both reach; empty without a path. A GPU's VRAM is never reached through a CPU node: the KFD lists a link to a
// peer GPU (XGMI, or a PCIe peer link when large BAR makes the peer accessible) exactly when the peer can map it,
// and ROCr calls VRAM with no such link NEVER_ALLOWED.
std::vector<const thunk::IoLink*> LinkPath(const thunk::SystemTopology& topology, thunk::NodeId from,
                                           thunk::NodeId to) {
  if (from == to) return {};
  if (const thunk::IoLink* direct = FindLink(topology, from, to)) return {direct};
  if (to.raw() >= topology.nodes.size() || topology.nodes[to.raw()].is_gpu()) return {};
  for (const thunk::NodeProperties& node : topology.nodes) {
    if (node.is_gpu()) continue;
    const thunk::IoLink* first = FindLink(topology, from, node.id);
    const thunk::IoLink* second = FindLink(topology, node.id, to);
    if (first != nullptr && second != nullptr) return {first, second};
  }
  return {};
}

hsa_amd_link_info_type_t LinkType(thunk::IoLinkType type) {
  switch (type) {
    case thunk::IoLinkType::kHyperTransport: return HSA_AMD_LINK_INFO_TYPE_HYPERTRANSPORT;
    case thunk::IoLinkType::kQpi11: return HSA_AMD_LINK_INFO_TYPE_QPI;
    case thunk::IoLinkType::kInfiniband: return HSA_AMD_LINK_INFO_TYPE_INFINBAND;
    case thunk::IoLinkType::kXgmi: return HSA_AMD_LINK_INFO_TYPE_XGMI;
    default: return HSA_AMD_LINK_INFO_TYPE_PCIE;  // ROCr's answer for every other bus
  }
}

}  // namespace

absl::Status WriteLinkAgentPoolInfo(const Runtime& runtime, const Agent& agent, const MemoryPool& pool,
                                    uint32_t attribute, void* value) {
  const thunk::SystemTopology& topology = TopologyOf(runtime);
  const thunk::NodeId agent_node = KfdNodeOf(runtime, agent);
  const thunk::NodeId pool_node = KfdNodeOf(runtime, pool);
  const bool own = pool.owner == agent.id;
  const std::vector<const thunk::IoLink*> path = own ? std::vector<const thunk::IoLink*>{}
                                                     : LinkPath(topology, agent_node, pool_node);
  switch (attribute) {
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS: {
      if (own) return Put(value, HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
      if (pool.segment == Segment::kGroup) return Put(value, HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED);
      if (pool.location == PoolLocation::kCpu) {
        return Put(value, pool.accessible_by_all ? HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT
                                                 : HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);
      }
      if (path.empty()) return Put(value, HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED);
      // Fine-grained (uncached) VRAM keeps its coherence only over XGMI: a peer outside the hive never gets it.
      if (HasFlag(pool.global_flags, GlobalFlags::kFineGrained) && agent.type == DeviceType::kGpu) {
        const uint64_t agent_hive = topology.nodes[agent_node.raw()].Get("hive_id");
        const uint64_t pool_hive = topology.nodes[pool_node.raw()].Get("hive_id");
        if (agent_hive == 0 || agent_hive != pool_hive) return Put(value, HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED);
      }
      return Put(value, HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);
    }
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS: return Put<uint32_t>(value, static_cast<uint32_t>(path.size()));
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO: {
      auto* out = static_cast<hsa_amd_memory_pool_link_info_t*>(value);
      for (size_t i = 0; i < path.size(); ++i) {
        const thunk::IoLink& link = *path[i];
        hsa_amd_memory_pool_link_info_t info{};
        info.min_latency = link.min_latency;
        info.max_latency = link.max_latency;
        info.min_bandwidth = link.min_bandwidth;
        info.max_bandwidth = link.max_bandwidth;
        info.atomic_support_32bit = (link.flags & kLinkNoAtomics32) == 0;
        info.atomic_support_64bit = (link.flags & kLinkNoAtomics64) == 0;
        info.coherent_support = (link.flags & kLinkNonCoherent) == 0;
        info.link_type = LinkType(link.type);
        info.numa_distance = link.weight;
        std::memcpy(&out[i], &info, sizeof(info));
      }
      return absl::OkStatus();
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("agent memory pool attribute 0x", absl::Hex(attribute), " is not supported"));
  }
}

absl::StatusOr<std::vector<uint64_t>> AgentIsaHandles(Runtime& runtime, AgentId agent_id) {
  ASSIGN_OR_RETURN(const Agent* agent, runtime.GetAgent(agent_id));
  ASSIGN_OR_RETURN(const AgentDescription d, DescribeRuntimeAgent(runtime, *agent));
  if (!d.isa.has_value()) return std::vector<uint64_t>{};
  return std::vector<uint64_t>{InternIsa(*d.isa)};
}

absl::Status WriteIsaInfo(uint64_t handle, uint32_t attribute, void* value) {
  ASSIGN_OR_RETURN(const IsaDescription isa, LookupIsa(handle));
  switch (attribute) {
    case HSA_ISA_INFO_NAME_LENGTH: return Put<uint32_t>(value, static_cast<uint32_t>(isa.FullName().size() + 1));
    case HSA_ISA_INFO_NAME: {
      const std::string name = isa.FullName();
      std::memcpy(value, name.c_str(), name.size() + 1);
      return absl::OkStatus();
    }
    case HSA_ISA_INFO_CALL_CONVENTION_COUNT: return Put<uint32_t>(value, 1);
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE: return Put<uint32_t>(value, isa.wavefront_size);
    // ROCr's fixed answer for this deprecated attribute (core::Isa::GetInfo).
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT: return Put<uint32_t>(value, 40);
    case HSA_ISA_INFO_MACHINE_MODELS: {
      const bool models[2] = {false, true};  // small, large: 64-bit only
      std::memcpy(value, models, sizeof(models));
      return absl::OkStatus();
    }
    case HSA_ISA_INFO_PROFILES: {
      const bool profiles[2] = {true, false};  // base, full: discrete GPUs run the base profile
      std::memcpy(value, profiles, sizeof(profiles));
      return absl::OkStatus();
    }
    case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES:
    case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
      const bool modes[3] = {false, false, true};  // default, zero, near
      std::memcpy(value, modes, sizeof(modes));
      return absl::OkStatus();
    }
    case HSA_ISA_INFO_FAST_F16_OPERATION: return Put<bool>(value, true);
    case HSA_ISA_INFO_WORKGROUP_MAX_DIM: {
      const uint16_t dims[3] = {1024, 1024, 1024};
      std::memcpy(value, dims, sizeof(dims));
      return absl::OkStatus();
    }
    case HSA_ISA_INFO_WORKGROUP_MAX_SIZE: return Put<uint32_t>(value, 1024);
    case HSA_ISA_INFO_GRID_MAX_DIM: return Put(value, hsa_dim3_t{UINT32_MAX, UINT32_MAX, UINT32_MAX});
    case HSA_ISA_INFO_GRID_MAX_SIZE: return Put<uint64_t>(value, UINT32_MAX);
    case HSA_ISA_INFO_FBARRIER_MAX_SIZE: return Put<uint32_t>(value, 32);
    default:
      return absl::InvalidArgumentError(absl::StrCat("isa attribute 0x", absl::Hex(attribute), " is not supported"));
  }
}

absl::StatusOr<bool> IsaCompatible(uint64_t code_object_isa, uint64_t agent_isa) {
  ASSIGN_OR_RETURN(const IsaDescription code, LookupIsa(code_object_isa));
  ASSIGN_OR_RETURN(const IsaDescription agent, LookupIsa(agent_isa));
  return code.processor == agent.processor && FeaturesCompatible(code.sramecc, agent.sramecc) &&
         FeaturesCompatible(code.xnack, agent.xnack);
}

absl::StatusOr<std::vector<uint64_t>> IsaWavefrontHandles(uint64_t isa_handle) {
  ASSIGN_OR_RETURN(const IsaDescription isa, LookupIsa(isa_handle));
  return std::vector<uint64_t>{kWavefrontHandleBase + isa.wavefront_size};
}

absl::Status WriteWavefrontInfo(uint64_t wavefront, uint32_t attribute, void* value) {
  const uint64_t size = wavefront - kWavefrontHandleBase;
  if ((wavefront & kHandleBaseMask) != kWavefrontHandleBase || (size != 32 && size != 64)) {
    return InvalidWavefront(wavefront, "not a wavefront of this runtime");
  }
  if (attribute != HSA_WAVEFRONT_INFO_SIZE) {
    return absl::InvalidArgumentError(absl::StrCat("wavefront attribute 0x", absl::Hex(attribute), " is not supported"));
  }
  return Put<uint32_t>(value, static_cast<uint32_t>(size));
}

absl::StatusOr<std::vector<uint64_t>> AgentCacheHandles(Runtime& runtime, AgentId agent_id) {
  ASSIGN_OR_RETURN(const size_t index, AgentIndex(runtime, agent_id));
  ASSIGN_OR_RETURN(const AgentDescription d, DescribeRuntimeAgent(runtime, runtime.agents()[index]));
  std::vector<uint64_t> handles;
  for (size_t cache : CacheOrder(d)) handles.push_back(kCacheHandleBase | uint64_t{index} << 16 | cache);
  return handles;
}

absl::Status WriteCacheInfo(Runtime& runtime, uint64_t cache, uint32_t attribute, void* value) {
  if ((cache & kHandleBaseMask) != kCacheHandleBase) return InvalidCache(cache, "not a cache of this runtime");
  const size_t agent_index = cache >> 16 & 0xffff'ffff;
  const size_t cache_index = cache & 0xffff;
  if (agent_index >= runtime.agents().size()) return InvalidCache(cache, "no such agent");
  ASSIGN_OR_RETURN(const AgentDescription d, DescribeRuntimeAgent(runtime, runtime.agents()[agent_index]));
  if (cache_index >= d.caches.size()) return InvalidCache(cache, "no such cache");
  const CacheDescription& c = d.caches[cache_index];
  switch (attribute) {
    case HSA_CACHE_INFO_NAME_LENGTH: return Put<uint32_t>(value, static_cast<uint32_t>(c.name.size()));
    case HSA_CACHE_INFO_NAME: std::memcpy(value, c.name.c_str(), c.name.size() + 1); return absl::OkStatus();
    case HSA_CACHE_INFO_LEVEL: return Put<uint8_t>(value, c.level);
    case HSA_CACHE_INFO_SIZE: return Put<uint32_t>(value, c.size_bytes);
    default:
      return absl::InvalidArgumentError(absl::StrCat("cache attribute 0x", absl::Hex(attribute), " is not supported"));
  }
}

bool XnackEnabled() { return EnvUint64("HSA_XNACK", 0) == 1; }

absl::Status WriteTopologySystemInfo(uint32_t attribute, void* value) {
  switch (attribute) {
    case HSA_SYSTEM_INFO_EXTENSIONS:
      // One bit per implemented hsa_extension_t (extensions.cc), matching hsa_system_extension_supported.
      WriteExtensionMask(value);
      return absl::OkStatus();
    case HSA_AMD_SYSTEM_INFO_BUILD_VERSION: return Put<const char*>(value, "hipmem");
    // HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED and _ACCESSIBLE_BY_DEFAULT need the runtime: c_abi.cc answers them (svm.h).
    // ROCr enables MWAITX waits only under HSA_ENABLE_MWAITX=1; this runtime's waits sleep on KFD events.
    case HSA_AMD_SYSTEM_INFO_MWAITX_ENABLED: return Put<bool>(value, false);
    // hsa_amd_portable_export_dmabuf is not modelled at this layer (hsa_unsupported.cc), so a client must not
    // plan on it, although the thunk exports dma-bufs.
    case HSA_AMD_SYSTEM_INFO_DMABUF_SUPPORTED: return Put<bool>(value, false);
    // hsa_amd_vmem_* are not modelled (hsa_unsupported.cc).
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
  const std::vector<thunk::NodeProperties>& nodes = TopologyOf(runtime).nodes;
  const thunk::NodeId node = KfdNodeOf(runtime, agent);
  if (node.raw() >= nodes.size()) {
    return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(agent.id.raw()), ": node ", node.raw(),
                                          " is not in the topology"));
  }
  return DescribeAgent(nodes[node.raw()], agent.name, XnackEnabled());
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
    case HSA_AGENT_INFO_EXTENSIONS:
      // What hsa_agent_extension_supported answers: a CPU agent implements none.
      if (gpu) {
        WriteExtensionMask(value);
      } else {
        std::memset(value, 0, kExtensionMaskBytes);
      }
      return absl::OkStatus();
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
    case HSA_AMD_AGENT_INFO_HDP_FLUSH: {
      // ROCr's GpuAgent points at the HDP flush registers in the node's MMIO_REMAP page (null without one); a CPU
      // agent has no such attribute.
      if (!gpu) return Unsupported(attribute);
      hsa_amd_hdp_flush_t flush{nullptr, nullptr};
      if (const auto regs = KfdOf(runtime).HdpFlushRegisters(KfdNodeOf(runtime, agent))) {
        flush.HDP_MEM_FLUSH_CNTL = regs->mem_flush_cntl;
        flush.HDP_REG_FLUSH_CNTL = regs->reg_flush_cntl;
      }
      return Put(value, flush);
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
