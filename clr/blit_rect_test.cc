// Rectangle copies and fills of the blit manager: every side kind, partial rectangles at offsets inside pitched
// allocations, checked byte for byte (the rectangle written, the gaps between rows untouched), and the bounds
// and pitch checks.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "clr/blit_manager.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 13 + (i >> 9));
  return v;
}

DeviceAddress Addr(const void* p) { return DeviceAddress::FromPointer(const_cast<void*>(p)); }

// A rectangle laid out in a host buffer: `offset` to its first byte, then rows and slices at these pitches.
struct Layout {
  size_t offset;
  size_t pitch;
  size_t slice_pitch;
};

// What copying `extent` from `src` (laid out as `s`) into `dst` (as `d`) must leave in `dst`.
std::vector<uint8_t> Expected(std::vector<uint8_t> dst, const Layout& d, const std::vector<uint8_t>& src,
                              const Layout& s, size_t width, size_t height, size_t depth) {
  for (size_t z = 0; z < depth; ++z) {
    for (size_t y = 0; y < height; ++y) {
      for (size_t x = 0; x < width; ++x) {
        dst[d.offset + z * d.slice_pitch + y * d.pitch + x] = src[s.offset + z * s.slice_pitch + y * s.pitch + x];
      }
    }
  }
  return dst;
}

PitchedSide At(const void* base, const Layout& l) {
  return PitchedSide{Addr(base) + Bytes(l.offset), Bytes(l.pitch), Bytes(l.slice_pitch)};
}

TEST(RectSpanTest, SpansFromTheFirstByteToThePastTheLastOne) {
  const PitchedSide side{DeviceAddress(0x1000), Bytes(256), Bytes(256 * 10)};
  EXPECT_THAT(RectSpan(side, RectExtent{Bytes(100), 1, 1}), IsOkAndHolds(Bytes(100)));
  EXPECT_THAT(RectSpan(side, RectExtent{Bytes(100), 3, 1}), IsOkAndHolds(Bytes(2 * 256 + 100)));
  EXPECT_THAT(RectSpan(side, RectExtent{Bytes(100), 3, 2}), IsOkAndHolds(Bytes(2560 + 2 * 256 + 100)));
  // Empty rectangles touch nothing, whatever their pitches.
  EXPECT_THAT(RectSpan(PitchedSide{DeviceAddress(0), Bytes(0), Bytes(0)}, RectExtent{Bytes(0), 5, 5}),
              IsOkAndHolds(Bytes(0)));
  EXPECT_THAT(RectSpan(side, RectExtent{Bytes(100), 0, 7}), IsOkAndHolds(Bytes(0)));
  // One row may be wider than a pitch it never steps by.
  EXPECT_THAT(RectSpan(side, RectExtent{Bytes(1000), 1, 1}), IsOkAndHolds(Bytes(1000)));
}

