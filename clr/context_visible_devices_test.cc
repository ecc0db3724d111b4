// Context::Create on the two-GCD 2xmi250x machine under a visible-devices variable set by the BUILD target.
#include <cstdlib>
#include <memory>
#include <string>

#include "clr/context.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::StatusIs;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

TEST(ContextVisibleDevicesTest, DevicesFollowTheList) {
  // Agents as ROCr enumerates them, without the filter.
  std::string hip = Env("HIP_VISIBLE_DEVICES");
  std::string cuda = Env("CUDA_VISIBLE_DEVICES");
  unsetenv("HIP_VISIBLE_DEVICES");
  unsetenv("CUDA_VISIBLE_DEVICES");
  absl::StatusOr<std::unique_ptr<Context>> all = Context::Create();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ((*all)->devices().size(), 2u);
  const hsa::AgentId first = (*all)->devices()[0].agent;
  const hsa::AgentId second = (*all)->devices()[1].agent;
  all->reset();
  if (!hip.empty()) setenv("HIP_VISIBLE_DEVICES", hip.c_str(), 1);
  if (!cuda.empty()) setenv("CUDA_VISIBLE_DEVICES", cuda.c_str(), 1);

  absl::StatusOr<std::unique_ptr<Context>> ctx = Context::Create();
  if (hip == "-1") {
    EXPECT_THAT(ctx, StatusIs(absl::StatusCode::kNotFound)) << "every GPU hidden: hipErrorNoDevice above";
    return;
  }
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  // "1,0" and "1,7,0" (stops at 7) both start with the second agent.
  const bool both = hip == "1,0";
  ASSERT_EQ((*ctx)->devices().size(), both ? 2u : 1u);
  EXPECT_EQ((*ctx)->devices()[0].agent, second);
  EXPECT_EQ((*ctx)->devices()[0].ordinal, 0) << "ordinals are renumbered";
  if (both) {
    EXPECT_EQ((*ctx)->devices()[1].agent, first);
  }
}

}  // namespace
}  // namespace hipmem::clr
