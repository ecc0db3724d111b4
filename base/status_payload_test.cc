#include "base/status_payload.h"

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace hipmem {
namespace {

TEST(StatusPayloadTest, StoredCodeReadsBackUnderItsOwnUrlOnly) {
  const absl::Status s = WithCodePayload(absl::InvalidArgumentError("x"), "a", -22);
  EXPECT_EQ(CodePayload(s, "a"), -22);
  EXPECT_EQ(CodePayload(s, "b"), std::nullopt);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "x");
}

TEST(StatusPayloadTest, LaterCodeReplacesEarlierAndOkCarriesNothing) {
  const absl::Status s = WithCodePayload(WithCodePayload(absl::InternalError("x"), "a", 1), "a", 2);
  EXPECT_EQ(CodePayload(s, "a"), 2);
  EXPECT_EQ(CodePayload(WithCodePayload(absl::OkStatus(), "a", 3), "a"), std::nullopt);
}

}  // namespace
}  // namespace hipmem
