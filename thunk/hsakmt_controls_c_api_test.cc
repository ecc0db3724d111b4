// The device and queue controls through the hsaKmt* C API on the default simulated machine (MI300X, gfx942):
// what each call answers before hsaKmtOpenKFD, on success, and for bad input.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_test_nodes.h"

namespace {

constexpr HSAuint64 kRingBytes = 4096;
constexpr HSAuint32 kNoSuchNode = 99;

TEST(HsakmtControlsClosedTest, CallsBeforeOpenAreRefused) {
  HSAint32 mode = 5;
  EXPECT_EQ(hsaKmtGetXNACKMode(&mode), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(mode, 5);
  EXPECT_EQ(hsaKmtSetXNACKMode(1), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtRuntimeEnable(nullptr, false), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtRuntimeDisable(), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  HsaGpuTileConfig config{};
  EXPECT_EQ(hsaKmtGetTileConfig(1, &config), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtSetTrapHandler(1, nullptr, 0, nullptr, 0), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  HSAuint32 mask[1] = {1};
  EXPECT_EQ(hsaKmtSetQueueCUMask(1, 32, mask), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtAllocQueueGWS(1, 1, nullptr), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  // As upstream: the capabilities are a library value, readable any time (0 until a runtime enable).
  HSAuint32 caps = 7;
  EXPECT_EQ(hsaKmtGetRuntimeCapabilities(&caps), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(caps, 0u);
}

class HsakmtControlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    gpu_node_ = hipmem_testing::FirstGpuNode();
    ASSERT_NE(gpu_node_, 0u);
  }
  void TearDown() override {
    for (HSA_QUEUEID q : queues_) EXPECT_EQ(hsaKmtDestroyQueue(q), HSAKMT_STATUS_SUCCESS);
    for (void* p : buffers_) EXPECT_EQ(hsaKmtFreeMemory(p, 0), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  }

  // An SDMA queue over host-visible, GPU-mapped memory, destroyed in TearDown unless `keep` is false.
  HSA_QUEUEID NewQueue(bool keep = true) {
    HsaMemFlags flags{};
    flags.ui32.NonPaged = 1;
    flags.ui32.HostAccess = 1;
    void* ring = nullptr;
    EXPECT_EQ(hsaKmtAllocMemory(0, kRingBytes, flags, &ring), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(hsaKmtMapMemoryToGPU(ring, kRingBytes, nullptr), HSAKMT_STATUS_SUCCESS);
    buffers_.push_back(ring);
    HsaQueueResource resource{};
    EXPECT_EQ(hsaKmtCreateQueue(gpu_node_, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, kRingBytes,
                                nullptr, &resource),
              HSAKMT_STATUS_SUCCESS);
    if (keep) queues_.push_back(resource.QueueId);
    return resource.QueueId;
  }

  HSAuint32 gpu_node_ = 0;
  std::vector<void*> buffers_;
  std::vector<HSA_QUEUEID> queues_;
};

TEST_F(HsakmtControlsTest, XnackModeRoundTrips) {
  HSAint32 mode = -1;
  ASSERT_EQ(hsaKmtGetXNACKMode(&mode), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(mode, 0);
  ASSERT_EQ(hsaKmtSetXNACKMode(1), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtGetXNACKMode(&mode), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(mode, 1);
  EXPECT_EQ(hsaKmtSetXNACKMode(-1), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtGetXNACKMode(nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  ASSERT_EQ(hsaKmtSetXNACKMode(0), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtControlsTest, XnackCannotChangeWithQueues) {
  NewQueue();
  EXPECT_EQ(hsaKmtSetXNACKMode(1), HSAKMT_STATUS_ERROR);
}

// The simulated GPUs publish no debugger firmware, so the runtime-enable handshake answers NOT_SUPPORTED as
// libhsakmt does on such a machine (ROCr carries on without it); the capabilities stay 0.
TEST_F(HsakmtControlsTest, RuntimeEnableIsNotSupportedWithoutDebuggerFirmware) {
  static int r_debug;
  EXPECT_EQ(hsaKmtRuntimeEnable(&r_debug, false), HSAKMT_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(hsaKmtRuntimeDisable(), HSAKMT_STATUS_NOT_SUPPORTED);
  HSAuint32 caps = 7;
  ASSERT_EQ(hsaKmtGetRuntimeCapabilities(&caps), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(caps, 0u);
  EXPECT_EQ(hsaKmtGetRuntimeCapabilities(nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(HsakmtControlsTest, TileConfigForTheGpuNode) {
  HSAuint32 tiles[32];
  HSAuint32 macro[16];
  HsaGpuTileConfig config{};
  config.TileConfig = tiles;
  config.MacroTileConfig = macro;
  config.NumTileConfigs = 32;
  config.NumMacroTileConfigs = 16;
  ASSERT_EQ(hsaKmtGetTileConfig(gpu_node_, &config), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(config.GbAddrConfig, 0x2a114042u);
  EXPECT_EQ(config.NumTileConfigs, 32u);
  EXPECT_EQ(config.NumMacroTileConfigs, 16u);
  EXPECT_EQ(config.NumBanks, 0u);
}

TEST_F(HsakmtControlsTest, TileConfigBadInput) {
  EXPECT_EQ(hsaKmtGetTileConfig(gpu_node_, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  HsaGpuTileConfig config{};
  config.NumTileConfigs = 4;  // no array
  EXPECT_EQ(hsaKmtGetTileConfig(gpu_node_, &config), HSAKMT_STATUS_INVALID_PARAMETER);
  config = {};
  EXPECT_EQ(hsaKmtGetTileConfig(kNoSuchNode, &config), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(hsaKmtGetTileConfig(0, &config), HSAKMT_STATUS_ERROR) << "the CPU node has no tiling";
}

TEST_F(HsakmtControlsTest, MemoryPolicyIsNotImplementedOnDgpus) {
  EXPECT_EQ(hsaKmtSetMemoryPolicy(gpu_node_, HSA_CACHING_CACHED, HSA_CACHING_NONCACHED, nullptr, 0),
            HSAKMT_STATUS_NOT_IMPLEMENTED);
  EXPECT_EQ(hsaKmtSetMemoryPolicy(kNoSuchNode, HSA_CACHING_CACHED, HSA_CACHING_NONCACHED, nullptr, 0),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
}

TEST_F(HsakmtControlsTest, TrapHandler) {
  static char handler[256];
  static char buffer[256];
  EXPECT_EQ(hsaKmtSetTrapHandler(gpu_node_, handler, sizeof(handler), buffer, sizeof(buffer)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtSetTrapHandler(kNoSuchNode, handler, sizeof(handler), buffer, sizeof(buffer)),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(hsaKmtSetTrapHandler(0, handler, sizeof(handler), buffer, sizeof(buffer)), HSAKMT_STATUS_ERROR);
}

TEST_F(HsakmtControlsTest, CuMaskOnLiveQueuesOnly) {
  const HSA_QUEUEID queue = NewQueue();
  HSAuint32 mask[2] = {0xffffffff, 0xffffffff};
  EXPECT_EQ(hsaKmtSetQueueCUMask(queue, 64, mask), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtSetQueueCUMask(queue, 0, mask), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSetQueueCUMask(queue, 33, mask), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSetQueueCUMask(queue, 32, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSetQueueCUMask(0x1234, 32, mask), HSAKMT_STATUS_INVALID_PARAMETER) << "not a queue";
  const HSA_QUEUEID gone = NewQueue(/*keep=*/false);
  ASSERT_EQ(hsaKmtDestroyQueue(gone), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtSetQueueCUMask(gone, 32, mask), HSAKMT_STATUS_INVALID_PARAMETER) << "destroyed";
}

TEST_F(HsakmtControlsTest, GwsForOneQueue) {
  const HSA_QUEUEID first = NewQueue();
  const HSA_QUEUEID second = NewQueue();
  HSAuint32 first_gws = 9;
  ASSERT_EQ(hsaKmtAllocQueueGWS(first, 1, &first_gws), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(first_gws, 0u);
  EXPECT_EQ(hsaKmtAllocQueueGWS(second, 1, nullptr), HSAKMT_STATUS_OUT_OF_RESOURCES);
  EXPECT_EQ(hsaKmtAllocQueueGWS(first, 0, nullptr), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtAllocQueueGWS(first, 0, nullptr), HSAKMT_STATUS_INVALID_PARAMETER) << "nothing to release";
  EXPECT_EQ(hsaKmtAllocQueueGWS(0x1234, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER) << "not a queue";
}

TEST_F(HsakmtControlsTest, WaitWithEventAgeSeesAMissedSet) {
  HsaEventDescriptor desc{};
  desc.EventType = HSA_EVENTTYPE_SIGNAL;
  desc.NodeId = gpu_node_;
  HsaEvent* event = nullptr;
  ASSERT_EQ(hsaKmtCreateEvent(&desc, /*ManualReset=*/true, /*IsSignaled=*/false, &event), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtSetEvent(event), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtResetEvent(event), HSAKMT_STATUS_SUCCESS);
  uint64_t age = 1;  // a fresh event's age
  EXPECT_EQ(hsaKmtWaitOnEvent_Ext(event, 0, &age), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(age, 2u);
  EXPECT_EQ(hsaKmtWaitOnEvent_Ext(event, 0, &age), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(age, 2u);
  EXPECT_EQ(hsaKmtWaitOnEvent(event, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
  HsaEvent* events[1] = {event};
  uint64_t ages[1] = {0};  // 0: no age, an ordinary wait
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents_Ext(events, 1, true, 0, ages), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(hsaKmtWaitOnEvent_Ext(nullptr, 0, &age), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
}

}  // namespace
