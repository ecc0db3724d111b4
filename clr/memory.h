// A memory object: one allocation CLR made for HIP, owning it in the HSA runtime.
//
// Plays ROCclr's amd::Memory / roc::Memory for SVM buffers. Move-only owner: the destructor frees
// the allocation (and logs a failure); Free() && reports it instead.
#ifndef HIPMEM_CLR_MEMORY_H_
#define HIPMEM_CLR_MEMORY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "base/units.h"
#include "hsa/runtime.h"

namespace hipmem::clr {

enum class MemoryKind {
  kDevice,  // VRAM of one GPU (hipMalloc)
  kHost,    // pinned system memory every GPU can reach (hipHostMalloc)
};

// The copyable description of a memory object, what a pointer lookup returns.
struct MemoryDesc {
  AddressRange range;
  MemoryKind kind;
  int device;           // the owning device's ordinal (for host memory: the device current at allocation)
  uint32_t user_flags;  // the HIP flags it was allocated with, for hipPointerGetAttributes
  hsa::PoolId pool;
};

class Memory {
 public:
  // Adopts an allocation `runtime` made.
  Memory(hsa::Runtime* runtime, MemoryDesc desc) : runtime_(runtime), desc_(desc) {}
  ~Memory();
  Memory(Memory&& other) noexcept;
  Memory& operator=(Memory&& other) noexcept;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  const MemoryDesc& desc() const { return desc_; }

  // Frees the allocation now and reports the result; the object is empty afterwards.
  absl::Status Free() &&;

 private:
  hsa::Runtime* runtime_;  // Not owned; must outlive this. Null once freed or moved from.
  MemoryDesc desc_;
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_MEMORY_H_
