#include "testing/kfd_sim/engines/sdma_engine.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "gpu_abi/sdma_packets.h"
#include "testing/kfd_sim/engines/gpu_clock.h"
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
    Start(sdma::Generation::kV4_4);
  }

  // (Re)starts the engine on a fresh ring, decoding `generation`'s packets.
  void Start(sdma::Generation generation) {
    engine_.reset();
    std::fill(ring_.begin(), ring_.end(), 0);
    rptr_ = wptr_ = 0;
    SdmaQueueDescriptor queue{Va(ring_.data()), kRingBytes, Va(&rptr_), Va(&wptr_)};
    queue.generation = generation;
    queue.clock = clock_;
    queue.copy_workers = &workers_;
    engine_ = std::make_unique<SdmaEngine>(
        "sdma0", &memory_, queue,
        SdmaEngine::Callbacks{[this](uint32_t c) { traps_.push_back(c); }, [this](uint64_t va) { faults_.push_back(va); },
                              [this](const std::string& reason) { illegal_.push_back(reason); }});
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
  std::vector<std::string> illegal_;
  const GpuClock clock_ = GpuClock(GpuClock::kDefaultFrequencyHz);
  // Three workers whatever the host has, so that large copies are split even on one core.
  CopyWorkers workers_{3};
  std::unique_ptr<SdmaEngine> engine_;
};

// A 64-bit slot on the 32-byte boundary GET_GLOBAL_TIMESTAMP demands.
struct alignas(32) TimestampSlot {
  uint64_t value = 0;
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

// ---- copies large enough to be split over the copy workers ----

constexpr uint64_t kLarge = sdma::kMaxLinearBytes;  // 4 MiB: one packet, far above the split threshold

std::vector<uint8_t> Pattern(uint64_t bytes, uint8_t seed) {
  std::vector<uint8_t> v(bytes);
  for (uint64_t i = 0; i < bytes; ++i) v[i] = static_cast<uint8_t>(i * 131 + (i >> 12) * 7 + seed);
  return v;
}

TEST_F(SdmaQueueTest, SplitCopyLandsBeforeTheNextPacketsRun) {
  const std::vector<uint8_t> a = Pattern(kLarge, 1), b = Pattern(kLarge, 2);
  std::vector<uint8_t> dst(kLarge, 0), copy_of_dst(kLarge, 0);
  uint32_t fence = 0;
  uint64_t counter = 0;
  memory_.Map(a.data(), kLarge);
  memory_.Map(b.data(), kLarge);
  memory_.Map(dst.data(), kLarge);
  memory_.Map(copy_of_dst.data(), kLarge);
  memory_.Map(&fence, 4);
  memory_.Map(&counter, 8);
  const uint64_t half = kLarge / 2 + 4;  // not on a piece boundary
  Submit(sdma::MakeCopy(Va(dst.data()), Va(a.data()), kLarge));
  // Reads every byte the first copy wrote: only bytes that landed make it through.
  Submit(sdma::MakeCopy(Va(copy_of_dst.data()), Va(dst.data()), kLarge));
  // Overwrites the first copy's upper half: the later packet's bytes win.
  Submit(sdma::MakeCopy(Va(dst.data() + half), Va(b.data() + half), static_cast<uint32_t>(kLarge - half)));
  Submit(sdma::MakeAtomic(Va(&counter), sdma::AtomicOp::kAdd64, 5));
  Submit(sdma::MakeFence(Va(&fence), 0xF00D));
  // As a host waiting on the fence would: once it is seen, so is everything before it (no WaitIdle).
  while (std::atomic_ref<uint32_t>(fence).load(std::memory_order_acquire) != 0xF00Du) std::this_thread::yield();
  EXPECT_EQ(std::atomic_ref<uint64_t>(counter).load(), 5u);
  EXPECT_TRUE(copy_of_dst == a) << "the second copy read bytes the first had not written yet";
  EXPECT_TRUE(std::equal(dst.begin(), dst.begin() + half, a.begin()));
  EXPECT_TRUE(std::equal(dst.begin() + half, dst.end(), b.begin() + half)) << "a later copy was overwritten";
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(engine_->bytes_moved(), 2 * kLarge + (kLarge - half));
  EXPECT_GT(workers_.started_threads(), 0) << "the copies were not split: this test covers nothing new";
}

TEST_F(SdmaQueueTest, SplitCopyFaultsAtTheFirstUnmappedDestinationByte) {
  const std::vector<uint8_t> src = Pattern(kLarge, 3);
  std::vector<uint8_t> dst(kLarge, 0);
  uint32_t fence = 0;
  // A hole of one page a little past the middle of the destination.
  const uint64_t hole = kLarge / 2 + 3 * 4096;
  memory_.Map(src.data(), kLarge);
  memory_.Map(dst.data(), hole);
  memory_.Map(dst.data() + hole + 4096, kLarge - hole - 4096);
  memory_.Map(&fence, 4);
  Submit(sdma::MakeCopy(Va(dst.data()), Va(src.data()), kLarge));
  Submit(sdma::MakeFence(Va(&fence), 9));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_TRUE(engine_->halted());
  ASSERT_EQ(faults_.size(), 1u);
  EXPECT_EQ(faults_[0], Va(dst.data() + hole));
  EXPECT_EQ(engine_->rptr(), 0u) << "the read pointer stays on the faulting copy";
  EXPECT_TRUE(std::equal(dst.begin(), dst.begin() + hole, src.begin())) << "everything before the fault lands";
  EXPECT_TRUE(std::all_of(dst.begin() + hole, dst.end(), [](uint8_t v) { return v == 0; }))
      << "nothing after the fault is written, as on one thread";
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 0u) << "a halted queue runs nothing after the fault";
  EXPECT_EQ(engine_->bytes_moved(), 0u);
}

