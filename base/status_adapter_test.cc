#include "base/status_adapter.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "base/status_payload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;
using Code = absl::StatusCode;

// A C error type shaped like hsa_status_t: a success code, several errors sharing a canonical
// code, a reverse-only row and a generic error that is also the fallback.
enum FakeStatus : int {
  FAKE_SUCCESS = 0,
  FAKE_BAD_ARGUMENT = 1,
  FAKE_BAD_HANDLE = 2,
  FAKE_NO_MEMORY = 3,
  FAKE_BUSY = 4,
  FAKE_ERROR = 5,
};

struct Row {
  FakeStatus c_code;
  Code code;
  const char* name;
};

constexpr Row kRows[] = {
    {FAKE_SUCCESS, Code::kOk, "FAKE_SUCCESS"},
    {FAKE_BAD_ARGUMENT, Code::kInvalidArgument, "FAKE_BAD_ARGUMENT"},
    {FAKE_BAD_HANDLE, Code::kInvalidArgument, "FAKE_BAD_HANDLE"},
    {FAKE_NO_MEMORY, Code::kResourceExhausted, "FAKE_NO_MEMORY"},
    {FAKE_BUSY, Code::kUnavailable, "FAKE_BUSY"},
    {FAKE_ERROR, Code::kUnknown, "FAKE_ERROR"},
    {FAKE_ERROR, Code::kInternal, "FAKE_ERROR"},
    // Reverse-only: FAKE_BAD_ARGUMENT's first row says kInvalidArgument.
    {FAKE_BAD_ARGUMENT, Code::kOutOfRange, "FAKE_BAD_ARGUMENT"},
};

std::string NameInMessage(FakeStatus c_code, const Row* row) {
  return row != nullptr ? row->name : absl::StrCat("FakeStatus(", static_cast<int>(c_code), ")");
}

constexpr absl::string_view kUrl = "hipmem/FakeStatus";

constexpr StatusAdapter<Row> kAdapter{
    .payload_url = kUrl,
    .success = FAKE_SUCCESS,
    .fallback = FAKE_ERROR,
    .rows = kRows,
    .name = &NameInMessage,
};

// The table rules are checked at compile time.
static_assert(kAdapter.Consistent());
static_assert(kAdapter.CanonicalCode(FAKE_BAD_ARGUMENT) == Code::kInvalidArgument, "first row wins");
static_assert(kAdapter.CanonicalCode(static_cast<FakeStatus>(77)) == Code::kUnknown);
static_assert(kAdapter.Preferred(Code::kOutOfRange) == FAKE_BAD_ARGUMENT);
static_assert(kAdapter.Preferred(Code::kDataLoss) == FAKE_ERROR, "fallback");

constexpr Row kErrorMapsToOk[] = {{FAKE_SUCCESS, Code::kOk, ""}, {FAKE_ERROR, Code::kOk, ""}};
static_assert(!StatusAdapter<Row>{.payload_url = kUrl, .success = FAKE_SUCCESS, .fallback = FAKE_ERROR,
                                  .rows = kErrorMapsToOk, .name = &NameInMessage}
                   .Consistent(),
              "only the success code may map to kOk");
constexpr Row kSuccessIsAnError[] = {{FAKE_SUCCESS, Code::kUnknown, ""}, {FAKE_ERROR, Code::kUnknown, ""}};
static_assert(!StatusAdapter<Row>{.payload_url = kUrl, .success = FAKE_SUCCESS, .fallback = FAKE_ERROR,
                                  .rows = kSuccessIsAnError, .name = &NameInMessage}
                   .Consistent(),
              "the success code maps to kOk");
static_assert(!StatusAdapter<Row>{.payload_url = kUrl, .success = FAKE_SUCCESS, .fallback = FAKE_BUSY,
                                  .rows = kErrorMapsToOk, .name = &NameInMessage}
                   .Consistent(),
              "the fallback must be a row");

TEST(StatusAdapterTest, SuccessIsOkBothWays) {
  EXPECT_THAT(kAdapter.From(FAKE_SUCCESS, "fake_call()"), IsOk());
  EXPECT_EQ(kAdapter.To(absl::OkStatus()), FAKE_SUCCESS);
}

TEST(StatusAdapterTest, EveryRowRoundTripsWithItsFirstRowsCanonicalCode) {
  for (const Row& row : kRows) {
    if (row.c_code == FAKE_SUCCESS) continue;
    SCOPED_TRACE(row.name);
    const absl::Status s = kAdapter.From(row.c_code, "fake_call(handle=0x9)");
    EXPECT_THAT(s, StatusIs(kAdapter.Find(row.c_code)->code,
                            HasSubstr(absl::StrCat("fake_call(handle=0x9): ", row.name))));
    EXPECT_EQ(kAdapter.To(s), row.c_code);
    EXPECT_EQ(CodePayload(s, kUrl), static_cast<int64_t>(row.c_code));
  }
}

TEST(StatusAdapterTest, FirstRowOfACCodeGivesItsCanonicalCode) {
  EXPECT_THAT(kAdapter.From(FAKE_BAD_ARGUMENT, "x"), StatusIs(Code::kInvalidArgument));
  EXPECT_THAT(kAdapter.From(FAKE_ERROR, "x"), StatusIs(Code::kUnknown));
}

