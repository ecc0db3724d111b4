// Adapter: absl::Status <-> hipError_t (the HIP runtime's C error codes).
//
// Plays the boundary between hipmem's C++ runtime and the HIP C ABI: the hip* C shells return
// ToHipError(status) (and record it as the thread's last error), and hipGetErrorName /
// hipGetErrorString answer from HipErrorName / HipErrorString. FromHipError stores the raw code in
// a payload that ToHipError reads first, so a code survives the C++ layer unchanged; a Status born
// in a lower layer maps by its canonical code. The table is this adapter's; the conversions are
// base/status_adapter.h's.
//
// Decisions:
//  - hipErrorUnknown is kUnknown and is the fallback for canonical codes the table does not name
//    (kInternal, kCancelled, kPermissionDenied, kUnauthenticated).
//  - kOutOfRange (a range past the end of an allocation) answers hipErrorInvalidValue, as CLR does
//    for copies and memsets that overrun their allocation.
//  - kNotFound answers hipErrorNotFound (hipMemGetAddressRange of an unknown pointer). Where CLR
//    answers an unknown pointer with hipErrorInvalidValue (hipFree) the caller says so.
//  - kAlreadyExists answers hipErrorHostMemoryAlreadyRegistered: the only "already" error a memory
//    call gives (hipHostRegister of a registered range).
//  - hipErrorNotReady (work still queued) is kUnavailable: retry later, not a failure.
//  - The HIP codes that share kInvalidArgument with hipErrorInvalidValue, or kFailedPrecondition
//    with hipErrorNotInitialized, have named constructors.
#ifndef HIPMEM_HIP_HIP_ERROR_H_
#define HIPMEM_HIP_HIP_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hip/hip_runtime_api.h"

namespace hipmem::hip {

// Type URL of the payload holding the raw hipError_t, as a decimal integer.
inline constexpr absl::string_view kHipErrorPayloadUrl = "hipmem/hipError_t";

// Returns OK for hipSuccess; otherwise a Status of the code's canonical code (kUnknown for a code
// hipmem does not know) whose message is "<context>: <hipError name>" and whose payload holds the
// raw code.
absl::Status FromHipError(hipError_t code, absl::string_view context);

// Returns hipSuccess for OK; else the payload code if there is one; else the preferred code for
// the canonical code; else hipErrorUnknown.
hipError_t ToHipError(const absl::Status& status);

// Returns `status` (non-OK) tagged so that ToHipError gives `code`; the canonical code, message and
// other payloads are kept. Tagging with hipSuccess is ignored.
absl::Status WithHipError(absl::Status status, hipError_t code);

// Returns the enumerator spelling of `code` ("hipErrorInvalidValue"; the first spelling where
// aliases share a value), or "hipErrorUnknown" for a value hipmem does not know. Static storage.
const char* HipErrorName(hipError_t code);

// Returns a short description of `code`, or "unknown error" for a value hipmem does not know.
// Static storage.
const char* HipErrorString(hipError_t code);

// Named constructors for HIP codes that share their canonical code with a more general one.
absl::Status InvalidDeviceError(absl::string_view message);                // kInvalidArgument
absl::Status InvalidDevicePointerError(absl::string_view message);         // kInvalidArgument
absl::Status InvalidMemcpyDirectionError(absl::string_view message);       // kInvalidArgument
absl::Status InvalidHandleError(absl::string_view message);                // kInvalidArgument
absl::Status NoDeviceError(absl::string_view message);                     // kFailedPrecondition
absl::Status ContextIsDestroyedError(absl::string_view message);           // kFailedPrecondition
absl::Status HostMemoryAlreadyRegisteredError(absl::string_view message);  // kAlreadyExists
absl::Status HostMemoryNotRegisteredError(absl::string_view message);      // kNotFound

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_HIP_ERROR_H_
