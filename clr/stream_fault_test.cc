// A GPU fault on a stream does not hang the host: a shader copy into memory its GPU never mapped halts the
// queue, the KFD reports the VM fault, and every wait on the device's work returns the sticky fault error.
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "clr/context.h"
#include "clr/stream.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/notification.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;

constexpr Bytes kSize = Bytes::KiB(64);

class StreamFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(ctx_, Context::Create());
    device_ = &ctx_->devices()[0];
    // Ordinary process memory: never registered, so no GPU page table maps it.
    unmapped_ = std::make_unique<uint8_t[]>(kSize.raw());
    ASSERT_OK_AND_ASSIGN(vram_, Released(ctx_->AllocDevice(*device_, kSize, 0)));
  }

  DeviceAddress Unmapped() const { return DeviceAddress::FromPointer(unmapped_.get()); }

  std::unique_ptr<Context> ctx_;
  const Device* device_ = nullptr;
  std::unique_ptr<uint8_t[]> unmapped_;
  DeviceAddress vram_{0};
};

TEST_F(StreamFaultTest, FinishReturnsTheFaultInsteadOfWaitingForever) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, Stream::Create(*ctx_, *device_));
  ASSERT_THAT(stream->ShaderCopy(Unmapped(), vram_, kSize), IsOk());
  const absl::Status finished = stream->Finish();
  EXPECT_THAT(finished, StatusIs(absl::StatusCode::kAborted));
  EXPECT_TRUE(IsGpuMemoryFault(finished)) << "marked a fault, not any kAborted";
  EXPECT_THAT(finished.message(), HasSubstr("GPU memory fault"));
  EXPECT_THAT(finished.message(), HasSubstr("page not present"));
  // Sticky: asking again, or queueing more, gives the same answer.
  EXPECT_THAT(stream->Finish(), StatusIs(absl::StatusCode::kAborted));
  EXPECT_THAT(stream->ShaderFill(vram_, 1, 4, 16), StatusIs(absl::StatusCode::kAborted));
  EXPECT_THAT(ctx_->faults().Error(device_->agent), StatusIs(absl::StatusCode::kAborted));
}

TEST_F(StreamFaultTest, AMarkerBehindTheFaultAndAWaiterBlockedBeforeItWakeWithTheError) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> stream, Stream::Create(*ctx_, *device_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> gate_stream, Stream::Create(*ctx_, *device_));
  // Hold the faulting copy back behind a host function until a waiter is blocked on the marker after it.
  hipmem_testing::Notification release;
  ASSERT_THAT(gate_stream->HostFunction([&] { release.WaitForNotification(); }), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker gate, gate_stream->Record());
  ASSERT_THAT(stream->WaitFor(gate), IsOk());
  ASSERT_THAT(stream->ShaderCopy(Unmapped(), vram_, kSize), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker after, stream->Record());
  EXPECT_FALSE(after.Done());
  absl::Status waited;
  std::thread waiter([&] { waited = after.Wait(); });
  release.Notify();
  waiter.join();
  EXPECT_THAT(waited, StatusIs(absl::StatusCode::kAborted));
  EXPECT_TRUE(after.Done()) << "a failed mark counts as done for a query";
}

TEST_F(StreamFaultTest, EveryStreamOfTheFaultedDeviceReportsItAndADestroyedOneReleasesItsMarkers) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> healthy, Stream::Create(*ctx_, *device_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> faulty, Stream::Create(*ctx_, *device_));
  ASSERT_THAT(healthy->ShaderFill(vram_, 7, 4, 16), IsOk());
  ASSERT_THAT(healthy->Finish(), IsOk());
  // Held until the mark after it is recorded: the fault may otherwise refuse the recording itself.
  hipmem_testing::Notification release;
  ASSERT_THAT(faulty->HostFunction([&] { release.WaitForNotification(); }), IsOk());
  ASSERT_THAT(faulty->ShaderCopy(Unmapped(), vram_, kSize), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker mark, faulty->Record());
  release.Notify();
  EXPECT_THAT(faulty->Finish(), StatusIs(absl::StatusCode::kAborted));
  // CUDA's sticky context error: the device's other streams, and streams made afterwards, fail too.
  EXPECT_THAT(healthy->Finish(), StatusIs(absl::StatusCode::kAborted));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> later, Stream::Create(*ctx_, *device_));
  EXPECT_THAT(later->ShaderFill(vram_, 7, 4, 16), StatusIs(absl::StatusCode::kAborted));
  faulty.reset();
  EXPECT_THAT(mark.Wait(), StatusIs(absl::StatusCode::kAborted));
}