TEST(StatusAdapterTest, UnknownCodeSurvivesRoundTrip) {
  const auto unknown = static_cast<FakeStatus>(77);
  const absl::Status s = kAdapter.From(unknown, "callback");
  EXPECT_THAT(s, StatusIs(Code::kUnknown, HasSubstr("callback: FakeStatus(77)")));
  EXPECT_EQ(kAdapter.To(s), unknown);
}

TEST(StatusAdapterTest, EmptyContextGivesTheNameAlone) {
  EXPECT_EQ(kAdapter.From(FAKE_BUSY, "").message(), "FAKE_BUSY");
}

TEST(StatusAdapterTest, CanonicalOnlyStatusesMapToPreferredCode) {
  struct Case {
    Code code;
    FakeStatus c_code;
  };
  constexpr Case kCases[] = {
      {Code::kInvalidArgument, FAKE_BAD_ARGUMENT},
      {Code::kOutOfRange, FAKE_BAD_ARGUMENT},
      {Code::kResourceExhausted, FAKE_NO_MEMORY},
      {Code::kUnavailable, FAKE_BUSY},
      {Code::kUnknown, FAKE_ERROR},
      {Code::kInternal, FAKE_ERROR},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(absl::StatusCodeToString(c.code));
    EXPECT_EQ(kAdapter.To(absl::Status(c.code, "lower layer")), c.c_code);
  }
}

TEST(StatusAdapterTest, FallbackForUnlistedCanonicalCodes) {
  constexpr Code kUnlisted[] = {Code::kNotFound, Code::kPermissionDenied, Code::kDataLoss,
                                Code::kCancelled, Code::kUnauthenticated};
  for (Code code : kUnlisted) {
    SCOPED_TRACE(absl::StatusCodeToString(code));
    EXPECT_EQ(kAdapter.To(absl::Status(code, "lower layer")), FAKE_ERROR);
  }
}

TEST(StatusAdapterTest, NamedConstructorCarriesItsCode) {
  const absl::Status s = kAdapter.Make(Code::kInvalidArgument, "handle 0x9", FAKE_BAD_HANDLE);
  EXPECT_THAT(s, StatusIs(Code::kInvalidArgument, HasSubstr("handle 0x9")));
  EXPECT_EQ(kAdapter.To(s), FAKE_BAD_HANDLE);
}

TEST(StatusAdapterTest, TagKeepsCodeMessageAndOtherPayloadsAndReplacesAnEarlierTag) {
  absl::Status lower = absl::ResourceExhaustedError("vram: 4096 bytes left");
  lower.SetPayload("hipmem/errno", absl::Cord("12"));
  const absl::Status s = kAdapter.Tag(kAdapter.Tag(lower, FAKE_BUSY), FAKE_ERROR);
  EXPECT_THAT(s, StatusIs(Code::kResourceExhausted, HasSubstr("4096 bytes left")));
  EXPECT_EQ(kAdapter.To(s), FAKE_ERROR);
  EXPECT_EQ(s.GetPayload("hipmem/errno"), absl::Cord("12"));
}

TEST(StatusAdapterTest, SuccessNeverTagsOrReadsFromAFailedStatus) {
  absl::Status forged = absl::InternalError("broken");
  forged.SetPayload(kUrl, absl::Cord("0"));
  EXPECT_EQ(kAdapter.To(forged), FAKE_ERROR);
  EXPECT_EQ(kAdapter.PayloadCode(forged), std::nullopt);
  const absl::Status tagged = kAdapter.Tag(absl::UnavailableError("x"), FAKE_SUCCESS);
  EXPECT_EQ(CodePayload(tagged, kUrl), std::nullopt);
  EXPECT_EQ(kAdapter.To(tagged), FAKE_BUSY);
  EXPECT_THAT(kAdapter.Tag(absl::OkStatus(), FAKE_BUSY), IsOk());
}

// errno-like adapters use a plain int and need no success row.
struct IntRow {
  int c_code;
  Code code;
};
constexpr IntRow kIntRows[] = {{22, Code::kInvalidArgument}, {5, Code::kUnknown}};
constexpr StatusAdapter<IntRow> kIntAdapter{
    .payload_url = "hipmem/int",
    .success = 0,
    .fallback = 5,
    .rows = kIntRows,
    .name = [](int c_code, const IntRow*) { return absl::StrCat("code ", c_code); },
};
static_assert(kIntAdapter.Consistent());

TEST(StatusAdapterTest, IntCodesRoundTripToo) {
  EXPECT_THAT(kIntAdapter.From(0, "x"), IsOk());
  EXPECT_THAT(kIntAdapter.From(22, "x"), StatusIs(Code::kInvalidArgument, HasSubstr("x: code 22")));
  EXPECT_EQ(kIntAdapter.To(kIntAdapter.From(4095, "x")), 4095);
  EXPECT_EQ(kIntAdapter.To(absl::NotFoundError("x")), 5);
}

}  // namespace
}  // namespace hipmem
