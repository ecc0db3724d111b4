#include "base/status_macros.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem {
namespace {

using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;

absl::StatusOr<int> Counted(int* calls, absl::StatusOr<int> result) {
  ++*calls;
  return result;
}

absl::StatusOr<int> AddOne(int* calls, absl::StatusOr<int> in) {
  ASSIGN_OR_RETURN(int v, Counted(calls, in));
  return v + 1;
}

absl::Status Check(int* calls, absl::Status in) {
  RETURN_IF_ERROR(Counted(calls, in.ok() ? absl::StatusOr<int>(0) : absl::StatusOr<int>(in)));
  return absl::OkStatus();
}

TEST(StatusMacrosTest, AssignOrReturnEvaluatesOnceAndPropagates) {
  int calls = 0;
  EXPECT_THAT(AddOne(&calls, 41), IsOkAndHolds(42));
  EXPECT_EQ(calls, 1);
  EXPECT_THAT(AddOne(&calls, absl::NotFoundError("gone")), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(calls, 2);
}

TEST(StatusMacrosTest, ReturnIfErrorPropagates) {
  int calls = 0;
  EXPECT_TRUE(Check(&calls, absl::OkStatus()).ok());
  EXPECT_THAT(Check(&calls, absl::InternalError("x")), StatusIs(absl::StatusCode::kInternal));
  EXPECT_EQ(calls, 2);
}

TEST(AnnotateTest, KeepsCodeAndPayloads) {
  absl::Status s = absl::InvalidArgumentError("bad size");
  s.SetPayload("hipmem/errno", absl::Cord("22"));
  absl::Status a = Annotate(s, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU(size=0)");
  EXPECT_THAT(a, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ALLOC_MEMORY_OF_GPU(size=0): bad size")));
  EXPECT_EQ(a.GetPayload("hipmem/errno"), absl::Cord("22"));
  EXPECT_TRUE(Annotate(absl::OkStatus(), "x").ok());
}

TEST(RecodeTest, ChangesCodeAndKeepsMessageAndPayloads) {
  absl::Status s = absl::NotFoundError("ptr 0x1000 not allocated");
  s.SetPayload("hipmem/errno", absl::Cord("2"));
  s.SetPayload("hipmem/hsa_status_t", absl::Cord("40"));
  const absl::Status r = Recode(s, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(r.message(), s.message());
  EXPECT_EQ(r.GetPayload("hipmem/errno"), absl::Cord("2"));
  EXPECT_EQ(r.GetPayload("hipmem/hsa_status_t"), absl::Cord("40"));
}

TEST(RecodeTest, ComposesWithAnnotate) {
  absl::Status s = absl::OutOfRangeError("past the end");
  s.SetPayload("hipmem/errno", absl::Cord("34"));
  const absl::Status r = Recode(Annotate(s, "hipMemcpy(...)"), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(r.message(), "hipMemcpy(...): past the end");
  EXPECT_EQ(r.GetPayload("hipmem/errno"), absl::Cord("34"));
}

TEST(RecodeTest, OkStaysOkAndSameCodeIsUnchanged) {
  EXPECT_TRUE(Recode(absl::OkStatus(), absl::StatusCode::kInternal).ok());
  EXPECT_TRUE(Recode(absl::InternalError("x"), absl::StatusCode::kOk).ok());
  const absl::Status s = absl::InternalError("x");
  EXPECT_EQ(Recode(s, absl::StatusCode::kInternal), s);
}

}  // namespace
}  // namespace hipmem
