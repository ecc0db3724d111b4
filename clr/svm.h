// Managed (SVM) buffers: hipMallocManaged's memory, its advice and its prefetches.
//
// Plays ROCclr's amd::SvmBuffer for CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_ALLOC_HOST_PTR on an HMM device, with
// roc::Device::svmAlloc / SetSvmAttributes / GetSvmAttributes (rocdevice.cpp) and the SVM prefetch command. A
// managed buffer is page-aligned private memory of the process (an anonymous mapping, as HMM wants) that every
// GPU may map and migrate; it sits in the context's object map as MemoryKind::kManaged, so copies, fills and
// pointer queries find it, and Context::Free releases it. Advice and prefetch go through hsa::Svm. Locations
// are device ordinals, or kCpuDeviceId for system memory. Thread-safe.
#ifndef HIPMEM_CLR_SVM_H_
#define HIPMEM_CLR_SVM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "clr/context.h"
#include "clr/cpu_device_id.h"
#include "clr/stream.h"
#include "hsa/svm.h"

namespace hipmem::clr {

// amd::MemoryAdvice (the values of hipMemoryAdvise).
enum class MemoryAdvice : uint32_t {
  kSetReadMostly = 1,
  kUnsetReadMostly = 2,
  kSetPreferredLocation = 3,
  kUnsetPreferredLocation = 4,
  kSetAccessedBy = 5,
  kUnsetAccessedBy = 6,
  kSetCoarseGrain = 100,
  kUnsetCoarseGrain = 101,
};

// What hipMemRangeGetAttribute(s) reads back over a range.
struct ManagedRangeAttributes {
  bool read_mostly;
  std::optional<int> preferred_location;  // nullopt: none, or the range disagrees
  std::optional<int> last_prefetch;       // nullopt: never prefetched as a whole, or the range disagrees
  std::vector<int> accessed_by;           // devices given SetAccessedBy, in ordinal order
  hsa::SvmGrain grain;
};

class ManagedMemory {
 public:
  // Managed memory of `context`, which must outlive this; starts the HSA prefetch worker.
  explicit ManagedMemory(Context& context);
  ManagedMemory(const ManagedMemory&) = delete;
  ManagedMemory& operator=(const ManagedMemory&) = delete;

  // Maps `size` bytes (rounded up to pages) of fresh system memory, lets every GPU reach it (migrating as it
  // likes), and records it for `current` with `user_flags`. Errors: kInvalidArgument for size 0;
  // kResourceExhausted when the process cannot map that much; the SVM errors of the runtime.
  absl::StatusOr<DeviceAddress> Allocate(const Device& current, Bytes size, uint32_t user_flags);

  // Applies one advice to [ptr, ptr + size), which must lie inside one managed buffer. `location` is a device
  // ordinal or kCpuDeviceId (ignored by the read-mostly and grain advice). Errors: kInvalidArgument for size 0,
  // a range outside (or running past) one managed buffer, an unknown advice, or an ordinal outside the context
  // (Context::GetDevice's); the runtime's SVM errors.
  absl::Status Advise(DeviceAddress ptr, Bytes size, MemoryAdvice advice, int location);

  // Queues a migration of [ptr, ptr + size) to `location` on `stream`: it runs once the work queued on the
  // stream before it is done, and the stream's later work waits for it. Errors: Advise's range and location
  // errors; the stream's.
  absl::Status Prefetch(DeviceAddress ptr, Bytes size, int location, Stream& stream);

  // Reads the range's attributes. Errors: Advise's range errors.
  absl::StatusOr<ManagedRangeAttributes> GetAttributes(DeviceAddress ptr, Bytes size);

  hsa::Svm& svm() { return *svm_; }

 private:
  // kInvalidArgument unless [ptr, ptr + size) lies in one managed buffer.
  absl::Status CheckRange(absl::string_view op, DeviceAddress ptr, Bytes size) const;
  // The agent of `location`. Context::GetDevice's error for an ordinal outside the context.
  absl::StatusOr<hsa::AgentId> AgentOf(int location) const;
  std::optional<int> LocationOf(std::optional<hsa::AgentId> agent) const;

  Context& context_;  // Not owned; must outlive this.
  std::unique_ptr<hsa::Svm> svm_;
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_SVM_H_
