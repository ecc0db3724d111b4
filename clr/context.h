// ROCclr's view of the machine: GPU devices, the memory objects HIP allocated on them, and copies.
//
// Plays amd::Context + roc::Device (pool choice, rocdevice.cpp) + the blit manager's entry point.
// Each Device picks its pools once: coarse-grained VRAM of its agent for device memory, and the
// CPU's fine-grained (or, for non-coherent requests, coarse-grained) system pool for host memory.
// Every copy classifies both pointers through the MemObjMap. Thread-safe.
#ifndef HIPMEM_CLR_CONTEXT_H_
#define HIPMEM_CLR_CONTEXT_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/light_mutex.h"
#include "base/units.h"
#include "clr/device_faults.h"
#include "clr/device_info.h"
#include "clr/mem_obj_map.h"
#include "clr/memory.h"
#include "clr/settings.h"
#include "hsa/copy.h"
#include "hsa/queue.h"
#include "hsa/runtime.h"
#include "hsa/signal_runtime.h"

namespace hipmem::clr {

struct Device {
  int ordinal;
  hsa::AgentId agent;
  std::string name;            // "gfx942"
  hsa::PoolId device_pool;     // coarse-grained VRAM
  hsa::PoolId host_pool;       // fine-grained system memory (coherent host allocations)
  hsa::PoolId host_coarse_pool;  // coarse-grained system memory (non-coherent host allocations)
  Bytes global_mem_size;       // VRAM pool size x GPU_MAX_HEAP_SIZE %
  Bytes max_alloc_size;        // global_mem_size x GPU_SINGLE_ALLOC_PERCENT %
  DeviceInfo info;             // what hipGetDeviceProperties reports (device_info.h)
  // ROCclr's gpu_fine_grained_segment_ (fine-grained VRAM: a hive, or HSA_FORCE_FINE_GRAIN_PCIE=1) and
  // gpu_ext_fine_grained_segment_ (extended-scope fine-grained, uncached VRAM; none on gfx12), when the agent has them.
  std::optional<hsa::PoolId> fine_device_pool = std::nullopt;
  std::optional<hsa::PoolId> uncached_device_pool = std::nullopt;
  // The CPU's extended-scope fine-grained system pool (uncached host memory), when it has one.
  std::optional<hsa::PoolId> host_uncached_pool = std::nullopt;
};

// Which VRAM pool device memory comes from (ROCclr's AllocationFlags: atomics_, pseudo_fine_grain_).
enum class DeviceGrain {
  kCoarse,       // hipMalloc, hipDeviceMallocDefault
  kFineGrained,  // hipDeviceMallocFinegrained (CL_MEM_SVM_ATOMICS)
  kUncached,     // hipDeviceMallocUncached / Contiguous (ROCCLR_MEM_HSA_UNCACHED)
};

struct DeviceMemoryOptions {
  DeviceGrain grain = DeviceGrain::kCoarse;
  bool contiguous = false;  // HSA_AMD_MEMORY_POOL_CONTIGUOUS_FLAG (hipDeviceMallocContiguous)
};

// kUncached: ROCclr's uncached host memory (ROCCLR_MEM_HSA_UNCACHED), from the CPU's extended-scope
// fine-grained pool.
enum class HostCoherence { kCoherent, kNonCoherent, kUncached };

struct MemInfo {
  Bytes free;
  Bytes total;
};

class Context;

// One allocation a Context made (AllocDevice, AllocHost), owned: the destructor frees it through the context
// (Context::Free), which must outlive it. Its memory object stays in the context's map, so pointer lookups find
// it meanwhile. The C entry points hand the address to the caller with Release() &&; the context then keeps the
// memory until hipFree (Context::Free) or its own end. Move-only; thread-compatible.
class Allocation {
 public:
  Allocation(Allocation&& other) noexcept;
  Allocation& operator=(Allocation&& other) noexcept;
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  ~Allocation();

  DeviceAddress address() const { return address_; }
  // Gives the allocation up to the context and returns its address (an owner's into_raw).
  [[nodiscard]] DeviceAddress Release() &&;
  // Frees it now and reports Context::Free's result. kFailedPrecondition when empty.
  absl::Status Free() &&;

 private:
  friend class Context;
  Allocation(Context* context, DeviceAddress address) : context_(context), address_(address) {}

