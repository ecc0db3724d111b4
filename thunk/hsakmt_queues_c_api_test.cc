// kfdtest-style queue checks through the hsaKmt* queue calls, on the default simulated machine: an SDMA
// queue created with hsaKmtCreateQueue copies memory when rung with a bare doorbell store, as kfdtest rings,
// and bad ids and arguments are refused.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_test_nodes.h"
#include "gpu_abi/sdma_packets.h"

namespace {

namespace sdma = ::hipmem::gpu_abi::sdma;

constexpr HSAuint64 kRingBytes = 4096;

class HsakmtQueuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    gpu_node_ = hipmem_testing::FirstGpuNode();
    ASSERT_NE(gpu_node_, 0u);
    ring_ = static_cast<char*>(HostBuffer(kRingBytes));
  }
  void TearDown() override {
    for (void* p : buffers_) EXPECT_EQ(hsaKmtFreeMemory(p, 0), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  }

  // Host-visible system memory mapped on the GPU, as kfdtest's HsaMemoryBuffer(isLocal=false).
  void* HostBuffer(HSAuint64 size) {
    HsaMemFlags flags{};
    flags.ui32.NonPaged = 1;
    flags.ui32.HostAccess = 1;
    void* p = nullptr;
    EXPECT_EQ(hsaKmtAllocMemory(0, size, flags, &p), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(hsaKmtMapMemoryToGPU(p, size, nullptr), HSAKMT_STATUS_SUCCESS);
    buffers_.push_back(p);
    return p;
  }

  HSAuint32 gpu_node_ = 0;
  char* ring_ = nullptr;
  std::vector<void*> buffers_;
};

TEST_F(HsakmtQueuesTest, SdmaQueueCopiesThroughTheRing) {
  HsaQueueResource queue{};
  ASSERT_EQ(hsaKmtCreateQueue(gpu_node_, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRingBytes, nullptr,
                              &queue),
            HSAKMT_STATUS_SUCCESS);
  ASSERT_NE(+queue.QueueId, 0u);
  ASSERT_NE(queue.Queue_DoorBell_aql, nullptr);
  ASSERT_NE(queue.Queue_read_ptr_aql, nullptr);
  ASSERT_NE(queue.Queue_write_ptr_aql, nullptr);

  auto* src = static_cast<char*>(HostBuffer(65536));
  auto* dst = static_cast<char*>(HostBuffer(65536));
  for (int i = 0; i < 65536; ++i) src[i] = static_cast<char>(i * 3);
  const sdma::CopyLinear copy = sdma::MakeCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), 65536);
  std::memcpy(ring_, &copy, sizeof(copy));
  // Rung like kfdtest's SDMAQueue on a 64-bit doorbell: the packet is ordered before the doorbell, which
  // is a bare store, no call into the simulator. The release store is the plain `mov` kfdtest's volatile
  // write compiles to, and keeps the compiler from sinking the packet's memcpy below it.
  std::atomic_ref<HSAuint64>(*queue.Queue_DoorBell_aql).store(sizeof(copy), std::memory_order_release);
  // Noticed by the simulator's doorbell poller within a poll period; 10 s only bounds a broken simulator.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::atomic_ref<HSAuint64>(*queue.Queue_read_ptr_aql).load() != sizeof(copy) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(std::atomic_ref<HSAuint64>(*queue.Queue_read_ptr_aql).load(), sizeof(copy));
  EXPECT_EQ(std::memcmp(dst, src, 65536), 0);

  EXPECT_EQ(hsaKmtUpdateQueue(queue.QueueId, 50, HSA_QUEUE_PRIORITY_HIGH, ring_, kRingBytes, nullptr),
            HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyQueue(queue.QueueId), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyQueue(queue.QueueId), HSAKMT_STATUS_INVALID_PARAMETER) << "destroyed already";
  EXPECT_EQ(hsaKmtUpdateQueue(queue.QueueId, 50, HSA_QUEUE_PRIORITY_HIGH, ring_, kRingBytes, nullptr),
            HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(HsakmtQueuesTest, CloseEndsTheQueuesOfTheProcess) {
  HsaQueueResource queue{};
  ASSERT_EQ(hsaKmtCreateQueue(gpu_node_, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRingBytes, nullptr,
                              &queue),
            HSAKMT_STATUS_SUCCESS);
  for (void* p : buffers_) ASSERT_EQ(hsaKmtFreeMemory(p, 0), HSAKMT_STATUS_SUCCESS);
  buffers_.clear();
  ASSERT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);  // the last reference: the process ends
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyQueue(queue.QueueId), HSAKMT_STATUS_INVALID_PARAMETER)
      << "a queue of the closed process is not one of the new process";
  ring_ = static_cast<char*>(HostBuffer(kRingBytes));
  HsaQueueResource fresh{};
  EXPECT_EQ(hsaKmtCreateQueue(gpu_node_, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRingBytes, nullptr,
                              &fresh),
            HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyQueue(fresh.QueueId), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtQueuesTest, BadArgumentsAreRefused) {
  HsaQueueResource queue{};
  EXPECT_EQ(hsaKmtCreateQueue(gpu_node_, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRingBytes, nullptr,
                              nullptr),
            HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtCreateQueue(gpu_node_, HSA_QUEUE_MULTIMEDIA_DECODE, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_,
                              kRingBytes, nullptr, &queue),
            HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtCreateQueue(gpu_node_, HSA_QUEUE_SDMA, 101, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRingBytes, nullptr,
                              &queue),
            HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtCreateQueue(gpu_node_, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, 3000, nullptr, &queue),
            HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtCreateQueue(0, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRingBytes, nullptr, &queue),
            HSAKMT_STATUS_INVALID_NODE_UNIT)
      << "the CPU node has no queues";
  EXPECT_EQ(hsaKmtCreateQueueExt(gpu_node_, HSA_QUEUE_SDMA_BY_ENG_ID, 100, HSA_QUEUE_PRIORITY_NORMAL, 999, ring_,
                                 kRingBytes, nullptr, &queue),
            HSAKMT_STATUS_ERROR)
      << "the kernel refuses an engine the GPU does not have";
  EXPECT_EQ(hsaKmtDestroyQueue(0x1234), HSAKMT_STATUS_INVALID_PARAMETER) << "never handed out";
}

}  // namespace
