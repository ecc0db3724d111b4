#include "hsa/memory_c_abi.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime_kfd.h"

namespace hipmem::hsa {
namespace {

template <typename T>
absl::Status Write(void* value, T v) {
  std::memcpy(value, &v, sizeof(T));
  return absl::OkStatus();
}

// PointerAllocFlags carries hsa_amd_pointer_info_t::alloc_flags' bits, so they are copied as they are.
static_assert(ToRaw(PointerAllocFlags::kExecutable) == HSA_AMD_POINTER_INFO_ALLOC_FLAG_EXECUTABLE);
static_assert(ToRaw(PointerAllocFlags::kContiguous) == HSA_AMD_POINTER_INFO_ALLOC_FLAG_CONTIGUOUS);
static_assert(ToRaw(PointerAllocFlags::kNonPaged) == HSA_AMD_POINTER_INFO_ALLOC_FLAG_NONPAGED);
static_assert(ToRaw(PointerAllocFlags::kReadOnly) == HSA_AMD_POINTER_INFO_ALLOC_FLAG_READONLY);
static_assert(ToRaw(PointerAllocFlags::kHostAccess) == HSA_AMD_POINTER_INFO_ALLOC_FLAG_HOST_ACCESS);
static_assert(ToRaw(PointerAllocFlags::kAtomicFull) == HSA_AMD_POINTER_INFO_ALLOC_FLAG_ATOMIC_FULL);
static_assert(ToRaw(PointerAllocFlags::kAtomicPartial) == HSA_AMD_POINTER_INFO_ALLOC_FLAG_ATOMIC_PARTIAL);

}  // namespace

absl::StatusOr<std::vector<PoolId>> RegionsOf(const Runtime& runtime, AgentId agent_id) {
  ASSIGN_OR_RETURN(const Agent* agent, runtime.GetAgent(agent_id));
  std::vector<PoolId> regions = agent->pools;
  if (agent->type == DeviceType::kGpu) {
    for (const Agent& cpu : runtime.agents()) {
      if (cpu.type == DeviceType::kCpu) regions.insert(regions.end(), cpu.pools.begin(), cpu.pools.end());
    }
  }
  return regions;
}

absl::Status WriteRegionInfo(Runtime& runtime, PoolId region, uint32_t attribute, void* value) {
  absl::StatusOr<const MemoryPool*> found = runtime.GetPool(region);
  if (!found.ok()) {
    return InvalidRegionError(absl::StrCat("region 0x", absl::Hex(region.raw()), " is not a region of this runtime"));
  }
  const MemoryPool& pool = **found;
  const bool global = pool.segment == Segment::kGlobal;
  // The bank behind the pool, for the deprecated bus width and clock attributes.
  thunk::MemoryBank bank;
  if (absl::StatusOr<const thunk::NodeProperties*> node = KfdOf(runtime).Node(KfdNodeOf(runtime, pool)); node.ok()) {
    for (const thunk::MemoryBank& b : (*node)->mem_banks) {
      const bool vram = b.heap_type == thunk::HeapType::kFrameBufferPublic ||
                        b.heap_type == thunk::HeapType::kFrameBufferPrivate;
      if (vram == (pool.location == PoolLocation::kGpu)) {
        bank = b;
        break;
      }
    }
  }
  switch (attribute) {
    case HSA_REGION_INFO_SEGMENT:
      return Write(value, global ? HSA_REGION_SEGMENT_GLOBAL : HSA_REGION_SEGMENT_GROUP);
    case HSA_REGION_INFO_GLOBAL_FLAGS: return Write<uint32_t>(value, global ? ToRaw(pool.global_flags) : 0);
    case HSA_REGION_INFO_SIZE: return Write<size_t>(value, pool.size.raw());
    case HSA_REGION_INFO_ALLOC_MAX_SIZE: return Write<size_t>(value, pool.alloc_max_size.raw());
    case HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE: return Write<uint32_t>(value, 0);
    case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED: return Write<bool>(value, pool.alloc_allowed);
    case HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE: return Write<size_t>(value, pool.alloc_granule.raw());
    case HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT: return Write<size_t>(value, pool.alloc_alignment.raw());
    case HSA_AMD_REGION_INFO_HOST_ACCESSIBLE: return Write<bool>(value, pool.location == PoolLocation::kCpu);
    // A dGPU's apertures have no fixed base: ROCr reports the KFD's VirtualBaseAddress, 0 here.
    case HSA_AMD_REGION_INFO_BASE: return Write<void*>(value, nullptr);
    case HSA_AMD_REGION_INFO_BUS_WIDTH: return Write<uint32_t>(value, bank.width);
    case HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY: return Write<uint32_t>(value, bank.mem_clk_max);
    default:
      return absl::InvalidArgumentError(absl::StrCat("region attribute 0x", absl::Hex(attribute), " is not supported"));
  }
}

void WritePointerInfo(const PointerDescription& d, hsa_amd_pointer_info_t* info) {
  hsa_amd_pointer_info_t out{};
  out.size = static_cast<uint32_t>(std::min<size_t>(info->size, sizeof(hsa_amd_pointer_info_t)));
  out.type = static_cast<hsa_amd_pointer_type_t>(d.type);
  out.agentBaseAddress = d.agent_base.ToPointer();
  out.hostBaseAddress = d.host_base.ToPointer();
  out.sizeInBytes = d.size.raw();
  out.userData = d.user_data;
  out.agentOwner = hsa_agent_t{d.owner.has_value() ? d.owner->raw() : 0};
  out.global_flags = ToRaw(d.global_flags);
  out.registered = d.registered;
  out.alloc_flags = ToRaw(d.alloc_flags);  // the same bits
  std::memcpy(info, &out, out.size);
}

}  // namespace hipmem::hsa
