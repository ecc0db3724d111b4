#include "clr/settings.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hipmem::clr {
namespace {

constexpr const char* kVariables[] = {"GPU_STAGING_BUFFER_SIZE", "GPU_PINNED_XFER_SIZE",  "GPU_PINNED_MIN_XFER_SIZE",
                                      "GPU_FORCE_BLIT_COPY_SIZE", "ROC_P2P_SDMA_SIZE",     "GPU_MAX_HEAP_SIZE",
                                      "GPU_SINGLE_ALLOC_PERCENT", "HIP_HIDDEN_FREE_MEM"};

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override { Clear(); }
  void TearDown() override { Clear(); }
  static void Clear() {
    for (const char* v : kVariables) unsetenv(v);
  }
};

TEST_F(SettingsTest, UnsetMeansCurrentClrDefaults) {
  const Settings s = Settings::FromEnvironment();
  EXPECT_EQ(s.staged_xfer_size, Bytes::MiB(1));  // not the flag's 4 MiB default
  EXPECT_EQ(s.pinned_xfer_size, Bytes::MiB(32));
  EXPECT_EQ(s.pinned_min_xfer_size, Bytes::KiB(64));  // not the flag's 128 MiB default
  EXPECT_EQ(s.sdma_copy_threshold, Bytes::KiB(16));
  EXPECT_EQ(s.sdma_p2p_threshold, Bytes::MiB(1));
  EXPECT_EQ(s.max_heap_percent, 100u);
  EXPECT_EQ(s.single_alloc_percent, 100u);
  EXPECT_EQ(s.hidden_free_mem, Bytes(0));
}

TEST_F(SettingsTest, EachVariableInItsUpstreamUnit) {
  struct Case {
    const char* name;
    const char* value;
    Bytes Settings::*field;
    Bytes expected;
  };
  const std::vector<Case> cases = {
      {"GPU_STAGING_BUFFER_SIZE", "4", &Settings::staged_xfer_size, Bytes::MiB(4)},
      {"GPU_PINNED_XFER_SIZE", "64", &Settings::pinned_xfer_size, Bytes::MiB(64)},
      {"GPU_PINNED_MIN_XFER_SIZE", "2", &Settings::pinned_min_xfer_size, Bytes::MiB(2)},
      {"GPU_FORCE_BLIT_COPY_SIZE", "0", &Settings::sdma_copy_threshold, Bytes(0)},
      {"GPU_FORCE_BLIT_COPY_SIZE", "256", &Settings::sdma_copy_threshold, Bytes::KiB(256)},
      {"ROC_P2P_SDMA_SIZE", "64", &Settings::sdma_p2p_threshold, Bytes::KiB(64)},
      {"HIP_HIDDEN_FREE_MEM", "100", &Settings::hidden_free_mem, Bytes::MiB(100)},
      // Malformed counts as unset.
      {"GPU_STAGING_BUFFER_SIZE", "lots", &Settings::staged_xfer_size, Bytes::MiB(1)},
      {"GPU_FORCE_BLIT_COPY_SIZE", "-1", &Settings::sdma_copy_threshold, Bytes::KiB(16)},
  };
  for (const Case& c : cases) {
    Clear();
    setenv(c.name, c.value, 1);
    EXPECT_EQ(Settings::FromEnvironment().*c.field, c.expected) << c.name << "=" << c.value;
  }
}

TEST_F(SettingsTest, APinnedChunkIsNeverBelowThePinningThreshold) {
  setenv("GPU_PINNED_MIN_XFER_SIZE", "48", 1);
  const Settings s = Settings::FromEnvironment();
  EXPECT_EQ(s.pinned_min_xfer_size, Bytes::MiB(48));
  EXPECT_EQ(s.pinned_xfer_size, Bytes::MiB(48));
}

TEST_F(SettingsTest, PercentagesStopAtAHundred) {
  setenv("GPU_MAX_HEAP_SIZE", "50", 1);
  setenv("GPU_SINGLE_ALLOC_PERCENT", "250", 1);
  const Settings s = Settings::FromEnvironment();
  EXPECT_EQ(s.max_heap_percent, 50u);
  EXPECT_EQ(s.single_alloc_percent, 100u);
}

}  // namespace
}  // namespace hipmem::clr
