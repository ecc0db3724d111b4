// Streams over the real HSA runtime, thunk and simulator: order inside a stream across engines, markers, waits
// between streams, host functions, and failures.
#include "clr/stream.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/notification.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

constexpr Bytes kSize = Bytes::KiB(64);

class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(ctx_, Context::Create());
    device_ = &ctx_->devices()[0];
    ASSERT_OK_AND_ASSIGN(stream_, Stream::Create(*ctx_, *device_));
  }
  void TearDown() override {
    streams_.clear();
    stream_.reset();
    ctx_.reset();
  }

  DeviceAddress Vram(Bytes size = kSize) {
    absl::StatusOr<DeviceAddress> a = Released(ctx_->AllocDevice(*device_, size, 0));
    EXPECT_THAT(a, IsOk());
    return a.value_or(DeviceAddress(0));
  }
  // Fine-grained system memory: the CPU reads what the GPU wrote once the command is done.
  uint32_t* Host(Bytes size = kSize) {
    absl::StatusOr<DeviceAddress> a = Released(ctx_->AllocHost(*device_, size, HostCoherence::kCoherent, 0));
    EXPECT_THAT(a, IsOk());
    return a.ok() ? static_cast<uint32_t*>(a->ToPointer()) : nullptr;
  }
  static DeviceAddress Addr(const void* p) { return DeviceAddress::FromPointer(const_cast<void*>(p)); }
  // A side of an SDMA copy with nothing known of where the GPU reaches it: ROCr maps it for the copy.
  static hsa::ResolvedSide Unmapped(DeviceAddress address, hsa::AgentId owner) {
    return hsa::ResolvedSide{.host = address, .gpu = address, .agent = owner};
  }
  static bool AllEqual(const uint32_t* words, Bytes size, uint32_t value) {
    for (uint64_t i = 0; i < size.raw() / 4; ++i) {
      if (words[i] != value) return false;
    }
    return true;
  }

  std::unique_ptr<Context> ctx_;
  const Device* device_ = nullptr;
  std::unique_ptr<Stream> stream_;
  std::vector<std::unique_ptr<Stream>> streams_;
};

