#include "hsa/memory.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/lookup_count.h"
#include "base/light_mutex.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/functional/function_ref.h"
#include "base/address_range_map.h"
#include "hsa/fragment_allocator.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime_kfd.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {

using thunk::MemFlags;
using thunk::NodeId;

namespace {

constexpr uint32_t kKnownPoolFlags = static_cast<uint32_t>(PoolAllocFlags::kPcie) |
                                     static_cast<uint32_t>(PoolAllocFlags::kContiguous) |
                                     static_cast<uint32_t>(PoolAllocFlags::kExecutable);

bool Has(PoolAllocFlags set, PoolAllocFlags f) { return (static_cast<uint32_t>(set) & static_cast<uint32_t>(f)) != 0; }

MemFlags Without(MemFlags set, MemFlags f) {
  return thunk::MemFlagsFromRaw(thunk::ToRaw(set) & ~thunk::ToRaw(f));
}

// hsa_amd_pointer_info_t::alloc_flags from the KFD flags the buffer was made with.
PointerAllocFlags ToPointerAllocFlags(MemFlags f) {
  constexpr struct {
    MemFlags kfd;
    PointerAllocFlags hsa;
  } kRows[] = {
      {MemFlags::kExecuteAccess, PointerAllocFlags::kExecutable},
      {MemFlags::kContiguous, PointerAllocFlags::kContiguous},
      {MemFlags::kNonPaged, PointerAllocFlags::kNonPaged},
      {MemFlags::kReadOnly, PointerAllocFlags::kReadOnly},
      {MemFlags::kHostAccess, PointerAllocFlags::kHostAccess},
      {MemFlags::kAtomicAccessFull, PointerAllocFlags::kAtomicFull},
      {MemFlags::kAtomicAccessPartial, PointerAllocFlags::kAtomicPartial},
  };
  PointerAllocFlags out = PointerAllocFlags::kNone;
  for (const auto& row : kRows) {
    if (thunk::HasFlag(f, row.kfd)) out = out | row.hsa;
  }
  return out;
}

}  // namespace

class MemoryManager::Impl {
 public:
  Impl(const KfdBinding& binding, std::span<const Agent> agents, std::span<const MemoryPool> pools, bool fragments);
  ~Impl();

  absl::StatusOr<DeviceAddress> Allocate(const MemoryPool& pool, Bytes size, PoolAllocFlags flags);
  absl::StatusOr<DeviceAddress> AllocateUnrestricted(const MemoryPool& pool, Bytes size);
  absl::Status Free(DeviceAddress address);
  std::optional<PointerInfo> FindPointer(DeviceAddress address) const;
  Bytes CachedBytes(AgentId gpu) const;
  absl::Status AllowAccess(std::span<const AgentId> agents, DeviceAddress address);
  absl::StatusOr<DeviceAddress> Lock(void* host, Bytes size, std::span<const AgentId> agents,
                                     std::optional<PoolId> pool);
  absl::Status Unlock(void* host);
  PointerDescription Describe(const void* pointer) const;
  absl::Status SetUserData(const void* pointer, void* user_data);
  absl::Status RegisterDeallocationCallback(DeviceAddress address, DeallocationCallback callback, void* user_data);
  absl::Status DeregisterDeallocationCallback(DeviceAddress address, DeallocationCallback callback);

 private:
  struct Notifier {
    DeallocationCallback callback;
    void* user_data;
  };
  // An allocation's range (what the caller got, rounded to pages) is its key in allocations_. The record owns the
  // memory: dropping it (always under mu_, which a fragment's allocator needs) frees the KFD allocation or gives the
  // fragment back to its block.
  struct Allocation {
    PoolId pool;
    std::variant<thunk::KfdAllocation, Fragment> memory;
    MemFlags kmt_flags;
    void* user_data = nullptr;
    std::vector<Notifier> notifiers = {};

    // The KFD buffer the allocation lies in: a fragment's block, or the allocation itself.
    DeviceAddress buffer() const {
      if (const Fragment* fragment = std::get_if<Fragment>(&memory)) return fragment->block().base;
      return std::get<thunk::KfdAllocation>(memory).address();
    }
    bool is_fragment() const { return std::holds_alternative<Fragment>(memory); }
  };
  class PoolBlockSource;

