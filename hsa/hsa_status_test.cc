#include "hsa/hsa_status.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;
using Code = absl::StatusCode;

constexpr hsa_status_t Amd(int value) { return static_cast<hsa_status_t>(value); }

TEST(HsaStatusTest, SuccessIsOkBothWays) {
  EXPECT_THAT(FromHsaStatus(HSA_STATUS_SUCCESS, "hsa_init()"), IsOk());
  EXPECT_EQ(ToHsaStatus(absl::OkStatus()), HSA_STATUS_SUCCESS);
}

TEST(HsaStatusTest, EveryCodeRoundTripsWithItsCanonicalCode) {
  struct Row {
    hsa_status_t hsa;
    Code code;
  };
  constexpr Row kRows[] = {
      {HSA_STATUS_INFO_BREAK, Code::kCancelled},
      {HSA_STATUS_ERROR, Code::kUnknown},
      {HSA_STATUS_ERROR_INVALID_ARGUMENT, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_QUEUE_CREATION, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_ALLOCATION, Code::kNotFound},
      {HSA_STATUS_ERROR_INVALID_AGENT, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_REGION, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_SIGNAL, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_QUEUE, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_OUT_OF_RESOURCES, Code::kResourceExhausted},
      {HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_RESOURCE_FREE, Code::kUnknown},
      {HSA_STATUS_ERROR_NOT_INITIALIZED, Code::kFailedPrecondition},
      {HSA_STATUS_ERROR_REFCOUNT_OVERFLOW, Code::kResourceExhausted},
      {HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_INDEX, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_ISA, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_CODE_OBJECT, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_EXECUTABLE, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_FROZEN_EXECUTABLE, Code::kFailedPrecondition},
      {HSA_STATUS_ERROR_INVALID_SYMBOL_NAME, Code::kNotFound},
      {HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_VARIABLE_UNDEFINED, Code::kFailedPrecondition},
      {HSA_STATUS_ERROR_EXCEPTION, Code::kAborted},
      {HSA_STATUS_ERROR_INVALID_ISA_NAME, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_CODE_SYMBOL, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_FILE, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_CACHE, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_WAVEFRONT, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP, Code::kInvalidArgument},
      {HSA_STATUS_ERROR_INVALID_RUNTIME_STATE, Code::kFailedPrecondition},
      {HSA_STATUS_ERROR_FATAL, Code::kAborted},
      {Amd(HSA_STATUS_ERROR_INVALID_MEMORY_POOL), Code::kInvalidArgument},
      {Amd(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION), Code::kAborted},
      {Amd(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION), Code::kAborted},
      {Amd(HSA_STATUS_ERROR_MEMORY_FAULT), Code::kAborted},
      {Amd(HSA_STATUS_CU_MASK_REDUCED), Code::kResourceExhausted},
      {Amd(HSA_STATUS_ERROR_OUT_OF_REGISTERS), Code::kResourceExhausted},
      {Amd(HSA_STATUS_ERROR_RESOURCE_BUSY), Code::kUnavailable},
      {Amd(HSA_STATUS_ERROR_NOT_SUPPORTED), Code::kUnimplemented},
      {Amd(HSA_STATUS_ERROR_XNACK_DISABLED), Code::kFailedPrecondition},
      {Amd(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED), Code::kInvalidArgument},
      {Amd(HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED), Code::kInvalidArgument},
      {Amd(HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED), Code::kInvalidArgument},
      {Amd(HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED), Code::kInvalidArgument},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(HsaStatusName(row.hsa));
    const absl::Status s = FromHsaStatus(row.hsa, "hsa_x(agent=0x1)");
    EXPECT_THAT(s, StatusIs(row.code, HasSubstr("hsa_x(agent=0x1)")));
    EXPECT_THAT(s, StatusIs(row.code, HasSubstr(std::string(HsaStatusName(row.hsa)))));
    EXPECT_EQ(ToHsaStatus(s), row.hsa);
  }
}

TEST(HsaStatusTest, UnknownCodeSurvivesRoundTrip) {
  const auto unknown = static_cast<hsa_status_t>(0x1777);
  const absl::Status s = FromHsaStatus(unknown, "callback");
  EXPECT_THAT(s, StatusIs(Code::kUnknown, HasSubstr("6007")));
  EXPECT_EQ(ToHsaStatus(s), unknown);
  EXPECT_EQ(HsaStatusName(unknown), "HSA_STATUS_<unknown>");
}

