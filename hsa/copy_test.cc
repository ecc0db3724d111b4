// Copies: asynchronous copies and fills on the simulated engines. Built once per preset (see BUILD): mi300x,
// 2xmi250x (hive peers over XGMI) and rx7900xtx (private VRAM the CPU cannot touch, so every check of VRAM
// contents goes through a copy back to host memory).
#include "hsa/copy.h"

#include <stdlib.h>
#include <time.h>

#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "base/lookup_count.h"
#include "base/scoped_lock.h"
#include "base/trace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/hsa_test_util.h"
#include "hsa/runtime.h"
#include "hsa/runtime_testing.h"
#include "hsa/runtime_kfd.h"
#include "hsa/signal.h"
#include "hsa/signal_allocator.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;

constexpr absl::Duration kPatience = absl::Seconds(20);

// Records the engine line Copies traces for each GPU copy.
class EngineLog final : public TraceSink {
 public:
  EngineLog() : previous_(SetTraceSink(this)) {}
  ~EngineLog() override { SetTraceSink(previous_); }
  void Record(Layer layer, absl::string_view message) override {
    if (layer != Layer::kHsa || !absl::StrContains(message, "hsa_amd_memory_async_copy(")) return;
    ScopedLock lock(&mu_);
    lines_.emplace_back(message);
  }
  std::string Last() {
    ScopedLock lock(&mu_);
    return lines_.empty() ? "" : lines_.back();
  }

 private:
  TraceSink* previous_;
  absl::Mutex mu_;
  std::vector<std::string> lines_;
};

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), seed);
  return v;
}

DeviceAddress Addr(const void* p) { return DeviceAddress::FromPointer(const_cast<void*>(p)); }

class CopiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(rt_, Runtime::Create());
    const hsa_test::RuntimeAgents agents = hsa_test::SplitAgents(*rt_);
    cpu_ = agents.cpu;
    gpus_ = agents.gpus;
    ASSERT_FALSE(gpus_.empty());
    signals_ = std::make_unique<SignalAllocator>(KfdOf(*rt_), /*interrupts=*/true);
    MakeCopies(CopyFlags{});
  }

  void TearDown() override {
    copies_.reset();
    held_.clear();
    signals_.reset();
  }

  void MakeCopies(CopyFlags flags) {
    copies_.reset();
    copies_ = Copies::Create(*rt_, *signals_, flags);
  }

  DeviceAddress Vram(const Agent& gpu, Bytes size) { return AllocateFrom(gpu, GlobalFlags::kCoarseGrained, size); }
  DeviceAddress SystemMemory(Bytes size) { return AllocateFrom(*cpu_, GlobalFlags::kFineGrained, size); }

  DeviceAddress AllocateFrom(const Agent& agent, GlobalFlags flags, Bytes size) {
    const MemoryPool* pool = hsa_test::GlobalPool(*rt_, agent, flags);
    if (pool == nullptr) {
      ADD_FAILURE() << "no pool with global flags " << ToRaw(flags);
      return DeviceAddress(0);
    }
    absl::StatusOr<DeviceAddress> a = Unowned(rt_->Allocate(pool->id, size));
    EXPECT_THAT(a, IsOk());
    return a.value_or(DeviceAddress(0));
  }

  // A signal the test keeps until TearDown.
  const SignalRef& NewSignal(SignalValue initial) {
    absl::StatusOr<Signal> s = Signal::Create(*signals_, initial);
    EXPECT_THAT(s, IsOk());
    held_.push_back(std::move(s).value());
    return held_.back().ref();
  }

  absl::Status Copy(DeviceAddress dst, const Agent& dst_agent, DeviceAddress src, const Agent& src_agent, Bytes size,
                    const SignalRef& done, std::vector<SignalRef> deps = {}) {
    return copies_->Copy(CopyRequest{dst, dst_agent.id, src, src_agent.id, size, deps, &done});
  }

  // Waits for `signal` to reach 0 (or fail), returning its value.
  SignalValue Await(const SignalRef& signal) {
    return signal.Wait(SignalCondition::kLt, 1, kPatience, WaitHint::kBlocked);
  }

  // The contents of `size` bytes at `src` (any memory), read back through a D2H copy on `gpu`.
  std::vector<uint8_t> ReadBack(DeviceAddress src, const Agent& gpu, Bytes size) {
    std::vector<uint8_t> out(size.raw(), 0xee);
    const SignalRef& done = NewSignal(1);
    EXPECT_THAT(Copy(Addr(out.data()), *cpu_, src, gpu, size, done), IsOk());
    EXPECT_EQ(Await(done), 0);
    return out;
  }

  std::unique_ptr<Runtime> rt_;
  std::unique_ptr<SignalAllocator> signals_;
  std::unique_ptr<Copies> copies_;
  std::deque<Signal> held_;  // a deque: NewSignal hands out references that must stay valid
  const Agent* cpu_ = nullptr;
  std::vector<const Agent*> gpus_;
};

