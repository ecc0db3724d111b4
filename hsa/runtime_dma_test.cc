// hsa_memory_copy (Copies::CopySync) on the simulated DMA engines: copies that touch VRAM run on the GPU's
// SDMA queue or blit kernel, so they work on a GPU whose VRAM the CPU cannot reach, and a CPU touch of that
// VRAM still faults. Built twice (see BUILD): on the default MI300X (large BAR) and with
// HIPMEM_SIM_PRESET=rx7900xtx (small BAR, private VRAM).
#include <sys/mman.h>

#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

#include "base/trace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/copy.h"
#include "hsa/hsa_status.h"
#include "hsa/hsa_test_util.h"
#include "hsa/runtime.h"
#include "hsa/runtime_testing.h"
#include "hsa/runtime_kfd.h"
#include "hsa/signal_allocator.h"
#include "testing/status_matchers.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

class RuntimeDmaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(rt_, Runtime::Create());
    const hsa_test::RuntimeAgents agents = hsa_test::SplitAgents(*rt_);
    cpu_ = agents.cpu;
    gpus_ = agents.gpus;
    ASSERT_FALSE(gpus_.empty());
    signals_ = std::make_unique<SignalAllocator>(KfdOf(*rt_), /*interrupts=*/true);
    copies_ = Copies::Create(*rt_, *signals_, CopyFlags{});
  }

  void TearDown() override {
    copies_.reset();  // its queues go before the signals and memory they use
    signals_.reset();
  }

  absl::Status Copy(DeviceAddress dst, DeviceAddress src, Bytes size) { return copies_->CopySync(dst, src, size); }

  const MemoryPool& Pool(const Agent& agent, GlobalFlags flags) {
    if (const MemoryPool* pool = hsa_test::GlobalPool(*rt_, agent, flags)) return *pool;
    ADD_FAILURE() << "no such pool";
    return *rt_->GetPool(agent.pools[0]).value();
  }

  DeviceAddress Vram(const Agent& gpu, Bytes size) {
    absl::StatusOr<DeviceAddress> a = Unowned(rt_->Allocate(Pool(gpu, GlobalFlags::kCoarseGrained).id, size));
    EXPECT_THAT(a, IsOk());
    return a.value_or(DeviceAddress(0));
  }

  bool VramIsHostVisible() {
    return thunk::HasFlag(KmtFlagsOf(*rt_, Pool(*gpus_[0], GlobalFlags::kCoarseGrained)), thunk::MemFlags::kHostAccess);
  }

  std::unique_ptr<Runtime> rt_;
  std::unique_ptr<SignalAllocator> signals_;
  std::unique_ptr<Copies> copies_;
  const Agent* cpu_ = nullptr;
  std::vector<const Agent*> gpus_;
};

TEST_F(RuntimeDmaTest, HostToVramToHostRoundTripsOnTheSdmaEngine) {
  const Bytes size = Bytes::MiB(3) + Bytes(12345);
  std::vector<uint8_t> in(size.raw()), out(size.raw(), 0);
  std::iota(in.begin(), in.end(), 7);
  const DeviceAddress vram = Vram(*gpus_[0], size);
  // Unregistered host memory (a std::vector): pinned for each copy and released after.
  ASSERT_THAT(Copy(vram, DeviceAddress::FromPointer(in.data()), size), IsOk());
  ASSERT_THAT(Copy(DeviceAddress::FromPointer(out.data()), vram, size), IsOk());
  EXPECT_EQ(in, out);
  // Unaligned offsets inside the allocation.
  std::vector<uint8_t> tail(1000, 0);
  ASSERT_THAT(Copy(DeviceAddress::FromPointer(tail.data()), vram + Bytes(4097), Bytes(1000)), IsOk());
  EXPECT_EQ(0, std::memcmp(tail.data(), in.data() + 4097, 1000));

  // The copies left nothing pinned.
  EXPECT_EQ(KfdOf(*rt_).QueryPointerInfo(in.data()).type, thunk::PointerType::kUnknown);
  EXPECT_EQ(KfdOf(*rt_).QueryPointerInfo(out.data()).type, thunk::PointerType::kUnknown);
}

// Records which engine each hsa_memory_copy chose.
class EngineLog final : public TraceSink {
 public:
  EngineLog() : previous_(SetTraceSink(this)) {}
  ~EngineLog() override { SetTraceSink(previous_); }
  void Record(Layer layer, absl::string_view message) override {
    if (layer == Layer::kHsa && absl::StrContains(message, "hsa_memory_copy")) lines.emplace_back(message);
  }
  std::vector<std::string> lines;

 private:
  TraceSink* previous_;
};

TEST_F(RuntimeDmaTest, EachCopyRunsOnTheEngineRocrWouldPick) {
  const Bytes size = Bytes::KiB(256);
  const DeviceAddress a = Vram(*gpus_[0], size);
  const DeviceAddress b = Vram(*gpus_[0], size);
  ASSERT_OK_AND_ASSIGN(const DeviceAddress host, Unowned(rt_->Allocate(Pool(*cpu_, GlobalFlags::kCoarseGrained).id, size)));
  ASSERT_OK_AND_ASSIGN(const DeviceAddress host2, Unowned(rt_->Allocate(Pool(*cpu_, GlobalFlags::kCoarseGrained).id, size)));
  EngineLog log;
  ASSERT_THAT(Copy(a, host, size), IsOk());
  ASSERT_THAT(Copy(b, a, size), IsOk());
  ASSERT_THAT(Copy(host, b, size), IsOk());
  ASSERT_THAT(Copy(host2, host, size), IsOk());
  ASSERT_EQ(log.lines.size(), 4u);
  EXPECT_THAT(log.lines[0], ::testing::HasSubstr(" on SDMA engine 1 of node")) << "host to device";
  EXPECT_THAT(log.lines[1], ::testing::HasSubstr(" on the blit kernel of node")) << "device to device: BlitDevToDev";
  EXPECT_THAT(log.lines[2], ::testing::HasSubstr(" on SDMA engine")) << "device to host";
  EXPECT_THAT(log.lines[3], ::testing::EndsWith(" on the calling CPU thread")) << "host to host";
}

