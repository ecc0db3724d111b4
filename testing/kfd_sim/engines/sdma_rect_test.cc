// The simulated SDMA engine's COPY_LINEAR_SUB_WINDOW: a box between two pitched surfaces, byte for byte, with
// the same page-table checks as COPY_LINEAR (an unmapped row is a VM fault) and the illegal-packet halts.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/sdma_engine.h"
#include "testing/kfd_sim/engines/test_memory.h"

namespace hipmem::kfd_sim {
namespace sdma = ::hipmem::gpu_abi::sdma;
namespace {

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

class SdmaRectTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kRingBytes = 1024;

  void SetUp() override {
    ring_.assign(kRingBytes / 4, 0);
    memory_.Map(ring_.data(), kRingBytes);
    memory_.Map(&rptr_, sizeof(rptr_));
    SdmaQueueDescriptor queue{Va(ring_.data()), kRingBytes, Va(&rptr_), Va(&wptr_)};
    queue.generation = sdma::Generation::kV4_4;
    engine_ = std::make_unique<SdmaEngine>(
        "sdma0", &memory_, queue,
        SdmaEngine::Callbacks{nullptr, [this](uint64_t va) { faults_.push_back(va); },
                              [this](const std::string& reason) { illegal_.push_back(reason); }});
  }

  void SubmitDwords(const uint32_t* dw, size_t n) {
    ASSERT_LE(wptr_ + n * 4, kRingBytes) << "these tests never wrap the ring";
    for (size_t i = 0; i < n; ++i) {
      ring_[wptr_ / 4] = dw[i];
      wptr_ += 4;
    }
    engine_->RingDoorbell(wptr_);
  }
  template <typename Packet>
  void Submit(const Packet& packet) {
    SubmitDwords(reinterpret_cast<const uint32_t*>(&packet), sizeof(Packet) / 4);
  }

  IdentityPageTable memory_;
  std::vector<uint32_t> ring_;
  uint64_t rptr_ = 0;
  uint64_t wptr_ = 0;
  std::vector<uint64_t> faults_;
  std::vector<std::string> illegal_;
  std::unique_ptr<SdmaEngine> engine_;
};

// What the box copy must leave in `dst`: its old bytes, except each row of the box taken from `src`. Offsets and
// sizes in bytes.
struct Box {
  uint64_t src_x, src_y, src_z, src_pitch, src_slice;
  uint64_t dst_x, dst_y, dst_z, dst_pitch, dst_slice;
  uint64_t width, height, depth;
};
std::vector<uint8_t> Expected(const std::vector<uint8_t>& src, std::vector<uint8_t> dst, const Box& b) {
  for (uint64_t z = 0; z < b.depth; ++z) {
    for (uint64_t y = 0; y < b.height; ++y) {
      for (uint64_t x = 0; x < b.width; ++x) {
        dst.at((b.dst_z + z) * b.dst_slice + (b.dst_y + y) * b.dst_pitch + b.dst_x + x) =
            src.at((b.src_z + z) * b.src_slice + (b.src_y + y) * b.src_pitch + b.src_x + x);
      }
    }
  }
  return dst;
}

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 13 + i / 251);
  return v;
}

TEST_F(SdmaRectTest, HandBuiltByteElementPacketCopiesTheBoxAndNothingElse) {
  // A producer that knows only the packet's documented layout: 13 dwords written by hand.
  const Box b{3, 2, 0, 40, 0, 5, 1, 0, 56, 0, 13, 4, 1};
  std::vector<uint8_t> src = Pattern(40 * 8, 1), dst(56 * 8, 0xee);
  memory_.Map(src.data(), src.size());
  memory_.Map(dst.data(), dst.size());
  const std::vector<uint8_t> want = Expected(src, dst, b);
  const uint64_t s = Va(src.data()), d = Va(dst.data());
  ASSERT_EQ(s % 4, 0u);
  ASSERT_EQ(d % 4, 0u);
  const uint32_t packet[13] = {
      1u | (4u << 8) | (0u << 29),                      // COPY, LINEAR_SUB_WINDOW, 1-byte elements
      static_cast<uint32_t>(s), static_cast<uint32_t>(s >> 32),
      3u | (2u << 16),                                  // src x 3, y 2
      0u | ((40u - 1) << 13),                           // src z 0, pitch 40
      0u,                                               // one slice
      static_cast<uint32_t>(d), static_cast<uint32_t>(d >> 32),
      5u | (1u << 16),                                  // dst x 5, y 1
      0u | ((56u - 1) << 13),                           // dst pitch 56
      0u,
      (13u - 1) | ((4u - 1) << 16),                     // 13 bytes wide, 4 rows
      0u,                                               // 1 slice deep
  };
  SubmitDwords(packet, 13);
  ASSERT_TRUE(engine_->WaitIdle()) << (illegal_.empty() ? "" : illegal_[0]);
  EXPECT_EQ(dst, want);
  EXPECT_EQ(engine_->bytes_moved(), 13u * 4);
  EXPECT_EQ(std::atomic_ref<uint64_t>(rptr_).load(), 52u) << "the packet is 13 dwords";
}