TEST_F(StreamTest, ShaderCopiesAndFillsRoundTripThroughVram) {
  uint32_t* in = Host();
  uint32_t* out = Host();
  for (uint64_t i = 0; i < kSize.raw() / 4; ++i) in[i] = static_cast<uint32_t>(i * 2654435761u);
  const DeviceAddress vram = Vram();
  ASSERT_THAT(stream_->ShaderCopy(vram, Addr(in), kSize), IsOk());
  ASSERT_THAT(stream_->ShaderCopy(Addr(out), vram, kSize), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_EQ(std::memcmp(in, out, kSize.raw()), 0);
  EXPECT_TRUE(stream_->Idle());

  ASSERT_THAT(stream_->ShaderFill(vram, 0xfeedf00d, 4, kSize.raw() / 4), IsOk());
  ASSERT_THAT(stream_->ShaderCopy(Addr(out), vram, kSize), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_TRUE(AllEqual(out, kSize, 0xfeedf00d));
}

TEST_F(StreamTest, CommandsOnDifferentEnginesRunInSubmissionOrder) {
  // fill(A) -> SDMA out1 -> fill(B) -> SDMA out2 -> fill(C) -> shader out3: each step must see the one before.
  const DeviceAddress vram = Vram();
  uint32_t* out1 = Host();
  uint32_t* out2 = Host();
  uint32_t* out3 = Host();
  const hsa::AgentId gpu = device_->agent;
  const hsa::AgentId cpu = ctx_->host_agent();
  for (int round = 0; round < 20; ++round) {
    ASSERT_THAT(stream_->ShaderFill(vram, 0xa0 + round, 4, kSize.raw() / 4), IsOk());
    ASSERT_THAT(stream_->SdmaCopy(Unmapped(Addr(out1), cpu), Unmapped(vram, gpu), kSize), IsOk());
    ASSERT_THAT(stream_->ShaderFill(vram, 0xb0 + round, 4, kSize.raw() / 4), IsOk());
    ASSERT_THAT(stream_->SdmaCopy(Unmapped(Addr(out2), cpu), Unmapped(vram, gpu), kSize), IsOk());
    ASSERT_THAT(stream_->ShaderFill(vram, 0xc0 + round, 4, kSize.raw() / 4), IsOk());
    ASSERT_THAT(stream_->ShaderCopy(Addr(out3), vram, kSize), IsOk());
    ASSERT_THAT(stream_->Finish(), IsOk());
    ASSERT_TRUE(AllEqual(out1, kSize, 0xa0 + round)) << "round " << round;
    ASSERT_TRUE(AllEqual(out2, kSize, 0xb0 + round)) << "round " << round;
    ASSERT_TRUE(AllEqual(out3, kSize, 0xc0 + round)) << "round " << round;
  }
}

TEST_F(StreamTest, WaitForQueuedReturnsOnceEveryCommandBeforeItIsDoneOnEitherEngine) {
  EXPECT_THAT(stream_->WaitForQueued(), IsOk()) << "a stream that never ran anything";
  const DeviceAddress vram = Vram();
  uint32_t* out1 = Host();
  uint32_t* out2 = Host();
  const hsa::AgentId gpu = device_->agent;
  const hsa::AgentId cpu = ctx_->host_agent();
  for (int round = 0; round < 20; ++round) {
    // The newest command is an SDMA copy on odd rounds and a shader copy on even ones.
    ASSERT_THAT(stream_->ShaderFill(vram, 0xa0 + round, 4, kSize.raw() / 4), IsOk());
    ASSERT_THAT(stream_->ShaderCopy(Addr(out1), vram, kSize), IsOk());
    ASSERT_THAT(stream_->ShaderFill(vram, 0xb0 + round, 4, kSize.raw() / 4), IsOk());
    if (round % 2 == 1) {
      ASSERT_THAT(stream_->SdmaCopy(Unmapped(Addr(out2), cpu), Unmapped(vram, gpu), kSize), IsOk());
    } else {
      ASSERT_THAT(stream_->ShaderCopy(Addr(out2), vram, kSize), IsOk());
    }
    ASSERT_THAT(stream_->WaitForQueued(), IsOk());
    EXPECT_TRUE(stream_->Idle()) << "round " << round;
    ASSERT_TRUE(AllEqual(out1, kSize, 0xa0 + round)) << "round " << round;
    ASSERT_TRUE(AllEqual(out2, kSize, 0xb0 + round)) << "round " << round;
  }
}

TEST_F(StreamTest, AMarkerIsDoneWhenTheWorkBeforeItIs) {
  hipmem_testing::Notification release;
  ASSERT_THAT(stream_->HostFunction([&] { release.WaitForNotification(); }), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker marker, stream_->Record());
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(marker.Done()) << "the host function before the mark has not returned";
  EXPECT_FALSE(stream_->Idle());
  release.Notify();
  EXPECT_THAT(marker.Wait(), IsOk());
  EXPECT_TRUE(marker.Done());
  EXPECT_THAT(stream_->Finish(), IsOk());
  EXPECT_TRUE(stream_->Idle());
}

TEST_F(StreamTest, MarkersCarryTheCpsTimestamps) {
  ASSERT_OK_AND_ASSIGN(Marker first, stream_->Record());
  ASSERT_THAT(stream_->HostFunction([] { absl::SleepFor(absl::Milliseconds(20)); }), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker second, stream_->Record());
  ASSERT_THAT(second.Wait(), IsOk());
  ASSERT_TRUE(first.end_tick().has_value());
  ASSERT_TRUE(second.end_tick().has_value());
  EXPECT_EQ(first.agent(), device_->agent);
  ASSERT_OK_AND_ASSIGN(uint64_t first_ns, ctx_->copies().TickToSystem(first.agent(), *first.end_tick()));
  ASSERT_OK_AND_ASSIGN(uint64_t second_ns, ctx_->copies().TickToSystem(second.agent(), *second.end_tick()));
  EXPECT_GE(second_ns - first_ns, 20'000'000u) << "the host function's 20 ms lie between the marks";
  EXPECT_LT(second_ns - first_ns, 5'000'000'000u);
}

TEST_F(StreamTest, AWaitOnAnotherStreamsMarkerHoldsBackOnlyTheWorkAfterIt) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> other, Stream::Create(*ctx_, *device_));
  uint32_t* flag = Host(Bytes(4096));
  uint32_t* independent = Host(Bytes(4096));
  hipmem_testing::Notification release;
  ASSERT_THAT(other->HostFunction([&] { release.WaitForNotification(); }), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker gate, other->Record());

  ASSERT_THAT(stream_->ShaderFill(Addr(independent), 7, 4, Bytes(4096).raw() / 4), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker before_wait, stream_->Record());
  ASSERT_THAT(stream_->WaitFor(gate), IsOk());
  ASSERT_THAT(stream_->ShaderFill(Addr(flag), 0x600d, 4, Bytes(4096).raw() / 4), IsOk());

  EXPECT_THAT(before_wait.Wait(), IsOk()) << "work queued before the wait is not held back";
  EXPECT_TRUE(AllEqual(independent, Bytes(4096), 7));
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_TRUE(AllEqual(flag, Bytes(4096), 0)) << "the fill after the wait ran before the other stream's mark";
  EXPECT_FALSE(stream_->Idle());
  release.Notify();
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_TRUE(AllEqual(flag, Bytes(4096), 0x600d));
  EXPECT_THAT(other->Finish(), IsOk());
}

TEST_F(StreamTest, AHostFunctionSeesTheWorkBeforeItAndHoldsBackTheWorkAfterIt) {
  uint32_t* buffer = Host(Bytes(4096));
  std::atomic<uint32_t> seen{0};
  std::atomic<bool> ran{false};
  ASSERT_THAT(stream_->ShaderFill(Addr(buffer), 0x11, 4, Bytes(4096).raw() / 4), IsOk());
  ASSERT_THAT(stream_->HostFunction([&] {
                seen = buffer[1023];
                absl::SleepFor(absl::Milliseconds(20));  // the fill below must not overtake it
                seen = seen + (buffer[0] == 0x11 ? 0 : 1000);
                ran = true;
              }),
              IsOk());
  ASSERT_THAT(stream_->ShaderFill(Addr(buffer), 0x22, 4, Bytes(4096).raw() / 4), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_TRUE(ran);
  EXPECT_EQ(seen.load(), 0x11u);
  EXPECT_TRUE(AllEqual(buffer, Bytes(4096), 0x22));
}

TEST_F(StreamTest, AHostFunctionOnAnIdleStreamStillRunsOffTheCallersThread) {
  std::atomic<bool> ran{false};
  hipmem_testing::Notification release;
  ASSERT_THAT(stream_->HostFunction([&] {
                release.WaitForNotification();  // would deadlock if run inline
                ran = true;
              }),
              IsOk());
  release.Notify();
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_TRUE(ran);
}

TEST_F(StreamTest, FillsOfEveryElementSizeWriteExactlyTheirRange) {
  uint8_t* buffer = reinterpret_cast<uint8_t*>(Host(Bytes(4096)));
  struct Case {
    uint64_t offset;
    uint32_t element_size;
    uint64_t count;
    uint32_t pattern;
  };
  const Case cases[] = {
      {1, 1, 1, 0xab},      {3, 1, 13, 0x5c},          {0, 1, 4096, 0x01},     {2, 2, 1, 0xbeef},
      {6, 2, 7, 0x1234},    {4, 2, 8, 0xcafe},         {10, 2, 1000, 0xa55a},  {4, 4, 1, 0xdeadbeef},
      {12, 4, 250, 0x01020304}, {0, 4, 1024, 0xffffffff},
  };
  for (const Case& c : cases) {
    std::memset(buffer, 0, 4096);
    ASSERT_THAT(stream_->ShaderFill(Addr(buffer) + Bytes(c.offset), c.pattern, c.element_size, c.count), IsOk());
    ASSERT_THAT(stream_->Finish(), IsOk());
    const uint64_t end = c.offset + c.count * c.element_size;
    for (uint64_t i = 0; i < 4096; ++i) {
      const uint8_t expected =
          (i >= c.offset && i < end) ? static_cast<uint8_t>(c.pattern >> (8 * ((i - c.offset) % c.element_size))) : 0;
      ASSERT_EQ(buffer[i], expected) << "byte " << i << " of a fill of " << c.count << " x " << c.element_size
                                     << " B at +" << c.offset;
    }
  }
}

TEST_F(StreamTest, RefusesAFillTheKernelCannotWrite) {
  uint32_t* out = Host(Bytes(4096));
  EXPECT_THAT(stream_->ShaderFill(Addr(out) + Bytes(2), 1, 4, 16), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(stream_->ShaderFill(Addr(out) + Bytes(1), 1, 2, 16), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(stream_->ShaderFill(Addr(out), 1, 3, 16), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(stream_->ShaderFill(Addr(out), 1, 4, UINT64_MAX / 2), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(stream_->ShaderCopy(Addr(out), Addr(out), Bytes(0)), IsOk()) << "size 0 queues nothing";
  EXPECT_TRUE(stream_->Idle());
}

TEST_F(StreamTest, ManyStreamsFromManyThreadsKeepTheirOwnOrder) {
  constexpr int kStreams = 4;
  std::vector<uint32_t*> outs;
  std::vector<DeviceAddress> vram;
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> s, Stream::Create(*ctx_, *device_));
    streams_.push_back(std::move(s));
    outs.push_back(Host());
    vram.push_back(Vram());
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kStreams; ++i) {
    threads.emplace_back([&, i] {
      for (uint32_t round = 1; round <= 25; ++round) {
        const uint32_t value = (i << 16) | round;
        if (!streams_[i]->ShaderFill(vram[i], value, 4, kSize.raw() / 4).ok() ||
            !streams_[i]->SdmaCopy(Unmapped(Addr(outs[i]), ctx_->host_agent()), Unmapped(vram[i], device_->agent), kSize).ok() ||
            !streams_[i]->Finish().ok() || !AllEqual(outs[i], kSize, value)) {
          ++failures;
          return;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace hipmem::clr