  const MemoryPool* PoolOf(PoolId id) const;
  std::optional<AgentId> AgentOfNode(NodeId node) const;
  absl::StatusOr<const Agent*> AgentOf(AgentId id) const;
  // KFD allocation and mapping, with one trim-and-retry. Empty `map_nodes`: the KFD's default set.
  absl::StatusOr<thunk::KfdAllocation> AllocateFromKfd(const MemoryPool& pool, Bytes size, MemFlags flags,
                                                       std::span<const NodeId> map_nodes,
                                                       absl::FunctionRef<std::string()> context)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TrimAll() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<DeviceAddress> AllocateLocked(const MemoryPool& pool, Bytes size, MemFlags flags,
                                               bool fragment, bool restrict_vram,
                                               absl::FunctionRef<std::string()> context)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const KfdBinding& binding_;  // Not owned; must outlive this.
  thunk::Kfd* const kfd_;      // binding_'s
  const std::span<const Agent> agents_;
  const std::span<const MemoryPool> pools_;
  const bool fragments_enabled_;

  mutable LightMutex mu_;
  // By pool id: one fragment allocator per VRAM pool, each with its block source.
  absl::btree_map<uint64_t, std::unique_ptr<PoolBlockSource>> sources_ ABSL_GUARDED_BY(mu_);
  absl::btree_map<uint64_t, std::unique_ptr<FragmentAllocator>> heaps_ ABSL_GUARDED_BY(mu_);
  // The blocks the fragment allocators hold, owned (their free space is nobody's allocation).
  AddressRangeMap<thunk::KfdAllocation> blocks_ ABSL_GUARDED_BY(mu_);
  AddressRangeMap<Allocation> allocations_ ABSL_GUARDED_BY(mu_);
  // Locked host ranges by host pointer, with how many Lock calls each has had.
  absl::btree_map<uint64_t, std::vector<thunk::KfdRegistration>> locks_ ABSL_GUARDED_BY(mu_);
};

// Blocks for one VRAM pool's fragment allocator: KFD allocations mapped on the pool's GPU. Called with the
// manager's mutex held (the allocator only runs under it).
class MemoryManager::Impl::PoolBlockSource : public BlockSource {
 public:
  PoolBlockSource(Impl* manager, const MemoryPool* pool) : manager_(manager), pool_(pool) {}

  absl::StatusOr<DeviceAddress> AllocateBlock(Bytes size) override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    manager_->mu_.AssertHeld();
    const NodeId node = manager_->binding_.NodeOf(*pool_);
    ASSIGN_OR_RETURN(thunk::KfdAllocation block,
                     manager_->AllocateFromKfd(*pool_, size, manager_->binding_.KmtFlagsOf(*pool_), std::span<const NodeId>(&node, 1),
                                               [&] { return absl::StrCat("fragment block of ", size.raw(), " bytes"); }));
    const DeviceAddress base = block.address();
    // Fresh from the KFD, so it cannot overlap a block still held; if it did, the refused owner frees it.
    if (absl::Status s = manager_->blocks_.Insert(AddressRange{base, size}, std::move(block)); !s.ok()) {
      return absl::InternalError(absl::StrCat("fragment block: ", s.message()));
    }
    return base;
  }

  void FreeBlock(DeviceAddress base, Bytes) override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    manager_->mu_.AssertHeld();
    manager_->blocks_.Erase(base);  // its owner frees it
  }

 private:
  Impl* manager_;  // Not owned; owns this.
  const MemoryPool* pool_;  // Not owned; must outlive this.
};

MemoryManager::Impl::Impl(const KfdBinding& binding, std::span<const Agent> agents,
                             std::span<const MemoryPool> pools, bool fragments)
    : binding_(binding),
      kfd_(binding.kfd.get()), agents_(agents), pools_(pools), fragments_enabled_(fragments) {
  LightLock lock(&mu_);
  for (const MemoryPool& pool : pools_) {
    if (pool.location != PoolLocation::kGpu || pool.segment != Segment::kGlobal || !pool.alloc_allowed) continue;
    auto source = std::make_unique<PoolBlockSource>(this, &pool);
    heaps_.emplace(pool.id.raw(), std::make_unique<FragmentAllocator>(source.get()));
    sources_.emplace(pool.id.raw(), std::move(source));
  }
}

