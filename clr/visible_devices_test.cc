// ROCclr's HIP_VISIBLE_DEVICES list semantics (rocdevice.cpp, roc::Device::init): order, canonical indices, UUID
// entries, stop at the first invalid entry, repeats skipped.
#include "clr/visible_devices.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hipmem::clr {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

// Three agents as ROCr names them: two with unique ids sharing a prefix, one without ("GPU-XX").
const std::vector<std::string> kUuids = {"GPU-41b7e02c99d10000", "GPU-41b7e02c99d10001", "GPU-XX"};

TEST(VisibleDevicesTest, NoListKeepsEveryAgentInOrder) {
  EXPECT_THAT(VisibleDeviceOrder(std::nullopt, kUuids), ElementsAre(0, 1, 2));
  EXPECT_THAT(VisibleDeviceOrder("", kUuids), ElementsAre(0, 1, 2)) << "ROCclr filters only a non-empty list";
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
      {"1,0,", {1, 0}},      // a trailing comma adds no entry
      {",1", {}},            // a leading one is an empty first entry
      {"01", {}},            // not how 1 prints: ROCclr compares the entry with to_string(atoi(entry))
      {"2,+1", {2}},
      {"1,99999999999999999999", {1}},
      {"-1", {}},            // the usual way to hide every GPU
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.list);
    EXPECT_THAT(VisibleDeviceOrder(row.list, kUuids), ElementsAreArray(row.order));
  }
}

TEST(VisibleDevicesTest, UuidEntriesNameTheFirstAgentWhoseUuidContainsThem) {
  struct Row {
    std::string_view list;
    std::vector<size_t> order;
  };
  const Row rows[] = {
      {"GPU-41b7e02c99d10001", {1}},
      {"GPU-41b7e02c99d10001,0", {1, 0}},
      {"GPU-41b7e02c99d1000", {0}},    // a prefix both share: the first match wins
      {"GPU-XX,GPU-41b7e02c99d10001", {2, 1}},
      {"1,GPU-41b7e02c99d10001", {1}},  // the same device twice
      {"GPU-", {0}},                   // contained in every UUID
      {"GPU-0000,1", {}},              // no such agent: stop at once
      {"gpu-41b7e02c99d10001", {}},    // case matters
      {"0,GPU-41B7E02C99D10001", {0}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.list);
    EXPECT_THAT(VisibleDeviceOrder(row.list, kUuids), ElementsAreArray(row.order));
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
