// The blit manager over the real runtime and simulator: every path current CLR takes, checked byte for byte,
// with the path it reports.
#include "clr/blit_manager.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/memory.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 12));
  return v;
}

DeviceAddress Addr(const void* p) { return DeviceAddress::FromPointer(const_cast<void*>(p)); }

class BlitManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void TearDown() override { Close(); }

  void Open() {
    ASSERT_OK_AND_ASSIGN(ctx_, Context::Create());
    device_ = &ctx_->devices()[0];
    ASSERT_OK_AND_ASSIGN(stream_, Stream::Create(*ctx_, *device_));
    ASSERT_OK_AND_ASSIGN(blit_, BlitManager::Create(*ctx_, *stream_));
  }
  void Close() {
    blit_.reset();
    stream_.reset();
    ctx_.reset();
  }

  DeviceAddress Vram(Bytes size, const Device* device = nullptr) {
    absl::StatusOr<DeviceAddress> a = Released(ctx_->AllocDevice(device != nullptr ? *device : *device_, size, 0));
    EXPECT_THAT(a, IsOk());
    return a.value_or(DeviceAddress(0));
  }
  uint8_t* Pinned(Bytes size) {
    absl::StatusOr<DeviceAddress> a = Released(ctx_->AllocHost(*device_, size, HostCoherence::kCoherent, 0));
    EXPECT_THAT(a, IsOk());
    return a.ok() ? static_cast<uint8_t*>(a->ToPointer()) : nullptr;
  }

  // Up to the device and back through `path_in` / `path_out`, from pageable memory at an odd offset.
  void RoundTrip(size_t size, CopyPath path_in, CopyPath path_out) {
    const std::vector<uint8_t> in = Pattern(size + 3, 0x21);
    std::vector<uint8_t> out(size + 3, 0);
    const DeviceAddress vram = Vram(Bytes(size));
    EXPECT_THAT(blit_->Copy(vram, Addr(in.data() + 3), Bytes(size)), IsOkAndHolds(path_in)) << size;
    EXPECT_THAT(blit_->Copy(Addr(out.data() + 3), vram, Bytes(size)), IsOkAndHolds(path_out)) << size;
    ASSERT_THAT(stream_->Finish(), IsOk());
    EXPECT_TRUE(std::equal(in.begin() + 3, in.end(), out.begin() + 3)) << size;
    EXPECT_EQ(out[0] | out[1] | out[2], 0) << "bytes before the destination were written";
    EXPECT_THAT(ctx_->Free(vram), IsOk());
  }

  std::unique_ptr<Context> ctx_;
  const Device* device_ = nullptr;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<BlitManager> blit_;
};

TEST_F(BlitManagerTest, PageableMemoryIsStagedUpTo16KiBAndPinnedInChunksAbove) {
  RoundTrip(1, CopyPath::kStagedShaderCopy, CopyPath::kStagedShaderCopy);
  RoundTrip(16 * 1024, CopyPath::kStagedShaderCopy, CopyPath::kStagedShaderCopy);
  RoundTrip(16 * 1024 + 1, CopyPath::kStagedOrPinnedSdma, CopyPath::kStagedOrPinnedSdma);
  RoundTrip(3 * 1024 * 1024 + 5, CopyPath::kStagedOrPinnedSdma, CopyPath::kStagedOrPinnedSdma);
}

TEST_F(BlitManagerTest, PinnedChunksLeaveNothingLockedBehind) {
  const std::vector<uint8_t> in = Pattern(1 << 20, 3);
  const DeviceAddress vram = Vram(Bytes(1 << 20));
  ASSERT_THAT(blit_->Copy(vram, Addr(in.data()), Bytes(1 << 20)), IsOkAndHolds(CopyPath::kStagedOrPinnedSdma));
  // The pages were unlocked: registering them now succeeds, which a still-held lock on them would refuse.
  EXPECT_THAT(ctx_->RegisterHost(*device_, Addr(in.data()), Bytes(1 << 20), 0), IsOk());
  EXPECT_THAT(ctx_->UnregisterHost(Addr(in.data())), IsOk());
}

