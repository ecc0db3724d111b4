// The HSA runtime's memory surface: agents, memory pools and allocation (copies: hsa/copy.h).
//
// Plays ROCr's core::Runtime + amd::GpuAgent/CpuAgent + AMD::MemoryRegion (runtime.cpp,
// amd_gpu_agent.cpp, amd_memory_region.cpp). Built on the thunk's C++ API; that side stays out of this header
// (runtime_kfd.h binds agents and pools to KFD nodes for the runtime's own parts), so clients see HSA's
// vocabulary only. The hsa_* C functions are thin shells over this class. Thread-safe.
#ifndef HIPMEM_HSA_RUNTIME_H_
#define HIPMEM_HSA_RUNTIME_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/strong_id.h"
#include "base/units.h"

namespace hipmem::hsa {

class MemoryManager;  // memory.h
struct KfdBinding;    // runtime_kfd.h

// The opaque values behind hsa_agent_t / hsa_amd_memory_pool_t handles.
using AgentId = StrongId<struct AgentIdTag, uint64_t>;
using PoolId = StrongId<struct PoolIdTag, uint64_t>;

enum class DeviceType : uint32_t { kCpu = 0, kGpu = 1 };             // hsa_device_type_t
enum class Segment : uint32_t { kGlobal = 0, kReadOnly = 1, kPrivate = 2, kGroup = 3 };  // hsa_amd_segment_t
enum class PoolLocation : uint32_t { kCpu = 0, kGpu = 1 };           // hsa_amd_memory_pool_location_t

// hsa_amd_memory_pool_global_flag_t bits.
enum class GlobalFlags : uint32_t {
  kNone = 0,
  kKernargInit = 1,
  kFineGrained = 2,
  kCoarseGrained = 4,
  kExtendedScopeFineGrained = 8,
};
constexpr GlobalFlags operator|(GlobalFlags a, GlobalFlags b) {
  return static_cast<GlobalFlags>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr bool HasFlag(GlobalFlags set, GlobalFlags f) {
  return (static_cast<uint32_t>(set) & static_cast<uint32_t>(f)) == static_cast<uint32_t>(f);
}
constexpr uint32_t ToRaw(GlobalFlags f) { return static_cast<uint32_t>(f); }

struct Agent {
  AgentId id;
  DeviceType type;
  std::string name;            // "gfx942" for GPUs, the CPU's name otherwise
  std::string product_name;    // HSA_AMD_AGENT_INFO_PRODUCT_NAME
  std::vector<PoolId> pools;   // in the order hsa_amd_agent_iterate_memory_pools reports them
};

struct MemoryPool {
  PoolId id;
  AgentId owner;
  Segment segment;
  GlobalFlags global_flags;
  PoolLocation location;
  Bytes size;
  bool alloc_allowed;
  Bytes alloc_granule;          // RUNTIME_ALLOC_GRANULE
  Bytes alloc_rec_granule;      // RUNTIME_ALLOC_REC_GRANULE
  Bytes alloc_alignment;        // RUNTIME_ALLOC_ALIGNMENT
  bool accessible_by_all;
  Bytes alloc_max_size;
};

// hsa_amd_memory_pool_flag_t, passed to Allocate.
enum class PoolAllocFlags : uint32_t { kStandard = 0, kPcie = 1u << 0, kContiguous = 1u << 1, kExecutable = 1u << 2 };

// What the runtime knows of an address (hsa_amd_pointer_info's view).
struct PointerInfo {
  AddressRange allocation;  // the whole allocation containing the address
  PoolId pool;
  AgentId owner;
};

// One allocation the runtime made (Runtime::Allocate, MemoryManager::Allocate / AllocateUnrestricted), owned: the
// destructor frees it as hsa_amd_memory_pool_free does (deallocation callbacks first) and logs a failure; Free() &&
// reports it instead. Move-only; a move empties the source. Release() && gives up ownership and returns the address,
// for the C entry points, whose caller frees it by address (Runtime::Free). The runtime must outlive it.
class [[nodiscard]] PoolAllocation {
 public:
  PoolAllocation(PoolAllocation&& other) noexcept;
  PoolAllocation& operator=(PoolAllocation&& other) noexcept;
  PoolAllocation(const PoolAllocation&) = delete;
  PoolAllocation& operator=(const PoolAllocation&) = delete;
  ~PoolAllocation();

  DeviceAddress address() const { return address_; }
  // As asked for (the runtime rounds it up to the pool's granule).
  Bytes size() const { return size_; }
  void* pointer() const { return address_.ToPointer(); }

  // Gives up ownership: the allocation stays until someone frees its address.
  [[nodiscard]] DeviceAddress Release() &&;
  // Frees the allocation now; kFailedPrecondition when the owner is empty (moved from, released, freed).
  absl::Status Free() &&;

 private:
  friend class MemoryManager;
  PoolAllocation(MemoryManager* manager, DeviceAddress address, Bytes size)
      : manager_(manager), address_(address), size_(size) {}

  MemoryManager* manager_;  // Not owned; must outlive this. Null once empty.
  DeviceAddress address_;
  Bytes size_;
};

class Runtime {
 public:
  // Opens the KFD (the thunk's default device) and discovers agents and pools. CreateRuntime (runtime_kfd.h)
  // takes an already opened KFD.
  static absl::StatusOr<std::unique_ptr<Runtime>> Create();

  // Frees every allocation still held.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Agents in node order: the CPU first, then GPUs (hsa_iterate_agents order).
  const std::vector<Agent>& agents() const { return agents_; }
  // kInvalidArgument (INVALID_AGENT) for an id this runtime did not hand out.
  absl::StatusOr<const Agent*> GetAgent(AgentId id) const;
  // kInvalidArgument (INVALID_MEMORY_POOL) for an unknown id.
  absl::StatusOr<const MemoryPool*> GetPool(PoolId id) const;

  // Allocates from `pool` as hsa_amd_memory_pool_allocate: size rounded up to the granule, then
  // mapped into the GPU page tables (VRAM to its own GPU, system memory to every GPU).
  // Errors: kInvalidArgument for size 0 (INVALID_ARGUMENT) or an unknown pool (INVALID_MEMORY_POOL);
  // INVALID_ALLOCATION when the pool forbids runtime allocation or size > ALLOC_MAX_SIZE;
  // kResourceExhausted (OUT_OF_RESOURCES) when the KFD refuses.
  absl::StatusOr<PoolAllocation> Allocate(PoolId pool, Bytes size, PoolAllocFlags flags = PoolAllocFlags::kStandard);

  // Frees an allocation by its start address. INVALID_ALLOCATION when the address is not one.
  absl::Status Free(DeviceAddress address);

  // HSA_AMD_AGENT_INFO_MEMORY_AVAIL: the KFD's available VRAM for a GPU agent, plus the bytes its fragment
  // allocators keep cached (ROCr counts those as free).
  absl::StatusOr<Bytes> MemoryAvailable(AgentId gpu);

  // The allocation containing `address`, if the runtime made it.
  std::optional<PointerInfo> FindPointer(DeviceAddress address) const;

  // Allocations, locks, access grants and pointer queries (memory.h).
  MemoryManager& memory() { return *memory_; }

 private:
  friend struct KfdBinding;

  Runtime(std::unique_ptr<KfdBinding> binding, std::vector<Agent> agents, std::vector<MemoryPool> pools);

  const std::unique_ptr<KfdBinding> binding_;
  const std::vector<Agent> agents_;
  const std::vector<MemoryPool> pools_;
  std::unique_ptr<MemoryManager> memory_;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_RUNTIME_H_