TEST(RectSpanTest, RefusesOverlappingRowsOrSlicesAndOverflow) {
  const PitchedSide side{DeviceAddress(0x1000), Bytes(256), Bytes(256 * 10)};
  EXPECT_THAT(RectSpan(side, RectExtent{Bytes(257), 2, 1}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(RectSpan(side, RectExtent{Bytes(100), 11, 2}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(RectSpan(side, RectExtent{Bytes(100), 10, 2}), IsOk());
  EXPECT_THAT(RectSpan(PitchedSide{DeviceAddress(0), Bytes(1), Bytes(UINT64_MAX)}, RectExtent{Bytes(1), 1, 3}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(RectSpan(PitchedSide{DeviceAddress(0), Bytes(UINT64_MAX / 2), Bytes(0)}, RectExtent{Bytes(1), 4, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

class BlitRectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(ctx_, Context::Create());
    device_ = &ctx_->devices()[0];
    ASSERT_OK_AND_ASSIGN(stream_, Stream::Create(*ctx_, *device_));
    ASSERT_OK_AND_ASSIGN(blit_, BlitManager::Create(*ctx_, *stream_));
  }
  void TearDown() override {
    blit_.reset();
    stream_.reset();
    ctx_.reset();
  }

  // VRAM holding `contents`.
  DeviceAddress Vram(const std::vector<uint8_t>& contents) {
    absl::StatusOr<DeviceAddress> a = Released(ctx_->AllocDevice(*device_, Bytes(contents.size()), 0));
    EXPECT_THAT(a, IsOk());
    if (!a.ok()) return DeviceAddress(0);
    EXPECT_THAT(blit_->Copy(*a, Addr(contents.data()), Bytes(contents.size())), IsOk());
    return *a;
  }
  std::vector<uint8_t> Read(DeviceAddress vram, size_t size) {
    std::vector<uint8_t> out(size);
    EXPECT_THAT(blit_->Copy(Addr(out.data()), vram, Bytes(size)), IsOk());
    EXPECT_THAT(stream_->Finish(), IsOk());
    return out;
  }
  uint8_t* Pinned(size_t size) {
    absl::StatusOr<DeviceAddress> a = Released(ctx_->AllocHost(*device_, Bytes(size), HostCoherence::kCoherent, 0));
    EXPECT_THAT(a, IsOk());
    return a.ok() ? static_cast<uint8_t*>(a->ToPointer()) : nullptr;
  }

  std::unique_ptr<Context> ctx_;
  const Device* device_ = nullptr;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<BlitManager> blit_;
};

TEST_F(BlitRectTest, PartialRectanglesRoundTripBetweenPageableAndPitchedVram) {
  // A 100 x 7 rectangle at (x=3, y=2) of a 256-pitched allocation, from a 131-pitched pageable buffer.
  const Layout host{5, 131, 131 * 9};
  const Layout dev{2 * 256 + 3, 256, 256 * 12};
  const std::vector<uint8_t> src = Pattern(131 * 9 + 5, 0x11);
  const std::vector<uint8_t> before = Pattern(256 * 12, 0x80);
  const DeviceAddress vram = Vram(before);
  EXPECT_THAT(blit_->CopyRect(At(vram.ToPointer(), dev), At(src.data(), host), RectExtent{Bytes(100), 7, 1}),
              IsOkAndHolds(CopyPath::kStagedShaderCopy));
  const std::vector<uint8_t> want = Expected(before, dev, src, host, 100, 7, 1);
  EXPECT_EQ(Read(vram, before.size()), want);

  // And back into a third layout of pageable memory.
  const Layout back{1, 120, 120 * 8};
  const std::vector<uint8_t> out_before = Pattern(120 * 8 + 1, 0x33);
  std::vector<uint8_t> out = out_before;
  EXPECT_THAT(blit_->CopyRect(At(out.data(), back), At(vram.ToPointer(), dev), RectExtent{Bytes(100), 7, 1}),
              IsOkAndHolds(CopyPath::kStagedShaderCopy));
  EXPECT_EQ(out, Expected(out_before, back, want, dev, 100, 7, 1)) << "a staged D2H is done when it returns";
  EXPECT_THAT(ctx_->Free(vram), IsOk());
}

TEST_F(BlitRectTest, RowsLongerThanAStagingChunkCycleTheRingOnSdma) {
  // 3 rows of 1.5 MiB: more than the 4 x 1 MiB ring, rows split across chunks; above 16 KiB: SDMA.
  const size_t width = 3 * 512 * 1024;
  const Layout host{7, width + 9, 0};
  const Layout dev{64, 2 * 1024 * 1024, 0};
  const std::vector<uint8_t> src = Pattern(host.offset + 3 * host.pitch, 0x42);
  const std::vector<uint8_t> before(dev.offset + 3 * dev.pitch, 0xee);
  const DeviceAddress vram = Vram(before);
  EXPECT_THAT(blit_->CopyRect(At(vram.ToPointer(), dev), At(src.data(), host), RectExtent{Bytes(width), 3, 1}),
              IsOkAndHolds(CopyPath::kStagedOrPinnedSdma));
  const std::vector<uint8_t> want = Expected(before, dev, src, host, width, 3, 1);
  EXPECT_TRUE(Read(vram, before.size()) == want);
  std::vector<uint8_t> out(src.size(), 0);
  EXPECT_THAT(blit_->CopyRect(At(out.data(), host), At(vram.ToPointer(), dev), RectExtent{Bytes(width), 3, 1}),
              IsOkAndHolds(CopyPath::kStagedOrPinnedSdma));
  EXPECT_TRUE(out == Expected(std::vector<uint8_t>(src.size(), 0), host, want, dev, width, 3, 1));
  EXPECT_THAT(ctx_->Free(vram), IsOk());
}

TEST_F(BlitRectTest, ThreeDimensionalRectanglesBetweenVramAndPinnedMemoryRunOnTheGpu) {
  // 40 x 5 x 3 out of a 64 x 8 x 4 device volume, to and from hipHostMalloc memory with other pitches.
  const Layout dev{1 * 64 * 8 + 2 * 64 + 10, 64, 64 * 8};
  const Layout pin{3, 48, 48 * 6};
  const size_t pin_size = 3 + 48 * 6 * 3;
  uint8_t* pinned = Pinned(pin_size);
  ASSERT_NE(pinned, nullptr);
  const std::vector<uint8_t> src = Pattern(pin_size, 0x05);
  std::copy(src.begin(), src.end(), pinned);
  const std::vector<uint8_t> before = Pattern(64 * 8 * 4, 0x99);
  const DeviceAddress vram = Vram(before);
  EXPECT_THAT(blit_->CopyRect(At(vram.ToPointer(), dev), At(pinned, pin), RectExtent{Bytes(40), 5, 3}),
              IsOkAndHolds(CopyPath::kShaderCopy));
  const std::vector<uint8_t> want = Expected(before, dev, src, pin, 40, 5, 3);
  EXPECT_EQ(Read(vram, before.size()), want);

  // Device to device, inside the same allocation's first slice from its second and third.
  const Layout dev_dst{0, 64, 64 * 8};
  const std::vector<uint8_t> d2d_before = Pattern(64 * 8 * 4, 0x17);
  const DeviceAddress other = Vram(d2d_before);
  EXPECT_THAT(blit_->CopyRect(At(other.ToPointer(), dev_dst), At(vram.ToPointer(), dev), RectExtent{Bytes(40), 5, 2}),
              IsOkAndHolds(CopyPath::kShaderCopy));
  EXPECT_EQ(Read(other, d2d_before.size()), Expected(d2d_before, dev_dst, want, dev, 40, 5, 2));

  // Back to pinned memory: on the GPU, so done once the stream is.
  std::fill(pinned, pinned + pin_size, 0);
  EXPECT_THAT(blit_->CopyRect(At(pinned, pin), At(vram.ToPointer(), dev), RectExtent{Bytes(40), 5, 3}),
              IsOkAndHolds(CopyPath::kShaderCopy));
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_EQ(std::vector<uint8_t>(pinned, pinned + pin_size),
            Expected(std::vector<uint8_t>(pin_size, 0), pin, want, dev, 40, 5, 3));
  EXPECT_THAT(ctx_->Free(vram), IsOk());
  EXPECT_THAT(ctx_->Free(other), IsOk());
  EXPECT_THAT(ctx_->Free(Addr(pinned)), IsOk());
}

TEST_F(BlitRectTest, AlignedBoxesGoToSdmaAsOneSubWindowCopy) {
  // 4-byte aligned bases and pitches: ROCr's rect copy takes the whole box.
  const Layout dev{64 * 8 + 2 * 64 + 8, 64, 64 * 8};
  const Layout pin{4, 48, 48 * 6};
  const size_t pin_size = 4 + 48 * 6 * 3;
  uint8_t* pinned = Pinned(pin_size);
  ASSERT_NE(pinned, nullptr);
  const std::vector<uint8_t> src = Pattern(pin_size, 0x2b);
  std::copy(src.begin(), src.end(), pinned);
  const std::vector<uint8_t> before = Pattern(64 * 8 * 4, 0x61);
  const DeviceAddress vram = Vram(before);
  EXPECT_THAT(blit_->CopyRect(At(vram.ToPointer(), dev), At(pinned, pin), RectExtent{Bytes(40), 5, 3}),
              IsOkAndHolds(CopyPath::kSdma));
  const std::vector<uint8_t> want = Expected(before, dev, src, pin, 40, 5, 3);
  EXPECT_EQ(Read(vram, before.size()), want);

  // One row per slice: a column of rows a slice apart, still one box.
  const DeviceAddress other = Vram(std::vector<uint8_t>(64 * 8 * 4, 0));
  const Layout col{16, 64, 64 * 8};
  const Layout first_rows{8, 64, 64 * 8};
  EXPECT_THAT(
      blit_->CopyRect(At(other.ToPointer(), col), At(vram.ToPointer(), first_rows), RectExtent{Bytes(32), 1, 4}),
      IsOkAndHolds(CopyPath::kSdma));
  EXPECT_EQ(Read(other, 64 * 8 * 4), Expected(std::vector<uint8_t>(64 * 8 * 4, 0), col, want, first_rows, 32, 1, 4));

  // Pageable rows through the ring, each chunk of rows one box.
  const Layout user{0, 52, 52 * 5};
  std::vector<uint8_t> out(52 * 5 * 3, 0);
  EXPECT_THAT(blit_->CopyRect(At(out.data(), user), At(vram.ToPointer(), dev), RectExtent{Bytes(40), 5, 3}),
              IsOkAndHolds(CopyPath::kStagedShaderCopy));
  EXPECT_EQ(out, Expected(std::vector<uint8_t>(out.size(), 0), user, want, dev, 40, 5, 3));
  const std::vector<uint8_t> up = Pattern(out.size(), 0x0d);
  EXPECT_THAT(blit_->CopyRect(At(vram.ToPointer(), dev), At(up.data(), user), RectExtent{Bytes(40), 5, 3}),
              IsOkAndHolds(CopyPath::kStagedShaderCopy));
  EXPECT_EQ(Read(vram, before.size()), Expected(want, dev, up, user, 40, 5, 3));
  EXPECT_THAT(ctx_->Free(vram), IsOk());
  EXPECT_THAT(ctx_->Free(other), IsOk());
  EXPECT_THAT(ctx_->Free(Addr(pinned)), IsOk());
}

TEST_F(BlitRectTest, HostSidesAreCopiedByTheCpu) {
  const Layout a{0, 32, 0};
  const Layout b{4, 20, 0};
  const std::vector<uint8_t> src = Pattern(32 * 6, 0x61);
  std::vector<uint8_t> dst(4 + 20 * 6, 0);
  EXPECT_THAT(blit_->CopyRect(At(dst.data(), b), At(src.data(), a), RectExtent{Bytes(16), 6, 1}),
              IsOkAndHolds(CopyPath::kHostMemcpy));
  EXPECT_EQ(dst, Expected(std::vector<uint8_t>(dst.size(), 0), b, src, a, 16, 6, 1));
  // Pageable and pinned: the CPU too (CLR's readBuffer/writeBuffer serve host-direct memory themselves).
  uint8_t* pinned = Pinned(32 * 6);
  ASSERT_NE(pinned, nullptr);
  std::fill(pinned, pinned + 32 * 6, 0);
  EXPECT_THAT(blit_->CopyRect(At(pinned, a), At(dst.data(), b), RectExtent{Bytes(16), 6, 1}),
              IsOkAndHolds(CopyPath::kHostMemcpy));
  EXPECT_EQ(std::vector<uint8_t>(pinned, pinned + 32 * 6),
            Expected(std::vector<uint8_t>(32 * 6, 0), a, src, a, 16, 6, 1));
  EXPECT_THAT(ctx_->Free(Addr(pinned)), IsOk());
}

TEST_F(BlitRectTest, ContiguousRectanglesAreOneLinearCopy) {
  // Pitch == width and slice pitch == the rows: the linear policy for 64 KiB of pageable memory.
  const std::vector<uint8_t> src = Pattern(64 * 1024, 0x01);
  const DeviceAddress vram = Vram(std::vector<uint8_t>(64 * 1024, 0));
  const Layout packed{0, 256, 256 * 16};
  EXPECT_THAT(blit_->CopyRect(At(vram.ToPointer(), packed), At(src.data(), packed), RectExtent{Bytes(256), 16, 16}),
              IsOkAndHolds(CopyPath::kStagedOrPinnedSdma));
  EXPECT_EQ(Read(vram, src.size()), src);
  EXPECT_THAT(ctx_->Free(vram), IsOk());
}

TEST_F(BlitRectTest, RefusesRectanglesPastAnObjectBadPitchesAndNull) {
  const DeviceAddress vram = Vram(std::vector<uint8_t>(256 * 4, 0));
  std::vector<uint8_t> host(256 * 8);
  const PitchedSide dev{vram, Bytes(256), Bytes(1024)};
  const PitchedSide user{Addr(host.data()), Bytes(256), Bytes(2048)};
  ASSERT_THAT(stream_->Finish(), IsOk());
  // The last row of 5 runs past the 4-row allocation; so does a second slice.
  EXPECT_THAT(blit_->CopyRect(dev, user, RectExtent{Bytes(10), 5, 1}), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(blit_->CopyRect(user, dev, RectExtent{Bytes(10), 4, 2}), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(blit_->CopyRect(PitchedSide{vram + Bytes(3 * 256 + 250), Bytes(256), Bytes(1024)}, user,
                              RectExtent{Bytes(10), 1, 1}),
              StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(blit_->CopyRect(dev, user, RectExtent{Bytes(257), 2, 1}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(blit_->CopyRect(PitchedSide{DeviceAddress(0), Bytes(256), Bytes(0)}, user, RectExtent{Bytes(1), 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(stream_->Idle()) << "a refused rectangle queues nothing";
  EXPECT_THAT(blit_->CopyRect(dev, user, RectExtent{Bytes(0), 5, 1}), IsOk());
  EXPECT_THAT(ctx_->Free(vram), IsOk());
}

TEST_F(BlitRectTest, FillsPartialRectanglesAndOnlyThem) {
  const std::vector<uint8_t> before = Pattern(128 * 6 * 3, 0x44);
  const DeviceAddress vram = Vram(before);
  // 2D at an odd offset (byte fills), then 3D dword-aligned (dword fills).
  const Layout odd{128 + 3, 128, 0};
  ASSERT_THAT(blit_->FillRect(At(vram.ToPointer(), odd), 0xa5, RectExtent{Bytes(61), 4, 1}), IsOk());
  const Layout vol{128 * 6 + 128 + 8, 128, 128 * 6};
  ASSERT_THAT(blit_->FillRect(At(vram.ToPointer(), vol), 0x3c, RectExtent{Bytes(64), 3, 2}), IsOk());
  std::vector<uint8_t> want = before;
  const std::vector<uint8_t> a5(128 * 6 * 3, 0xa5);
  const std::vector<uint8_t> c3(128 * 6 * 3, 0x3c);
  want = Expected(want, odd, a5, Layout{0, 128, 0}, 61, 4, 1);
  want = Expected(want, vol, c3, Layout{0, 128, 128 * 6}, 64, 3, 2);
  EXPECT_EQ(Read(vram, before.size()), want);
  // Many rows, more than a staging chunk of them: the rows of value are copied chunk by chunk.
  const std::vector<uint8_t> tall_before = Pattern(64 * 40000, 0x12);
  const DeviceAddress tall = Vram(tall_before);
  ASSERT_THAT(blit_->FillRect(PitchedSide{tall + Bytes(4), Bytes(64), Bytes(0)}, 0xe1, RectExtent{Bytes(40), 39999, 1}),
              IsOk());
  EXPECT_TRUE(Read(tall, tall_before.size()) ==
              Expected(tall_before, Layout{4, 64, 0}, std::vector<uint8_t>(64 * 40000, 0xe1), Layout{0, 64, 0}, 40,
                       39999, 1));
  EXPECT_THAT(ctx_->Free(tall), IsOk());
  // A contiguous one is a single fill.
  ASSERT_THAT(blit_->FillRect(PitchedSide{vram, Bytes(128), Bytes(128 * 6)}, 0, RectExtent{Bytes(128), 6, 3}), IsOk());
  EXPECT_EQ(Read(vram, before.size()), std::vector<uint8_t>(before.size(), 0));

  std::vector<uint8_t> pageable(1024);
  EXPECT_THAT(blit_->FillRect(PitchedSide{Addr(pageable.data()), Bytes(32), Bytes(0)}, 1, RectExtent{Bytes(8), 2, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(blit_->FillRect(PitchedSide{vram, Bytes(128), Bytes(128 * 6)}, 1, RectExtent{Bytes(128), 6, 4}),
              StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(blit_->FillRect(PitchedSide{vram, Bytes(128), Bytes(128 * 6)}, 1, RectExtent{Bytes(129), 2, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(blit_->FillRect(PitchedSide{DeviceAddress(0), Bytes(128), Bytes(0)}, 1, RectExtent{Bytes(1), 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(blit_->FillRect(PitchedSide{vram, Bytes(128), Bytes(0)}, 1, RectExtent{Bytes(0), 2, 1}), IsOk());
  EXPECT_THAT(ctx_->Free(vram), IsOk());
}

}  // namespace
}  // namespace hipmem::clr