TEST_F(SdmaQueueTest, SplitCopyFaultsAtTheFirstUnmappedSourceByte) {
  const std::vector<uint8_t> src = Pattern(kLarge, 4);
  std::vector<uint8_t> dst(kLarge, 0);
  const uint64_t hole = kLarge / 4 + 12;  // the source's mapping ends inside a page
  memory_.Map(src.data(), hole);
  memory_.Map(dst.data(), kLarge);
  Submit(sdma::MakeCopy(Va(dst.data()), Va(src.data()), kLarge));
  EXPECT_FALSE(engine_->WaitIdle());
  ASSERT_EQ(faults_.size(), 1u);
  EXPECT_EQ(faults_[0], Va(src.data() + hole));
  EXPECT_TRUE(std::equal(dst.begin(), dst.begin() + hole, src.begin()));
  EXPECT_TRUE(std::all_of(dst.begin() + hole, dst.end(), [](uint8_t v) { return v == 0; }));
}

TEST_F(SdmaQueueTest, SplitFillsWriteEveryByteUpToTheFirstUnmappedOne) {
  std::vector<uint32_t> words(kLarge / 4, 0);
  std::vector<uint8_t> bytes(kLarge, 0);
  // The word buffer's mapping ends two bytes into a dword past its middle: the dword fill faults on that dword.
  const uint64_t mapped = kLarge / 2 + 4096 * 5 + 2;
  memory_.Map(bytes.data(), kLarge);
  memory_.Map(words.data(), mapped);
  Submit(sdma::MakeByteFill(Va(bytes.data() + 1), 0x7A, static_cast<uint32_t>(kLarge - 2)));
  Submit(sdma::MakeFill(Va(words.data()), 0xCAFEF00D, static_cast<uint32_t>(kLarge)));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_EQ(bytes.front(), 0);
  EXPECT_TRUE(std::all_of(bytes.begin() + 1, bytes.end() - 1, [](uint8_t v) { return v == 0x7A; }));
  EXPECT_EQ(bytes.back(), 0);
  ASSERT_EQ(faults_.size(), 1u);
  EXPECT_EQ(faults_[0], Va(words.data()) + mapped);
  const uint64_t filled = mapped / 4;
  EXPECT_TRUE(std::all_of(words.begin(), words.begin() + filled, [](uint32_t v) { return v == 0xCAFEF00Du; }));
  EXPECT_TRUE(std::all_of(words.begin() + filled, words.end(), [](uint32_t v) { return v == 0; }));
  EXPECT_EQ(engine_->bytes_moved(), kLarge - 2) << "the byte fill, not the faulting one";
  EXPECT_GT(workers_.started_threads(), 0);
}

TEST_F(SdmaQueueTest, OverlappingLargeCopyMovesLikeMemmove) {
  // A copy within one buffer, the destination a little above the source: a split copy would read bytes it had
  // already overwritten.
  std::vector<uint8_t> buffer = Pattern(2 * kLarge, 5);
  std::vector<uint8_t> expected = buffer;
  const uint64_t shift = 3 * 4096 + 8;
  std::memmove(expected.data() + shift, expected.data(), kLarge);
  memory_.Map(buffer.data(), buffer.size());
  Submit(sdma::MakeCopy(Va(buffer.data() + shift), Va(buffer.data()), kLarge));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_TRUE(buffer == expected);
}