TEST_F(CopiesTest, HostToDeviceAndBackOnTheSdmaEngines) {
  EngineLog log;
  const Bytes size = Bytes::MiB(5) + Bytes(333);  // more than one COPY_LINEAR on 22-bit SDMA generations
  const std::vector<uint8_t> in = Pattern(size.raw(), 3);
  const DeviceAddress vram = Vram(*gpus_[0], size);
  const SignalRef& h2d = NewSignal(1);
  ASSERT_THAT(Copy(vram, *gpus_[0], Addr(in.data()), *cpu_, size, h2d), IsOk());
  EXPECT_EQ(Await(h2d), 0);
  EXPECT_THAT(log.Last(), testing::HasSubstr("on SDMA engine 1 "));  // the host-to-device engine
  EXPECT_EQ(ReadBack(vram, *gpus_[0], size), in);
  EXPECT_THAT(log.Last(), testing::HasSubstr("on SDMA engine 2 "));  // the device-to-host engine
}

// A copy whose caller resolved its sides (clr, issue #26): a side the copying GPU maps already is used as given, with
// no lookup in the runtime or the thunk; a side it does not reach yet (pageable memory, another GPU's VRAM) is still
// looked up, mapped or pinned, and the copy lands either way.
TEST_F(CopiesTest, ResolvedCopyLooksUpOnlyWhatTheCopyingGpuDoesNotMapYet) {
  const Agent& gpu = *gpus_[0];
  const Bytes size = Bytes::KiB(64);
  const std::vector<uint8_t> in = Pattern(size.raw(), 11);
  const DeviceAddress system = SystemMemory(size);  // mapped for every GPU when allocated
  std::memcpy(system.ToPointer(), in.data(), size.raw());
  const DeviceAddress vram = Vram(gpu, size);
  const ResolvedSide to_vram{.host = vram, .gpu = vram, .agent = gpu.id, .reach = ResolvedSide::Reach::kOwner};
  const ResolvedSide from_system{
      .host = system, .gpu = system, .agent = cpu_->id, .reach = ResolvedSide::Reach::kEveryGpu};

  const SignalRef& up = NewSignal(1);
  const uint64_t before = AddressLookupsOnThisThread();
  ASSERT_THAT(copies_->CopyResolved(
                  ResolvedCopyRequest{.dst = to_vram, .src = from_system, .size = size, .completion = &up}),
              IsOk());
  EXPECT_EQ(AddressLookupsOnThisThread() - before, 0u) << "both sides were mapped on the copying GPU";
  ASSERT_EQ(Await(up), 0);
  EXPECT_EQ(ReadBack(vram, gpu, size), in);

  // Pageable memory: the thunk is asked, and pins it for the copy.
  std::vector<uint8_t> out(size.raw(), 0);
  const ResolvedSide to_pageable{.host = Addr(out.data()), .gpu = Addr(out.data()), .agent = cpu_->id};
  const SignalRef& down = NewSignal(1);
  const uint64_t before_pageable = AddressLookupsOnThisThread();
  ASSERT_THAT(copies_->CopyResolved(
                  ResolvedCopyRequest{.dst = to_pageable, .src = to_vram, .size = size, .completion = &down}),
              IsOk());
  EXPECT_GE(AddressLookupsOnThisThread() - before_pageable, 1u);
  ASSERT_EQ(Await(down), 0);
  EXPECT_EQ(out, in);

  EXPECT_THAT(copies_->CopyResolved(ResolvedCopyRequest{.dst = to_vram, .src = from_system, .size = size}),
              StatusIs(absl::StatusCode::kInvalidArgument))
      << "no completion signal";
  if (gpus_.size() < 2) return;
  // Another GPU's VRAM, marked as its owner's: whichever GPU copies, one side is not its own and is looked up (and
  // mapped) rather than trusted.
  const Agent& peer = *gpus_[1];
  const DeviceAddress theirs = Vram(peer, size);
  const ResolvedSide to_peer{.host = theirs, .gpu = theirs, .agent = peer.id, .reach = ResolvedSide::Reach::kOwner};
  const SignalRef& across = NewSignal(1);
  const uint64_t before_peer = AddressLookupsOnThisThread();
  ASSERT_THAT(copies_->CopyResolved(
                  ResolvedCopyRequest{.dst = to_peer, .src = to_vram, .size = size, .completion = &across}),
              IsOk());
  EXPECT_GE(AddressLookupsOnThisThread() - before_peer, 1u);
  ASSERT_EQ(Await(across), 0);
  EXPECT_EQ(ReadBack(theirs, peer, size), in);
}