MemoryManager::Impl::~Impl() {
  LightLock lock(&mu_);
  allocations_.clear();  // the whole allocations' owners free them
  heaps_.clear();  // each returns its blocks, in use or cached
  // Each lock's owner drops its registration; a range's last one frees the BO with its GPU mappings.
  locks_.clear();
}

const MemoryPool* MemoryManager::Impl::PoolOf(PoolId id) const {
  for (const MemoryPool& pool : pools_) {
    if (pool.id == id) return &pool;
  }
  return nullptr;
}

std::optional<AgentId> MemoryManager::Impl::AgentOfNode(NodeId node) const {
  for (const Agent& agent : agents_) {
    if (binding_.NodeOf(agent) == node) return agent.id;
  }
  return std::nullopt;
}

absl::StatusOr<const Agent*> MemoryManager::Impl::AgentOf(AgentId id) const {
  for (const Agent& agent : agents_) {
    if (agent.id == id) return &agent;
  }
  return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(id.raw()), " is not an agent of this runtime"));
}

void MemoryManager::Impl::TrimAll() {
  for (auto& [id, heap] : heaps_) heap->Trim();
}

absl::StatusOr<thunk::KfdAllocation> MemoryManager::Impl::AllocateFromKfd(const MemoryPool& pool, Bytes size,
                                                                     MemFlags flags, std::span<const NodeId> map_nodes,
                                                                     absl::FunctionRef<std::string()> context) {
  absl::StatusOr<thunk::KfdAllocation> allocation = kfd_->AllocMemory(binding_.NodeOf(pool), size, flags);
  if (!allocation.ok()) {
    // KfdDriver::AllocateMemory: cached fragment blocks may be what the KFD is missing; give them back, once.
    TrimAll();
    allocation = kfd_->AllocMemory(binding_.NodeOf(pool), size, flags);
  }
  if (!allocation.ok()) return Recode(Annotate(allocation.status(), context()), absl::StatusCode::kResourceExhausted);
  if (absl::Status mapped = kfd_->MapMemoryToGpu(allocation->address(), map_nodes); !mapped.ok()) {
    return Recode(Annotate(mapped, context()), absl::StatusCode::kResourceExhausted);  // `allocation` frees it
  }
  return allocation;
}

absl::StatusOr<DeviceAddress> MemoryManager::Impl::AllocateLocked(const MemoryPool& pool, Bytes size, MemFlags flags,
                                                            bool fragment, bool restrict_vram,
                                                            absl::FunctionRef<std::string()> context) {
  if (fragment) {
    absl::StatusOr<Fragment> carved = heaps_.at(pool.id.raw())->Carve(size);
    if (!carved.ok()) return Annotate(carved.status(), context());
    const AddressRange range = carved->range();
    // A refused insert (the map out of step with the KFD: an address of ours freed behind the runtime's back and
    // given out again) destroys the record, whose owner gives the fragment back. The context is formatted only then:
    // on this path, the cached one, the string would cost a quarter of a hipMalloc + hipFree.
    if (absl::Status s =
            allocations_.Insert(range, Allocation{.pool = pool.id, .memory = *std::move(carved), .kmt_flags = flags});
        !s.ok()) {
      return Annotate(s, context());
    }
    return range.base;
  }
  // VRAM is mapped for its own GPU only when restricted; system memory for every GPU (KfdDriver::AllocateMemory).
  std::vector<NodeId> nodes;
  if (pool.location == PoolLocation::kGpu && restrict_vram) nodes.push_back(binding_.NodeOf(pool));
  ASSIGN_OR_RETURN(thunk::KfdAllocation memory, AllocateFromKfd(pool, size, flags, nodes, context));
  const DeviceAddress address = memory.address();
  // A refused insert (the map out of step, as above) destroys the record, whose owner frees the KFD allocation.
  if (absl::Status s = allocations_.Insert(AddressRange{address, size},
                                           Allocation{.pool = pool.id, .memory = std::move(memory), .kmt_flags = flags});
      !s.ok()) {
    return Annotate(s, context());
  }
  return address;
}

PoolAllocation::PoolAllocation(PoolAllocation&& other) noexcept
    : manager_(std::exchange(other.manager_, nullptr)), address_(other.address_), size_(other.size_) {}

