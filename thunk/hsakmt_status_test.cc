#include "thunk/hsakmt_status.h"

#include <cerrno>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "thunk/errno_status.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

TEST(HsakmtStatusTest, SuccessIsOkBothWays) {
  EXPECT_THAT(FromHsakmtStatus(HSAKMT_STATUS_SUCCESS, "x"), IsOk());
  EXPECT_EQ(ToHsakmtStatus(absl::OkStatus()), HSAKMT_STATUS_SUCCESS);
}

TEST(HsakmtStatusTest, EveryCodeRoundTripsWithItsCanonicalCode) {
  struct Row {
    HSAKMT_STATUS hsakmt;
    absl::StatusCode code;
  };
  constexpr Row kRows[] = {
      {HSAKMT_STATUS_ERROR, absl::StatusCode::kUnknown},
      {HSAKMT_STATUS_DRIVER_MISMATCH, absl::StatusCode::kFailedPrecondition},
      {HSAKMT_STATUS_INVALID_PARAMETER, absl::StatusCode::kInvalidArgument},
      {HSAKMT_STATUS_INVALID_HANDLE, absl::StatusCode::kNotFound},
      {HSAKMT_STATUS_INVALID_NODE_UNIT, absl::StatusCode::kInvalidArgument},
      {HSAKMT_STATUS_NO_MEMORY, absl::StatusCode::kResourceExhausted},
      {HSAKMT_STATUS_BUFFER_TOO_SMALL, absl::StatusCode::kOutOfRange},
      {HSAKMT_STATUS_NOT_IMPLEMENTED, absl::StatusCode::kUnimplemented},
      {HSAKMT_STATUS_NOT_SUPPORTED, absl::StatusCode::kUnimplemented},
      {HSAKMT_STATUS_UNAVAILABLE, absl::StatusCode::kUnavailable},
      {HSAKMT_STATUS_OUT_OF_RESOURCES, absl::StatusCode::kResourceExhausted},
      {HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED, absl::StatusCode::kFailedPrecondition},
      {HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR, absl::StatusCode::kUnavailable},
      {HSAKMT_STATUS_KERNEL_ALREADY_OPENED, absl::StatusCode::kAlreadyExists},
      {HSAKMT_STATUS_HSAMMU_UNAVAILABLE, absl::StatusCode::kUnavailable},
      {HSAKMT_STATUS_WAIT_FAILURE, absl::StatusCode::kAborted},
      {HSAKMT_STATUS_WAIT_TIMEOUT, absl::StatusCode::kDeadlineExceeded},
      {HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED, absl::StatusCode::kAlreadyExists},
      {HSAKMT_STATUS_MEMORY_NOT_REGISTERED, absl::StatusCode::kNotFound},
      {HSAKMT_STATUS_MEMORY_ALIGNMENT, absl::StatusCode::kInvalidArgument},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(static_cast<int>(row.hsakmt));
    const absl::Status s = FromHsakmtStatus(row.hsakmt, "hsaKmtX");
    EXPECT_THAT(s, StatusIs(row.code));
    EXPECT_EQ(ToHsakmtStatus(s), row.hsakmt);
  }
}

TEST(HsakmtStatusTest, UnknownCodeSurvivesRoundTrip) {
  // HSAKMT_STATUS has no fixed underlying type (as upstream), so its valid values are 0..63; 42 is
  // inside that range and names no code.
  const auto unknown = static_cast<HSAKMT_STATUS>(42);
  const absl::Status s = FromHsakmtStatus(unknown, "x");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnknown));
  EXPECT_EQ(ToHsakmtStatus(s), unknown);
}

TEST(HsakmtStatusTest, CanonicalOnlyStatusesMapToPreferredCode) {
  struct Row {
    absl::Status status;
    HSAKMT_STATUS hsakmt;
  };
  const Row kRows[] = {
      {absl::InvalidArgumentError("a"), HSAKMT_STATUS_INVALID_PARAMETER},
      {absl::ResourceExhaustedError("a"), HSAKMT_STATUS_NO_MEMORY},
      {absl::NotFoundError("a"), HSAKMT_STATUS_INVALID_HANDLE},
      {absl::FailedPreconditionError("a"), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED},
      {absl::AlreadyExistsError("a"), HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED},
      {absl::UnimplementedError("a"), HSAKMT_STATUS_NOT_IMPLEMENTED},
      {absl::DeadlineExceededError("a"), HSAKMT_STATUS_WAIT_TIMEOUT},
      {absl::InternalError("a"), HSAKMT_STATUS_ERROR},
      {absl::PermissionDeniedError("a"), HSAKMT_STATUS_ERROR},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.status.ToString());
    EXPECT_EQ(ToHsakmtStatus(row.status), row.hsakmt);
  }
}

TEST(HsakmtStatusTest, FallbackForUnlistedCodeIsError) {
  EXPECT_EQ(ToHsakmtStatus(absl::DataLossError("x")), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ToHsakmtStatus(absl::CancelledError("x")), HSAKMT_STATUS_ERROR);
}

TEST(HsakmtStatusTest, NamedConstructorsCarryTheirCode) {
  EXPECT_EQ(ToHsakmtStatus(InvalidNodeUnitError("n")), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(ToHsakmtStatus(InvalidHandleError("n")), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(ToHsakmtStatus(KernelAlreadyOpenedError("n")), HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
  EXPECT_EQ(ToHsakmtStatus(MemoryNotRegisteredError("n")), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(ToHsakmtStatus(WaitTimeoutError("n")), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_THAT(WaitTimeoutError("n"), StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_THAT(InvalidNodeUnitError("n"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(HsakmtStatusTest, RetaggingKeepsErrnoAndCanonicalCode) {
  // libhsakmt reports a failed FREE_MEMORY_OF_GPU ioctl as HSAKMT_STATUS_ERROR whatever the errno.
  const absl::Status s = WithHsakmtStatus(FromErrno(EINVAL, "AMDKFD_IOC_FREE_MEMORY_OF_GPU"), HSAKMT_STATUS_ERROR);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(ToHsakmtStatus(s), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ToErrno(s), EINVAL);
}

}  // namespace
}  // namespace hipmem::thunk