// A rectangle copy whose caller resolved its surfaces (clr's hipMemcpy2D/3D, issue #26): as for a linear one, a side
// the copy agent maps already is neither looked up nor bounded again, a side it does not reach yet is pinned, and the
// box lands either way with ROCr's argument checks still applied.
TEST_F(CopiesTest, ResolvedRectCopyLooksUpOnlyWhatTheCopyAgentDoesNotMapYet) {
  const Agent& gpu = *gpus_[0];
  constexpr uint64_t kSystemPitch = 96, kVramPitch = 128, kRows = 8;
  constexpr Dim3 kSystemOffset{8, 1, 0}, kVramOffset{4, 2, 0}, kBox{60, 5, 1};
  const std::vector<uint8_t> in = Pattern(kSystemPitch * kRows, 7);
  const DeviceAddress system = SystemMemory(Bytes(in.size()));  // mapped for every GPU when allocated
  std::memcpy(system.ToPointer(), in.data(), in.size());
  const std::vector<uint8_t> background = Pattern(kVramPitch * kRows, 200);
  const DeviceAddress vram = Vram(gpu, Bytes(background.size()));
  const SignalRef& filled = NewSignal(1);
  ASSERT_THAT(Copy(vram, gpu, Addr(background.data()), *cpu_, Bytes(background.size()), filled), IsOk());
  ASSERT_EQ(Await(filled), 0);
  const ResolvedSurface on_vram{
      ResolvedSide{.host = vram, .gpu = vram, .agent = gpu.id, .reach = ResolvedSide::Reach::kOwner},
      Bytes(kVramPitch), Bytes(0)};
  const ResolvedSurface on_system{
      ResolvedSide{.host = system, .gpu = system, .agent = cpu_->id, .reach = ResolvedSide::Reach::kEveryGpu},
      Bytes(kSystemPitch), Bytes(0)};
  auto request = [&](const ResolvedSurface& dst, Dim3 dst_offset, const ResolvedSurface& src, Dim3 src_offset,
                     const SignalRef* done) {
    return ResolvedCopyRectRequest{.dst = dst,
                                   .dst_offset = dst_offset,
                                   .src = src,
                                   .src_offset = src_offset,
                                   .range = kBox,
                                   .copy_agent = gpu.id,
                                   .direction = CopyDirection::kHostToDevice,
                                   .completion = done};
  };
  // What a surface holds after the box lands on it: its old bytes, except the box's rows.
  auto expected = [&](std::vector<uint8_t> dst, uint64_t dst_pitch, Dim3 dst_offset, const std::vector<uint8_t>& src,
                      uint64_t src_pitch, Dim3 src_offset) {
    for (uint64_t y = 0; y < kBox.y; ++y) {
      std::memcpy(&dst[(dst_offset.y + y) * dst_pitch + dst_offset.x],
                  &src[(src_offset.y + y) * src_pitch + src_offset.x], kBox.x);
    }
    return dst;
  };

  const SignalRef& up = NewSignal(1);
  const uint64_t before = AddressLookupsOnThisThread();
  ASSERT_THAT(copies_->CopyRectResolved(request(on_vram, kVramOffset, on_system, kSystemOffset, &up)), IsOk());
  EXPECT_EQ(AddressLookupsOnThisThread() - before, 0u) << "both surfaces were mapped on the copy agent";
  ASSERT_EQ(Await(up), 0);
  const std::vector<uint8_t> landed = ReadBack(vram, gpu, Bytes(background.size()));
  EXPECT_EQ(landed, expected(background, kVramPitch, kVramOffset, in, kSystemPitch, kSystemOffset));

  // Pageable memory: the thunk is asked, and pins the box's bytes for the copy.
  std::vector<uint8_t> out(kSystemPitch * kRows, 0xee);
  const ResolvedSurface on_pageable{
      ResolvedSide{.host = Addr(out.data()), .gpu = Addr(out.data()), .agent = cpu_->id}, Bytes(kSystemPitch),
      Bytes(0)};
  const std::vector<uint8_t> out_before = out;
  const SignalRef& down = NewSignal(1);
  const uint64_t before_pageable = AddressLookupsOnThisThread();
  ASSERT_THAT(copies_->CopyRectResolved(request(on_pageable, kSystemOffset, on_vram, kVramOffset, &down)), IsOk());
  EXPECT_GE(AddressLookupsOnThisThread() - before_pageable, 1u);
  ASSERT_EQ(Await(down), 0);
  EXPECT_EQ(out, expected(out_before, kSystemPitch, kSystemOffset, landed, kVramPitch, kVramOffset));

  // ROCr's checks hold on this way in too; nothing is queued and the signal keeps its value.
  const SignalRef& refused = NewSignal(1);
  ResolvedSurface odd_pitch = on_system;
  odd_pitch.pitch = Bytes(kSystemPitch - 2);
  EXPECT_THAT(copies_->CopyRectResolved(request(on_vram, kVramOffset, odd_pitch, kSystemOffset, &refused)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(copies_->CopyRectResolved(request(on_vram, kVramOffset, on_system, kSystemOffset, nullptr)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  ResolvedCopyRectRequest empty = request(on_vram, kVramOffset, on_system, kSystemOffset, &refused);
  empty.range.y = 0;
  EXPECT_THAT(copies_->CopyRectResolved(empty), IsOk());
  EXPECT_EQ(refused.Load(MemoryOrder::kAcquire), 1);
}

TEST_F(CopiesTest, UnregisteredHostMemoryIsUnpinnedBeforeTheSignalSaysDone) {
  const Agent& gpu = *gpus_[0];
  std::vector<uint8_t> in = Pattern(100000, 6), out(100000, 0);
  const DeviceAddress vram = Vram(gpu, Bytes(100000));
  const SignalRef& up = NewSignal(1);
  const SignalRef& down = NewSignal(1);
  ASSERT_THAT(Copy(vram, gpu, Addr(in.data()), *cpu_, Bytes(100000), up), IsOk());
  ASSERT_THAT(Copy(Addr(out.data()), *cpu_, vram, gpu, Bytes(100000), down, {up}), IsOk());
  ASSERT_EQ(Await(down), 0);
  // The owner may free the buffers the moment the signal reads 0: nothing of them is still registered.
  EXPECT_EQ(KfdOf(*rt_).QueryPointerInfo(in.data()).type, thunk::PointerType::kUnknown);
  EXPECT_EQ(KfdOf(*rt_).QueryPointerInfo(out.data()).type, thunk::PointerType::kUnknown);
  EXPECT_EQ(in, out);
}

// Back-to-back copies into the same unregistered host buffer: the first to finish unpins only once nobody else
// uses the pin, and a copy queued while that unpin is pending pins afresh instead of mapping a registration that
// is about to go (which faulted the engine about once in 30 runs).
TEST_F(CopiesTest, CopiesSharingUnregisteredHostMemoryNeverLoseTheirPin) {
  const Agent& gpu = *gpus_[0];
  const std::vector<uint8_t> in = Pattern(4096, 8);
  const DeviceAddress vram = Vram(gpu, Bytes(4096));
  const SignalRef& up = NewSignal(1);
  ASSERT_THAT(Copy(vram, gpu, Addr(in.data()), *cpu_, Bytes(4096), up), IsOk());
  ASSERT_EQ(Await(up), 0);
  std::vector<uint8_t> out(4096, 0);
  for (int round = 0; round < 300; ++round) {
    const SignalRef& done = NewSignal(3);
    for (int i = 0; i < 3; ++i) {
      ASSERT_THAT(Copy(Addr(out.data()), *cpu_, vram, gpu, Bytes(4096), done), IsOk());
    }
    ASSERT_EQ(Await(done), 0) << "round " << round;
  }
  EXPECT_EQ(out, in);
  EXPECT_EQ(KfdOf(*rt_).QueryPointerInfo(out.data()).type, thunk::PointerType::kUnknown) << "unpinned at the end";
}

TEST_F(CopiesTest, BlitKernelCopyWaitsForMoreThanOneBarrierOfDependencies) {
  const Agent& gpu = *gpus_[0];
  const Bytes size = Bytes::MiB(1);  // a same-GPU copy this large runs on the blit kernel
  const std::vector<uint8_t> in = Pattern(size.raw(), 31);
  const DeviceAddress a = Vram(gpu, size), b = Vram(gpu, size);
  const SignalRef& up = NewSignal(1);
  ASSERT_THAT(Copy(a, gpu, Addr(in.data()), *cpu_, size, up), IsOk());
  ASSERT_EQ(Await(up), 0);
  std::vector<SignalRef> deps;
  for (int i = 0; i < 7; ++i) deps.push_back(NewSignal(1));  // two BARRIER_AND packets
  const SignalRef& done = NewSignal(1);
  ASSERT_THAT(Copy(b, gpu, a, gpu, size, done, deps), IsOk());
  for (int i = 0; i < 7; ++i) {
    absl::SleepFor(absl::Milliseconds(5));
    EXPECT_EQ(done.Load(MemoryOrder::kAcquire), 1) << "ran with dependency " << i << " still open";
    deps[i].Store(0, MemoryOrder::kRelease);
  }
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(ReadBack(b, gpu, size), in);
}

TEST(CopyFlagsTest, ReadsRocrsEnvironmentVariables) {
  ::unsetenv("HSA_ENABLE_SDMA");
  ::unsetenv("HSA_ENABLE_PEER_SDMA");
  ::unsetenv("HSA_FORCE_SDMA_SIZE");
  const CopyFlags defaults = CopyFlags::FromEnvironment();
  EXPECT_FALSE(defaults.enable_sdma.has_value());
  EXPECT_TRUE(defaults.enable_peer_sdma);
  EXPECT_EQ(defaults.force_sdma_size, Bytes::MiB(1));
  ::setenv("HSA_ENABLE_SDMA", "0", 1);
  ::setenv("HSA_ENABLE_PEER_SDMA", "0", 1);
  ::setenv("HSA_FORCE_SDMA_SIZE", "4096", 1);
  const CopyFlags set = CopyFlags::FromEnvironment();
  EXPECT_EQ(set.enable_sdma, false);
  EXPECT_FALSE(set.enable_peer_sdma);
  EXPECT_EQ(set.force_sdma_size, Bytes(4096));
  ::setenv("HSA_ENABLE_SDMA", "1", 1);
  EXPECT_EQ(CopyFlags::FromEnvironment().enable_sdma, true);
  ::unsetenv("HSA_ENABLE_SDMA");
  ::unsetenv("HSA_ENABLE_PEER_SDMA");
  ::unsetenv("HSA_FORCE_SDMA_SIZE");
}

TEST_F(CopiesTest, CompletionSignalIsDecrementedByOne) {
  std::vector<uint8_t> in = Pattern(4096, 1), out(4096, 0);
  const DeviceAddress vram = Vram(*gpus_[0], Bytes(4096));
  const SignalRef& done = NewSignal(3);
  ASSERT_THAT(Copy(vram, *gpus_[0], Addr(in.data()), *cpu_, Bytes(4096), done), IsOk());
  EXPECT_EQ(done.Wait(SignalCondition::kLt, 3, kPatience, WaitHint::kBlocked), 2);
  // Two more copies on the same signal take it to 0.
  ASSERT_THAT(Copy(Addr(out.data()), *cpu_, vram, *gpus_[0], Bytes(4096), done), IsOk());
  ASSERT_THAT(Copy(Addr(out.data()), *cpu_, vram, *gpus_[0], Bytes(4096), done), IsOk());
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(in, out);
}

TEST_F(CopiesTest, ChainThroughDependencySignalsWaitsOnTheGpuNotTheCaller) {
  const Agent& gpu = *gpus_[0];
  const Bytes size = Bytes::MiB(2);  // the D2D step runs on the blit kernel (>= HSA_FORCE_SDMA_SIZE)
  const std::vector<uint8_t> in = Pattern(size.raw(), 9);
  std::vector<uint8_t> out(size.raw(), 0);
  const DeviceAddress a = Vram(gpu, size), b = Vram(gpu, size);
  const SignalRef& gate = NewSignal(1);
  const SignalRef& s1 = NewSignal(1);
  const SignalRef& s2 = NewSignal(1);
  const SignalRef& s3 = NewSignal(1);
  const absl::Time start = absl::Now();
  ASSERT_THAT(Copy(a, gpu, Addr(in.data()), *cpu_, size, s1, {gate}), IsOk());
  ASSERT_THAT(Copy(b, gpu, a, gpu, size, s2, {s1}), IsOk());
  ASSERT_THAT(Copy(Addr(out.data()), *cpu_, b, gpu, size, s3, {s2, gate}), IsOk());
  // Every call returned with the gate still closed: nothing blocked the caller.
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(s1.Load(MemoryOrder::kAcquire), 1);
  EXPECT_EQ(s3.Load(MemoryOrder::kAcquire), 1);
  EXPECT_EQ(out[0], 0);
  gate.Store(0, MemoryOrder::kRelease);
  EXPECT_EQ(Await(s3), 0);
  EXPECT_EQ(s1.Load(MemoryOrder::kAcquire), 0);
  EXPECT_EQ(s2.Load(MemoryOrder::kAcquire), 0);
  EXPECT_EQ(out, in);
}

TEST_F(CopiesTest, SameGpuCopiesPickSdmaBelowForceSdmaSizeAndTheBlitKernelAbove) {
  EngineLog log;
  const Agent& gpu = *gpus_[0];
  const Bytes big = Bytes::MiB(1), small = Bytes::KiB(64);
  const std::vector<uint8_t> in = Pattern(big.raw(), 5);
  const DeviceAddress a = Vram(gpu, big), b = Vram(gpu, big);
  const SignalRef& up = NewSignal(1);
  ASSERT_THAT(Copy(a, gpu, Addr(in.data()), *cpu_, big, up), IsOk());
  ASSERT_EQ(Await(up), 0);

  const SignalRef& d2d_big = NewSignal(1);
  ASSERT_THAT(Copy(b, gpu, a, gpu, big, d2d_big), IsOk());
  EXPECT_EQ(Await(d2d_big), 0);
  EXPECT_THAT(log.Last(), testing::HasSubstr("on the blit kernel"));
  EXPECT_EQ(ReadBack(b, gpu, big), in);

  const SignalRef& d2d_small = NewSignal(1);
  ASSERT_THAT(Copy(b + Bytes(100), gpu, a + Bytes(7), gpu, small, d2d_small), IsOk());
  EXPECT_EQ(Await(d2d_small), 0);
  EXPECT_THAT(log.Last(), testing::HasSubstr("on SDMA engine"));
  const std::vector<uint8_t> got = ReadBack(b + Bytes(100), gpu, small);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), in.begin() + 7));
}

TEST_F(CopiesTest, EngineChoiceFollowsTheEnvironmentFlags) {
  const Agent& gpu = *gpus_[0];
  EXPECT_THAT(copies_->ChooseEngine(cpu_->id, cpu_->id, Bytes(64)),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kHost, std::nullopt, 0}));
  EXPECT_THAT(copies_->ChooseEngine(gpu.id, cpu_->id, Bytes(64)),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kSdma, gpu.id, 1}));
  EXPECT_THAT(copies_->ChooseEngine(cpu_->id, gpu.id, Bytes(64)),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kSdma, gpu.id, 2}));
  EXPECT_THAT(copies_->ChooseEngine(gpu.id, gpu.id, Bytes::MiB(1) - Bytes(1)),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kSdma, gpu.id, 2}));
  EXPECT_THAT(copies_->ChooseEngine(gpu.id, gpu.id, Bytes::MiB(1)),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kBlitKernel, gpu.id, 0}));
  EXPECT_THAT(copies_->ChooseEngine(gpu.id, AgentId(12345), Bytes(64)), StatusIs(absl::StatusCode::kInvalidArgument));

  MakeCopies(CopyFlags{.force_sdma_size = Bytes::KiB(4)});  // HSA_FORCE_SDMA_SIZE=4096
  EXPECT_THAT(copies_->ChooseEngine(gpu.id, gpu.id, Bytes::KiB(8)),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kBlitKernel, gpu.id, 0}));

  MakeCopies(CopyFlags{.enable_sdma = false});  // HSA_ENABLE_SDMA=0: every GPU copy on the blit kernel
  EXPECT_THAT(copies_->ChooseEngine(gpu.id, cpu_->id, Bytes(64)),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kBlitKernel, gpu.id, 0}));
  EXPECT_THAT(copies_->ChooseEngine(gpu.id, gpu.id, Bytes(64)),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kBlitKernel, gpu.id, 0}));
  // ... and they still work: H2D and D2H through the blit kernel.
  EngineLog log;
  const std::vector<uint8_t> in = Pattern(10000, 77);
  const DeviceAddress vram = Vram(gpu, Bytes(10000));
  const SignalRef& done = NewSignal(1);
  ASSERT_THAT(Copy(vram, gpu, Addr(in.data()), *cpu_, Bytes(10000), done), IsOk());
  EXPECT_EQ(Await(done), 0);
  EXPECT_THAT(log.Last(), testing::HasSubstr("on the blit kernel"));
  EXPECT_EQ(ReadBack(vram, gpu, Bytes(10000)), in);
}