PoolAllocation& PoolAllocation::operator=(PoolAllocation&& other) noexcept {
  if (this != &other) {
    PoolAllocation old(std::move(*this));  // frees what this held when it goes
    manager_ = std::exchange(other.manager_, nullptr);
    address_ = other.address_;
    size_ = other.size_;
  }
  return *this;
}

PoolAllocation::~PoolAllocation() {
  if (manager_ == nullptr) return;
  if (absl::Status s = manager_->Free(address_); !s.ok()) HIPMEM_LOG(kError, "freeing an allocation: ", s.message());
}

DeviceAddress PoolAllocation::Release() && {
  manager_ = nullptr;
  return address_;
}

absl::Status PoolAllocation::Free() && {
  MemoryManager* manager = std::exchange(manager_, nullptr);
  if (manager == nullptr) return absl::FailedPreconditionError("PoolAllocation::Free: nothing owned");
  return manager->Free(address_);
}

HostLock::HostLock(HostLock&& other) noexcept
    : manager_(std::exchange(other.manager_, nullptr)), host_(other.host_), gpu_address_(other.gpu_address_) {}

HostLock& HostLock::operator=(HostLock&& other) noexcept {
  if (this != &other) {
    HostLock old(std::move(*this));  // unlocks what this held when it goes
    manager_ = std::exchange(other.manager_, nullptr);
    host_ = other.host_;
    gpu_address_ = other.gpu_address_;
  }
  return *this;
}

HostLock::~HostLock() {
  if (manager_ == nullptr) return;
  if (absl::Status s = manager_->Unlock(host_); !s.ok()) HIPMEM_LOG(kError, "unlocking host memory: ", s.message());
}

DeviceAddress HostLock::Release() && {
  manager_ = nullptr;
  return gpu_address_;
}

absl::Status HostLock::Unlock() && {
  MemoryManager* manager = std::exchange(manager_, nullptr);
  if (manager == nullptr) return absl::FailedPreconditionError("HostLock::Unlock: nothing owned");
  return manager->Unlock(host_);
}

absl::StatusOr<DeviceAddress> MemoryManager::Impl::Allocate(const MemoryPool& pool, Bytes size, PoolAllocFlags flags) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_pool_allocate");
  // Formatted only for an error or a trace: a cached fragment costs less than building this string.
  const auto context = [&] {
    return absl::StrCat("hsa_amd_memory_pool_allocate(pool=0x", absl::Hex(pool.id.raw()), ", size=", size.raw(),
                        ", flags=0x", absl::Hex(static_cast<uint32_t>(flags)), ")");
  };
  if (size.is_zero()) return absl::InvalidArgumentError(absl::StrCat(context(), ": size is 0"));
  if ((static_cast<uint32_t>(flags) & ~kKnownPoolFlags) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(context(), ": unknown hsa_amd_memory_pool_flag_t bits"));
  }
  if (!pool.alloc_allowed) return InvalidAllocationError(absl::StrCat(context(), ": pool does not allow allocation"));
  if (size > pool.alloc_max_size) {
    return InvalidAllocationError(absl::StrCat(context(), ": larger than ALLOC_MAX_SIZE ", pool.alloc_max_size.raw()));
  }
  const std::optional<Bytes> rounded = AlignUp(size, pool.alloc_granule);
  if (!rounded.has_value()) return absl::InvalidArgumentError(absl::StrCat(context(), ": size overflows"));
  // KfdDriver::AllocateMemory's translation of the pool flags.
  MemFlags kmt = binding_.KmtFlagsOf(pool);
  if (Has(flags, PoolAllocFlags::kPcie)) kmt = Without(kmt, MemFlags::kCoarseGrain);  // PCIe-coherent: fine grain
  if (Has(flags, PoolAllocFlags::kContiguous)) kmt = kmt | MemFlags::kContiguous;
  if (Has(flags, PoolAllocFlags::kExecutable)) kmt = kmt | MemFlags::kExecuteAccess;
  // Only ordinary VRAM is carved from blocks: a flag changes the buffer the KFD must make.
  const bool fragment = fragments_enabled_ && flags == PoolAllocFlags::kStandard && pool.location == PoolLocation::kGpu;
  LightLock lock(&mu_);
  ASSIGN_OR_RETURN(const DeviceAddress address, AllocateLocked(pool, *rounded, kmt, fragment, true, context));
  if (TraceEnabled()) Trace(Layer::kHsa, context(), " -> ", AddressText(address), fragment ? " (fragment)" : "");
  return address;
}