  Context* context_;  // Not owned; must outlive this. Null once empty.
  DeviceAddress address_;
};

// Returns the allocation's address, given up to the context (Allocation::Release), or its error. For callers that
// hand the address out as hipMalloc does: the context keeps the memory until Context::Free or its own end.
absl::StatusOr<DeviceAddress> Released(absl::StatusOr<Allocation> allocation);

class Context {
 public:
  // Creates the HSA runtime and one Device per GPU agent. kNotFound when the machine has no GPU; kUnavailable when
  // the HSA runtime does not start.
  static absl::StatusOr<std::unique_ptr<Context>> Create();
  static absl::StatusOr<std::unique_ptr<Context>> Create(std::unique_ptr<hsa::Runtime> runtime);

  // Frees every memory object still alive, then shuts the HSA runtime down.
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const std::vector<Device>& devices() const { return devices_; }
  // The GPU_* / HIP_* tunables, read at Create.
  const Settings& settings() const { return settings_; }
  // The CPU agent whose pools hold host memory.
  hsa::AgentId host_agent() const { return host_agent_; }

  // The HSA runtime's services, for the command queues (stream.h) that submit work through them.
  hsa::Runtime& runtime() { return *runtime_; }
  hsa::SignalRuntime& signals() { return *signals_; }
  hsa::Copies& copies() { return *copies_; }
  hsa::Queues& queues() { return *queues_; }
  // GPU memory faults, sticky per device (device_faults.h).
  DeviceFaults& faults() { return *faults_; }
  // How the host waits for `device`'s work: looking at the signal until it changes (true, an ACTIVE HSA wait) or
  // asleep on its event (false, BLOCKED). ROCclr's Device::ActiveWait, which hipSetDeviceFlags' scheduling mode
  // sets; true until then. `ordinal` must be a device's.
  bool ActiveWait(int ordinal) const { return active_wait_[ordinal].load(std::memory_order_relaxed); }
  void SetActiveWait(int ordinal, bool active) { active_wait_[ordinal].store(active, std::memory_order_relaxed); }
  // kInvalidArgument for an ordinal outside [0, devices().size()).
  absl::StatusOr<const Device*> GetDevice(int ordinal) const;

  // Allocates VRAM on `device`. kResourceExhausted when size > max_alloc_size (no driver call) or
  // the runtime is out of memory.
  // `options` picks the pool as ROCclr's deviceLocalAlloc does: a grain whose pool the device lacks falls back to
  // coarse-grained VRAM.
  absl::StatusOr<Allocation> AllocDevice(const Device& device, Bytes size, uint32_t user_flags,
                                         DeviceMemoryOptions options = {});
  // The pool AllocDevice takes for `grain` on `device`.
  static hsa::PoolId DevicePool(const Device& device, DeviceGrain grain);

  // Sets the sync_mem_ops user data of the memory object containing `address` (hipPointerSetAttribute).
  // kNotFound when no object contains it.
  absl::Status SetSyncMemOps(DeviceAddress address, bool sync) { return objects_.SetSyncMemOps(address, sync); }

  // Allocates host memory every GPU can reach. kResourceExhausted when out of memory; kUncached falls back to
  // the fine-grained pool when the CPU has no extended-scope one.
  absl::StatusOr<Allocation> AllocHost(const Device& device, Bytes size, HostCoherence coherence,
                                       uint32_t user_flags);

  // Records a memory object made outside the context (a managed buffer, clr/svm.h). kAlreadyExists when it overlaps
  // one already known.
  absl::Status Adopt(std::unique_ptr<Memory> memory) { return objects_.Insert(std::move(memory)); }
  // Drops a borrowed object (Memory::borrowed) from the map, releasing nothing. kNotFound when no borrowed object
  // starts at `base`.
  absl::Status Forget(DeviceAddress base);

  // Frees the allocation starting at `base`. kNotFound for any other address (unknown, interior, freed);
  // kFailedPrecondition for registered memory (UnregisterHost releases it).
  absl::Status Free(DeviceAddress base);

  // Frees every device allocation made on `device` (hipDeviceReset; CLR's MemObjMap::Purge of the device).
  // Host and registered memory stay. Returns the first error a free reports, after trying them all.
  absl::Status FreeDeviceMemory(const Device& device);

  // Locks the caller's [host, host + size) for every GPU (hipHostRegister) and returns the address GPUs use.
  // `device` is the current device, recorded for pointer queries. Errors: kInvalidArgument for a null pointer
  // or size 0; kAlreadyExists when the range overlaps memory already known (allocated or registered); the
  // runtime's lock errors (pages not mapped in the process: kInvalidArgument from the KFD's EFAULT).
  absl::StatusOr<DeviceAddress> RegisterHost(const Device& device, DeviceAddress host, Bytes size,
                                             uint32_t user_flags);
  // Undoes RegisterHost of `host` (hipHostUnregister). kNotFound when `host` does not start registered memory.
  absl::Status UnregisterHost(DeviceAddress host);

