// Streams and events: handles, the legacy default stream's implicit waits, events across streams.
#include "hip/streams.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "clr/device_faults.h"
#include "clr/stream.h"
#include "gtest/gtest.h"
#include "hip/hip_error.h"
#include "testing/notification.h"
#include "testing/status_matchers.h"

namespace hipmem::hip {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

TEST(DeviceFaultAsHipTest, OnlyAGpuMemoryFaultIsAnIllegalAddress) {
  EXPECT_EQ(ToHipError(DeviceFaultAsHip(clr::GpuMemoryFaultError("GPU memory fault on agent 1"))),
            hipErrorIllegalAddress);
  EXPECT_EQ(ToHipError(DeviceFaultAsHip(Annotate(clr::GpuMemoryFaultError("fault"), "hipMemcpy"))),
            hipErrorIllegalAddress)
      << "context on the way up keeps the mark";
  // kAborted that is no fault: the thunk's EINTR and HSAKMT_STATUS_WAIT_FAILURE.
  EXPECT_NE(ToHipError(DeviceFaultAsHip(absl::AbortedError("AMDKFD_IOC_WAIT_EVENTS: EINTR"))), hipErrorIllegalAddress);
  EXPECT_NE(ToHipError(DeviceFaultAsHip(absl::AbortedError("hsaKmtWaitOnEvent: wait failure"))),
            hipErrorIllegalAddress);
  // A fault that names its own HIP code keeps it.
  EXPECT_EQ(ToHipError(DeviceFaultAsHip(WithHipError(clr::GpuMemoryFaultError("fault"), hipErrorLaunchFailure))),
            hipErrorLaunchFailure);
}

class StreamTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(ctx_, clr::Context::Create());
    table_ = std::make_unique<StreamTable>(*ctx_);
  }
  void TearDown() override {
    table_.reset();
    ctx_.reset();
  }

  HipStream* Resolve(StreamHandle h) {
    absl::StatusOr<HipStream*> s = table_->Resolve(h, 0);
    EXPECT_THAT(s, IsOk());
    return s.value_or(nullptr);
  }
  // A fine-grained word the GPU writes and the CPU reads.
  uint32_t* Word() {
    absl::StatusOr<DeviceAddress> a = clr::Released(ctx_->AllocHost(ctx_->devices()[0], Bytes(4096), clr::HostCoherence::kCoherent, 0));
    EXPECT_THAT(a, IsOk());
    return a.ok() ? static_cast<uint32_t*>(a->ToPointer()) : nullptr;
  }
  // Queues a host function that blocks `stream` until `gate` is notified.
  static void Gate(HipStream& stream, hipmem_testing::Notification& gate) {
    ASSERT_THAT(stream.queue().HostFunction([&gate] { gate.WaitForNotification(); }), IsOk());
  }
  static void Set(HipStream& stream, uint32_t* word, uint32_t value) {
    ASSERT_THAT(stream.queue().ShaderFill(DeviceAddress::FromPointer(word), value, 4, 1), IsOk());
  }

  std::unique_ptr<clr::Context> ctx_;
  std::unique_ptr<StreamTable> table_;
};