TEST_F(SdmaQueueTest, SplitCopyAcrossManyMappingsUsesEachOnesPages) {
  // The destination's pages in reverse order behind consecutive VAs: every piece must go through the translation
  // of its own bytes, not its neighbour's.
  constexpr uint64_t kPage = 64 << 10;
  constexpr uint64_t kPages = kLarge / kPage;
  const std::vector<uint8_t> src = Pattern(kLarge, 6);
  std::vector<uint8_t> backing(kLarge, 0);
  // A page table that maps VA page p of a fake range to backing page (kPages - 1 - p).
  class ReversedPages final : public GpuMemory {
   public:
    ReversedPages(GpuMemory* rest, uint64_t base, uint8_t* backing) : rest_(rest), base_(base), backing_(backing) {}
    std::optional<Span> Translate(uint64_t va, uint64_t bytes) override {
      if (va < base_ || va >= base_ + kLarge) return rest_->Translate(va, bytes);
      const uint64_t page = (va - base_) / kPage, offset = (va - base_) % kPage;
      return Span{backing_ + (kPages - 1 - page) * kPage + offset, std::min(bytes, kPage - offset)};
    }

   private:
    GpuMemory* const rest_;
    const uint64_t base_;
    uint8_t* const backing_;
  };
  const uint64_t base = uint64_t{1} << 46;  // a VA nothing on the host uses
  ReversedPages memory(&memory_, base, backing.data());
  memory_.Map(src.data(), kLarge);
  SdmaQueueDescriptor queue{Va(ring_.data()), kRingBytes, Va(&rptr_), Va(&wptr_)};
  queue.copy_workers = &workers_;
  engine_ = std::make_unique<SdmaEngine>("sdma1", &memory, queue, SdmaEngine::Callbacks{});
  Submit(sdma::MakeCopy(base, Va(src.data()), kLarge));
  ASSERT_TRUE(engine_->WaitIdle());
  engine_.reset();  // before `memory` goes
  for (uint64_t p = 0; p < kPages; ++p) {
    EXPECT_TRUE(std::equal(src.begin() + p * kPage, src.begin() + (p + 1) * kPage,
                           backing.begin() + (kPages - 1 - p) * kPage))
        << "VA page " << p;
  }
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

TEST_F(SdmaQueueTest, UnknownOpcodeHaltsAndSaysWhereAndWhy) {
  uint32_t fence = 0;
  memory_.Map(&fence, 4);
  Submit(sdma::MakeFence(Va(&fence), 1));
  struct Bad {
    uint32_t header = 0x7f;
  };
  Submit(Bad{});
  Submit(sdma::MakeFence(Va(&fence), 2));
  EXPECT_FALSE(engine_->WaitIdle());
  ASSERT_EQ(illegal_.size(), 1u);
  EXPECT_NE(illegal_[0].find("unknown opcode 127"), std::string::npos) << illegal_[0];
  EXPECT_NE(illegal_[0].find("ring offset 0x10"), std::string::npos) << illegal_[0];
  EXPECT_EQ(engine_->rptr(), 16u) << "the read pointer stays on the illegal packet";
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 1u) << "nothing after the illegal packet runs";
}

TEST_F(SdmaQueueTest, WriteLinearWritesTheDwords) {
  std::vector<uint32_t> dst(8, 0);
  memory_.Map(dst.data(), dst.size() * 4);
  Submit(sdma::MakeWrite<3>(Va(dst.data() + 2), {0x11111111, 0x22222222, 0x33333333}));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst, (std::vector<uint32_t>{0, 0, 0x11111111, 0x22222222, 0x33333333, 0, 0, 0}));
  EXPECT_EQ(std::atomic_ref<uint64_t>(rptr_).load(), sizeof(sdma::WriteLinear<3>));
}

TEST_F(SdmaQueueTest, WriteLinearWrapsAroundTheRingEnd) {
  uint32_t fence = 0;
  std::vector<uint32_t> dst(20, 0);
  memory_.Map(&fence, 4);
  memory_.Map(dst.data(), dst.size() * 4);
  for (int i = 0; i < 14; ++i) Submit(sdma::MakeFence(Va(&fence), i));  // 224 of 256 bytes: the write wraps
  std::array<uint32_t, 20> data{};
  for (uint32_t i = 0; i < data.size(); ++i) data[i] = 0xA0000000u + i;
  Submit(sdma::MakeWrite<20>(Va(dst.data()), data));
  ASSERT_TRUE(engine_->WaitIdle());
  for (uint32_t i = 0; i < data.size(); ++i) EXPECT_EQ(dst[i], data[i]) << i;
}

