#include "thunk/errno_status.h"

#include <cerrno>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_adapter.h"

namespace hipmem::thunk {
namespace {

struct Row {
  int c_code;
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

std::string NameInMessage(int errnum, const Row* row) {
  return row != nullptr ? std::string(row->name) : absl::StrCat("errno ", errnum);
}

constexpr StatusAdapter<Row> kAdapter{
    .payload_url = kErrnoPayloadUrl,
    .success = 0,
    // Errno for canonical codes no row names.
    .fallback = EIO,
    .rows = kRows,
    .name = &NameInMessage,
};
static_assert(kAdapter.Consistent());

}  // namespace

absl::Status FromErrno(int errnum, absl::string_view context) {
  // Kernel and libdrm calls return -errno; take either sign.
  return kAdapter.From(errnum < 0 ? -errnum : errnum, context);
}

std::optional<int> ErrnoOf(const absl::Status& status) { return kAdapter.PayloadCode(status); }

int ToErrno(const absl::Status& status) { return kAdapter.To(status); }

}  // namespace hipmem::thunk
