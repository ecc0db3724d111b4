// The copy path's pin table: host memory nobody registered, pinned (USERPTR) for the operations queued on it.
//
// ROCr pins such memory per copy and unpins it when the copy's signal completes. Here one registration is shared by
// every queued operation on the same memory, and the last to finish unpins it: otherwise the first to finish would
// unpin the pages under the others. Memory the thunk allocated or registered is only mapped (GpuAccess).
// Thread-safe.
#ifndef HIPMEM_HSA_PIN_TABLE_H_
#define HIPMEM_HSA_PIN_TABLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "hsa/gpu_access.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {

// One side of an operation made reachable by the GPU, held until the operation is done. `pin` keeps a registration
// of host memory nobody else registered, shared by every queued operation on that memory (the last one to finish
// unpins it); otherwise `access` is the mapping.
struct Hold {
  std::shared_ptr<GpuAccess> pin;
  std::optional<GpuAccess> access;

  uint64_t gpu_address() const {
    if (access.has_value()) return access->gpu_address().raw();
    return pin->gpu_address().raw();
  }
};

class PinTable {
 public:
  // `kfd` must outlive it, and so must this every Hold it hands out.
  explicit PinTable(thunk::Kfd& kfd) : kfd_(kfd) {}
  PinTable(const PinTable&) = delete;
  PinTable& operator=(const PinTable&) = delete;

  // Makes [address, address + size) reachable by `gpu` for one operation: joins a live pin that covers it, else
  // GpuAccess::Acquire (which pins unregistered host memory, and that pin is then shared). Errors: Acquire's.
  absl::StatusOr<Hold> Reach(thunk::NodeId gpu, DeviceAddress address, Bytes size);

 private:
  struct PinEntry {
    uint64_t size;
    std::weak_ptr<GpuAccess> pin;
  };

  thunk::Kfd& kfd_;  // Not owned; must outlive this.
  absl::Mutex mu_;
  // Host memory pinned for queued operations, by start address. An entry whose pin expired is being unpinned:
  // its deleter erases it.
  std::map<uint64_t, PinEntry> pins_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_PIN_TABLE_H_