TEST_F(StreamTableTest, HandlesAreCheckedAgainstTheLiveStreams) {
  ASSERT_OK_AND_ASSIGN(StreamHandle s, table_->Create(0, 0, 0));
  EXPECT_EQ(table_->stream_count(), 1u);
  EXPECT_THAT(table_->Resolve(s, 0), IsOk());
  EXPECT_THAT(table_->Destroy(s), IsOk());
  EXPECT_EQ(ToHipError(table_->Resolve(s, 0).status()), hipErrorInvalidHandle);
  EXPECT_EQ(ToHipError(table_->Destroy(s)), hipErrorContextIsDestroyed);
  EXPECT_EQ(ToHipError(table_->Destroy(kNullStreamHandle)), hipErrorInvalidHandle);
  EXPECT_EQ(ToHipError(table_->Destroy(kPerThreadStreamHandle)), hipErrorInvalidHandle);
  EXPECT_THAT(table_->Create(0, 0x2, 0), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(ToHipError(table_->Create(7, 0, 0).status()), hipErrorInvalidValue) << "no device 7";
  // hipStreamLegacy and 0 are the same null stream; the per-thread stream is another.
  EXPECT_EQ(Resolve(kNullStreamHandle), Resolve(kLegacyStreamHandle));
  EXPECT_TRUE(Resolve(kNullStreamHandle)->is_null());
  EXPECT_NE(Resolve(kPerThreadStreamHandle), Resolve(kNullStreamHandle));
}

// A thread that just resolved a handle must not keep answering with that stream once a reset destroyed it, and a
// new stream (possibly at the same address, hence the same handle) resolves to itself.
TEST_F(StreamTableTest, AHandleResolvedJustBeforeAResetIsRefusedAfterIt) {
  ASSERT_OK_AND_ASSIGN(StreamHandle s, table_->Create(0, 0, 0));
  ASSERT_OK_AND_ASSIGN(HipStream * before, table_->Resolve(s, 0));
  EXPECT_EQ(before->device(), 0);
  table_->DestroyDeviceStreams(0);
  EXPECT_EQ(ToHipError(table_->Resolve(s, 0).status()), hipErrorInvalidHandle);
  ASSERT_OK_AND_ASSIGN(StreamHandle again, table_->Create(0, kStreamNonBlocking, 0));
  ASSERT_OK_AND_ASSIGN(HipStream * after, table_->Resolve(again, 0));
  EXPECT_FALSE(after->blocking()) << "the new stream, not a remembered old one";
  EXPECT_THAT(table_->Destroy(again), IsOk());
}

TEST_F(StreamTableTest, PrioritiesAreClampedToTheRange) {
  ASSERT_OK_AND_ASSIGN(StreamHandle high, table_->Create(0, 0, -100));
  ASSERT_OK_AND_ASSIGN(StreamHandle low, table_->Create(0, 0, 100));
  EXPECT_EQ(Resolve(high)->priority(), StreamTable::kGreatestPriority);
  EXPECT_EQ(Resolve(low)->priority(), StreamTable::kLeastPriority);
}

TEST_F(StreamTableTest, TheNullStreamWaitsForBlockingStreamsButNotForNonBlockingOnes) {
  ASSERT_OK_AND_ASSIGN(StreamHandle b, table_->Create(0, 0, 0));
  ASSERT_OK_AND_ASSIGN(StreamHandle nb, table_->Create(0, kStreamNonBlocking, 0));
  HipStream* blocking = Resolve(b);
  HipStream* non_blocking = Resolve(nb);
  HipStream* null = Resolve(kNullStreamHandle);
  uint32_t* word = Word();

  // Held back by a gated blocking stream.
  hipmem_testing::Notification gate;
  Gate(*blocking, gate);
  ASSERT_THAT(table_->BeforeCommand(*null), IsOk());
  Set(*null, word, 1);
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_EQ(*word, 0u) << "null-stream work ran before the blocking stream's earlier work";
  gate.Notify();
  ASSERT_THAT(table_->Synchronize(*null), IsOk());
  EXPECT_EQ(*word, 1u);

  // Not held back by a gated non-blocking stream.
  hipmem_testing::Notification gate2;
  Gate(*non_blocking, gate2);
  ASSERT_THAT(table_->BeforeCommand(*null), IsOk());
  Set(*null, word, 2);
  ASSERT_THAT(null->queue().Finish(), IsOk());
  EXPECT_EQ(*word, 2u);
  gate2.Notify();
  EXPECT_THAT(table_->SynchronizeDevice(0), IsOk());
}

TEST_F(StreamTableTest, BlockingStreamsWaitForTheNullStream) {
  ASSERT_OK_AND_ASSIGN(StreamHandle b, table_->Create(0, 0, 0));
  ASSERT_OK_AND_ASSIGN(StreamHandle nb, table_->Create(0, kStreamNonBlocking, 0));
  HipStream* null = Resolve(kNullStreamHandle);
  uint32_t* word = Word();
  uint32_t* other = Word();
  hipmem_testing::Notification gate;
  Gate(*null, gate);
  ASSERT_THAT(table_->BeforeCommand(*Resolve(nb)), IsOk());
  Set(*Resolve(nb), other, 9);
  ASSERT_THAT(Resolve(nb)->queue().Finish(), IsOk()) << "a non-blocking stream is not held by the null stream";
  EXPECT_EQ(*other, 9u);
  ASSERT_THAT(table_->BeforeCommand(*Resolve(b)), IsOk());
  Set(*Resolve(b), word, 5);
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_EQ(*word, 0u);
  EXPECT_EQ(ToHipError(table_->Query(*Resolve(b))), hipErrorNotReady);
  gate.Notify();
  ASSERT_THAT(table_->Synchronize(*Resolve(b)), IsOk());
  EXPECT_EQ(*word, 5u);
  EXPECT_THAT(table_->Query(*Resolve(b)), IsOk());
}

TEST_F(StreamTableTest, EventsMarkWorkAndOrderOtherStreams) {
  ASSERT_OK_AND_ASSIGN(StreamHandle a, table_->Create(0, kStreamNonBlocking, 0));
  ASSERT_OK_AND_ASSIGN(StreamHandle b, table_->Create(0, kStreamNonBlocking, 0));
  ASSERT_OK_AND_ASSIGN(EventHandle e, table_->CreateEvent(0, 0));
  EXPECT_THAT(table_->QueryEvent(e), IsOk()) << "an event never recorded is complete";
  EXPECT_THAT(table_->SynchronizeEvent(e), IsOk());
  EXPECT_THAT(table_->WaitEvent(*Resolve(b), e, 0), IsOk()) << "waiting on a never-recorded event is no wait";

  uint32_t* word = Word();
  hipmem_testing::Notification gate;
  Gate(*Resolve(a), gate);
  ASSERT_THAT(table_->RecordEvent(e, *Resolve(a)), IsOk());
  EXPECT_EQ(ToHipError(table_->QueryEvent(e)), hipErrorNotReady);
  ASSERT_THAT(table_->WaitEvent(*Resolve(b), e, 0), IsOk());
  Set(*Resolve(b), word, 3);
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_EQ(*word, 0u);
  gate.Notify();
  EXPECT_THAT(table_->SynchronizeEvent(e), IsOk());
  EXPECT_THAT(table_->QueryEvent(e), IsOk());
  ASSERT_THAT(table_->Synchronize(*Resolve(b)), IsOk());
  EXPECT_EQ(*word, 3u);

  EXPECT_THAT(table_->WaitEvent(*Resolve(b), e, 1), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(table_->DestroyEvent(e), IsOk());
  EXPECT_EQ(ToHipError(table_->QueryEvent(e)), hipErrorInvalidHandle);
  EXPECT_THAT(table_->DestroyEvent(e), StatusIs(absl::StatusCode::kNotFound)) << "destroyed already";
}

TEST_F(StreamTableTest, EventFlagsFollowCurrentClr) {
  for (uint32_t flags : {0x80u, kEventReleaseToDevice | kEventReleaseToSystem,
                         kEventDisableSystemFence | kEventReleaseToSystem, kEventInterprocess,
                         kEventInterprocess | kEventBlockingSync}) {
    EXPECT_THAT(table_->CreateEvent(flags, 0), StatusIs(absl::StatusCode::kInvalidArgument)) << "flags " << flags;
  }
  for (uint32_t flags : {kEventBlockingSync | kEventDisableTiming, kEventInterprocess | kEventDisableTiming,
                         kEventReleaseToDevice, kEventReleaseToSystem | kEventBlockingSync, kEventDisableSystemFence}) {
    absl::StatusOr<EventHandle> e = table_->CreateEvent(flags, 0);
    ASSERT_THAT(e.status(), IsOk()) << "flags " << flags;
    EXPECT_THAT(table_->DestroyEvent(*e), IsOk());
  }
}

TEST_F(StreamTableTest, ElapsedTimeComesFromTheMarks) {
  ASSERT_OK_AND_ASSIGN(StreamHandle s, table_->Create(0, 0, 0));
  ASSERT_OK_AND_ASSIGN(EventHandle start, table_->CreateEvent(0, 0));
  ASSERT_OK_AND_ASSIGN(EventHandle stop, table_->CreateEvent(0, 0));
  ASSERT_OK_AND_ASSIGN(EventHandle untimed, table_->CreateEvent(kEventDisableTiming, 0));
  EXPECT_EQ(ToHipError(table_->ElapsedMs(start, stop).status()), hipErrorInvalidHandle) << "never recorded";
  hipmem_testing::Notification gate;
  ASSERT_THAT(table_->RecordEvent(start, *Resolve(s)), IsOk());
  Gate(*Resolve(s), gate);
  ASSERT_THAT(Resolve(s)->queue().HostFunction([] { absl::SleepFor(absl::Milliseconds(10)); }), IsOk());
  ASSERT_THAT(table_->RecordEvent(stop, *Resolve(s)), IsOk());
  ASSERT_THAT(table_->RecordEvent(untimed, *Resolve(s)), IsOk());
  EXPECT_EQ(ToHipError(table_->ElapsedMs(start, stop).status()), hipErrorNotReady);
  gate.Notify();
  ASSERT_THAT(table_->SynchronizeEvent(stop), IsOk());
  ASSERT_OK_AND_ASSIGN(float ms, table_->ElapsedMs(start, stop));
  EXPECT_GE(ms, 10.0f);
  EXPECT_LT(ms, 5000.0f);
  ASSERT_OK_AND_ASSIGN(float back, table_->ElapsedMs(stop, start));
  EXPECT_FLOAT_EQ(back, -ms);
  EXPECT_EQ(ToHipError(table_->ElapsedMs(start, untimed).status()), hipErrorInvalidHandle);
}

TEST_F(StreamTableTest, AnEventDestroyedWhileAStreamWaitsOnItStillReleasesTheStream) {
  ASSERT_OK_AND_ASSIGN(StreamHandle a, table_->Create(0, kStreamNonBlocking, 0));
  ASSERT_OK_AND_ASSIGN(StreamHandle b, table_->Create(0, kStreamNonBlocking, 0));
  ASSERT_OK_AND_ASSIGN(EventHandle e, table_->CreateEvent(0, 0));
  uint32_t* word = Word();
  hipmem_testing::Notification gate;
  Gate(*Resolve(a), gate);
  ASSERT_THAT(table_->RecordEvent(e, *Resolve(a)), IsOk());
  ASSERT_THAT(table_->WaitEvent(*Resolve(b), e, 0), IsOk());
  Set(*Resolve(b), word, 4);
  ASSERT_THAT(table_->DestroyEvent(e), IsOk());
  gate.Notify();
  ASSERT_THAT(table_->Synchronize(*Resolve(b)), IsOk());
  EXPECT_EQ(*word, 4u);
}

TEST_F(StreamTableTest, EachThreadHasItsOwnPerThreadStream) {
  HipStream* mine = Resolve(kPerThreadStreamHandle);
  EXPECT_EQ(mine, Resolve(kPerThreadStreamHandle));
  HipStream* theirs = nullptr;
  std::thread t([&] { theirs = Resolve(kPerThreadStreamHandle); });
  t.join();
  EXPECT_NE(theirs, nullptr);
  EXPECT_NE(mine, theirs);
  EXPECT_TRUE(mine->blocking());
}

TEST_F(StreamTableTest, DestroyingAStreamWaitsForItsWork) {
  ASSERT_OK_AND_ASSIGN(StreamHandle s, table_->Create(0, 0, 0));
  uint32_t* word = Word();
  std::atomic<bool> released{false};
  hipmem_testing::Notification gate;
  Gate(*Resolve(s), gate);
  Set(*Resolve(s), word, 8);
  std::thread releaser([&] {
    absl::SleepFor(absl::Milliseconds(30));
    released = true;
    gate.Notify();
  });
  ASSERT_THAT(table_->Destroy(s), IsOk());
  EXPECT_TRUE(released.load());
  EXPECT_EQ(*word, 8u);
  releaser.join();
}

// hipDeviceSynchronize (or a hipFree, which synchronises the device) on one thread and hipStreamDestroy of one of
// the device's streams on another: the synchronising thread must not be left with a destroyed stream.
TEST_F(StreamTableTest, DestroyingAStreamWhileTheDeviceSynchronisesIsSafe) {
  ASSERT_OK_AND_ASSIGN(StreamHandle s, table_->Create(0, 0, 0));
  uint32_t* word = Word();
  hipmem_testing::Notification gate;
  Gate(*Resolve(s), gate);
  Set(*Resolve(s), word, 5);
  std::thread synchronizer([&] { EXPECT_THAT(table_->SynchronizeDevice(0), IsOk()); });
  absl::SleepFor(absl::Milliseconds(20));  // let it take its list of the device's streams and block
  std::thread destroyer([&] { EXPECT_THAT(table_->Destroy(s), IsOk()); });
  absl::SleepFor(absl::Milliseconds(20));
  gate.Notify();
  destroyer.join();
  synchronizer.join();
  EXPECT_EQ(*word, 5u);
  EXPECT_EQ(table_->stream_count(), 0u);
}

// hipDeviceReset drops the device's cooperative stream: the next cooperative launch gets a new one, and a holder of the
// old one (a launch racing the reset) gets an error from it instead of writing into the new one's HSA queue.
TEST_F(StreamTableTest, DroppingTheCooperativeStreamMakesTheNextOneAfreshAndStopsTheOld) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<clr::Stream> old, table_->Cooperative(0));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<clr::Stream> same, table_->Cooperative(0));
  EXPECT_EQ(same, old) << "one cooperative stream per device while it works";
  uint32_t* word = Word();
  ASSERT_THAT(old->ShaderFill(DeviceAddress::FromPointer(word), 4, 4, 1), IsOk());

  table_->DropCooperative(0);
  EXPECT_EQ(*word, 4u) << "its work was waited for";
  EXPECT_THAT(old->Error(), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(old->ShaderFill(DeviceAddress::FromPointer(word), 5, 4, 1), StatusIs(absl::StatusCode::kFailedPrecondition));

  ASSERT_OK_AND_ASSIGN(std::shared_ptr<clr::Stream> fresh, table_->Cooperative(0));
  EXPECT_NE(fresh, old);
  ASSERT_THAT(fresh->ShaderFill(DeviceAddress::FromPointer(word), 6, 4, 1), IsOk());
  ASSERT_THAT(fresh->Finish(), IsOk());
  EXPECT_EQ(*word, 6u);
  table_->DropCooperative(1000);  // no such device: nothing to drop
}

