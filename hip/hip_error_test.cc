#include "hip/hip_error.h"

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hip/hip_runtime_api.h"
#include "testing/status_matchers.h"

namespace hipmem::hip {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StrEq;
using Code = absl::StatusCode;

TEST(HipErrorTest, SuccessIsOkBothWays) {
  EXPECT_THAT(FromHipError(hipSuccess, "hipMalloc(size=16)"), IsOk());
  EXPECT_EQ(ToHipError(absl::OkStatus()), hipSuccess);
}

TEST(HipErrorTest, EveryCodeRoundTripsWithItsCanonicalCode) {
  struct Row {
    hipError_t hip;
    Code code;
  };
  constexpr Row kRows[] = {
      {hipErrorInvalidValue, Code::kInvalidArgument},
      {hipErrorOutOfMemory, Code::kResourceExhausted},
      {hipErrorNotInitialized, Code::kFailedPrecondition},
      {hipErrorDeinitialized, Code::kFailedPrecondition},
      {hipErrorProfilerDisabled, Code::kFailedPrecondition},
      {hipErrorProfilerNotInitialized, Code::kFailedPrecondition},
      {hipErrorProfilerAlreadyStarted, Code::kFailedPrecondition},
      {hipErrorProfilerAlreadyStopped, Code::kFailedPrecondition},
      {hipErrorInvalidConfiguration, Code::kInvalidArgument},
      {hipErrorInvalidPitchValue, Code::kInvalidArgument},
      {hipErrorInvalidSymbol, Code::kInvalidArgument},
      {hipErrorInvalidDevicePointer, Code::kInvalidArgument},
      {hipErrorInvalidMemcpyDirection, Code::kInvalidArgument},
      {hipErrorInsufficientDriver, Code::kFailedPrecondition},
      {hipErrorMissingConfiguration, Code::kFailedPrecondition},
      {hipErrorPriorLaunchFailure, Code::kAborted},
      {hipErrorInvalidDeviceFunction, Code::kInvalidArgument},
      {hipErrorNoDevice, Code::kFailedPrecondition},
      {hipErrorInvalidDevice, Code::kInvalidArgument},
      {hipErrorInvalidImage, Code::kInvalidArgument},
      {hipErrorInvalidContext, Code::kInvalidArgument},
      {hipErrorContextAlreadyCurrent, Code::kFailedPrecondition},
      {hipErrorMapFailed, Code::kUnknown},
      {hipErrorUnmapFailed, Code::kUnknown},
      {hipErrorArrayIsMapped, Code::kFailedPrecondition},
      {hipErrorAlreadyMapped, Code::kAlreadyExists},
      {hipErrorNoBinaryForGpu, Code::kNotFound},
      {hipErrorAlreadyAcquired, Code::kAlreadyExists},
      {hipErrorNotMapped, Code::kFailedPrecondition},
      {hipErrorNotMappedAsArray, Code::kFailedPrecondition},
      {hipErrorNotMappedAsPointer, Code::kFailedPrecondition},
      {hipErrorECCNotCorrectable, Code::kDataLoss},
      {hipErrorUnsupportedLimit, Code::kUnimplemented},
      {hipErrorContextAlreadyInUse, Code::kFailedPrecondition},
      {hipErrorPeerAccessUnsupported, Code::kUnimplemented},
      {hipErrorInvalidKernelFile, Code::kInvalidArgument},
      {hipErrorInvalidGraphicsContext, Code::kInvalidArgument},
      {hipErrorInvalidSource, Code::kInvalidArgument},
      {hipErrorFileNotFound, Code::kNotFound},
      {hipErrorSharedObjectSymbolNotFound, Code::kNotFound},
      {hipErrorSharedObjectInitFailed, Code::kUnknown},
      {hipErrorOperatingSystem, Code::kUnknown},
      {hipErrorInvalidHandle, Code::kInvalidArgument},
      {hipErrorIllegalState, Code::kFailedPrecondition},
      {hipErrorNotFound, Code::kNotFound},
      {hipErrorNotReady, Code::kUnavailable},
      {hipErrorIllegalAddress, Code::kAborted},
      {hipErrorLaunchOutOfResources, Code::kResourceExhausted},
      {hipErrorLaunchTimeOut, Code::kDeadlineExceeded},
      {hipErrorPeerAccessAlreadyEnabled, Code::kAlreadyExists},
      {hipErrorPeerAccessNotEnabled, Code::kFailedPrecondition},
      {hipErrorSetOnActiveProcess, Code::kFailedPrecondition},
      {hipErrorContextIsDestroyed, Code::kFailedPrecondition},
      {hipErrorAssert, Code::kAborted},
      {hipErrorHostMemoryAlreadyRegistered, Code::kAlreadyExists},
      {hipErrorHostMemoryNotRegistered, Code::kNotFound},
      {hipErrorLaunchFailure, Code::kAborted},
      {hipErrorCooperativeLaunchTooLarge, Code::kInvalidArgument},
      {hipErrorNotSupported, Code::kUnimplemented},
      {hipErrorStreamCaptureUnsupported, Code::kFailedPrecondition},
      {hipErrorStreamCaptureInvalidated, Code::kFailedPrecondition},
      {hipErrorStreamCaptureMerge, Code::kFailedPrecondition},
      {hipErrorStreamCaptureUnmatched, Code::kFailedPrecondition},
      {hipErrorStreamCaptureUnjoined, Code::kFailedPrecondition},
      {hipErrorStreamCaptureIsolation, Code::kFailedPrecondition},
      {hipErrorStreamCaptureImplicit, Code::kFailedPrecondition},
      {hipErrorCapturedEvent, Code::kFailedPrecondition},
      {hipErrorStreamCaptureWrongThread, Code::kFailedPrecondition},
      {hipErrorGraphExecUpdateFailure, Code::kFailedPrecondition},
      {hipErrorInvalidChannelDescriptor, Code::kInvalidArgument},
      {hipErrorInvalidTexture, Code::kInvalidArgument},
      {hipErrorUnknown, Code::kUnknown},
      {hipErrorRuntimeMemory, Code::kUnknown},
      {hipErrorRuntimeOther, Code::kUnknown},
      {hipErrorTbd, Code::kUnknown},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(HipErrorName(row.hip));
    const absl::Status s = FromHipError(row.hip, "hipMemcpy(dst=0x10)");
    EXPECT_THAT(s, StatusIs(row.code, HasSubstr("hipMemcpy(dst=0x10)")));
    EXPECT_THAT(s, StatusIs(row.code, HasSubstr(HipErrorName(row.hip))));
    EXPECT_EQ(ToHipError(s), row.hip);
  }
}

TEST(HipErrorTest, UnknownCodeSurvivesRoundTrip) {
  const auto unknown = static_cast<hipError_t>(1234);
  const absl::Status s = FromHipError(unknown, "hipFoo");
  EXPECT_THAT(s, StatusIs(Code::kUnknown, HasSubstr("1234")));
  EXPECT_EQ(ToHipError(s), unknown);
}

TEST(HipErrorTest, CodeSurvivesAnnotation) {
  const absl::Status s = Annotate(InvalidMemcpyDirectionError("kind=7"), "hipMemcpy");
  EXPECT_THAT(s, StatusIs(Code::kInvalidArgument, HasSubstr("kind=7")));
  EXPECT_EQ(ToHipError(s), hipErrorInvalidMemcpyDirection);
}

TEST(HipErrorTest, CanonicalOnlyStatusesMapToPreferredCode) {
  struct Row {
    Code code;
    hipError_t hip;
  };
  constexpr Row kRows[] = {
      {Code::kInvalidArgument, hipErrorInvalidValue},
      {Code::kOutOfRange, hipErrorInvalidValue},
      {Code::kResourceExhausted, hipErrorOutOfMemory},
      {Code::kFailedPrecondition, hipErrorNotInitialized},
      {Code::kAlreadyExists, hipErrorHostMemoryAlreadyRegistered},
      {Code::kNotFound, hipErrorNotFound},
      {Code::kUnimplemented, hipErrorNotSupported},
      {Code::kUnavailable, hipErrorNotReady},
      {Code::kDeadlineExceeded, hipErrorLaunchTimeOut},
      {Code::kAborted, hipErrorLaunchFailure},
      {Code::kDataLoss, hipErrorECCNotCorrectable},
      {Code::kUnknown, hipErrorUnknown},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(absl::StatusCodeToString(row.code));
    EXPECT_EQ(ToHipError(absl::Status(row.code, "lower layer")), row.hip);
  }
}

TEST(HipErrorTest, FallbackForUnlistedCanonicalCodesIsUnknown) {
  constexpr Code kUnlisted[] = {Code::kInternal, Code::kCancelled, Code::kPermissionDenied,
                                Code::kUnauthenticated};
  for (Code code : kUnlisted) {
    SCOPED_TRACE(absl::StatusCodeToString(code));
    EXPECT_EQ(ToHipError(absl::Status(code, "lower layer")), hipErrorUnknown);
  }
}

TEST(HipErrorTest, NamedConstructorsRoundTrip) {
  struct Row {
    absl::Status status;
    Code code;
    hipError_t hip;
  };
  const Row kRows[] = {
      {InvalidDeviceError("device 9"), Code::kInvalidArgument, hipErrorInvalidDevice},
      {InvalidDevicePointerError("device 9"), Code::kInvalidArgument, hipErrorInvalidDevicePointer},
      {InvalidMemcpyDirectionError("device 9"), Code::kInvalidArgument,
       hipErrorInvalidMemcpyDirection},
      {InvalidHandleError("device 9"), Code::kInvalidArgument, hipErrorInvalidHandle},
      {NoDeviceError("device 9"), Code::kFailedPrecondition, hipErrorNoDevice},
      {ContextIsDestroyedError("device 9"), Code::kFailedPrecondition, hipErrorContextIsDestroyed},
      {HostMemoryAlreadyRegisteredError("device 9"), Code::kAlreadyExists,
       hipErrorHostMemoryAlreadyRegistered},
      {HostMemoryNotRegisteredError("device 9"), Code::kNotFound, hipErrorHostMemoryNotRegistered},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(HipErrorName(row.hip));
    EXPECT_THAT(row.status, StatusIs(row.code, HasSubstr("device 9")));
    EXPECT_EQ(ToHipError(row.status), row.hip);
  }
}

TEST(HipErrorTest, RetaggingKeepsCanonicalCodeAndMessage) {
  // CLR answers hipFree of an unknown pointer with hipErrorInvalidValue, not hipErrorNotFound.
  const absl::Status s =
      WithHipError(absl::NotFoundError("ptr 0x1000 not allocated"), hipErrorInvalidValue);
  EXPECT_THAT(s, StatusIs(Code::kNotFound, HasSubstr("0x1000")));
  EXPECT_EQ(ToHipError(s), hipErrorInvalidValue);
}

TEST(HipErrorTest, SuccessPayloadNeverTurnsAnErrorIntoSuccess) {
  absl::Status s = absl::InternalError("broken");
  s.SetPayload(kHipErrorPayloadUrl, absl::Cord("0"));
  EXPECT_EQ(ToHipError(s), hipErrorUnknown);
  EXPECT_EQ(ToHipError(WithHipError(absl::NotFoundError("x"), hipSuccess)), hipErrorNotFound);
}

TEST(HipErrorTest, NamesAreEnumeratorSpellings) {
  EXPECT_THAT(HipErrorName(hipSuccess), StrEq("hipSuccess"));
  EXPECT_THAT(HipErrorName(hipErrorInvalidValue), StrEq("hipErrorInvalidValue"));
  EXPECT_THAT(HipErrorName(hipErrorInvalidMemcpyDirection),
              StrEq("hipErrorInvalidMemcpyDirection"));
  EXPECT_THAT(HipErrorName(hipErrorHostMemoryNotRegistered),
              StrEq("hipErrorHostMemoryNotRegistered"));
  // Aliases share a value; the name is the current spelling.
  EXPECT_THAT(HipErrorName(hipErrorMemoryAllocation), StrEq("hipErrorOutOfMemory"));
  EXPECT_THAT(HipErrorName(hipErrorInvalidResourceHandle), StrEq("hipErrorInvalidHandle"));
  EXPECT_THAT(HipErrorName(static_cast<hipError_t>(1234)), StrEq("hipErrorUnknown"));
}

TEST(HipErrorTest, StringsDescribeTheCode) {
  EXPECT_THAT(HipErrorString(hipSuccess), StrEq("no error"));
  EXPECT_THAT(HipErrorString(hipErrorOutOfMemory), StrEq("out of memory"));
  EXPECT_THAT(HipErrorString(hipErrorInvalidValue), StrEq("invalid argument"));
  EXPECT_THAT(HipErrorString(static_cast<hipError_t>(1234)), StrEq("unknown error"));
}

}  // namespace
}  // namespace hipmem::hip
