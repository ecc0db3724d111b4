#include "thunk/hsakmt_status.h"

#include "base/status_payload.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hipmem::thunk {
namespace {

struct Row {
  HSAKMT_STATUS hsakmt;
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

// Canonical codes no row names (kCancelled, kDataLoss, ...) become the generic error.
constexpr HSAKMT_STATUS kFallback = HSAKMT_STATUS_ERROR;

std::optional<HSAKMT_STATUS> PayloadCode(const absl::Status& status) {
  const std::optional<int64_t> raw = CodePayload(status, kHsakmtPayloadUrl);
  // A failed Status must never read as success, whatever its payload says.
  if (!raw.has_value() || *raw == HSAKMT_STATUS_SUCCESS) return std::nullopt;
  return static_cast<HSAKMT_STATUS>(*raw);
}

absl::Status Tagged(absl::StatusCode code, absl::string_view message, HSAKMT_STATUS hsakmt) {
  return WithHsakmtStatus(absl::Status(code, message), hsakmt);
}

}  // namespace

absl::Status FromHsakmtStatus(HSAKMT_STATUS hsakmt, absl::string_view context) {
  if (hsakmt == HSAKMT_STATUS_SUCCESS) return absl::OkStatus();
  absl::StatusCode code = absl::StatusCode::kUnknown;
  for (const Row& row : kRows) {
    if (row.hsakmt == hsakmt) {
      code = row.code;
      break;
    }
  }
  return Tagged(code, absl::StrCat(context, ": HSAKMT_STATUS ", static_cast<int>(hsakmt)), hsakmt);
}

HSAKMT_STATUS ToHsakmtStatus(const absl::Status& status) {
  if (status.ok()) return HSAKMT_STATUS_SUCCESS;
  if (std::optional<HSAKMT_STATUS> code = PayloadCode(status)) return *code;
  for (const Row& row : kRows) {
    if (row.code == status.code()) return row.hsakmt;
  }
  return kFallback;
}

absl::Status WithHsakmtStatus(absl::Status status, HSAKMT_STATUS code) {
  return WithCodePayload(std::move(status), kHsakmtPayloadUrl, code);
}

absl::Status InvalidNodeUnitError(absl::string_view message) {
  return Tagged(absl::StatusCode::kInvalidArgument, message, HSAKMT_STATUS_INVALID_NODE_UNIT);
}
absl::Status InvalidHandleError(absl::string_view message) {
  return Tagged(absl::StatusCode::kNotFound, message, HSAKMT_STATUS_INVALID_HANDLE);
}
absl::Status KernelAlreadyOpenedError(absl::string_view message) {
  return Tagged(absl::StatusCode::kAlreadyExists, message, HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
}
absl::Status MemoryNotRegisteredError(absl::string_view message) {
  return Tagged(absl::StatusCode::kNotFound, message, HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}
absl::Status WaitTimeoutError(absl::string_view message) {
  return Tagged(absl::StatusCode::kDeadlineExceeded, message, HSAKMT_STATUS_WAIT_TIMEOUT);
}

}  // namespace hipmem::thunk