TEST_F(CopiesTest, PeerCopiesUseXgmiEnginesBetweenHivePeers) {
  if (gpus_.size() < 2) GTEST_SKIP() << "one GPU in this preset";
  EngineLog log;
  const Agent& g0 = *gpus_[0];
  const Agent& g1 = *gpus_[1];
  const Bytes size = Bytes::MiB(1) + Bytes(17);
  const std::vector<uint8_t> in = Pattern(size.raw(), 21);
  const DeviceAddress src = Vram(g0, size), dst = Vram(g1, size);
  const SignalRef& up = NewSignal(1);
  ASSERT_THAT(Copy(src, g0, Addr(in.data()), *cpu_, size, up), IsOk());
  ASSERT_EQ(Await(up), 0);
  ASSERT_OK_AND_ASSIGN(const EngineChoice choice, copies_->ChooseEngine(g1.id, g0.id, size));
  EXPECT_EQ(choice.kind, CopyEngineKind::kSdma);
  EXPECT_EQ(choice.gpu, g0.id);  // the source GPU is the copy agent
  const thunk::NodeProperties* node = nullptr;
  for (const auto& n : TopologyOf(*rt_).nodes) {
    if (n.id == KfdNodeOf(*rt_, g0)) node = &n;
  }
  ASSERT_NE(node, nullptr);
  if (node->Get("hive_id") != 0) {
    EXPECT_GT(choice.sdma_engine, node->Get("num_sdma_engines"));  // an XGMI engine
  }
  const SignalRef& peer = NewSignal(1);
  ASSERT_THAT(Copy(dst, g1, src, g0, size, peer), IsOk());
  EXPECT_EQ(Await(peer), 0);
  EXPECT_EQ(ReadBack(dst, g1, size), in);

  // HSA_ENABLE_PEER_SDMA=0: the source GPU's blit kernel does it.
  MakeCopies(CopyFlags{.enable_peer_sdma = false});
  EXPECT_THAT(copies_->ChooseEngine(g1.id, g0.id, size),
              IsOkAndHolds(EngineChoice{CopyEngineKind::kBlitKernel, g0.id, 0}));
  const std::vector<uint8_t> in2 = Pattern(size.raw(), 99);
  const SignalRef& up2 = NewSignal(1);
  ASSERT_THAT(Copy(src, g0, Addr(in2.data()), *cpu_, size, up2), IsOk());
  ASSERT_EQ(Await(up2), 0);
  const SignalRef& peer2 = NewSignal(1);
  ASSERT_THAT(Copy(dst, g1, src, g0, size, peer2), IsOk());
  EXPECT_EQ(Await(peer2), 0);
  EXPECT_THAT(log.Last(), testing::HasSubstr("on the blit kernel"));
  EXPECT_EQ(ReadBack(dst, g1, size), in2);
}