  // Resolves an address to its object and offset.
  std::optional<MemObjRef> Find(DeviceAddress address) const { return objects_.Find(address); }
  // The same lookup, kept with its address for the layers below (BlitManager::Copy).
  ResolvedPointer Resolve(DeviceAddress address) const { return ResolvedPointer{address, objects_.Find(address)}; }
  // How many memory objects are alive (device, host, registered, managed). For leak checks the kernel's counts cannot
  // make: small allocations share a 2 MiB block the runtime keeps, so one leaked inside it changes no KFD buffer.
  size_t live_memory_objects() const { return objects_.size(); }

  // Peer access (ROCclr's p2p device lists). `device`'s GPU may be given `peer`'s VRAM when the HSA runtime
  // reports a path to it (the VRAM pool's access for `device`'s agent is not NEVER_ALLOWED). False for itself.
  bool CanAccessPeer(const Device& device, const Device& peer) const;
  // Maps every VRAM allocation of `peer`, those alive now and those made later, on `device`'s GPU. Errors:
  // kInvalidArgument when CanAccessPeer is false; kAlreadyExists when already enabled; the runtime's mapping
  // errors.
  absl::Status EnablePeerAccess(const Device& device, const Device& peer);
  // Whether `device` enabled access to `peer`'s VRAM (ROCclr's P2PAccessDevices of `peer` lists `device`).
  bool PeerAccessEnabled(const Device& device, const Device& peer) const;
  // Stops mapping `peer`'s later allocations on `device`'s GPU; those already mapped stay mapped, as in CLR.
  // kNotFound when access was not enabled.
  absl::Status DisablePeerAccess(const Device& device, const Device& peer);
  // ROCclr's findLinkInfo from `device` to `peer`'s VRAM: the first hop's hsa_amd_link_info_type_t, the hop
  // count (the summed NUMA distance over one hop's weight: 15 for XGMI, 20 otherwise) and whether the first hop
  // carries 32- or 64-bit atomics; link type UINT32_MAX, 0 hops and atomics when there is no hop.
  struct PeerLink {
    uint32_t link_type;
    uint32_t hop_count;
    bool atomics;
  };
  absl::StatusOr<PeerLink> GetPeerLink(const Device& device, const Device& peer) const;

  // Free and total VRAM of `device` as hipMemGetInfo reports them.
  absl::StatusOr<MemInfo> GetMemInfo(const Device& device);

 private:
  Context(const Settings& settings, std::unique_ptr<hsa::Runtime> runtime, hsa::AgentId host_agent,
          std::vector<Device> devices);
  // The agents of the devices that enabled access to `owner`'s VRAM.
  std::vector<hsa::AgentId> PeerAgentsLocked(int owner) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(peers_mu_);

  const Settings settings_;
  const hsa::AgentId host_agent_;

  // Declared first: destroyed last, after every Memory that points at it.
  const std::unique_ptr<hsa::Runtime> runtime_;
  // The runtime's signals and copies, as the HSA C ABI's shared runtime owns them: copies go first (their
  // queues hold signals), then signals, then the runtime.
  const std::unique_ptr<hsa::SignalRuntime> signals_;
  const std::unique_ptr<hsa::Queues> queues_;  // the streams' AQL queues (their signals: signals_)
  const std::unique_ptr<hsa::Copies> copies_;
  const std::vector<Device> devices_;
  const std::unique_ptr<std::atomic<bool>[]> active_wait_;  // per device, see ActiveWait
  MemObjMap objects_;
  // peer_enabled_[owner][accessor]: whether `accessor` enabled access to `owner`'s VRAM. Held across the grants
  // so an allocation made while access is being enabled is mapped exactly once.
  mutable LightMutex peers_mu_;
  // Set by the first EnablePeerAccess, never cleared: lets AllocDevice skip peers_mu_ while no device has peers.
  std::atomic<bool> any_peer_access_{false};
  std::vector<std::vector<bool>> peer_enabled_ ABSL_GUARDED_BY(peers_mu_);
  // Set by Create; last, so its listener thread stops before anything it reaches goes.
  std::unique_ptr<DeviceFaults> faults_;
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_CONTEXT_H_