TEST(HsaStatusTest, CodeSurvivesAnnotation) {
  const absl::Status s =
      Annotate(InvalidMemoryPoolError("pool 0x7"), "hsa_amd_memory_pool_allocate");
  EXPECT_THAT(s, StatusIs(Code::kInvalidArgument, HasSubstr("pool 0x7")));
  EXPECT_EQ(ToHsaStatus(s), Amd(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
}

TEST(HsaStatusTest, CanonicalOnlyStatusesMapToPreferredCode) {
  struct Row {
    Code code;
    hsa_status_t hsa;
  };
  constexpr Row kRows[] = {
      {Code::kInvalidArgument, HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {Code::kOutOfRange, HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {Code::kNotFound, HSA_STATUS_ERROR_INVALID_ALLOCATION},
      {Code::kResourceExhausted, HSA_STATUS_ERROR_OUT_OF_RESOURCES},
      {Code::kFailedPrecondition, HSA_STATUS_ERROR_NOT_INITIALIZED},
      {Code::kCancelled, HSA_STATUS_INFO_BREAK},
      {Code::kAborted, HSA_STATUS_ERROR_EXCEPTION},
      {Code::kUnavailable, Amd(HSA_STATUS_ERROR_RESOURCE_BUSY)},
      {Code::kUnimplemented, Amd(HSA_STATUS_ERROR_NOT_SUPPORTED)},
      {Code::kUnknown, HSA_STATUS_ERROR},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(absl::StatusCodeToString(row.code));
    EXPECT_EQ(ToHsaStatus(absl::Status(row.code, "lower layer")), row.hsa);
  }
}

TEST(HsaStatusTest, FallbackForUnlistedCanonicalCodesIsGenericError) {
  constexpr Code kUnlisted[] = {
      Code::kInternal,      Code::kPermissionDenied, Code::kDataLoss,
      Code::kAlreadyExists, Code::kDeadlineExceeded, Code::kUnauthenticated};
  for (Code code : kUnlisted) {
    SCOPED_TRACE(absl::StatusCodeToString(code));
    EXPECT_EQ(ToHsaStatus(absl::Status(code, "lower layer")), HSA_STATUS_ERROR);
  }
}

TEST(HsaStatusTest, NamedConstructorsRoundTrip) {
  struct Row {
    absl::Status status;
    Code code;
    hsa_status_t hsa;
  };
  const Row kRows[] = {
      {InvalidAgentError("handle 0x9"), Code::kInvalidArgument, HSA_STATUS_ERROR_INVALID_AGENT},
      {InvalidRegionError("handle 0x9"), Code::kInvalidArgument, HSA_STATUS_ERROR_INVALID_REGION},
      {InvalidSignalError("handle 0x9"), Code::kInvalidArgument, HSA_STATUS_ERROR_INVALID_SIGNAL},
      {InvalidMemoryPoolError("handle 0x9"), Code::kInvalidArgument,
       Amd(HSA_STATUS_ERROR_INVALID_MEMORY_POOL)},
      {InvalidAllocationError("handle 0x9"), Code::kNotFound, HSA_STATUS_ERROR_INVALID_ALLOCATION},
      {NotInitializedError("handle 0x9"), Code::kFailedPrecondition,
       HSA_STATUS_ERROR_NOT_INITIALIZED},
      {RefcountOverflowError("handle 0x9"), Code::kResourceExhausted,
       HSA_STATUS_ERROR_REFCOUNT_OVERFLOW},
      {InfoBreak("handle 0x9"), Code::kCancelled, HSA_STATUS_INFO_BREAK},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(HsaStatusName(row.hsa));
    EXPECT_THAT(row.status, StatusIs(row.code, HasSubstr("handle 0x9")));
    EXPECT_EQ(ToHsaStatus(row.status), row.hsa);
  }
}

TEST(HsaStatusTest, InfoBreakIsRecognisedAndErrorsAreNot) {
  EXPECT_TRUE(IsInfoBreak(InfoBreak("stop")));
  EXPECT_TRUE(IsInfoBreak(FromHsaStatus(HSA_STATUS_INFO_BREAK, "callback")));
  EXPECT_FALSE(IsInfoBreak(absl::OkStatus()));
  EXPECT_FALSE(IsInfoBreak(InvalidAgentError("agent 0x1")));
}

TEST(HsaStatusTest, RetaggingKeepsCanonicalCodeAndMessage) {
  const absl::Status s =
      WithHsaStatus(absl::ResourceExhaustedError("vram: 4096 bytes left"), HSA_STATUS_ERROR);
  EXPECT_THAT(s, StatusIs(Code::kResourceExhausted, HasSubstr("4096 bytes left")));
  EXPECT_EQ(ToHsaStatus(s), HSA_STATUS_ERROR);
}

TEST(HsaStatusTest, SuccessPayloadNeverTurnsAnErrorIntoSuccess) {
  absl::Status s = absl::InternalError("broken");
  s.SetPayload(kHsaStatusPayloadUrl, absl::Cord("0"));
  EXPECT_EQ(ToHsaStatus(s), HSA_STATUS_ERROR);
  EXPECT_EQ(ToHsaStatus(WithHsaStatus(absl::NotFoundError("x"), HSA_STATUS_SUCCESS)),
            HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

TEST(HsaStatusTest, NamesAreEnumeratorSpellings) {
  EXPECT_EQ(HsaStatusName(HSA_STATUS_SUCCESS), "HSA_STATUS_SUCCESS");
  EXPECT_EQ(HsaStatusName(HSA_STATUS_ERROR_OUT_OF_RESOURCES), "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
  EXPECT_EQ(HsaStatusName(Amd(HSA_STATUS_ERROR_INVALID_MEMORY_POOL)),
            "HSA_STATUS_ERROR_INVALID_MEMORY_POOL");
}

}  // namespace
}  // namespace hipmem::hsa