TEST_F(RuntimeDmaTest, VramToVramAndSystemPoolsUseTheEngine) {
  const Bytes size = Bytes::MiB(1);
  const DeviceAddress a = Vram(*gpus_[0], size);
  const DeviceAddress b = Vram(*gpus_[0], size);
  ASSERT_OK_AND_ASSIGN(const DeviceAddress host, Unowned(rt_->Allocate(Pool(*cpu_, GlobalFlags::kCoarseGrained).id, size)));
  std::memset(host.ToPointer(), 0x5c, size.raw());
  ASSERT_THAT(Copy(a, host, size), IsOk());
  ASSERT_THAT(Copy(b, a, size), IsOk());
  std::memset(host.ToPointer(), 0, size.raw());
  ASSERT_THAT(Copy(host, b, size), IsOk());
  const auto* bytes = static_cast<const uint8_t*>(host.ToPointer());
  EXPECT_EQ(bytes[0], 0x5c);
  EXPECT_EQ(bytes[size.raw() - 1], 0x5c);
}

TEST_F(RuntimeDmaTest, CopyToUnmappedHostMemoryIsRefusedAndLeavesNothingBehind) {
  const DeviceAddress vram = Vram(*gpus_[0], Bytes::KiB(64));
  void* gone = mmap(nullptr, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  EXPECT_FALSE(Copy(DeviceAddress::FromPointer(gone), vram, Bytes::KiB(64)).ok())
      << "the kernel refuses to pin PROT_NONE pages";
  munmap(gone, 65536);
  std::vector<uint8_t> ok(65536);
  EXPECT_THAT(Copy(DeviceAddress::FromPointer(ok.data()), vram, Bytes::KiB(64)), IsOk()) << "the engine still works";
}

TEST_F(RuntimeDmaTest, CopyMovesBytesBetweenPoolsAndChecksBounds) {
  const MemoryPool& sys = Pool(*cpu_, GlobalFlags::kFineGrained);
  const DeviceAddress d = Vram(*gpus_[0], Bytes::KiB(8));
  ASSERT_OK_AND_ASSIGN(DeviceAddress h, Unowned(rt_->Allocate(sys.id, Bytes::KiB(8))));
  std::vector<unsigned char> src(8192), dst(8192, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i);
  ASSERT_THAT(Copy(d, DeviceAddress::FromPointer(src.data()), Bytes(8192)), IsOk());
  ASSERT_THAT(Copy(h, d, Bytes(8192)), IsOk());
  ASSERT_THAT(Copy(DeviceAddress::FromPointer(dst.data()), h, Bytes(8192)), IsOk());
  EXPECT_EQ(src, dst);
  EXPECT_THAT(Copy(d + Bytes(1), h, Bytes(8192)), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(Copy(h, d + Bytes(1), Bytes(8192)), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(Copy(DeviceAddress(0), h, Bytes(1)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Copy(h, DeviceAddress(0), Bytes(0)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(ToHsaStatus(Copy(DeviceAddress(0), h, Bytes(0))), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(Copy(d, h, Bytes(0)), IsOk());
  EXPECT_THAT(rt_->Free(d), IsOk());
  EXPECT_THAT(rt_->Free(h), IsOk());
}

// With HSA_ENABLE_SDMA=0 (CopyFlags::enable_sdma = false) every GPU copy runs on the blit kernel.
TEST_F(RuntimeDmaTest, WithoutSdmaHostCopiesRunOnTheBlitKernel) {
  copies_.reset();
  CopyFlags flags;
  flags.enable_sdma = false;
  copies_ = Copies::Create(*rt_, *signals_, flags);
  const Bytes size = Bytes::KiB(64);
  const DeviceAddress vram = Vram(*gpus_[0], size);
  std::vector<uint8_t> in(size.raw()), out(size.raw(), 0);
  std::iota(in.begin(), in.end(), 3);
  EngineLog log;
  ASSERT_THAT(Copy(vram, DeviceAddress::FromPointer(in.data()), size), IsOk());
  ASSERT_THAT(Copy(DeviceAddress::FromPointer(out.data()), vram, size), IsOk());
  EXPECT_EQ(in, out);
  ASSERT_EQ(log.lines.size(), 2u);
  EXPECT_THAT(log.lines[0], ::testing::HasSubstr(" on the blit kernel of node"));
  EXPECT_THAT(log.lines[1], ::testing::HasSubstr(" on the blit kernel of node"));
}

TEST_F(RuntimeDmaTest, CpuTouchOfPrivateVramFaults) {
  if (VramIsHostVisible()) GTEST_SKIP() << "this machine's VRAM is FRAME_BUFFER_PUBLIC";
  const DeviceAddress vram = Vram(*gpus_[0], Bytes::KiB(4));
  EXPECT_DEATH(*static_cast<volatile uint8_t*>(vram.ToPointer()) = 1, "");
}

}  // namespace
}  // namespace hipmem::hsa