TEST_F(CopiesTest, SystemToSystemRunsOnTheCallerAfterItsDependencies) {
  const Bytes size = Bytes::KiB(64);
  const DeviceAddress a = SystemMemory(size), b = SystemMemory(size);
  const std::vector<uint8_t> in = Pattern(size.raw(), 4);
  std::memcpy(a.ToPointer(), in.data(), in.size());
  const SignalRef& dep = NewSignal(0);
  const SignalRef& done = NewSignal(1);
  ASSERT_THAT(Copy(b, *cpu_, a, *cpu_, size, done, {dep}), IsOk());
  EXPECT_EQ(done.Load(MemoryOrder::kAcquire), 0);
  EXPECT_EQ(0, std::memcmp(b.ToPointer(), in.data(), in.size()));
}

TEST_F(CopiesTest, AFailedCopyLeavesANegativeSignalAndTheEngineRecovers) {
  const Agent& gpu = *gpus_[0];
  const std::vector<uint8_t> in = Pattern(8192, 2);
  // Larger than a 2 MiB fragment block: it gets a block of its own, which Free gives back to the KFD at once
  // (a small fragment would only return to the cache, still mapped, as on ROCr).
  const DeviceAddress vram = Vram(gpu, Bytes::MiB(4));
  const SignalRef& gate = NewSignal(1);
  const SignalRef& done = NewSignal(1);
  ASSERT_THAT(Copy(vram, gpu, Addr(in.data()), *cpu_, Bytes(8192), done, {gate}), IsOk());
  // The destination goes away while the copy waits on the GPU: the engine faults on it.
  ASSERT_THAT(rt_->Free(vram), IsOk());
  gate.Store(0, MemoryOrder::kRelease);
  EXPECT_LT(Await(done), 0);

  // The next copy on the same engine gets a fresh queue.
  const DeviceAddress again = Vram(gpu, Bytes(8192));
  const SignalRef& ok = NewSignal(1);
  ASSERT_THAT(Copy(again, gpu, Addr(in.data()), *cpu_, Bytes(8192), ok), IsOk());
  EXPECT_EQ(Await(ok), 0);
  EXPECT_EQ(ReadBack(again, gpu, Bytes(8192)), in);
}

