// Test helpers: an allocation or a registration handed out by address, as the C shell hands it to its caller.
//
// Tests of the address-based API (FreeMemory, MapMemoryToGpu, QueryPointerInfo by address, double frees...) free
// by address themselves, or leave it to ~Kfd, which frees every allocation still held.
#ifndef HIPMEM_THUNK_KFD_TESTING_H_
#define HIPMEM_THUNK_KFD_TESTING_H_

#include <utility>

#include "absl/status/statusor.h"
#include "base/units.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {

inline absl::StatusOr<DeviceAddress> Unowned(absl::StatusOr<KfdAllocation> allocation) {
  if (!allocation.ok()) return allocation.status();
  return std::move(*allocation).Release();
}

// A registration handed out by GPU address, as the C shell hands it to hsaKmtRegisterMemory's caller: the test
// deregisters by pointer, or leaves it to ~Kfd.
inline absl::StatusOr<DeviceAddress> Unowned(absl::StatusOr<KfdRegistration> registration) {
  if (!registration.ok()) return registration.status();
  return std::move(*registration).Release();
}

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_TESTING_H_