absl::StatusOr<DeviceAddress> MemoryManager::Impl::AllocateUnrestricted(const MemoryPool& pool, Bytes size) {
  const std::string context =
      absl::StrCat("hsa_memory_allocate(region=0x", absl::Hex(pool.id.raw()), ", size=", size.raw(), ")");
  if (size.is_zero()) return absl::InvalidArgumentError(absl::StrCat(context, ": size is 0"));
  if (!pool.alloc_allowed) return InvalidAllocationError(absl::StrCat(context, ": region does not allow allocation"));
  if (size > pool.alloc_max_size) {
    return InvalidAllocationError(absl::StrCat(context, ": larger than ALLOC_MAX_SIZE ", pool.alloc_max_size.raw()));
  }
  const std::optional<Bytes> rounded = AlignUp(size, pool.alloc_granule);
  if (!rounded.has_value()) return absl::InvalidArgumentError(absl::StrCat(context, ": size overflows"));
  LightLock lock(&mu_);
  ASSIGN_OR_RETURN(const DeviceAddress address,
                   AllocateLocked(pool, *rounded, binding_.KmtFlagsOf(pool), false, false, [&] { return context; }));
  return address;
}

absl::Status MemoryManager::Impl::Free(DeviceAddress address) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_pool_free");
  const auto context = [&] { return absl::StrCat("hsa_amd_memory_pool_free(", AddressText(address), ")"); };
  std::vector<Notifier> notifiers;
  {
    LightLock lock(&mu_);
    // Taken out at once (one lookup); put back, before the lock goes, in the rare case of notifiers to run.
    std::optional<AddressRangeMap<Allocation>::Entry> entry = allocations_.Extract(address);
    if (!entry.has_value()) return InvalidAllocationError(absl::StrCat(context(), ": not an allocation"));
    if (entry->value.notifiers.empty()) {
      entry.reset();  // the record's owner frees the memory, under the lock
      if (TraceEnabled()) Trace(Layer::kHsa, context());
      return absl::OkStatus();
    }
    notifiers = entry->value.notifiers;
    RETURN_IF_ERROR(allocations_.Insert(entry->range, std::move(entry->value)));  // it was there: cannot overlap
  }
  // ROCr runs the notifiers before the free, with the memory still valid; outside the lock, so a callback
  // may query or allocate. The entry stays until they return (a concurrent free of it may run them twice,
  // as a racing double free would in ROCr; only one release reaches the KFD).
  for (const Notifier& n : notifiers) n.callback(address.ToPointer(), n.user_data);
  LightLock lock(&mu_);
  std::optional<AddressRangeMap<Allocation>::Entry> entry = allocations_.Extract(address);
  if (!entry.has_value()) return InvalidAllocationError(absl::StrCat(context(), ": freed concurrently"));
  entry.reset();  // the record's owner frees the memory, under the lock
  if (TraceEnabled()) Trace(Layer::kHsa, context());
  return absl::OkStatus();
}

std::optional<PointerInfo> MemoryManager::Impl::FindPointer(DeviceAddress address) const {
  CountAddressLookup();
  LightLock lock(&mu_);
  const AddressRangeMap<Allocation>::Entry* entry = allocations_.Find(address);
  if (entry == nullptr) return std::nullopt;
  // Every allocation is made from one of the runtime's pools, which are fixed at start and live as long as it does:
  // a pool that is not found is a broken record, never a valid "no owner".
  const MemoryPool* pool = PoolOf(entry->value.pool);
  HIPMEM_CHECK(pool != nullptr, "allocation at ", AddressText(entry->range.base), " names no pool");
  return PointerInfo{entry->range, entry->value.pool, pool->owner};
}

Bytes MemoryManager::Impl::CachedBytes(AgentId gpu) const {
  LightLock lock(&mu_);
  Bytes total;
  for (const auto& [id, heap] : heaps_) {
    const MemoryPool* pool = PoolOf(PoolId(id));
    if (pool != nullptr && pool->owner == gpu) total += heap->cached_bytes();
  }
  return total;
}

