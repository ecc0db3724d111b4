#include "hsa/runtime.h"
#include "hsa/runtime_kfd.h"

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"
#include "base/env.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "hsa/hsa_status.h"
#include "hsa/memory.h"
#include "hsa/topology_kfd.h"
#include "hsa/visible_devices.h"
#include "thunk/device_controls.h"

namespace hipmem::hsa {
namespace {

using thunk::MemFlags;
using thunk::NodeId;

constexpr Bytes kPage = Bytes::KiB(4);
// ROCr's fragment allocator block: the recommended granule of VRAM pools.
constexpr Bytes kFragmentBlock = Bytes::MiB(2);

// Opaque handle values; distinct bases make a pool handle passed as an agent fail lookup.
constexpr uint64_t kAgentHandleBase = 0x4147'0000'0000'0000ull;  // "AG"
constexpr uint64_t kPoolHandleBase = 0x504c'0000'0000'0000ull;   // "PL"

bool FragmentAllocatorDisabled() { return EnvUint64("HSA_DISABLE_FRAGMENT_ALLOCATOR", 0) == 1; }

MemoryPool SystemPool(PoolId id, AgentId owner, Bytes size, GlobalFlags flags) {
  return MemoryPool{id, owner, Segment::kGlobal, flags, PoolLocation::kCpu, size, true, kPage, kPage, kPage, true, size};
}

MemFlags SystemPoolKmtFlags(GlobalFlags flags) {
  MemFlags kmt = MemFlags::kHostAccess;  // pageable system memory: a USERPTR BO
  if (HasFlag(flags, GlobalFlags::kCoarseGrained)) kmt = kmt | MemFlags::kCoarseGrain;
  if (HasFlag(flags, GlobalFlags::kExtendedScopeFineGrained)) kmt = kmt | MemFlags::kExtendedCoherent;
  return kmt;
}

MemoryPool VramPool(PoolId id, AgentId owner, const thunk::MemoryBank& bank, GlobalFlags flags) {
  const Bytes rec = FragmentAllocatorDisabled() ? kPage : kFragmentBlock;
  return MemoryPool{id,   owner, Segment::kGlobal, flags, PoolLocation::kGpu, bank.size, true, kPage, rec,
                    kPage, false, AlignDown(bank.size, kPage)};
}

MemFlags VramPoolKmtFlags(const thunk::MemoryBank& bank, GlobalFlags flags) {
  MemFlags kmt = MemFlags::kNonPaged | MemFlags::kNoSubstitute;
  // ROCr marks VRAM host-accessible exactly when the kernel reports the bank as public (large BAR).
  if (bank.heap_type == thunk::HeapType::kFrameBufferPublic) kmt = kmt | MemFlags::kHostAccess;
  if (HasFlag(flags, GlobalFlags::kCoarseGrained)) kmt = kmt | MemFlags::kCoarseGrain;
  if (HasFlag(flags, GlobalFlags::kExtendedScopeFineGrained)) kmt = kmt | MemFlags::kExtendedCoherent;
  return kmt;
}

// The position behind a handle this runtime made (handle = base + position + 1).
size_t HandleIndex(uint64_t handle, uint64_t base, size_t count) {
  const uint64_t index = handle - base - 1;
  HIPMEM_CHECK(handle > base && index < count, "handle 0x", absl::Hex(handle), " is not this runtime's");
  return static_cast<size_t>(index);
}

// The nodes that become agents, in hsa_iterate_agents order: ROCr registers the CPUs first, then the GPUs
// ROCR_VISIBLE_DEVICES leaves visible, in its order (the hidden ones are never enumerated).
std::vector<const thunk::NodeProperties*> SurfacedNodes(const thunk::SystemTopology& topology) {
  std::vector<const thunk::NodeProperties*> nodes;
  std::vector<const thunk::NodeProperties*> gpus;
  std::vector<uint64_t> unique_ids;
  for (const thunk::NodeProperties& node : topology.nodes) {
    if (node.is_gpu()) {
      gpus.push_back(&node);
      unique_ids.push_back(node.Get("unique_id"));
    } else {
      nodes.push_back(&node);
    }
  }
  const char* env = std::getenv("ROCR_VISIBLE_DEVICES");
  for (size_t gpu : VisibleGpuOrder(env == nullptr ? std::nullopt : std::optional<std::string_view>(env), unique_ids)) {
    nodes.push_back(gpus[gpu]);
  }
  return nodes;
}

}  // namespace

thunk::NodeId KfdBinding::NodeOf(const Agent& agent) const {
  return agent_nodes[HandleIndex(agent.id.raw(), kAgentHandleBase, agent_nodes.size())];
}

thunk::NodeId KfdBinding::NodeOf(const MemoryPool& pool) const {
  return pools[HandleIndex(pool.id.raw(), kPoolHandleBase, pools.size())].node;
}

thunk::MemFlags KfdBinding::KmtFlagsOf(const MemoryPool& pool) const {
  return pools[HandleIndex(pool.id.raw(), kPoolHandleBase, pools.size())].kmt_flags;
}

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::Create() {
  ASSIGN_OR_RETURN(std::unique_ptr<thunk::Kfd> kfd, thunk::Kfd::Open());
  return CreateRuntime(std::move(kfd));
}

absl::StatusOr<std::unique_ptr<Runtime>> KfdBinding::CreateRuntime(std::unique_ptr<thunk::Kfd> kfd) {
  auto binding = std::make_unique<KfdBinding>();
  std::vector<Agent> agents;
  std::vector<MemoryPool> pools;
  auto next_pool = [&] { return PoolId(kPoolHandleBase + pools.size() + 1); };
  auto add_pool = [&](Agent& agent, MemoryPool pool, thunk::NodeId node, MemFlags kmt) {
    agent.pools.push_back(pool.id);
    pools.push_back(std::move(pool));
    binding->pools.push_back(PoolBinding{node, kmt});
  };
  // HSA_XNACK=1 (or 0) puts the process in (or out of) XNACK mode before any queue exists, as ROCr does at load.
  // A GPU that cannot switch per process refuses; ROCr then runs on in the kernel's mode, and so does this.
  if (const char* xnack = std::getenv("HSA_XNACK"); xnack != nullptr && *xnack != '\0') {
    if (absl::Status s = thunk::SetXnackMode(*kfd, EnvUint64("HSA_XNACK", 0) == 1); !s.ok()) {
      HIPMEM_LOG(kWarning, "HSA_XNACK=", xnack, ": the KFD keeps its XNACK mode: ", s.message());
    }
  }
  const std::string cpu_model_name = CpuModelName();
  for (const thunk::NodeProperties* surfaced : SurfacedNodes(kfd->topology())) {
    const thunk::NodeProperties& node = *surfaced;
    // Names as ROCr gives them: the processor and its amdgpu.ids product name, the CPU's model name.
    const AgentDescription description = DescribeAgent(node, cpu_model_name, /*xnack_enabled=*/false);
    Agent agent{AgentId(kAgentHandleBase + agents.size() + 1), node.is_gpu() ? DeviceType::kGpu : DeviceType::kCpu,
                description.name, description.product_name, {}};
    if (agent.type == DeviceType::kCpu) {
      Bytes system;
      for (const thunk::MemoryBank& bank : node.mem_banks) {
        if (bank.heap_type == thunk::HeapType::kSystem) system += bank.size;
      }
      if (!system.is_zero()) {
        // ROCr's CPU pools, in its order: fine, extended fine, kernarg, coarse (dGPU systems).
        for (GlobalFlags flags : {GlobalFlags::kFineGrained, GlobalFlags::kExtendedScopeFineGrained,
                                  GlobalFlags::kKernargInit | GlobalFlags::kFineGrained, GlobalFlags::kCoarseGrained}) {
          add_pool(agent, SystemPool(next_pool(), agent.id, system, flags), node.id, SystemPoolKmtFlags(flags));
        }
      }
    } else {
      for (const thunk::MemoryBank& bank : node.mem_banks) {
        if (bank.heap_type != thunk::HeapType::kFrameBufferPublic &&
            bank.heap_type != thunk::HeapType::kFrameBufferPrivate) {
          continue;
        }
        std::vector<GlobalFlags> kinds = {GlobalFlags::kCoarseGrained};
        // gfx12.0 has no extended-scope fine-grained VRAM.
        if (node.gfx_major() != 12) kinds.push_back(GlobalFlags::kExtendedScopeFineGrained);
        // Fine-grained (uncached) VRAM is a user pool where peers reach it over XGMI (a hive) or when
        // HSA_FORCE_FINE_GRAIN_PCIE=1 asks for it over PCIe (ROCr's GpuAgent::InitRegionList).
        if (node.Get("hive_id") != 0 || EnvUint64("HSA_FORCE_FINE_GRAIN_PCIE", 0) == 1) {
          kinds.push_back(GlobalFlags::kFineGrained);
        }
        for (GlobalFlags flags : kinds) {
          add_pool(agent, VramPool(next_pool(), agent.id, bank, flags), node.id, VramPoolKmtFlags(bank, flags));
        }
      }
      if (const uint64_t lds_kib = node.Get("lds_size_in_kb"); lds_kib != 0) {
        // The LDS becomes the GROUP segment pool: reported, never allocated by the runtime.
        const Bytes lds = Bytes::KiB(lds_kib);
        add_pool(agent,
                 MemoryPool{next_pool(), agent.id, Segment::kGroup, GlobalFlags::kNone, PoolLocation::kGpu, lds, false,
                            Bytes(0), Bytes(0), Bytes(0), false, Bytes(0)},
                 node.id, MemFlags::kNone);
      }
    }
    agents.push_back(std::move(agent));
    binding->agent_nodes.push_back(node.id);
  }
  Trace(Layer::kHsa, "hsa_init: ", agents.size(), " agents, ", pools.size(), " memory pools");
  binding->kfd = std::move(kfd);
  return std::unique_ptr<Runtime>(new Runtime(std::move(binding), std::move(agents), std::move(pools)));
}

Runtime::Runtime(std::unique_ptr<KfdBinding> binding, std::vector<Agent> agents, std::vector<MemoryPool> pools)
    : binding_(std::move(binding)),
      agents_(std::move(agents)),
      pools_(std::move(pools)),
      memory_(std::make_unique<MemoryManager>(*binding_, agents_, pools_, !FragmentAllocatorDisabled())) {}

Runtime::~Runtime() {
  memory_.reset();  // every allocation and cached block goes back before the KFD closes
}

absl::StatusOr<const Agent*> Runtime::GetAgent(AgentId id) const {
  for (const Agent& agent : agents_) {
    if (agent.id == id) return &agent;
  }
  return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(id.raw()), " is not an agent of this runtime"));
}

