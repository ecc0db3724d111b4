#include "hsa/visible_devices.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hipmem::hsa {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

// Four GPUs; the third has no UUID.
const std::vector<uint64_t> kIds = {0x1111222233334444ull, 0x11112222aaaabbbbull, 0, 0x9876543210fedcbaull};

struct Case {
  std::optional<std::string> env;
  std::vector<size_t> surfaced;
};

TEST(VisibleGpuOrder, FollowsRocrsRules) {
  const std::vector<Case> cases = {
      {std::nullopt, {0, 1, 2, 3}},         // unset: every GPU, node order
      {"", {}},                             // set and empty: none
      {"2,0", {2, 0}},                      // token order
      {" 3 , 1", {3, 1}},                   // blanks around tokens
      {"0x3,01", {3, 1}},                   // strtol base 0
      {"1,7,0", {1}},                       // out of range ends the list
      {"1,x,0", {1}},                       // malformed ends the list
      {"1,1,0", {1}},                       // a repeat ends the list
      {"-1,0", {}},                         // negative
      {"+1,-0", {1, 0}},                    // strtol takes a sign
      {"0x,1", {}},                         // a prefix without digits
      {"08", {}},                           // not octal
      {"010,0", {}},                        // octal 8: out of range
      {"0,1,2,3,0", {0, 1, 2, 3}},          // no more tokens than GPUs are read
      {"GPU-98765", {3}},                   // a UUID prefix
      {"gpu-11112222AAAA,0", {1, 0}},       // case-insensitive
      {"GPU-1111,0", {}},                   // ambiguous prefix
      {"GPU-", {}},                         // shorter than 5 characters
      {"GPU-1111222233334444X", {}},        // longer than 20 characters
      {"GPU-XX,1", {}},                     // the UUID-less GPU cannot be named by UUID
      {"GPU-9876543210FEDCBA,GPU-1111222233334444", {3, 0}},
  };
  for (const Case& c : cases) {
    const std::optional<std::string_view> env =
        c.env.has_value() ? std::optional<std::string_view>(*c.env) : std::nullopt;
    EXPECT_THAT(VisibleGpuOrder(env, kIds), ElementsAreArray(c.surfaced)) << (c.env ? *c.env : "(unset)");
  }
}

TEST(VisibleGpuOrder, NoGpus) {
  EXPECT_THAT(VisibleGpuOrder(std::nullopt, {}), IsEmpty());
  EXPECT_THAT(VisibleGpuOrder("0", {}), IsEmpty());
  EXPECT_THAT(VisibleGpuOrder("0", std::vector<uint64_t>{5}), ElementsAre(0u));
}

}  // namespace
}  // namespace hipmem::hsa