TEST_F(CopiesTest, BadRequestsAreRefusedWithoutTouchingTheSignal) {
  const Agent& gpu = *gpus_[0];
  std::vector<uint8_t> host(4096);
  const DeviceAddress vram = Vram(gpu, Bytes(4096));
  const SignalRef& done = NewSignal(1);
  EXPECT_THAT(Copy(DeviceAddress(0), gpu, Addr(host.data()), *cpu_, Bytes(16), done),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Copy(vram + Bytes(4000), gpu, Addr(host.data()), *cpu_, Bytes(200), done),
              StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(copies_->Copy(CopyRequest{vram, gpu.id, Addr(host.data()), cpu_->id, Bytes(16), {}, nullptr}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(done.Load(MemoryOrder::kAcquire), 1);
}

TEST_F(CopiesTest, CopyOnEngineChecksTheEngineId) {
  const Agent& gpu = *gpus_[0];
  std::vector<uint8_t> in = Pattern(4096, 8);
  const DeviceAddress vram = Vram(gpu, Bytes(4096));
  const SignalRef& done = NewSignal(1);
  const CopyRequest request{vram, gpu.id, Addr(in.data()), cpu_->id, Bytes(4096), {}, &done};
  EXPECT_THAT(copies_->CopyOnEngine(request, 0b11, false), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(copies_->CopyOnEngine(request, 0, false), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(copies_->CopyOnEngine(request, 1u << 31, false), StatusIs(absl::StatusCode::kInvalidArgument));
  EngineLog log;
  ASSERT_THAT(copies_->CopyOnEngine(request, 0b10, false), IsOk());  // HSA_AMD_SDMA_ENGINE_1
  EXPECT_EQ(Await(done), 0);
  EXPECT_THAT(log.Last(), testing::HasSubstr("on SDMA engine 2 "));
  EXPECT_EQ(ReadBack(vram, gpu, Bytes(4096)), in);
}

TEST_F(CopiesTest, EngineStatusReportsBusyEngines) {
  const Agent& gpu = *gpus_[0];
  EXPECT_THAT(copies_->EngineStatus(gpu.id, gpu.id), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(copies_->EngineStatus(cpu_->id, cpu_->id), StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(const uint32_t idle, copies_->EngineStatus(gpu.id, cpu_->id));
  EXPECT_EQ(idle, 0b11u);
  std::vector<uint8_t> in = Pattern(4096, 8);
  const DeviceAddress vram = Vram(gpu, Bytes(4096));
  const SignalRef& gate = NewSignal(1);
  const SignalRef& done = NewSignal(1);
  ASSERT_THAT(Copy(vram, gpu, Addr(in.data()), *cpu_, Bytes(4096), done, {gate}), IsOk());  // engine 1, held
  EXPECT_THAT(copies_->EngineStatus(gpu.id, cpu_->id), IsOkAndHolds(0b10u));
  gate.Store(0, MemoryOrder::kRelease);
  EXPECT_EQ(Await(done), 0);
}

TEST_F(CopiesTest, FillWritesDwordsOnTheGpuAndChecksItsArguments) {
  const Agent& gpu = *gpus_[0];
  const Bytes size = Bytes::KiB(64);
  const DeviceAddress vram = Vram(gpu, size);
  ASSERT_THAT(copies_->Fill(vram + Bytes(8), 0xa1b2c3d4, 1000), IsOk());
  const std::vector<uint8_t> got = ReadBack(vram + Bytes(8), gpu, Bytes(4008));
  for (size_t i = 0; i < 1000; ++i) {
    uint32_t word;
    std::memcpy(&word, got.data() + 4 * i, 4);
    ASSERT_EQ(word, 0xa1b2c3d4u) << "dword " << i;
  }
  const DeviceAddress sys = SystemMemory(Bytes(4096));
  ASSERT_THAT(copies_->Fill(sys, 7, 1024), IsOk());
  EXPECT_EQ(static_cast<uint32_t*>(sys.ToPointer())[1023], 7u);

  uint32_t stack[4];
  EXPECT_THAT(copies_->Fill(vram + Bytes(2), 0, 4), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(copies_->Fill(DeviceAddress(0), 0, 4), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(copies_->Fill(Addr(stack), 0, 4), StatusIs(absl::StatusCode::kNotFound));  // INVALID_ALLOCATION
  EXPECT_THAT(copies_->Fill(vram, 0, size.raw() / 4 + 1), StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_F(CopiesTest, ProfiledCopyTimesAreOrderedAndInTheSystemDomain) {
  const Agent& gpu = *gpus_[0];
  const Bytes size = Bytes::MiB(4);
  const std::vector<uint8_t> in = Pattern(size.raw(), 1);
  const DeviceAddress vram = Vram(gpu, size);
  const SignalRef& done = NewSignal(1);
  EXPECT_THAT(copies_->GetCopyTime(done), StatusIs(absl::StatusCode::kInvalidArgument));
  copies_->EnableProfiling(true);
  absl::SleepFor(absl::Milliseconds(2));  // lets the clock conversion measure the GPU counter's rate
  const uint64_t before = MonotonicNs();
  ASSERT_THAT(Copy(vram, gpu, Addr(in.data()), *cpu_, size, done), IsOk());
  ASSERT_EQ(Await(done), 0);
  const uint64_t after = MonotonicNs();
  ASSERT_OK_AND_ASSIGN(const CopyTime t, copies_->GetCopyTime(done));
  // The GPU counter ticks at 100 MHz and the conversion reads the clocks around an ioctl: allow 50 us.
  constexpr uint64_t kSlack = 50'000;
  EXPECT_GE(t.start + kSlack, before);
  EXPECT_LE(t.start, t.end);
  EXPECT_LE(t.end, after + kSlack);
  EXPECT_GT(t.end - t.start, 0u);  // 4 MiB takes more than a tick
  EXPECT_THAT(copies_->TickToSystem(cpu_->id, 1), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace hipmem::hsa
