// Test helper: an allocation handed out by address, as hsa_amd_memory_pool_allocate hands it to its caller.
//
// Tests of the address-based surface (Runtime::Free, pointer queries, deallocation callbacks...) free by address
// themselves, or leave it to the runtime's shutdown, which frees every allocation still held.
#ifndef HIPMEM_HSA_RUNTIME_TESTING_H_
#define HIPMEM_HSA_RUNTIME_TESTING_H_

#include <utility>

#include "absl/status/statusor.h"
#include "base/units.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {

inline absl::StatusOr<DeviceAddress> Unowned(absl::StatusOr<PoolAllocation> allocation) {
  if (!allocation.ok()) return allocation.status();
  return std::move(*allocation).Release();
}

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_RUNTIME_TESTING_H_
