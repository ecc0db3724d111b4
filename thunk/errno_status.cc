#include "thunk/errno_status.h"

#include "base/status_payload.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hipmem::thunk {
namespace {

struct Row {
  int errnum;
  absl::StatusCode code;
  const char* name;
};

// First row per canonical code is the errno ToErrno prefers for a status without a payload.
constexpr Row kRows[] = {
    {EINVAL, absl::StatusCode::kInvalidArgument, "EINVAL"},
    {EFAULT, absl::StatusCode::kInvalidArgument, "EFAULT"},
    {ENOMEM, absl::StatusCode::kResourceExhausted, "ENOMEM"},
    {ENOSPC, absl::StatusCode::kResourceExhausted, "ENOSPC"},
    {EMFILE, absl::StatusCode::kResourceExhausted, "EMFILE"},
    {ENOENT, absl::StatusCode::kNotFound, "ENOENT"},
    {ENODEV, absl::StatusCode::kNotFound, "ENODEV"},
    {ESRCH, absl::StatusCode::kNotFound, "ESRCH"},
    {EPERM, absl::StatusCode::kPermissionDenied, "EPERM"},
    {EACCES, absl::StatusCode::kPermissionDenied, "EACCES"},
    // The kernel answers EBADF when a KFD fd is used by a process other than the one that opened it.
    {EBADF, absl::StatusCode::kPermissionDenied, "EBADF"},
    {EADDRINUSE, absl::StatusCode::kAlreadyExists, "EADDRINUSE"},
    {EEXIST, absl::StatusCode::kAlreadyExists, "EEXIST"},
    {EBUSY, absl::StatusCode::kFailedPrecondition, "EBUSY"},
    {ENOTTY, absl::StatusCode::kUnimplemented, "ENOTTY"},
    {ENOSYS, absl::StatusCode::kUnimplemented, "ENOSYS"},
    {EOPNOTSUPP, absl::StatusCode::kUnimplemented, "EOPNOTSUPP"},
    {EAGAIN, absl::StatusCode::kUnavailable, "EAGAIN"},
    {ETIMEDOUT, absl::StatusCode::kDeadlineExceeded, "ETIMEDOUT"},
    {ETIME, absl::StatusCode::kDeadlineExceeded, "ETIME"},
    {EINTR, absl::StatusCode::kAborted, "EINTR"},
    {ERANGE, absl::StatusCode::kOutOfRange, "ERANGE"},
    {EOVERFLOW, absl::StatusCode::kOutOfRange, "EOVERFLOW"},
    {EIO, absl::StatusCode::kUnknown, "EIO"},
    {EIO, absl::StatusCode::kInternal, "EIO"},
    {EIO, absl::StatusCode::kDataLoss, "EIO"},
    {ECANCELED, absl::StatusCode::kCancelled, "ECANCELED"},
};

// Errno for canonical codes no row names.
constexpr int kFallbackErrno = EIO;

const Row* FindByErrno(int errnum) {
  for (const Row& row : kRows) {
    if (row.errnum == errnum) return &row;
  }
  return nullptr;
}

}  // namespace

absl::Status FromErrno(int errnum, absl::string_view context) {
  if (errnum < 0) errnum = -errnum;
  if (errnum == 0) return absl::OkStatus();
  const Row* row = FindByErrno(errnum);
  const absl::StatusCode code = row != nullptr ? row->code : absl::StatusCode::kUnknown;
  const std::string name = row != nullptr ? row->name : absl::StrCat("errno ", errnum);
  absl::Status status(code, absl::StrCat(context, ": ", name));
  return WithCodePayload(std::move(status), kErrnoPayloadUrl, errnum);
}

std::optional<int> ErrnoOf(const absl::Status& status) {
  const std::optional<int64_t> errnum = CodePayload(status, kErrnoPayloadUrl);
  if (!errnum.has_value()) return std::nullopt;
  return static_cast<int>(*errnum);
}

int ToErrno(const absl::Status& status) {
  if (status.ok()) return 0;
  if (std::optional<int> errnum = ErrnoOf(status)) return *errnum;
  for (const Row& row : kRows) {
    if (row.code == status.code()) return row.errnum;
  }
  return kFallbackErrno;
}

}  // namespace hipmem::thunk