absl::StatusOr<const MemoryPool*> Runtime::GetPool(PoolId id) const {
  for (const MemoryPool& pool : pools_) {
    if (pool.id == id) return &pool;
  }
  return InvalidMemoryPoolError(absl::StrCat("pool 0x", absl::Hex(id.raw()), " is not a memory pool of this runtime"));
}

absl::StatusOr<PoolAllocation> Runtime::Allocate(PoolId pool_id, Bytes size, PoolAllocFlags flags) {
  if (size.is_zero()) {
    return absl::InvalidArgumentError(
        absl::StrCat("hsa_amd_memory_pool_allocate(pool=0x", absl::Hex(pool_id.raw()), ", size=0): size is 0"));
  }
  ASSIGN_OR_RETURN(const MemoryPool* pool, GetPool(pool_id));
  return memory_->Allocate(*pool, size, flags);
}

absl::Status Runtime::Free(DeviceAddress address) { return memory_->Free(address); }

std::optional<PointerInfo> Runtime::FindPointer(DeviceAddress address) const { return memory_->FindPointer(address); }

absl::StatusOr<Bytes> Runtime::MemoryAvailable(AgentId gpu) {
  ASSIGN_OR_RETURN(const Agent* agent, GetAgent(gpu));
  if (agent->type != DeviceType::kGpu) {
    return InvalidAgentError(absl::StrCat("MEMORY_AVAIL of agent 0x", absl::Hex(gpu.raw()), ": not a GPU"));
  }
  // ROCr adds its fragment-allocator cache: those blocks go back to the KFD as soon as it runs short.
  ASSIGN_OR_RETURN(Bytes available, binding_->kfd->AvailableMemory(binding_->NodeOf(*agent)));
  return available + memory_->CachedBytes(gpu);
}

}  // namespace hipmem::hsa