TEST_F(BlitManagerTest, WithoutPinningLargeCopiesCycleTheStagingRing) {
  Close();
  setenv("GPU_PINNED_MIN_XFER_SIZE", "4096", 1);  // MiB: never pin
  Open();
  unsetenv("GPU_PINNED_MIN_XFER_SIZE");
  // 9.5 chunks of the 1 MiB ring: every chunk is reused after the stream has drained it.
  RoundTrip(9 * 1024 * 1024 + 512 * 1024, CopyPath::kStagedOrPinnedSdma, CopyPath::kStagedOrPinnedSdma);
}

TEST_F(BlitManagerTest, PinnedHostMemoryGoesToTheShaderCopyOrSdmaBySize) {
  const size_t kBig = 1 << 20;
  uint8_t* pinned = Pinned(Bytes(kBig));
  const std::vector<uint8_t> in = Pattern(kBig, 9);
  std::copy(in.begin(), in.end(), pinned);
  const DeviceAddress vram = Vram(Bytes(kBig));
  EXPECT_THAT(blit_->Copy(vram, Addr(pinned), Bytes(4096)), IsOkAndHolds(CopyPath::kShaderCopy));
  EXPECT_THAT(blit_->Copy(vram + Bytes(4096), Addr(pinned + 4096), Bytes(kBig - 4096)),
              IsOkAndHolds(CopyPath::kSdma));
  std::vector<uint8_t> out(kBig, 0);
  EXPECT_THAT(blit_->Copy(Addr(out.data()), vram, Bytes(kBig)), IsOkAndHolds(CopyPath::kStagedOrPinnedSdma));
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_EQ(out, in);
  // Back into pinned memory, which the GPU reaches directly.
  std::fill(pinned, pinned + kBig, 0);
  EXPECT_THAT(blit_->Copy(Addr(pinned), vram, Bytes(kBig)), IsOkAndHolds(CopyPath::kSdma));
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_TRUE(std::equal(in.begin(), in.end(), pinned));
  // Between pageable and pinned host memory the CPU copies.
  std::vector<uint8_t> back(kBig, 0);
  EXPECT_THAT(blit_->Copy(Addr(back.data()), Addr(pinned), Bytes(kBig)), IsOkAndHolds(CopyPath::kHostMemcpy));
  EXPECT_EQ(back, in);
}

TEST_F(BlitManagerTest, RegisteredMemoryIsReachedThroughItsGpuAddress) {
  const size_t kSize = 256 * 1024;
  std::vector<uint8_t> user = Pattern(kSize, 0x55);
  ASSERT_THAT(ctx_->RegisterHost(*device_, Addr(user.data()), Bytes(kSize), 0), IsOk());
  const DeviceAddress vram = Vram(Bytes(kSize));
  EXPECT_THAT(blit_->Copy(vram, Addr(user.data()), Bytes(kSize)), IsOkAndHolds(CopyPath::kSdma));
  ASSERT_THAT(stream_->Finish(), IsOk()) << "the SDMA engine reads the caller's pages until the copy is done";
  std::vector<uint8_t> expected = user;
  std::fill(user.begin(), user.end(), 0);
  EXPECT_THAT(blit_->Copy(Addr(user.data()) + Bytes(100), vram + Bytes(100), Bytes(1000)),
              IsOkAndHolds(CopyPath::kShaderCopy));
  ASSERT_THAT(stream_->Finish(), IsOk());
  for (size_t i = 0; i < kSize; ++i) {
    ASSERT_EQ(user[i], (i >= 100 && i < 1100) ? expected[i] : 0) << i;
  }
  EXPECT_THAT(ctx_->UnregisterHost(Addr(user.data())), IsOk());
}

