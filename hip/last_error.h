// The calling thread's last hip* error, shared by every C entry point (hip_c_api.cc, the stubs in
// hip_unsupported.cc, hip_host_only.cc). Current CLR (HIP_UPDATE_ERROR_STATE, rocm-systems hip_internal.hpp)
// keeps two slots: the last command's result, and a sticky last error that only a failure writes, and not
// hipErrorNotReady (a query's "still running" is an answer, not an error). hipGetLastError returns the sticky
// one and resets it; hipPeekAtLastError only returns it. Deliberate: the Oct-2024 CLR stored every result,
// success included, so a successful call cleared the error; we follow current CLR.
#ifndef HIPMEM_HIP_LAST_ERROR_H_
#define HIPMEM_HIP_LAST_ERROR_H_

#include "hip/hip_runtime_api.h"

namespace hipmem::hip {

// The calling thread's slot; starts at hipSuccess.
hipError_t& ThreadLastError();

// Records a call's result (a failure becomes the thread's last error) and returns it, for
// `return RecordLastError(...)`.
inline hipError_t RecordLastError(hipError_t error) {
  if (error != hipSuccess && error != hipErrorNotReady) ThreadLastError() = error;
  return error;
}

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_LAST_ERROR_H_
