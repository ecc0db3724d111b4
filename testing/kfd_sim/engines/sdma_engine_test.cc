#include "testing/kfd_sim/engines/sdma_engine.h"

#include <time.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "gpu_abi/sdma_packets.h"
#include "testing/kfd_sim/engines/test_memory.h"

namespace hipmem::kfd_sim {
namespace sdma = ::hipmem::gpu_abi::sdma;
namespace {

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

// A queue as the thunk would lay it out: ring plus read/write pointers, all GPU-mapped.
class SdmaQueueTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kRingBytes = 256;

  void SetUp() override {
    ring_.assign(kRingBytes / 4, 0);
    memory_.Map(ring_.data(), kRingBytes);
    memory_.Map(&rptr_, sizeof(rptr_));
    memory_.Map(&wptr_, sizeof(wptr_));
    engine_ = std::make_unique<SdmaEngine>(
        "sdma0", &memory_, SdmaQueueDescriptor{Va(ring_.data()), kRingBytes, Va(&rptr_), Va(&wptr_)},
        SdmaEngine::Callbacks{[this](uint32_t c) { traps_.push_back(c); }, [this](uint64_t va) { faults_.push_back(va); }});
  }

  // Writes a packet at the write pointer (wrapping like the hardware ring) and rings the doorbell. Like
  // any producer, it first waits until the engine's read pointer leaves room: a slot is reused only
  // after the engine has read it.
  template <typename Packet>
  void Submit(const Packet& packet) {
    while (wptr_ + sizeof(Packet) - std::atomic_ref<uint64_t>(rptr_).load(std::memory_order_acquire) > kRingBytes) {
      std::this_thread::yield();
    }
    const auto* dw = reinterpret_cast<const uint32_t*>(&packet);
    for (size_t i = 0; i < sizeof(Packet) / 4; ++i) {
      ring_[(wptr_ / 4) % (kRingBytes / 4)] = dw[i];
      wptr_ += 4;
    }
    engine_->RingDoorbell(wptr_);
  }

  IdentityPageTable memory_;
  std::vector<uint32_t> ring_;
  uint64_t rptr_ = 0;
  uint64_t wptr_ = 0;
  std::vector<uint32_t> traps_;
  std::vector<uint64_t> faults_;
  std::unique_ptr<SdmaEngine> engine_;
};

TEST_F(SdmaQueueTest, LinearCopyThenFenceLandsAndReadPointerIsWrittenBack) {
  std::vector<uint8_t> src(10000), dst(10000, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7);
  uint32_t fence = 0;
  memory_.Map(src.data(), src.size());
  memory_.Map(dst.data(), dst.size());
  memory_.Map(&fence, sizeof(fence));
  Submit(sdma::MakeCopy(Va(dst.data()), Va(src.data()), 10000));
  Submit(sdma::MakeFence(Va(&fence), 0xC0FFEE));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(src, dst);
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 0xC0FFEEu);
  EXPECT_EQ(std::atomic_ref<uint64_t>(rptr_).load(), wptr_);
  EXPECT_EQ(engine_->bytes_moved(), 10000u);
}

TEST_F(SdmaQueueTest, ConstantFillWritesDwords) {
  std::vector<uint32_t> dst(1024, 0);
  memory_.Map(dst.data(), dst.size() * 4);
  Submit(sdma::MakeFill(Va(dst.data() + 1), 0xABCD1234, 4 * 1022));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst[0], 0u);
  EXPECT_EQ(dst[1], 0xABCD1234u);
  EXPECT_EQ(dst[1022], 0xABCD1234u);
  EXPECT_EQ(dst[1023], 0u);
}

TEST_F(SdmaQueueTest, TrapRaisesTheQueueEvent) {
  Submit(sdma::MakeTrap(42));
  ASSERT_TRUE(engine_->WaitIdle());
  ASSERT_EQ(traps_.size(), 1u);
  EXPECT_EQ(traps_[0], 42u);
}

TEST_F(SdmaQueueTest, PollWaitsForMemoryBeforeLaterPackets) {
  uint32_t flag = 0, fence = 0;
  memory_.Map(&flag, 4);
  memory_.Map(&fence, 4);
  Submit(sdma::MakePoll(Va(&flag), 5, 0xffffffff, sdma::PollFunction::kGreaterEqual));
  Submit(sdma::MakeFence(Va(&fence), 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 0u) << "the fence must wait for the poll";
  std::atomic_ref<uint32_t>(flag).store(7);
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 1u);
}

TEST_F(SdmaQueueTest, UnmappedDestinationIsAVmFaultThatHaltsTheQueue) {
  std::vector<uint8_t> src(4096, 1), unmapped(4096, 0);
  uint32_t fence = 0;
  memory_.Map(src.data(), src.size());
  memory_.Map(&fence, 4);
  Submit(sdma::MakeCopy(Va(unmapped.data()), Va(src.data()), 4096));
  Submit(sdma::MakeFence(Va(&fence), 9));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_TRUE(engine_->halted());
  ASSERT_EQ(faults_.size(), 1u);
  EXPECT_EQ(faults_[0], Va(unmapped.data()));
  EXPECT_EQ(unmapped[0], 0) << "nothing is written through a missing mapping";
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 0u) << "a halted queue runs nothing after the fault";
}

