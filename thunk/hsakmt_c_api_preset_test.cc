// The C API on a multi-GPU machine: BUILD sets HIPMEM_SIM_PRESET=2xmi250x, the two GCDs of one MI250X
// joined by four XGMI links in one hive.
#include <vector>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"

namespace {

class HsakmtPresetTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS); }
  void TearDown() override { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); }
};

TEST_F(HsakmtPresetTest, PresetFromTheEnvironmentIsTwoGfx90aGcdsInOneHive) {
  HsaSystemProperties sys{};
  ASSERT_EQ(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(sys.NumNodes, 3u);
  HsaNodeProperties gcd[2] = {};
  for (HSAuint32 i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(hsaKmtGetNodeProperties(i + 1, &gcd[i]), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(gcd[i].EngineId.ui32.Major, 9u);
    EXPECT_EQ(gcd[i].EngineId.ui32.Minor, 0u);
    EXPECT_EQ(gcd[i].EngineId.ui32.Stepping, 10u);
    EXPECT_EQ(gcd[i].NumFComputeCores, 440u) << "110 CUs x 4 SIMDs";
    const HSAuint64 local = gcd[i].LocalMemSize;
    EXPECT_EQ(local, (HSAuint64{64} << 30) - (HSAuint64{16} << 20)) << "the FRAME_BUFFER_PUBLIC bank: 64 GiB less 16 MiB";
  }
  const HSAuint64 hive0 = gcd[0].HiveID;
  const HSAuint64 hive1 = gcd[1].HiveID;
  EXPECT_NE(hive0, 0u);
  EXPECT_EQ(hive0, hive1);
}

TEST_F(HsakmtPresetTest, EachGcdLinksToTheCpuOverPcieAndToItsTwinOverXgmi) {
  for (HSAuint32 node = 1; node <= 2; ++node) {
    SCOPED_TRACE(node);
    HsaNodeProperties props{};
    ASSERT_EQ(hsaKmtGetNodeProperties(node, &props), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(props.NumIOLinks, 2u);
    std::vector<HsaIoLinkProperties> links(props.NumIOLinks);
    ASSERT_EQ(hsaKmtGetNodeIoLinkProperties(node, props.NumIOLinks, links.data()), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(links[0].IoLinkType, HSA_IOLINKTYPE_PCIEXPRESS);
    EXPECT_EQ(links[0].NodeTo, 0u);
    EXPECT_EQ(links[0].Weight, 20u);
    EXPECT_EQ(links[1].IoLinkType, HSA_IOLINK_TYPE_XGMI);
    EXPECT_EQ(links[1].NodeFrom, node);
    EXPECT_EQ(links[1].NodeTo, 3u - node);
    EXPECT_EQ(links[1].Weight, 15u) << "one XGMI hop";
    EXPECT_EQ(links[1].MinimumBandwidth, 50000u) << "one x16 link at 25 Gb/s per lane";
    EXPECT_EQ(links[1].MaximumBandwidth, 200000u) << "four links";
  }
  HsaNodeProperties cpu{};
  ASSERT_EQ(hsaKmtGetNodeProperties(0, &cpu), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(cpu.NumIOLinks, 2u) << "one per GCD";
}

TEST_F(HsakmtPresetTest, VramMapsByDefaultOnAMachineWithPeers) {
  HsaMemFlags flags{};
  flags.ui32.NonPaged = 1;
  flags.ui32.NoSubstitute = 1;
  void* p = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(1, 1 << 21, flags, &p), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtMapMemoryToGPU(p, 1 << 21, nullptr), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(p), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtFreeMemory(p, 1 << 21), HSAKMT_STATUS_SUCCESS);
}

}  // namespace