TEST_F(SdmaQueueTest, GlobalTimestampIsTheGpuClockBetweenReadsBeforeAndAfter) {
  TimestampSlot first, second;
  memory_.Map(&first, sizeof(first));
  memory_.Map(&second, sizeof(second));
  const uint64_t before = clock_.Now();
  Submit(sdma::MakeTimestamp(Va(&first.value)));
  ASSERT_TRUE(engine_->WaitIdle());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Submit(sdma::MakeTimestamp(Va(&second.value)));
  ASSERT_TRUE(engine_->WaitIdle());
  const uint64_t after = clock_.Now();
  EXPECT_LE(before, first.value);
  EXPECT_LE(first.value + 5 * clock_.frequency_hz() / 1000, second.value) << "5 ms of a 100 MHz clock passed";
  EXPECT_LE(second.value, after);
}

TEST_F(SdmaQueueTest, LocalTimestampCountsFromTheValueSet) {
  struct SetPacket {
    uint32_t header = sdma::Header(sdma::Opcode::kTimestamp, sdma::kSubTimestampSetLocal);
    uint32_t lo = 1000, hi = 0;
  };
  struct GetLocal {
    uint32_t header = sdma::Header(sdma::Opcode::kTimestamp, sdma::kSubTimestampGetLocal);
    uint32_t lo, hi;
  };
  TimestampSlot local;
  memory_.Map(&local, sizeof(local));
  const uint64_t before = clock_.Now();
  Submit(SetPacket{});
  Submit(GetLocal{.lo = sdma::Lo(Va(&local.value)), .hi = sdma::Hi(Va(&local.value))});
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_GE(local.value, 1000u);
  EXPECT_LE(local.value, 1000u + (clock_.Now() - before));
}

TEST_F(SdmaQueueTest, TimestampToAnAddressOffThe32ByteBoundaryIsIllegal) {
  TimestampSlot slot[2];
  memory_.Map(slot, sizeof(slot));
  Submit(sdma::MakeTimestamp(Va(slot) + 8));
  EXPECT_FALSE(engine_->WaitIdle());
  ASSERT_EQ(illegal_.size(), 1u);
  EXPECT_NE(illegal_[0].find("32-byte"), std::string::npos) << illegal_[0];
}

TEST_F(SdmaQueueTest, AtomicAddOfMinusOneDecrementsASignalAsRocrDoes) {
  alignas(8) int64_t signal = 5;
  memory_.Map(&signal, 8);
  Submit(sdma::MakeAtomic(Va(&signal), sdma::AtomicOp::kAdd64, ~uint64_t{0}));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(std::atomic_ref<int64_t>(signal).load(), 4);
}

TEST_F(SdmaQueueTest, LoopingCompareSwapWaitsUntilTheCompareHolds) {
  alignas(8) uint64_t word = 1;
  uint32_t fence = 0;
  memory_.Map(&word, 8);
  memory_.Map(&fence, 4);
  Submit(sdma::MakeAtomic(Va(&word), sdma::AtomicOp::kCmpSwap64, /*src=*/9, /*cmp=*/2, /*loop=*/true, 10));
  Submit(sdma::MakeFence(Va(&fence), 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 0u) << "the swap has not happened yet";
  std::atomic_ref<uint64_t>(word).store(2);
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(std::atomic_ref<uint64_t>(word).load(), 9u);
}

TEST_F(SdmaQueueTest, UnknownAtomicOperationIsIllegal) {
  alignas(8) uint64_t word = 1;
  memory_.Map(&word, 8);
  sdma::Atomic bad = sdma::MakeAtomic(Va(&word), sdma::AtomicOp::kAdd64, 1);
  bad.header = (bad.header & 0x01ffffffu) | (0x0au << 25);  // a float min: not an SDMA atomic we know
  Submit(bad);
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_EQ(word, 1u);
  ASSERT_EQ(illegal_.size(), 1u);
}

TEST_F(SdmaQueueTest, ByteFillWritesTheLowByteOfTheData) {
  std::vector<uint8_t> dst(16, 0);
  memory_.Map(dst.data(), dst.size());
  Submit(sdma::MakeByteFill(Va(dst.data() + 3), 0xAB, 7));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst, (std::vector<uint8_t>{0, 0, 0, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0, 0, 0, 0, 0, 0}));
}

TEST_F(SdmaQueueTest, DwordFillCountsAsAmdgpuAndRocrBothWriteIt) {
  std::vector<uint32_t> dst(8, 0);
  memory_.Map(dst.data(), dst.size() * 4);
  sdma::ConstFill rocr = sdma::MakeFill(Va(dst.data()), 7, 12);
  rocr.count_minus_one = (3 - 1) * 4;  // ROCr: (dwords - 1) * 4 for 3 dwords; amdgpu writes bytes - 1 = 11
  Submit(rocr);
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst, (std::vector<uint32_t>{7, 7, 7, 0, 0, 0, 0, 0}));
}

