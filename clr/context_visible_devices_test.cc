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

// The two GPUs as ROCr enumerates them with neither HIP_VISIBLE_DEVICES nor CUDA_VISIBLE_DEVICES set: their agents
// and HSA UUIDs ("GPU-" and 16 characters). Leaves both variables unset.
struct UnfilteredGpus {
  hsa::AgentId first;
  hsa::AgentId second;
  std::string first_uuid;
  std::string second_uuid;
};

absl::StatusOr<UnfilteredGpus> EnumerateWithoutTheFilter() {
  unsetenv("HIP_VISIBLE_DEVICES");
  unsetenv("CUDA_VISIBLE_DEVICES");
  absl::StatusOr<std::unique_ptr<Context>> all = Context::Create();
  if (!all.ok()) return all.status();
  if ((*all)->devices().size() != 2) return absl::FailedPreconditionError("the preset must have two GPUs");
  auto uuid = [&](int i) {
    const auto& bytes = (*all)->devices()[i].info.uuid;
    return "GPU-" + std::string(bytes.begin(), bytes.end());
  };
  return UnfilteredGpus{(*all)->devices()[0].agent, (*all)->devices()[1].agent, uuid(0), uuid(1)};
}

TEST(ContextVisibleDevicesTest, DevicesFollowTheList) {
  // Agents as ROCr enumerates them, without the filter.
  std::string hip = Env("HIP_VISIBLE_DEVICES");
  std::string cuda = Env("CUDA_VISIBLE_DEVICES");
  absl::StatusOr<UnfilteredGpus> all = EnumerateWithoutTheFilter();
  ASSERT_TRUE(all.ok()) << all.status();
  const hsa::AgentId first = all->first;
  const hsa::AgentId second = all->second;
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
  absl::StatusOr<UnfilteredGpus> all = EnumerateWithoutTheFilter();
  ASSERT_TRUE(all.ok()) << all.status();
  const hsa::AgentId first = all->first;
  const hsa::AgentId second = all->second;
  const std::string& uuid = all->second_uuid;
  const std::string& first_uuid = all->first_uuid;
  size_t common = 0;
  while (common < uuid.size() && uuid[common] == first_uuid[common]) ++common;
  ASSERT_GE(common, 4u);

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
