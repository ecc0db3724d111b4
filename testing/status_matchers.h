// gMock matchers for absl::Status / absl::StatusOr (Abseil 20220623 ships none).
//   EXPECT_THAT(s, IsOk());
//   EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound, HasSubstr("handle")));
//   EXPECT_THAT(v, IsOkAndHolds(42));
//   ASSERT_OK_AND_ASSIGN(auto x, MakeX());
#ifndef HIPMEM_TESTING_STATUS_MATCHERS_H_
#define HIPMEM_TESTING_STATUS_MATCHERS_H_

#include <ostream>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hipmem_testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) { return s.status(); }

MATCHER(IsOk, "is OK") {
  const absl::Status& s = GetStatus(arg);
  if (!s.ok()) *result_listener << "status is " << s;
  return s.ok();
}

MATCHER_P(StatusIs, code, "has status code " + ::testing::PrintToString(code)) {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status is " << s;
  return s.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher,
           "has status code " + ::testing::PrintToString(code) + " and a matching message") {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status is " << s;
  return s.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(s.message()), result_listener);
}

MATCHER_P(IsOkAndHolds, value_matcher, "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

}  // namespace hipmem_testing

#define HIPMEM_TESTING_CONCAT_INNER_(a, b) a##b
#define HIPMEM_TESTING_CONCAT_(a, b) HIPMEM_TESTING_CONCAT_INNER_(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  HIPMEM_ASSERT_OK_AND_ASSIGN_IMPL_(HIPMEM_TESTING_CONCAT_(statusor_, __LINE__), lhs, expr)
#define HIPMEM_ASSERT_OK_AND_ASSIGN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                      \
  ASSERT_TRUE(statusor.ok()) << statusor.status();             \
  lhs = *std::move(statusor)

#endif  // HIPMEM_TESTING_STATUS_MATCHERS_H_