absl::Status MemoryManager::Impl::AllowAccess(std::span<const AgentId> agents, DeviceAddress address) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_agents_allow_access");
  const std::string context = absl::StrCat("hsa_amd_agents_allow_access(", AddressText(address), ")");
  std::vector<NodeId> gpus;
  for (AgentId id : agents) {
    ASSIGN_OR_RETURN(const Agent* agent, AgentOf(id));
    if (agent->type == DeviceType::kGpu && std::find(gpus.begin(), gpus.end(), binding_.NodeOf(*agent)) == gpus.end()) {
      gpus.push_back(binding_.NodeOf(*agent));
    }
  }
  LightLock lock(&mu_);
  const AddressRangeMap<Allocation>::Entry* entry = allocations_.FindStart(address);
  if (entry == nullptr) return InvalidAllocationError(absl::StrCat(context, ": not an allocation"));
  const MemoryPool* pool = PoolOf(entry->value.pool);
  if (pool->location == PoolLocation::kCpu && gpus.empty()) return absl::OkStatus();  // CPU-only: nothing to map
  // VRAM stays on its own GPU whatever the list says.
  if (pool->location == PoolLocation::kGpu && std::find(gpus.begin(), gpus.end(), binding_.NodeOf(*pool)) == gpus.end()) {
    gpus.push_back(binding_.NodeOf(*pool));
  }
  const DeviceAddress buffer = entry->value.buffer();
  if (entry->value.is_fragment()) {
    // Fragments share their block's buffer: grants accumulate so one fragment's list cannot take another's away.
    for (NodeId node : kfd_->QueryPointerInfo(buffer.ToPointer()).mapped_nodes) {
      if (std::find(gpus.begin(), gpus.end(), node) == gpus.end()) gpus.push_back(node);
    }
  }
  if (absl::Status mapped = kfd_->MapMemoryToGpu(buffer, gpus); !mapped.ok()) {
    return Recode(Annotate(mapped, context), absl::StatusCode::kResourceExhausted);
  }
  Trace(Layer::kHsa, context, ": mapped on ", gpus.size(), " GPUs");
  return absl::OkStatus();
}

absl::StatusOr<DeviceAddress> MemoryManager::Impl::Lock(void* host, Bytes size, std::span<const AgentId> agents,
                                                  std::optional<PoolId> pool_id) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_lock_to_pool");
  const std::string context = absl::StrCat("hsa_amd_memory_lock(", AddressText(host), ", size=", size.raw(), ")");
  if (host == nullptr || size.is_zero()) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer or size 0"));
  }
  MemFlags flags = MemFlags::kHostAccess;  // the fine-grained system pool's: coherent with the CPU
  if (pool_id.has_value()) {
    const MemoryPool* pool = PoolOf(*pool_id);
    if (pool == nullptr) return InvalidMemoryPoolError(absl::StrCat(context, ": unknown pool"));
    if (pool->location != PoolLocation::kCpu) {
      return absl::InvalidArgumentError(absl::StrCat(context, ": pool 0x", absl::Hex(pool_id->raw()), " is not system memory"));
    }
    flags = binding_.KmtFlagsOf(*pool);
  }
  std::vector<NodeId> gpus;
  for (AgentId id : agents) {
    ASSIGN_OR_RETURN(const Agent* agent, AgentOf(id));
    if (agent->type == DeviceType::kGpu) gpus.push_back(binding_.NodeOf(*agent));
  }
  if (!agents.empty() && gpus.empty()) {
    // Only CPU agents: nothing for the KFD to do, the CPU reaches its own memory (MemoryRegion::Lock).
    return DeviceAddress::FromPointer(host);
  }
  LightLock lock(&mu_);
  absl::StatusOr<thunk::KfdRegistration> registered = kfd_->RegisterMemory(host, size, gpus, flags);
  if (!registered.ok()) return Annotate(registered.status(), context);
  const DeviceAddress gpu_address = registered->gpu_address();
  if (absl::Status mapped = kfd_->MapMemoryToGpu(DeviceAddress::FromPointer(host)); !mapped.ok()) {
    return Recode(Annotate(mapped, context), absl::StatusCode::kResourceExhausted);  // `registered` drops it
  }
  locks_[DeviceAddress::FromPointer(host).raw()].push_back(*std::move(registered));
  Trace(Layer::kHsa, context, " -> ", AddressText(gpu_address));
  return gpu_address;
}

