// Adapter: absl::Status <-> HSAKMT_STATUS (libhsakmt's C error codes).
//
// The thunk's C++ API returns Status; the hsaKmt* C shells return ToHsakmtStatus(status). Where
// libhsakmt answers a specific HSAKMT code that no canonical code singles out (ERROR for a failed
// free ioctl, INVALID_NODE_UNIT, KERNEL_ALREADY_OPENED ...), the C++ code builds the Status with
// a named constructor or WithHsakmtStatus(), which store the C code in a payload that
// ToHsakmtStatus reads first. The table is this adapter's; the conversions are
// base/status_adapter.h's.
#ifndef HIPMEM_THUNK_HSAKMT_STATUS_H_
#define HIPMEM_THUNK_HSAKMT_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hsakmt/hsakmttypes.h"

namespace hipmem::thunk {

inline constexpr absl::string_view kHsakmtPayloadUrl = "hipmem/HSAKMT_STATUS";

// Returns OK for HSAKMT_STATUS_SUCCESS, else a Status of the code's canonical code (kUnknown for a
// code hipmem does not know), message "<context>: HSAKMT_STATUS <n>", and the raw code in a payload.
absl::Status FromHsakmtStatus(HSAKMT_STATUS code, absl::string_view context);

// Returns the payload code if present, else the preferred code for the canonical code, else
// HSAKMT_STATUS_ERROR.
HSAKMT_STATUS ToHsakmtStatus(const absl::Status& status);

// Returns `status` (non-OK) tagged so that ToHsakmtStatus gives `code`; its canonical code, message
// and other payloads (such as the errno) are kept. Tagging with HSAKMT_STATUS_SUCCESS is ignored.
absl::Status WithHsakmtStatus(absl::Status status, HSAKMT_STATUS code);

// Named constructors for codes that share a canonical code with a more common one.
absl::Status InvalidNodeUnitError(absl::string_view message);   // kInvalidArgument
absl::Status InvalidHandleError(absl::string_view message);     // kNotFound
absl::Status KernelAlreadyOpenedError(absl::string_view message);  // kAlreadyExists
absl::Status MemoryNotRegisteredError(absl::string_view message);  // kNotFound
absl::Status WaitTimeoutError(absl::string_view message);           // kDeadlineExceeded

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_HSAKMT_STATUS_H_