TEST_F(SdmaRectTest, DwordElementsWithSlicesCopyA3dBox) {
  // 4-byte elements: offsets, pitches, slices and the width count dwords.
  const Box b{8, 1, 1, 64, 64 * 6, 4, 2, 0, 48, 48 * 7, 24, 3, 2};
  std::vector<uint8_t> src = Pattern(64 * 6 * 3, 7), dst(48 * 7 * 2, 0x5a);
  memory_.Map(src.data(), src.size());
  memory_.Map(dst.data(), dst.size());
  const std::vector<uint8_t> want = Expected(src, dst, b);
  Submit(sdma::MakeCopyRect(2, sdma::RectSurface{Va(dst.data()), 1, 2, 0, 48 / 4, 48 * 7 / 4},
                            sdma::RectSurface{Va(src.data()), 2, 1, 1, 64 / 4, 64 * 6 / 4}, 24 / 4, 3, 2));
  ASSERT_TRUE(engine_->WaitIdle()) << (illegal_.empty() ? "" : illegal_[0]);
  EXPECT_EQ(dst, want);
}

TEST_F(SdmaRectTest, AnUnmappedRowIsAVmFaultThatHaltsTheQueue) {
  // The source's third row lies in a page the GPU does not map.
  std::vector<uint8_t> src = Pattern(3 * 4096, 3), dst(3 * 64, 0);
  memory_.Map(src.data(), 2 * 4096);
  memory_.Map(dst.data(), dst.size());
  uint32_t fence = 0;
  memory_.Map(&fence, sizeof(fence));
  Submit(sdma::MakeCopyRect(0, sdma::RectSurface{Va(dst.data()), 0, 0, 0, 64, 0},
                            sdma::RectSurface{Va(src.data()), 0, 0, 0, 4096, 0}, 64, 3, 1));
  Submit(sdma::MakeFence(Va(&fence), 7));
  EXPECT_FALSE(engine_->WaitIdle());
  ASSERT_EQ(faults_.size(), 1u);
  EXPECT_EQ(faults_[0], Va(src.data()) + 2 * 4096);
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), 64), 0) << "rows before the fault landed";
  EXPECT_EQ(std::atomic_ref<uint32_t>(fence).load(), 0u) << "a halted queue runs nothing after the fault";
}

TEST_F(SdmaRectTest, BadElementSwapOrAlignmentIsAnIllegalPacket) {
  std::vector<uint32_t> buf(64, 0);
  memory_.Map(buf.data(), buf.size() * 4);
  sdma::CopyLinearRect p =
      sdma::MakeCopyRect(0, sdma::RectSurface{Va(buf.data()), 0, 0, 0, 16, 0},
                         sdma::RectSurface{Va(buf.data() + 32), 0, 0, 0, 16, 0}, 16, 1, 1);
  p.header |= 5u << sdma::kRectElementShift;  // 32-byte elements do not exist
  Submit(p);
  EXPECT_FALSE(engine_->WaitIdle());
  ASSERT_EQ(illegal_.size(), 1u);
  EXPECT_NE(illegal_[0].find("element 5"), std::string::npos) << illegal_[0];
  EXPECT_EQ(engine_->rptr(), 0u) << "the read pointer stays on the illegal packet";
}

TEST_F(SdmaRectTest, MisalignedBaseIsAnIllegalPacket) {
  std::vector<uint32_t> buf(64, 0);
  memory_.Map(buf.data(), buf.size() * 4);
  Submit(sdma::MakeCopyRect(0, sdma::RectSurface{Va(buf.data()) + 1, 0, 0, 0, 16, 0},
                            sdma::RectSurface{Va(buf.data() + 32), 0, 0, 0, 16, 0}, 16, 1, 1));
  EXPECT_FALSE(engine_->WaitIdle());
  ASSERT_EQ(illegal_.size(), 1u);
  EXPECT_NE(illegal_[0].find("not dword aligned"), std::string::npos) << illegal_[0];
  EXPECT_EQ(buf[0], 0u);
}

}  // namespace
}  // namespace hipmem::kfd_sim
