// Adapter: absl::Status <-> hsa_status_t (the HSA runtime's C error codes, core and AMD).
//
// Plays the boundary between hipmem's C++ HSA runtime and ROCr's C ABI: the hsa_* C shells return
// ToHsaStatus(status), and C++ code that receives a raw hsa_status_t (for instance from a user
// callback of hsa_iterate_agents) turns it into a Status with FromHsaStatus. FromHsaStatus stores
// the raw code in a payload that ToHsaStatus reads first, so a code survives the C++ layer
// unchanged; a Status born elsewhere maps by its canonical code. The table is this adapter's; the
// conversions are base/status_adapter.h's.
//
// Decisions:
//  - HSA_STATUS_INFO_BREAK (a callback stopping an iteration on purpose) is not an error for HSA
//    callers, but an OK Status cannot carry a payload, so it becomes kCancelled ("stopped by the
//    caller"); IsInfoBreak() recognises it. A canonical-only kCancelled also maps to INFO_BREAK.
//  - HSA_STATUS_ERROR_INVALID_ALLOCATION is kNotFound: ROCr answers it mostly for a pointer that is
//    not in its allocation map (hsa_amd_memory_pool_free, hsa_memory_free). Its other use, a size
//    above the pool's ALLOC_MAX_SIZE, is built with InvalidAllocationError() explicitly.
//  - HSA_STATUS_ERROR is kUnknown, and is also the fallback for every canonical code the table
//    does not name (kInternal, kPermissionDenied, kDataLoss, ...).
//  - HSA_STATUS_ERROR_NOT_SUPPORTED (hsa_ext_amd.h, 47) is kUnimplemented: the answer of every
//    entry point for a feature hipmem does not provide (hsa_unsupported.cc).
//  - kOutOfRange (an address range past the end of an allocation) answers
//    HSA_STATUS_ERROR_INVALID_ARGUMENT, as ROCr does for such copies and fills.
//  - The handle errors (INVALID_AGENT, _REGION, _SIGNAL, _MEMORY_POOL) share kInvalidArgument with
//    INVALID_ARGUMENT; C++ code that must answer one of them uses the named constructor.
#ifndef HIPMEM_HSA_HSA_STATUS_H_
#define HIPMEM_HSA_HSA_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hsa/hsa.h"

namespace hipmem::hsa {

// Type URL of the payload holding the raw hsa_status_t, as a decimal integer.
inline constexpr absl::string_view kHsaStatusPayloadUrl = "hipmem/hsa_status_t";

// Returns OK for HSA_STATUS_SUCCESS; otherwise a Status of the code's canonical code (kUnknown for
// a code hipmem does not know) whose message is "<context>: <HSA_STATUS_... name>" and whose
// payload holds the raw code.
absl::Status FromHsaStatus(hsa_status_t code, absl::string_view context);

// Returns HSA_STATUS_SUCCESS for OK; else the payload code if there is one; else the preferred
// code for the canonical code; else HSA_STATUS_ERROR.
hsa_status_t ToHsaStatus(const absl::Status& status);

// Returns `status` (non-OK) tagged so that ToHsaStatus gives `code`; the canonical code, message
// and other payloads are kept. Tagging with HSA_STATUS_SUCCESS is ignored.
absl::Status WithHsaStatus(absl::Status status, hsa_status_t code);

// Returns the enumerator spelling of `code` ("HSA_STATUS_ERROR_INVALID_AGENT"), or
// "HSA_STATUS_<unknown>" for a value hipmem does not know.
absl::string_view HsaStatusName(hsa_status_t code);

// Returns a kCancelled status that ToHsaStatus turns into HSA_STATUS_INFO_BREAK.
absl::Status InfoBreak(absl::string_view message);

// Returns true if ToHsaStatus(status) is HSA_STATUS_INFO_BREAK.
bool IsInfoBreak(const absl::Status& status);

// Named constructors for HSA codes that share their canonical code with a more general one.
absl::Status InvalidAgentError(absl::string_view message);       // kInvalidArgument
absl::Status InvalidRegionError(absl::string_view message);      // kInvalidArgument
absl::Status InvalidSignalError(absl::string_view message);      // kInvalidArgument
absl::Status InvalidMemoryPoolError(absl::string_view message);  // kInvalidArgument
absl::Status InvalidAllocationError(absl::string_view message);  // kNotFound
absl::Status NotInitializedError(absl::string_view message);     // kFailedPrecondition
absl::Status RefcountOverflowError(absl::string_view message);   // kResourceExhausted

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_HSA_STATUS_H_
