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

}  // namespace
}  // namespace hipmem
