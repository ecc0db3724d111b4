#include "thunk/hsakmt_status.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_adapter.h"

namespace hipmem::thunk {
namespace {

using Code = absl::StatusCode;

struct Row {
  HSAKMT_STATUS c_code;
  absl::StatusCode code;
};

// First row per canonical code is the preferred reverse mapping.
constexpr Row kRows[] = {
    {HSAKMT_STATUS_INVALID_PARAMETER, absl::StatusCode::kInvalidArgument},
    {HSAKMT_STATUS_INVALID_NODE_UNIT, absl::StatusCode::kInvalidArgument},
    {HSAKMT_STATUS_MEMORY_ALIGNMENT, absl::StatusCode::kInvalidArgument},
    {HSAKMT_STATUS_NO_MEMORY, absl::StatusCode::kResourceExhausted},
    {HSAKMT_STATUS_OUT_OF_RESOURCES, absl::StatusCode::kResourceExhausted},
    {HSAKMT_STATUS_BUFFER_TOO_SMALL, absl::StatusCode::kOutOfRange},
    {HSAKMT_STATUS_INVALID_HANDLE, absl::StatusCode::kNotFound},
    {HSAKMT_STATUS_MEMORY_NOT_REGISTERED, absl::StatusCode::kNotFound},
    {HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED, absl::StatusCode::kFailedPrecondition},
    {HSAKMT_STATUS_DRIVER_MISMATCH, absl::StatusCode::kFailedPrecondition},
    {HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED, absl::StatusCode::kAlreadyExists},
    {HSAKMT_STATUS_KERNEL_ALREADY_OPENED, absl::StatusCode::kAlreadyExists},
    {HSAKMT_STATUS_NOT_IMPLEMENTED, absl::StatusCode::kUnimplemented},
    {HSAKMT_STATUS_NOT_SUPPORTED, absl::StatusCode::kUnimplemented},
    {HSAKMT_STATUS_UNAVAILABLE, absl::StatusCode::kUnavailable},
    {HSAKMT_STATUS_HSAMMU_UNAVAILABLE, absl::StatusCode::kUnavailable},
    {HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR, absl::StatusCode::kUnavailable},
    {HSAKMT_STATUS_WAIT_TIMEOUT, absl::StatusCode::kDeadlineExceeded},
    {HSAKMT_STATUS_WAIT_FAILURE, absl::StatusCode::kAborted},
    {HSAKMT_STATUS_ERROR, absl::StatusCode::kUnknown},
    {HSAKMT_STATUS_ERROR, absl::StatusCode::kInternal},
    {HSAKMT_STATUS_ERROR, absl::StatusCode::kPermissionDenied},
};

// libhsakmt has no names for its codes (hsaKmt callers print the number), so neither do we.
std::string NameInMessage(HSAKMT_STATUS hsakmt, const Row*) {
  return absl::StrCat("HSAKMT_STATUS ", static_cast<int>(hsakmt));
}

constexpr StatusAdapter<Row> kAdapter{
    .payload_url = kHsakmtPayloadUrl,
    .success = HSAKMT_STATUS_SUCCESS,
    // Canonical codes no row names (kCancelled, kDataLoss, ...) become the generic error.
    .fallback = HSAKMT_STATUS_ERROR,
    .rows = kRows,
    .name = &NameInMessage,
};
static_assert(kAdapter.Consistent());

}  // namespace

absl::Status FromHsakmtStatus(HSAKMT_STATUS hsakmt, absl::string_view context) {
  return kAdapter.From(hsakmt, context);
}

HSAKMT_STATUS ToHsakmtStatus(const absl::Status& status) { return kAdapter.To(status); }

absl::Status WithHsakmtStatus(absl::Status status, HSAKMT_STATUS code) {
  return kAdapter.Tag(std::move(status), code);
}

absl::Status InvalidNodeUnitError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, HSAKMT_STATUS_INVALID_NODE_UNIT);
}
absl::Status InvalidHandleError(absl::string_view message) {
  return kAdapter.Make(Code::kNotFound, message, HSAKMT_STATUS_INVALID_HANDLE);
}
absl::Status KernelAlreadyOpenedError(absl::string_view message) {
  return kAdapter.Make(Code::kAlreadyExists, message, HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
}
absl::Status MemoryNotRegisteredError(absl::string_view message) {
  return kAdapter.Make(Code::kNotFound, message, HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}
absl::Status WaitTimeoutError(absl::string_view message) {
  return kAdapter.Make(Code::kDeadlineExceeded, message, HSAKMT_STATUS_WAIT_TIMEOUT);
}

}  // namespace hipmem::thunk