// A cooperative stream whose queue halted (here a GPU memory fault of a copy on it, the device's fault cleared as
// hipDeviceReset clears it) is replaced by whichever caller sees it first, while this test still holds the failed
// one as a launch on another thread would: two threads asking at once both get the one replacement, which runs on an
// HSA queue of its own (the agent's shared cooperative queue is the halted one until the failed stream lets go of
// it), and the failed stream keeps answering its own error. Which thread decides is up to the scheduler; the outcome
// checked is the same either way. (Sharing the halted queue, the replacement's fill would never run: the test would
// time out.)
TEST_F(StreamTableTest, AFailedCooperativeStreamIsReplacedOnAQueueOfItsOwnWhileAnotherHolderKeepsIt) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<clr::Stream> failed, table_->Cooperative(0));
  uint32_t* word = Word();
  auto unmapped = std::make_unique<uint32_t[]>(1024);  // process memory no GPU page table maps
  ASSERT_THAT(failed->ShaderCopy(DeviceAddress::FromPointer(unmapped.get()), DeviceAddress::FromPointer(word),
                                 Bytes(4096)),
              IsOk());
  const absl::Status fault = failed->Finish();
  ASSERT_TRUE(clr::IsGpuMemoryFault(fault)) << fault;
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<clr::Stream> during, table_->Cooperative(0));
  EXPECT_EQ(during, failed) << "while the device's fault stands, a new stream would fail too: none is made";
  ctx_->faults().Clear(ctx_->devices()[0].agent);

  std::shared_ptr<clr::Stream> got[2];
  std::thread askers[2];
  for (int i = 0; i < 2; ++i) {
    askers[i] = std::thread([&, i] {
      absl::StatusOr<std::shared_ptr<clr::Stream>> s = table_->Cooperative(0);
      EXPECT_THAT(s, IsOk());
      if (s.ok()) got[i] = *std::move(s);
    });
  }
  for (std::thread& t : askers) t.join();
  ASSERT_NE(got[0], nullptr);
  EXPECT_EQ(got[0], got[1]) << "one replacement, not one per caller";
  EXPECT_NE(got[0], failed);
  ASSERT_THAT(got[0]->ShaderFill(DeviceAddress::FromPointer(word), 7, 4, 1), IsOk());
  ASSERT_THAT(got[0]->Finish(), IsOk());
  EXPECT_EQ(*word, 7u);
  // The old holder sees its own error, not the release's.
  const absl::Status again = failed->ShaderFill(DeviceAddress::FromPointer(word), 8, 4, 1);
  EXPECT_TRUE(clr::IsGpuMemoryFault(again)) << again;
  EXPECT_EQ(*word, 7u);
}

}  // namespace
}  // namespace hipmem::hip
