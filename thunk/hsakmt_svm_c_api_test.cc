// hsaKmtSVMSetAttr / hsaKmtSVMGetAttr through the C API only, as ROCr calls them: the GPU nodes advertise the SVM
// API, attributes round-trip with node ids, a prefetch to a GPU and back keeps the data, and the arguments
// libhsakmt checks itself are refused before the kernel sees them.
#include <sys/mman.h>

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"

namespace {

constexpr HSAuint64 kPage = 4096;

class HsakmtSvmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    mem_ = mmap(nullptr, 8 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mem_, MAP_FAILED);
  }
  void TearDown() override {
    munmap(mem_, 8 * kPage);
    EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  }
  void* mem_ = nullptr;
};

TEST_F(HsakmtSvmTest, GpuNodesAdvertiseTheSvmApi) {
  HsaSystemProperties system{};
  ASSERT_EQ(hsaKmtAcquireSystemProperties(&system), HSAKMT_STATUS_SUCCESS);
  for (HSAuint32 node = 0; node < system.NumNodes; ++node) {
    HsaNodeProperties props{};
    ASSERT_EQ(hsaKmtGetNodeProperties(node, &props), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(props.Capability.ui32.SVMAPISupported, props.NumFComputeCores != 0 ? 1u : 0u) << "node " << node;
  }
  EXPECT_EQ(hsaKmtReleaseSystemProperties(), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtSvmTest, AttributesRoundTripByNode) {
  HSA_SVM_ATTRIBUTE set[] = {
      {HSA_SVM_ATTR_PREFERRED_LOC, 1},
      {HSA_SVM_ATTR_ACCESS, 1},
      {HSA_SVM_ATTR_SET_FLAGS, HSA_SVM_FLAG_GPU_RO},
      {HSA_SVM_ATTR_GRANULARITY, 5},
  };
  ASSERT_EQ(hsaKmtSVMSetAttr(mem_, 8 * kPage, 4, set), HSAKMT_STATUS_SUCCESS);
  HSA_SVM_ATTRIBUTE get[] = {
      {HSA_SVM_ATTR_PREFERRED_LOC, 0},
      {HSA_SVM_ATTR_ACCESS, 1},
      {HSA_SVM_ATTR_SET_FLAGS, 0},
      {HSA_SVM_ATTR_GRANULARITY, 0},
  };
  ASSERT_EQ(hsaKmtSVMGetAttr(mem_, 8 * kPage, 4, get), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(get[0].value, 1u);
  EXPECT_EQ(get[1].type, static_cast<HSAuint32>(HSA_SVM_ATTR_ACCESS));
  EXPECT_EQ(get[1].value, 1u);
  EXPECT_EQ(get[2].value, static_cast<HSAuint32>(HSA_SVM_FLAG_HOST_ACCESS | HSA_SVM_FLAG_COHERENT | HSA_SVM_FLAG_GPU_RO));
  EXPECT_EQ(get[3].value, 5u);
}

TEST_F(HsakmtSvmTest, PrefetchToTheGpuAndBackKeepsTheData) {
  std::memset(mem_, 0x5e, 8 * kPage);
  HSA_SVM_ATTRIBUTE to_gpu[] = {{HSA_SVM_ATTR_PREFETCH_LOC, 1}};
  ASSERT_EQ(hsaKmtSVMSetAttr(mem_, 8 * kPage, 1, to_gpu), HSAKMT_STATUS_SUCCESS);
  HSA_SVM_ATTRIBUTE where[] = {{HSA_SVM_ATTR_PREFETCH_LOC, 0}};
  ASSERT_EQ(hsaKmtSVMGetAttr(mem_, 8 * kPage, 1, where), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(where[0].value, 1u);
  HSA_SVM_ATTRIBUTE to_cpu[] = {{HSA_SVM_ATTR_PREFETCH_LOC, 0}};
  ASSERT_EQ(hsaKmtSVMSetAttr(mem_, 8 * kPage, 1, to_cpu), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(mem_)[8 * kPage - 1], 0x5e);
}

TEST_F(HsakmtSvmTest, ArgumentsLibhsakmtChecksAreRefusedFirst) {
  HSA_SVM_ATTRIBUTE attr[] = {{HSA_SVM_ATTR_ACCESS, 1}};
  EXPECT_EQ(hsaKmtSVMSetAttr(mem_, 8 * kPage, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSVMGetAttr(mem_, 8 * kPage, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSVMSetAttr(nullptr, 8 * kPage, 1, attr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSVMSetAttr(static_cast<char*>(mem_) + 1, kPage, 1, attr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSVMSetAttr(mem_, kPage + 1, 1, attr), HSAKMT_STATUS_INVALID_PARAMETER);
  HSA_SVM_ATTRIBUTE cpu_access[] = {{HSA_SVM_ATTR_ACCESS, 0}};
  EXPECT_EQ(hsaKmtSVMSetAttr(mem_, kPage, 1, cpu_access), HSAKMT_STATUS_INVALID_NODE_UNIT);
  HSA_SVM_ATTRIBUTE no_node[] = {{HSA_SVM_ATTR_PREFETCH_LOC, 77}};
  EXPECT_EQ(hsaKmtSVMSetAttr(mem_, kPage, 1, no_node), HSAKMT_STATUS_INVALID_NODE_UNIT);
  // The kernel's refusal: the range is not all mapped.
  ASSERT_EQ(munmap(static_cast<char*>(mem_) + 7 * kPage, kPage), 0);
  EXPECT_EQ(hsaKmtSVMSetAttr(mem_, 8 * kPage, 1, attr), HSAKMT_STATUS_ERROR);
}

}  // namespace
