// ROCclr's HIP_VISIBLE_DEVICES list semantics: order, stop at the first invalid entry, repeats skipped.
#include "clr/visible_devices.h"

#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hipmem::clr {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

TEST(VisibleDevicesTest, NoListKeepsEveryAgentInOrder) {
  EXPECT_THAT(VisibleDeviceOrder(std::nullopt, 3), ElementsAre(0, 1, 2));
}

TEST(VisibleDevicesTest, ListsSelectAndOrder) {
  struct Row {
    std::string_view list;
    std::vector<size_t> order;
  };
  const Row rows[] = {
      {"1", {1}},
      {"2,0", {2, 0}},
      {"0,1,2", {0, 1, 2}},
      {"1,1,0", {1, 0}},     // a repeat is skipped
      {"1,5,0", {1}},        // out of range: stop there
      {"0,-1,1", {0}},       // negative: stop
      {"1,x,0", {1}},        // not a number: stop
      {"1, 0", {1}},         // a space is not a digit: stop
      {"1,,0", {1}},         // an empty entry stops too
      {"-1", {}},            // the usual way to hide every GPU
      {"", {}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.list);
    EXPECT_THAT(VisibleDeviceOrder(row.list, 3), ElementsAreArray(row.order));
  }
}

TEST(VisibleDevicesTest, HipVariableWinsOverCuda) {
  unsetenv("HIP_VISIBLE_DEVICES");
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(VisibleDevicesFromEnvironment(), std::nullopt);
  setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  EXPECT_EQ(VisibleDevicesFromEnvironment(), "1");
  setenv("HIP_VISIBLE_DEVICES", "", 1);
  EXPECT_EQ(VisibleDevicesFromEnvironment(), "1") << "an empty HIP list defers to CUDA's";
  setenv("HIP_VISIBLE_DEVICES", "0,1", 1);
  EXPECT_EQ(VisibleDevicesFromEnvironment(), "0,1");
  unsetenv("HIP_VISIBLE_DEVICES");
  unsetenv("CUDA_VISIBLE_DEVICES");
}

}  // namespace
}  // namespace hipmem::clr