TEST_F(StreamFaultTest, AnotherDevicesStreamsKeepWorking) {
  if (ctx_->devices().size() < 2) GTEST_SKIP() << "needs two GPUs";
  const Device& other = ctx_->devices()[1];
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> faulty, Stream::Create(*ctx_, *device_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> fine, Stream::Create(*ctx_, other));
  ASSERT_THAT(faulty->ShaderCopy(Unmapped(), vram_, kSize), IsOk());
  EXPECT_THAT(faulty->Finish(), StatusIs(absl::StatusCode::kAborted));
  ASSERT_OK_AND_ASSIGN(DeviceAddress host, Released(ctx_->AllocHost(other, kSize, HostCoherence::kCoherent, 0)));
  ASSERT_THAT(fine->ShaderFill(host, 0xabcdef01, 4, kSize.raw() / 4), IsOk());
  EXPECT_THAT(fine->Finish(), IsOk());
  EXPECT_EQ(static_cast<const uint32_t*>(host.ToPointer())[0], 0xabcdef01u);
  EXPECT_THAT(ctx_->faults().Error(other.agent), IsOk());
}

TEST_F(StreamFaultTest, AStreamOfAnotherDeviceWaitingOnTheFaultedWorkFailsInsteadOfHanging) {
  if (ctx_->devices().size() < 2) GTEST_SKIP() << "needs two GPUs";
  const Device& other = ctx_->devices()[1];
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> faulty, Stream::Create(*ctx_, *device_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> waiting, Stream::Create(*ctx_, other));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Stream> waited_earlier, Stream::Create(*ctx_, other));
  // A wait on work of the device that completed before the fault is over: it does not fail its stream.
  ASSERT_THAT(faulty->ShaderFill(vram_, 3, 4, 16), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker early, faulty->Record());
  ASSERT_THAT(early.Wait(), IsOk());
  ASSERT_THAT(waited_earlier->WaitFor(early), IsOk());
  ASSERT_THAT(waited_earlier->Finish(), IsOk());

  hipmem_testing::Notification release;
  ASSERT_THAT(faulty->HostFunction([&] { release.WaitForNotification(); }), IsOk());
  ASSERT_THAT(faulty->ShaderCopy(Unmapped(), vram_, kSize), IsOk());
  ASSERT_OK_AND_ASSIGN(Marker mark, faulty->Record());
  ASSERT_THAT(waiting->WaitFor(mark), IsOk());
  ASSERT_OK_AND_ASSIGN(DeviceAddress host, Released(ctx_->AllocHost(other, kSize, HostCoherence::kCoherent, 0)));
  ASSERT_THAT(waiting->ShaderFill(host, 9, 4, 16), IsOk());
  release.Notify();
  // Its barrier on the failed mark is never met; the failure travels to it instead.
  EXPECT_THAT(waiting->Finish(), StatusIs(absl::StatusCode::kAborted));
  EXPECT_THAT(waited_earlier->Finish(), IsOk());
  ASSERT_THAT(waited_earlier->ShaderFill(host, 5, 4, 16), IsOk());
  EXPECT_THAT(waited_earlier->Finish(), IsOk());
  EXPECT_EQ(static_cast<const uint32_t*>(host.ToPointer())[0], 5u);
  EXPECT_THAT(ctx_->faults().Error(other.agent), IsOk()) << "the other device itself did not fault";
}

}  // namespace
}  // namespace hipmem::clr