absl::Status MemoryManager::Impl::Unlock(void* host) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_unlock");
  const std::string context = absl::StrCat("hsa_amd_memory_unlock(", AddressText(host), ")");
  LightLock lock(&mu_);
  auto it = locks_.find(DeviceAddress::FromPointer(host).raw());
  // amd_memory_region.cpp MemoryRegion::Unlock: memory nobody locked has nothing to deregister, and succeeds.
  if (it == locks_.end()) return absl::OkStatus();
  // As MemoryRegion::Unlock, a failed unmap (the kernel out of memory) does not keep the pages pinned: the
  // deregistration's free unmaps the buffer from every GPU anyway. Returning here instead leaked it for good, since
  // callers (the blit manager's chunks) cannot retry.
  if (absl::Status unmapped = kfd_->UnmapMemoryFromGpu(DeviceAddress::FromPointer(host)); !unmapped.ok()) {
    HIPMEM_LOG(kWarning, context, ": ", unmapped.message());
  }
  thunk::KfdRegistration registration = std::move(it->second.back());
  it->second.pop_back();
  if (it->second.empty()) locks_.erase(it);
  // A refused deregistration leaves the pages registered until ~Kfd, which frees whatever the process still holds.
  return Annotate(std::move(registration).Deregister(), context);
}

PointerDescription MemoryManager::Impl::Describe(const void* pointer) const {
  const DeviceAddress address = DeviceAddress::FromPointer(pointer);
  PointerDescription d;
  LightLock lock(&mu_);
  auto mapped_agents = [&](const thunk::PointerInfo& info) {
    std::vector<AgentId> out;
    for (NodeId node : info.mapped_nodes) {
      if (std::optional<AgentId> agent = AgentOfNode(node)) out.push_back(*agent);
    }
    return out;
  };
  if (const AddressRangeMap<Allocation>::Entry* entry = allocations_.Find(address); entry != nullptr) {
    const Allocation& a = entry->value;
    const MemoryPool* pool = PoolOf(a.pool);
    const DeviceAddress buffer = a.buffer();
    d.type = PointerType::kHsa;
    // The runtime's own record, so a fragment reports itself rather than its block (ROCr's allocation_map_).
    d.agent_base = d.host_base = entry->range.base;
    d.size = entry->range.size;
    d.user_data = a.user_data;
    d.owner = pool->owner;
    d.global_flags = pool->global_flags;
    d.alloc_flags = ToPointerAllocFlags(a.kmt_flags);
    d.accessible = mapped_agents(kfd_->QueryPointerInfo(buffer.ToPointer()));
    return d;
  }
  const thunk::PointerInfo info = kfd_->QueryPointerInfo(pointer);
  if (info.type == thunk::PointerType::kUnknown) return d;
  if (info.type == thunk::PointerType::kAllocated && blocks_.Find(address) != nullptr) {
    return d;  // free space of a fragment block: nobody's allocation
  }
  d.type = static_cast<PointerType>(info.type);
  d.agent_base = info.gpu_address;
  d.host_base = info.cpu_address;
  d.size = info.size;
  d.user_data = info.user_data;
  d.alloc_flags = ToPointerAllocFlags(info.flags);
  d.owner = AgentOfNode(info.node);
  d.accessible = mapped_agents(info);
  if (info.type == thunk::PointerType::kRegisteredUser) {
    // ROCr reports locked memory as the CPU's: the KFD's node is only the GPU holding the USERPTR buffer.
    d.registered = true;
    d.global_flags = thunk::HasFlag(info.flags, MemFlags::kCoarseGrain) ? GlobalFlags::kCoarseGrained
                                                                          : GlobalFlags::kFineGrained;
    for (const Agent& agent : agents_) {
      if (agent.type == DeviceType::kCpu) {
        d.owner = agent.id;
        break;
      }
    }
  }
  return d;
}

