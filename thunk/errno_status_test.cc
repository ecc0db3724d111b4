#include "thunk/errno_status.h"

#include <cerrno>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;

TEST(ErrnoStatusTest, ZeroIsOkBothWays) {
  EXPECT_THAT(FromErrno(0, "x"), IsOk());
  EXPECT_EQ(ToErrno(absl::OkStatus()), 0);
}

TEST(ErrnoStatusTest, KernelErrnosMapToCanonicalCodesAndRoundTrip) {
  struct Row {
    int errnum;
    absl::StatusCode code;
  };
  constexpr Row kRows[] = {
      {EINVAL, absl::StatusCode::kInvalidArgument},  {EFAULT, absl::StatusCode::kInvalidArgument},
      {ENOMEM, absl::StatusCode::kResourceExhausted}, {ENOENT, absl::StatusCode::kNotFound},
      {ENODEV, absl::StatusCode::kNotFound},         {EPERM, absl::StatusCode::kPermissionDenied},
      {EACCES, absl::StatusCode::kPermissionDenied}, {EBADF, absl::StatusCode::kPermissionDenied},
      {EADDRINUSE, absl::StatusCode::kAlreadyExists}, {EBUSY, absl::StatusCode::kFailedPrecondition},
      {ENOTTY, absl::StatusCode::kUnimplemented},    {EAGAIN, absl::StatusCode::kUnavailable},
      {ETIME, absl::StatusCode::kDeadlineExceeded},  {EINTR, absl::StatusCode::kAborted},
      {EIO, absl::StatusCode::kUnknown},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.errnum);
    const absl::Status s = FromErrno(row.errnum, "AMDKFD_IOC_X");
    EXPECT_THAT(s, StatusIs(row.code, HasSubstr("AMDKFD_IOC_X: ")));
    EXPECT_EQ(ToErrno(s), row.errnum);
    EXPECT_EQ(FromErrno(-row.errnum, "neg").code(), row.code) << "negative kernel returns accepted";
  }
}

TEST(ErrnoStatusTest, UnknownErrnoSurvivesRoundTrip) {
  const absl::Status s = FromErrno(4095, "x");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnknown, HasSubstr("errno 4095")));
  EXPECT_EQ(ToErrno(s), 4095);
}

TEST(ErrnoStatusTest, CanonicalOnlyStatusesMapToPreferredErrno) {
  struct Row {
    absl::Status status;
    int errnum;
  };
  const Row kRows[] = {
      {absl::InvalidArgumentError("a"), EINVAL}, {absl::ResourceExhaustedError("a"), ENOMEM},
      {absl::NotFoundError("a"), ENOENT},        {absl::PermissionDeniedError("a"), EPERM},
      {absl::AlreadyExistsError("a"), EADDRINUSE}, {absl::FailedPreconditionError("a"), EBUSY},
      {absl::UnimplementedError("a"), ENOTTY},   {absl::InternalError("a"), EIO},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.status.ToString());
    EXPECT_EQ(ToErrno(row.status), row.errnum);
  }
}

TEST(ErrnoStatusTest, FallbackForUnlistedCodeIsEio) {
  EXPECT_EQ(ToErrno(absl::Status(absl::StatusCode::kUnauthenticated, "x")), EIO);
}

}  // namespace
}  // namespace hipmem::thunk
