// A memory object: one allocation CLR made for HIP, or user memory it registered, owning it in the HSA runtime.
//
// Plays ROCclr's amd::Memory / roc::Memory for SVM buffers and USE_HOST_PTR buffers. Move-only owner: the
// destructor releases the memory (frees an allocation, unlocks registered memory) and logs a failure; Free() &&
// reports it instead.
#ifndef HIPMEM_CLR_MEMORY_H_
#define HIPMEM_CLR_MEMORY_H_

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "base/units.h"
#include "hsa/memory.h"
#include "hsa/runtime.h"

namespace hipmem::clr {

enum class MemoryKind {
  kDevice,  // VRAM of one GPU (hipMalloc)
  kHost,    // pinned system memory every GPU can reach (hipHostMalloc)
  kRegistered,  // the caller's memory, locked for the GPUs (hipHostRegister)
  kManaged,     // a managed (SVM) buffer: the process's memory every GPU may map and migrate (clr/svm.h)
};

// The copyable description of a memory object, what a pointer lookup returns.
struct MemoryDesc {
  AddressRange range;      // where the CPU sees it (the allocation, or the caller's registered range)
  DeviceAddress gpu_address;  // where the GPUs see range.base (differs from it only for registered memory)
  MemoryKind kind;
  int device;           // the owning device's ordinal (for host memory: the device current at allocation)
  uint32_t user_flags;  // the HIP flags it was allocated with, for hipPointerGetAttributes
  hsa::PoolId pool;
  // Unique over the process lifetime, never reused (ROCclr's amd::Memory unique id); set by MemObjMap::Insert.
  uint64_t buffer_id = 0;
  // ROCclr's sync_mem_ops_ user data (hipPointerSetAttribute(HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS)).
  bool sync_mem_ops = false;
};

class Memory {
 public:
  // Owns device or host memory (kDevice, kHost): `allocation`, which its runtime must outlive.
  Memory(hsa::PoolAllocation allocation, hsa::Runtime* runtime, MemoryDesc desc)
      : runtime_(runtime), allocation_(std::move(allocation)), desc_(desc) {}
  // Owns registered memory (kRegistered): `lock`, which its runtime must outlive.
  Memory(hsa::HostLock lock, hsa::Runtime* runtime, MemoryDesc desc)
      : runtime_(runtime), lock_(std::move(lock)), desc_(desc) {}
  // Managed memory `runtime` holds for this object (kManaged), released through it; with a null runtime, memory
  // this object only names.
  Memory(hsa::Runtime* runtime, MemoryDesc desc) : runtime_(runtime), desc_(desc) {}
  ~Memory();
  Memory(Memory&& other) noexcept;
  Memory& operator=(Memory&& other) noexcept;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  const MemoryDesc& desc() const { return desc_; }
  // Memory this object only names (runtime null): a loaded program's device variable, which its executable owns.
  bool borrowed() const { return runtime_ == nullptr; }
  // For the object map, which numbers objects and keeps their mutable user data.
  void set_buffer_id(uint64_t id) { desc_.buffer_id = id; }
  void set_sync_mem_ops(bool sync) { desc_.sync_mem_ops = sync; }

  // Releases the memory now and reports the result; the object is empty afterwards.
  absl::Status Free() &&;

 private:
  hsa::Runtime* runtime_;  // Not owned; must outlive this. Null once freed or moved from.
  std::optional<hsa::PoolAllocation> allocation_;  // kDevice, kHost: the runtime's allocation
  std::optional<hsa::HostLock> lock_;              // kRegistered: the runtime's lock of the caller's memory
  MemoryDesc desc_;
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_MEMORY_H_
