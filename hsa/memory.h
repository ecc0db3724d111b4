// The runtime's memory: pool allocations, the VRAM fragment allocators, locked host memory, access grants,
// pointer queries and deallocation notifiers.
//
// Plays the memory half of ROCr's core::Runtime (AllocateMemory, FreeMemory, AllowAccess, PtrInfo,
// SetPtrInfoData, RegisterReleaseNotifier, allocation_map_) with AMD::MemoryRegion's Allocate/Lock/Unlock and
// KfdDriver::AllocateMemory's trim-and-retry. Built on thunk::Kfd. Thread-safe: one mutex serialises every
// allocation, free and lookup, as ROCr's memory_lock_ does; deallocation callbacks run outside it.
#ifndef HIPMEM_HSA_MEMORY_H_
#define HIPMEM_HSA_MEMORY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {

struct KfdBinding;  // runtime_kfd.h: the runtime's own KFD binding, which clients never see

// hsa_amd_pointer_type_t.
enum class PointerType : uint32_t { kUnknown = 0, kHsa = 1, kLocked = 2, kGraphics = 3, kIpc = 4, kReservedAddr = 5 };

// What an allocation was made with, as hsa_amd_pointer_info_t::alloc_flags reports it (the same bits): the
// KFD's flags translated at the runtime's edge, so clients never see a thunk type.
enum class PointerAllocFlags : uint32_t {
  kNone = 0,
  kExecutable = 1u << 0,
  kContiguous = 1u << 1,
  kNonPaged = 1u << 2,
  kReadOnly = 1u << 3,
  kHostAccess = 1u << 4,
  kAtomicFull = 1u << 5,
  kAtomicPartial = 1u << 6,
};
constexpr PointerAllocFlags operator|(PointerAllocFlags a, PointerAllocFlags b) {
  return static_cast<PointerAllocFlags>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr uint32_t ToRaw(PointerAllocFlags f) { return static_cast<uint32_t>(f); }

// Everything hsa_amd_pointer_info reports about an address.
struct PointerDescription {
  PointerType type = PointerType::kUnknown;
  DeviceAddress agent_base = DeviceAddress(0);
  DeviceAddress host_base = DeviceAddress(0);
  Bytes size;
  void* user_data = nullptr;
  std::optional<AgentId> owner;
  GlobalFlags global_flags = GlobalFlags::kNone;
  bool registered = false;             // locked host memory
  PointerAllocFlags alloc_flags = PointerAllocFlags::kNone;  // what the KFD allocation was made with
  std::vector<AgentId> accessible;     // the agents whose page tables map it
};

// hsa_amd_deallocation_callback_t.
using DeallocationCallback = void (*)(void* ptr, void* user_data);

// One MemoryManager::Lock of host memory, owned: the destructor unlocks it as hsa_amd_memory_unlock does and logs a
// failure; Unlock() && reports it instead. Move-only; a move empties the source. Release() && gives up ownership and
// returns the GPUs' address, for the C entry points, whose caller unlocks by host address (MemoryManager::Unlock).
// The manager must outlive it.
class [[nodiscard]] HostLock {
 public:
  HostLock(HostLock&& other) noexcept;
  HostLock& operator=(HostLock&& other) noexcept;
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;
  ~HostLock();

  void* host() const { return host_; }
  // Where the GPUs see host().
  DeviceAddress gpu_address() const { return gpu_address_; }

  // Gives up ownership: the memory stays locked until someone unlocks `host()`.
  [[nodiscard]] DeviceAddress Release() &&;
  // Unlocks now; kFailedPrecondition when the owner is empty (moved from, released, unlocked).
  absl::Status Unlock() &&;

 private:
  friend class MemoryManager;
  HostLock(MemoryManager* manager, void* host, DeviceAddress gpu_address)
      : manager_(manager), host_(host), gpu_address_(gpu_address) {}

  MemoryManager* manager_;  // Not owned; must outlive this. Null once empty.
  void* host_;
  DeviceAddress gpu_address_;
};

class MemoryManager {
 public:
  // `binding`, `agents` and `pools` are not owned and must outlive this. With `fragments` (the default unless
  // HSA_DISABLE_FRAGMENT_ALLOCATOR=1), ordinary VRAM allocations are carved from 2 MiB blocks.
  MemoryManager(const KfdBinding& binding, std::span<const Agent> agents, std::span<const MemoryPool> pools,
                bool fragments);
  // Frees every allocation, cached block and lock still held.
  ~MemoryManager();
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;

  // hsa_amd_memory_pool_allocate: see Runtime::Allocate. kInvalidArgument as well for flag bits
  // hsa_amd_memory_pool_flag_t does not define. When the KFD refuses, every pool's cached blocks go back and
  // the allocation is tried once more (KfdDriver's Trim()).
  absl::StatusOr<PoolAllocation> Allocate(const MemoryPool& pool, Bytes size, PoolAllocFlags flags);
  // hsa_memory_allocate on a region: as Allocate, but never from a fragment and, for VRAM, mapped for the
  // owner and every GPU linked to it (no AllocateRestrict).
  absl::StatusOr<PoolAllocation> AllocateUnrestricted(const MemoryPool& pool, Bytes size);

  // Runs the allocation's deallocation callbacks, then frees it. INVALID_ALLOCATION (kNotFound) when no
  // allocation starts at `address`.
  absl::Status Free(DeviceAddress address);

  // The allocation containing `address`, if this runtime made it.
  std::optional<PointerInfo> FindPointer(DeviceAddress address) const;

  // Bytes held in the VRAM fragment caches of the pools `gpu` owns (added to MEMORY_AVAIL, as ROCr does).
  Bytes CachedBytes(AgentId gpu) const;

  // hsa_amd_agents_allow_access: maps the allocation starting at `address` on the GPUs among `agents` (the
  // owner of VRAM always stays). For a fragment the whole block is mapped and the grant adds to earlier ones,
  // as in ROCr, since fragments share one KFD buffer. Errors: INVALID_AGENT for an unknown agent; kNotFound
  // (INVALID_ALLOCATION) when no allocation starts at `address`; kResourceExhausted (OUT_OF_RESOURCES) when the
  // KFD refuses the mapping (a GPU without a link to the memory's GPU).
  absl::Status AllowAccess(std::span<const AgentId> agents, DeviceAddress address);

  // hsa_amd_memory_lock(_to_pool): registers [host, host + size) with the KFD (pinned) and maps it on the GPUs
  // among `agents` (every GPU when empty). Returns the lock, which holds the address the GPUs use. `pool` picks
  // the coherence (a CPU pool; the fine-grained one when absent). Errors: INVALID_AGENT for an unknown agent; kInvalidArgument for a
  // pool that is not a CPU pool, a null pointer or size 0; the thunk's errors (unmapped pages: EFAULT).
  absl::StatusOr<HostLock> Lock(void* host, Bytes size, std::span<const AgentId> agents, std::optional<PoolId> pool);
  // hsa_amd_memory_unlock: undoes one Lock of `host`; memory that is not locked succeeds unchanged, as ROCr. For
  // the C entry point; everything else lets its HostLock go.
  absl::Status Unlock(void* host);

  // hsa_amd_pointer_info. A free part of a fragment block is kUnknown: the caller never allocated it.
  PointerDescription Describe(const void* pointer) const;
  // hsa_amd_pointer_info_set_userdata: `pointer` must be where an allocation or a locked range starts.
  // kInvalidArgument otherwise.
  absl::Status SetUserData(const void* pointer, void* user_data);

  // hsa_amd_register/deregister_deallocation_callback. kInvalidArgument when no allocation starts at
  // `address`, or (deregister) when `callback` is not registered on it.
  absl::Status RegisterDeallocationCallback(DeviceAddress address, DeallocationCallback callback, void* user_data);
  absl::Status DeregisterDeallocationCallback(DeviceAddress address, DeallocationCallback callback);

 private:
  // The records, the fragment allocators and the KFD binding: memory.cc alone sees the thunk.
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_MEMORY_H_