TEST_F(SdmaQueueTest, BroadcastCopyLandsInBothDestinations) {
  std::vector<uint8_t> src(300, 0x5C), a(300, 0), b(300, 0);
  memory_.Map(src.data(), src.size());
  memory_.Map(a.data(), a.size());
  memory_.Map(b.data(), b.size());
  Submit(sdma::MakeBroadcastCopy(Va(a.data()), Va(b.data()), Va(src.data()), 300));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(a, src);
  EXPECT_EQ(b, src);
}

TEST_F(SdmaQueueTest, HdpFlushAndNopsPassThrough) {
  uint32_t fence = 0;
  memory_.Map(&fence, 4);
  Submit(sdma::MakeHdpFlush());
  struct Nop3 {
    uint32_t header = sdma::MakeNopHeader(3);
    uint32_t skipped[2] = {0xdeadbeef, 0xdeadbeef};  // would be illegal opcodes if executed
  };
  Submit(Nop3{});
  Submit(sdma::MakeFence(Va(&fence), 3));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 3u);
}

TEST_F(SdmaQueueTest, RegisterPollIsIllegal) {
  sdma::PollRegMem poll = sdma::MakePoll(0x1234, 1, 1, sdma::PollFunction::kEqual);
  poll.header &= ~sdma::kPollMemBit;
  Submit(poll);
  EXPECT_FALSE(engine_->WaitIdle());
  ASSERT_EQ(illegal_.size(), 1u);
  EXPECT_NE(illegal_[0].find("register"), std::string::npos) << illegal_[0];
}

TEST_F(SdmaQueueTest, GcrRequestExistsFromSdma5Only) {
  Start(sdma::Generation::kV5_2);
  Submit(sdma::GcrReq{});
  EXPECT_TRUE(engine_->WaitIdle());
  Start(sdma::Generation::kV4_4);
  Submit(sdma::GcrReq{});
  EXPECT_FALSE(engine_->WaitIdle());
  ASSERT_EQ(illegal_.size(), 1u);
  EXPECT_NE(illegal_[0].find("unknown opcode 17"), std::string::npos) << illegal_[0];
}

// COPY_LINEAR's count is 22 bits before SDMA 4.4 / 5.2 and 30 bits after: an 8 MiB copy is one packet on gfx90a
// and an illegal one on gfx908.
TEST_F(SdmaQueueTest, LinearCountWidthFollowsTheGeneration) {
  constexpr uint32_t kBytes = 8u << 20;
  std::vector<uint8_t> src(kBytes, 0x42), dst(kBytes, 0);
  memory_.Map(src.data(), kBytes);
  memory_.Map(dst.data(), kBytes);
  struct Row {
    sdma::Generation generation;
    bool accepted;
  };
  constexpr Row kRows[] = {{sdma::Generation::kV4_0, false}, {sdma::Generation::kV4_4, true},
                           {sdma::Generation::kV5_0, false}, {sdma::Generation::kV5_2, true},
                           {sdma::Generation::kV6_0, true}};
  for (const Row& row : kRows) {
    SCOPED_TRACE(sdma::GenerationName(row.generation));
    illegal_.clear();
    std::fill(dst.begin(), dst.end(), 0);
    Start(row.generation);
    Submit(sdma::MakeCopy(Va(dst.data()), Va(src.data()), kBytes));
    EXPECT_EQ(engine_->WaitIdle(), row.accepted);
    EXPECT_EQ(dst[kBytes - 1], row.accepted ? 0x42 : 0);
    EXPECT_EQ(illegal_.size(), row.accepted ? 0u : 1u);
  }
}

TEST(SdmaGenerationTest, GfxTargetVersionsMapToTheirSdmaIp) {
  struct Row {
    uint32_t gfx_target_version;
    std::optional<sdma::Generation> generation;
  };
  const Row kRows[] = {
      {90000, sdma::Generation::kV4_0}, {90008, sdma::Generation::kV4_0}, {90010, sdma::Generation::kV4_4},
      {90402, sdma::Generation::kV4_4}, {100100, sdma::Generation::kV5_0}, {100300, sdma::Generation::kV5_2},
      {110000, sdma::Generation::kV6_0}, {80003, std::nullopt}, {120000, std::nullopt},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.gfx_target_version);
    EXPECT_EQ(sdma::GenerationOf(row.gfx_target_version), row.generation);
  }
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