TEST_F(SdmaQueueTest, CopyAcrossTwoAdjacentMappingsIsOneCopy) {
  std::vector<uint8_t> src(8192, 3), dst(8192, 0);
  memory_.Map(src.data(), 4096);
  memory_.Map(src.data() + 4096, 4096);
  memory_.Map(dst.data(), 8192);
  Submit(sdma::MakeCopy(Va(dst.data()), Va(src.data()), 8192));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst, src);
}

TEST_F(SdmaQueueTest, OverlappingCopyWithinOneBufferIsAMove) {
  std::vector<uint8_t> buf(4096);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(i);
  const std::vector<uint8_t> original = buf;
  memory_.Map(buf.data(), buf.size());
  Submit(sdma::MakeCopy(Va(buf.data() + 1), Va(buf.data()), 4000));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(buf[0], original[0]);
  for (size_t i = 0; i < 4000; ++i) ASSERT_EQ(buf[i + 1], original[i]) << i;
}

TEST_F(SdmaQueueTest, PacketsWrapAroundTheRingEnd) {
  uint32_t fence = 0;
  memory_.Map(&fence, 4);
  for (uint32_t i = 1; i <= 40; ++i) Submit(sdma::MakeFence(Va(&fence), i));  // 40 x 16 B > 256 B ring
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 40u);
}

TEST_F(SdmaQueueTest, UnknownOpcodeHalts) {
  struct Bad {
    uint32_t header = 0x7f;
  };
  Submit(Bad{});
  EXPECT_FALSE(engine_->WaitIdle());
}

TEST_F(SdmaQueueTest, IdleEngineSleepsInsteadOfPolling) {
  timespec before{}, after{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &before);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &after);
  const double cpu_ms = (after.tv_sec - before.tv_sec) * 1e3 + (after.tv_nsec - before.tv_nsec) / 1e6;
  EXPECT_LT(cpu_ms, 50.0) << "an idle engine thread must block on its doorbell";
}

TEST(SdmaEngineTest, BareDoorbellStoreFromIdleRunsTheQueue) {
  // A raw client (kfdtest, libhsakmt users) rings with a plain store and no wake; the engine must notice it as
  // the hardware does.
  IdentityPageTable memory;
  std::vector<uint32_t> ring(64, 0);
  uint64_t rptr = 0, wptr = 0, doorbell = 0;
  uint32_t fence = 0;
  std::vector<uint8_t> src(4096), dst(4096, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 5 + 1);
  memory.Map(ring.data(), 256);
  memory.Map(&rptr, 8);
  memory.Map(&fence, 4);
  memory.Map(src.data(), src.size());
  memory.Map(dst.data(), dst.size());
  SdmaEngine engine("sdma0", &memory,
                    SdmaQueueDescriptor{.ring_va = Va(ring.data()),
                                        .ring_bytes = 256,
                                        .rptr_va = Va(&rptr),
                                        .wptr_va = Va(&wptr),
                                        .doorbell = &doorbell},
                    SdmaEngine::Callbacks{});
  const sdma::CopyLinear copy = sdma::MakeCopy(Va(dst.data()), Va(src.data()), 4096);
  const sdma::Fence done = sdma::MakeFence(Va(&fence), 0xD00B);
  std::memcpy(ring.data(), &copy, sizeof(copy));
  std::memcpy(reinterpret_cast<char*>(ring.data()) + sizeof(copy), &done, sizeof(done));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the engine is asleep on its doorbell
  std::atomic_ref<uint64_t>(doorbell).store(sizeof(copy) + sizeof(done), std::memory_order_release);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::atomic_ref<uint32_t>(fence).load(std::memory_order_acquire) != 0xD00B &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  ASSERT_EQ(std::atomic_ref<uint32_t>(fence).load(std::memory_order_acquire), 0xD00Bu) << "store not noticed in 1 s";
  EXPECT_EQ(src, dst);
  ASSERT_TRUE(engine.WaitIdle());
  EXPECT_EQ(std::atomic_ref<uint64_t>(rptr).load(), sizeof(copy) + sizeof(done));
}

TEST(SdmaEngineTest, DestroyingDuringAnEndlessPollReturns) {
  IdentityPageTable memory;
  std::vector<uint32_t> ring(64, 0);
  uint64_t rptr = 0, wptr = 0;
  uint32_t never = 0;
  memory.Map(ring.data(), 256);
  memory.Map(&rptr, 8);
  memory.Map(&never, 4);
  auto engine = std::make_unique<SdmaEngine>("sdma1", &memory, SdmaQueueDescriptor{Va(ring.data()), 256, Va(&rptr), Va(&wptr)},
                                             SdmaEngine::Callbacks{});
  const sdma::PollRegMem poll = sdma::MakePoll(Va(&never), 1, 1, sdma::PollFunction::kEqual);
  std::memcpy(ring.data(), &poll, sizeof(poll));
  engine->RingDoorbell(sizeof(poll));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  engine.reset();  // must not hang
  SUCCEED();
}

}  // namespace
}  // namespace hipmem::kfd_sim
