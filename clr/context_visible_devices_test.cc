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

// ROCclr accepts "GPU-<uuid>" entries (rocdevice.cpp, roc::Device::init): the agent whose HSA UUID contains the
// entry: the second GPU named by its full UUID ahead of an index, then a prefix both UUIDs share, which names the
// first agent that matches.
TEST(ContextVisibleDevicesTest, UuidEntriesNameAgents) {
  const std::string hip = Env("HIP_VISIBLE_DEVICES");
  const std::string cuda = Env("CUDA_VISIBLE_DEVICES");
  unsetenv("HIP_VISIBLE_DEVICES");
  unsetenv("CUDA_VISIBLE_DEVICES");
  absl::StatusOr<std::unique_ptr<Context>> all = Context::Create();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ((*all)->devices().size(), 2u);
  const hsa::AgentId first = (*all)->devices()[0].agent;
  const hsa::AgentId second = (*all)->devices()[1].agent;
  const auto& bytes = (*all)->devices()[1].info.uuid;  // the 16 characters after "GPU-"
  const std::string uuid = "GPU-" + std::string(bytes.begin(), bytes.end());
  const auto& first_bytes = (*all)->devices()[0].info.uuid;
  const std::string first_uuid = "GPU-" + std::string(first_bytes.begin(), first_bytes.end());
  size_t common = 0;
  while (common < uuid.size() && uuid[common] == first_uuid[common]) ++common;
  ASSERT_GE(common, 4u);
  all->reset();

  setenv("HIP_VISIBLE_DEVICES", (uuid + ",0").c_str(), 1);
  absl::StatusOr<std::unique_ptr<Context>> ctx = Context::Create();
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  ASSERT_EQ((*ctx)->devices().size(), 2u);
  EXPECT_EQ((*ctx)->devices()[0].agent, second);
  EXPECT_EQ((*ctx)->devices()[1].agent, first);
  ctx->reset();

  setenv("HIP_VISIBLE_DEVICES", (uuid.substr(0, common) + ",1").c_str(), 1);
  ctx = Context::Create();
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  ASSERT_EQ((*ctx)->devices().size(), 2u);
  EXPECT_EQ((*ctx)->devices()[0].agent, first) << "a shared prefix names the first agent that has it";
  EXPECT_EQ((*ctx)->devices()[1].agent, second);
  ctx->reset();

  setenv("HIP_VISIBLE_DEVICES", "GPU-ffffffffffffffff,0", 1);
  ctx = Context::Create();
  EXPECT_THAT(ctx, StatusIs(absl::StatusCode::kNotFound)) << "an unknown UUID ends the list before 0";

  unsetenv("HIP_VISIBLE_DEVICES");
  if (!hip.empty()) setenv("HIP_VISIBLE_DEVICES", hip.c_str(), 1);
  if (!cuda.empty()) setenv("CUDA_VISIBLE_DEVICES", cuda.c_str(), 1);
}

}  // namespace
}  // namespace hipmem::clr
