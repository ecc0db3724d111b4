// The calling thread's last hip* result, shared by every C entry point (hip_c_api.cc, the stubs in
// hip_unsupported.cc, hip_host_only.cc). CLR's HIP_RETURN stores every result, success included;
// hipGetLastError returns and resets it, hipPeekAtLastError only returns it.
#ifndef HIPMEM_HIP_LAST_ERROR_H_
#define HIPMEM_HIP_LAST_ERROR_H_

#include "hip/hip_runtime_api.h"

namespace hipmem::hip {

// The calling thread's slot; starts at hipSuccess.
hipError_t& ThreadLastError();

// Stores `error` as the thread's last error and returns it, for `return RecordLastError(...)`.
inline hipError_t RecordLastError(hipError_t error) {
  ThreadLastError() = error;
  return error;
}

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_LAST_ERROR_H_