TEST_F(BlitManagerTest, DeviceToDeviceStaysOnTheKernelUnlessNoCuAsksForSdma) {
  const size_t kSize = 2 << 20;
  const std::vector<uint8_t> in = Pattern(kSize, 1);
  const DeviceAddress a = Vram(Bytes(kSize));
  const DeviceAddress b = Vram(Bytes(kSize));
  const DeviceAddress c = Vram(Bytes(kSize));
  std::vector<uint8_t> out(kSize, 0);
  ASSERT_THAT(blit_->Copy(a, Addr(in.data()), Bytes(kSize)), IsOk());
  EXPECT_THAT(blit_->Copy(b, a, Bytes(kSize)), IsOkAndHolds(CopyPath::kShaderCopy));
  EXPECT_THAT(blit_->Copy(c, b, Bytes(kSize), /*prefer_sdma=*/true), IsOkAndHolds(CopyPath::kSdma));
  ASSERT_THAT(blit_->Copy(Addr(out.data()), c, Bytes(kSize)), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_EQ(out, in);
}

TEST_F(BlitManagerTest, PeerCopiesUseTheNarrowKernelUpToROC_P2P_SDMA_SIZE) {
  if (ctx_->devices().size() < 2) GTEST_SKIP() << "one GPU in this preset";
  const Device& peer = ctx_->devices()[1];
  const size_t kSize = 2 << 20;
  const std::vector<uint8_t> in = Pattern(kSize, 77);
  const DeviceAddress mine = Vram(Bytes(kSize));
  const DeviceAddress theirs = Vram(Bytes(kSize), &peer);
  // Peer access (hipDeviceEnablePeerAccess): the peer's VRAM is mapped on this device too.
  const hsa::AgentId me = device_->agent;
  ASSERT_THAT(ctx_->runtime().memory().AllowAccess(std::span<const hsa::AgentId>(&me, 1), theirs), IsOk());
  std::vector<uint8_t> out(kSize, 0);
  ASSERT_THAT(blit_->Copy(mine, Addr(in.data()), Bytes(kSize)), IsOk());
  EXPECT_THAT(blit_->Copy(theirs, mine, Bytes(1 << 20)), IsOkAndHolds(CopyPath::kShaderCopyLimitedWg));
  EXPECT_THAT(blit_->Copy(theirs + Bytes(1 << 20), mine + Bytes(1 << 20), Bytes(1 << 20)),
              IsOkAndHolds(CopyPath::kShaderCopyLimitedWg));
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_THAT(blit_->Copy(mine, theirs, Bytes(kSize)), IsOkAndHolds(CopyPath::kSdma));
  ASSERT_THAT(blit_->Copy(Addr(out.data()), mine, Bytes(kSize)), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_EQ(out, in);
}

TEST_F(BlitManagerTest, FillsReachDeviceAndRegisteredMemoryAndRefuseTheRest) {
  const DeviceAddress vram = Vram(Bytes(8192));
  ASSERT_THAT(blit_->Fill(vram + Bytes(2), 0xbeef, 2, 3000), IsOk());
  std::vector<uint8_t> out(8192, 0);
  ASSERT_THAT(blit_->Copy(Addr(out.data()), vram, Bytes(8192)), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_EQ(out[2], 0xef);
  EXPECT_EQ(out[3], 0xbe);
  EXPECT_EQ(out[6001], 0xbe);
  std::vector<uint8_t> user(8192, 0);
  ASSERT_THAT(ctx_->RegisterHost(*device_, Addr(user.data()), Bytes(8192), 0), IsOk());
  ASSERT_THAT(blit_->Fill(Addr(user.data()) + Bytes(5), 0x7e, 1, 10), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_EQ(user[4], 0);
  EXPECT_EQ(user[5], 0x7e);
  EXPECT_EQ(user[14], 0x7e);
  EXPECT_EQ(user[15], 0);
  EXPECT_THAT(ctx_->UnregisterHost(Addr(user.data())), IsOk());

  std::vector<uint8_t> pageable(64);
  EXPECT_THAT(blit_->Fill(Addr(pageable.data()), 1, 1, 64), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(blit_->Fill(vram, 1, 4, 2049), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(blit_->Fill(DeviceAddress(0), 1, 4, 1), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(blit_->Fill(vram, 1, 4, 0), IsOk());
}

TEST_F(BlitManagerTest, RefusesCopiesPastAnObjectAndNullPointers) {
  const DeviceAddress vram = Vram(Bytes(4096));
  std::vector<uint8_t> host(8192);
  EXPECT_THAT(blit_->Copy(vram, Addr(host.data()), Bytes(4097)), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(blit_->Copy(Addr(host.data()), vram + Bytes(1), Bytes(4096)), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(blit_->Copy(DeviceAddress(0), vram, Bytes(16)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(stream_->Idle()) << "a refused copy queues nothing";
}

}  // namespace
}  // namespace hipmem::clr