absl::Status MemoryManager::Impl::SetUserData(const void* pointer, void* user_data) {
  LightLock lock(&mu_);
  if (AddressRangeMap<Allocation>::Entry* entry = allocations_.FindStart(DeviceAddress::FromPointer(pointer))) {
    entry->value.user_data = user_data;
    return absl::OkStatus();
  }
  if (locks_.contains(DeviceAddress::FromPointer(pointer).raw())) return kfd_->SetMemoryUserData(pointer, user_data);
  return absl::InvalidArgumentError(
      absl::StrCat("hsa_amd_pointer_info_set_userdata(", AddressText(pointer), "): no allocation starts there"));
}

absl::Status MemoryManager::Impl::RegisterDeallocationCallback(DeviceAddress address, DeallocationCallback callback,
                                                         void* user_data) {
  LightLock lock(&mu_);
  AddressRangeMap<Allocation>::Entry* entry = allocations_.FindStart(address);
  if (entry == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("hsa_amd_register_deallocation_callback(", AddressText(address),
                                                   "): no allocation starts there"));
  }
  entry->value.notifiers.push_back(Notifier{callback, user_data});
  return absl::OkStatus();
}

absl::Status MemoryManager::Impl::DeregisterDeallocationCallback(DeviceAddress address, DeallocationCallback callback) {
  const std::string context = absl::StrCat("hsa_amd_deregister_deallocation_callback(", AddressText(address), ")");
  LightLock lock(&mu_);
  AddressRangeMap<Allocation>::Entry* entry = allocations_.FindStart(address);
  if (entry == nullptr) return absl::InvalidArgumentError(absl::StrCat(context, ": no allocation starts there"));
  std::vector<Notifier>& notifiers = entry->value.notifiers;
  auto n = std::find_if(notifiers.begin(), notifiers.end(), [&](const Notifier& x) { return x.callback == callback; });
  if (n == notifiers.end()) return absl::InvalidArgumentError(absl::StrCat(context, ": callback not registered"));
  notifiers.erase(n);
  return absl::OkStatus();
}

MemoryManager::MemoryManager(const KfdBinding& binding, std::span<const Agent> agents,
                             std::span<const MemoryPool> pools, bool fragments)
    : impl_(std::make_unique<Impl>(binding, agents, pools, fragments)) {}

MemoryManager::~MemoryManager() = default;

absl::StatusOr<PoolAllocation> MemoryManager::Allocate(const MemoryPool& pool, Bytes size, PoolAllocFlags flags) {
  ASSIGN_OR_RETURN(const DeviceAddress address, impl_->Allocate(pool, size, flags));
  return PoolAllocation(this, address, size);
}

absl::StatusOr<PoolAllocation> MemoryManager::AllocateUnrestricted(const MemoryPool& pool, Bytes size) {
  ASSIGN_OR_RETURN(const DeviceAddress address, impl_->AllocateUnrestricted(pool, size));
  return PoolAllocation(this, address, size);
}

absl::Status MemoryManager::Free(DeviceAddress address) { return impl_->Free(address); }

std::optional<PointerInfo> MemoryManager::FindPointer(DeviceAddress address) const {
  return impl_->FindPointer(address);
}

Bytes MemoryManager::CachedBytes(AgentId gpu) const { return impl_->CachedBytes(gpu); }

absl::Status MemoryManager::AllowAccess(std::span<const AgentId> agents, DeviceAddress address) {
  return impl_->AllowAccess(agents, address);
}

absl::StatusOr<HostLock> MemoryManager::Lock(void* host, Bytes size, std::span<const AgentId> agents,
                                             std::optional<PoolId> pool) {
  ASSIGN_OR_RETURN(DeviceAddress gpu_address, impl_->Lock(host, size, agents, pool));
  return HostLock(this, host, gpu_address);
}

absl::Status MemoryManager::Unlock(void* host) { return impl_->Unlock(host); }

PointerDescription MemoryManager::Describe(const void* pointer) const { return impl_->Describe(pointer); }

absl::Status MemoryManager::SetUserData(const void* pointer, void* user_data) {
  return impl_->SetUserData(pointer, user_data);
}

absl::Status MemoryManager::RegisterDeallocationCallback(DeviceAddress address, DeallocationCallback callback,
                                                         void* user_data) {
  return impl_->RegisterDeallocationCallback(address, callback, user_data);
}

absl::Status MemoryManager::DeregisterDeallocationCallback(DeviceAddress address, DeallocationCallback callback) {
  return impl_->DeregisterDeallocationCallback(address, callback);
}

}  // namespace hipmem::hsa
