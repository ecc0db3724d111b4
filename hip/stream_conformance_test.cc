// Stream and event behaviour host-only HIP programs rely on, written from hip-tests' host-only stream and event
// cases (catch/unit/stream, catch/unit/event): the legacy null stream against blocking and non-blocking streams,
// hipStreamPerThread, ordering through events across streams fed from several threads, callbacks, queries while
// a host function blocks, destroying a busy stream, events of another device's stream, hipEventElapsedTime's
// errors, and the priority a stream's hardware queue gets. Runs on one MI300X and on two MI250X GCDs.
//
// A host function that blocks on a Notification stands in for a long kernel: it holds its stream (and the work
// queued behind it) for as long as the test wants, without timing guesses. Host functions run one at a time on
// the runtime's handler thread (as CLR's run on ROCr's), so only one may block at a time. While work is held,
// the tests look at it through queries only, never by reading memory the GPU is about to write (a race by
// design, which ThreadSanitizer rightly reports); the order shows in the final contents.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/notification.h"
#include "thunk/kfd_device_sim.h"

namespace {

constexpr size_t kSize = 256 << 10;

void BlockUntilNotified(void* notification) { static_cast<hipmem_testing::Notification*>(notification)->WaitForNotification(); }

// Whether every byte of [p, p + n) is `value`.
bool AllBytes(const unsigned char* p, size_t n, unsigned char value) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != value) return false;
  }
  return true;
}

class StreamConformance : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    ASSERT_EQ(hipGetDeviceCount(&devices_), hipSuccess);
  }
  void TearDown() override {
    // Whatever a failed expectation left blocked must not hold the handler thread for the next test.
    Release();
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  }

  unsigned char* Device(size_t size = kSize) {
    void* p = nullptr;
    EXPECT_EQ(hipMalloc(&p, size), hipSuccess);
    return static_cast<unsigned char*>(p);
  }
  unsigned char* Pinned(size_t size = kSize) {
    void* p = nullptr;
    EXPECT_EQ(hipHostMalloc(&p, size), hipSuccess);
    return static_cast<unsigned char*>(p);
  }
  void Release() {
    if (!release_.HasBeenNotified()) release_.Notify();
  }
  // Holds `stream` (and what is queued on it afterwards) until Release().
  void Hold(hipStream_t stream) { ASSERT_EQ(hipLaunchHostFunc(stream, BlockUntilNotified, &release_), hipSuccess); }

  int devices_ = 0;
  hipmem_testing::Notification release_;
};

TEST_F(StreamConformance, TheNullStreamWaitsForBlockingStreamsButNotForNonBlockingOnes) {
  hipStream_t blocking = nullptr, nonblocking = nullptr;
  ASSERT_EQ(hipStreamCreate(&blocking), hipSuccess);
  ASSERT_EQ(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking), hipSuccess);
  unsigned char* host = Pinned();
  std::memset(host, 0, kSize);

  // Held non-blocking stream: the null stream's work runs and completes regardless.
  Hold(nonblocking);
  ASSERT_EQ(hipMemsetAsync(host, 0x11, kSize, nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_TRUE(AllBytes(host, kSize, 0x11));
  EXPECT_EQ(hipStreamQuery(nonblocking), hipErrorNotReady);
  Release();
  ASSERT_EQ(hipStreamSynchronize(nonblocking), hipSuccess);

  // Held blocking stream: the null stream's later work waits for it.
  hipmem_testing::Notification release_blocking;
  ASSERT_EQ(hipLaunchHostFunc(blocking, BlockUntilNotified, &release_blocking), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(host, 0x22, kSize, nullptr), hipSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(hipStreamQuery(nullptr), hipErrorNotReady);
  // And a blocking stream's later work waits for the null stream's: queued now, it runs last.
  hipStream_t second = nullptr;
  ASSERT_EQ(hipStreamCreate(&second), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(host, 0x33, kSize, second), hipSuccess);
  // A non-blocking stream is free of both.
  unsigned char* other = Pinned();
  ASSERT_EQ(hipMemsetAsync(other, 0x44, kSize, nonblocking), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(nonblocking), hipSuccess);
  EXPECT_TRUE(AllBytes(other, kSize, 0x44));
  EXPECT_EQ(hipStreamQuery(second), hipErrorNotReady);
  release_blocking.Notify();
  ASSERT_EQ(hipStreamSynchronize(second), hipSuccess);
  EXPECT_TRUE(AllBytes(host, kSize, 0x33)) << "the null stream's memset ran after the later blocking stream's";
  EXPECT_EQ(hipStreamQuery(nullptr), hipSuccess);

  EXPECT_EQ(hipHostFree(host), hipSuccess);
  EXPECT_EQ(hipHostFree(other), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(blocking), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(nonblocking), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(second), hipSuccess);
}

TEST_F(StreamConformance, EachThreadHasItsOwnPerThreadStream) {
  unsigned char* a = Pinned();
  unsigned char* b = Pinned();
  hipmem_testing::Notification held;
  std::thread first([&] {
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    unsigned int flags = 99;
    EXPECT_EQ(hipStreamGetFlags(hipStreamPerThread, &flags), hipSuccess);
    EXPECT_EQ(flags, hipStreamDefault) << "the per-thread stream is a blocking stream";
    Hold(hipStreamPerThread);
    EXPECT_EQ(hipMemsetAsync(a, 0x5a, kSize, hipStreamPerThread), hipSuccess);
    held.Notify();
    EXPECT_EQ(hipStreamSynchronize(hipStreamPerThread), hipSuccess);
    EXPECT_TRUE(AllBytes(a, kSize, 0x5a));
  });
  held.WaitForNotification();
  std::thread second([&] {
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    // Not the first thread's stream: its work is not behind the held one.
    EXPECT_EQ(hipMemsetAsync(b, 0xa5, kSize, hipStreamPerThread), hipSuccess);
    EXPECT_EQ(hipStreamSynchronize(hipStreamPerThread), hipSuccess);
    EXPECT_TRUE(AllBytes(b, kSize, 0xa5));
    EXPECT_EQ(hipStreamQuery(hipStreamPerThread), hipSuccess);
  });
  second.join();
  Release();
  first.join();
  EXPECT_EQ(hipStreamDestroy(hipStreamPerThread), hipErrorInvalidHandle);
  EXPECT_EQ(hipHostFree(a), hipSuccess);
  EXPECT_EQ(hipHostFree(b), hipSuccess);
}

TEST_F(StreamConformance, EventsOrderThreeStreamsFedFromThreeThreads) {
  constexpr int kRounds = 8;
  // Each round carries its own data from its own input to its own output, through two device buffers every
  // round reuses.
  unsigned char* input = Pinned(kSize * kRounds);
  unsigned char* output = Pinned(kSize * kRounds);
  unsigned char* stage1 = Device();
  unsigned char* stage2 = Device();
  for (size_t i = 0; i < kSize * kRounds; ++i) input[i] = static_cast<unsigned char>(i * 7 + i / kSize + 3);
  std::memset(output, 0, kSize * kRounds);
  hipStream_t streams[3] = {};
  hipEvent_t done[3][kRounds] = {};
  for (hipStream_t& s : streams) ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
  for (auto& round : done) {
    for (hipEvent_t& e : round) ASSERT_EQ(hipEventCreateWithFlags(&e, hipEventDisableTiming), hipSuccess);
  }
  std::mutex order_mu;
  std::vector<int> order;
  struct Step {
    std::mutex* mu;
    std::vector<int>* order;
    int id;
    int sleep_ms;
  };
  std::vector<std::unique_ptr<Step>> steps;
  for (int round = 0; round < kRounds; ++round) {
    for (int stage = 0; stage < 3; ++stage) {
      // The first stages sleep longest: without the waits the later stages would overtake them.
      steps.push_back(std::make_unique<Step>(Step{&order_mu, &order, round * 3 + stage, (2 - stage) * 3}));
    }
  }
  auto record_step = [](void* p) {
    auto* step = static_cast<Step*>(p);
    std::this_thread::sleep_for(std::chrono::milliseconds(step->sleep_ms));
    std::lock_guard<std::mutex> lock(*step->mu);
    step->order->push_back(step->id);
  };
  // Stage k of round r waits for stage k-1 of round r (its data is ready) and for stage k+1 of round r-1 (the
  // buffer it overwrites was read); each thread feeds its own stream, and learns that an event it waits for was
  // recorded through `recorded` (enqueue order only: the GPU order comes from the waits).
  std::atomic<int> recorded[3] = {};
  auto feed = [&](int stage) {
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    for (int round = 0; round < kRounds; ++round) {
      if (stage > 0) {
        while (recorded[stage - 1].load() <= round) std::this_thread::yield();
        ASSERT_EQ(hipStreamWaitEvent(streams[stage], done[stage - 1][round], 0), hipSuccess);
      }
      if (stage < 2 && round > 0) {
        while (recorded[stage + 1].load() <= round - 1) std::this_thread::yield();
        ASSERT_EQ(hipStreamWaitEvent(streams[stage], done[stage + 1][round - 1], 0), hipSuccess);
      }
      switch (stage) {
        case 0:
          ASSERT_EQ(hipMemcpyAsync(stage1, input + kSize * round, kSize, hipMemcpyHostToDevice, streams[0]),
                    hipSuccess);
          break;
        case 1:
          ASSERT_EQ(hipMemcpyAsync(stage2, stage1, kSize, hipMemcpyDeviceToDevice, streams[1]), hipSuccess);
          break;
        case 2:
          ASSERT_EQ(hipMemcpyAsync(output + kSize * round, stage2, kSize, hipMemcpyDeviceToHost, streams[2]),
                    hipSuccess);
          break;
      }
      ASSERT_EQ(hipLaunchHostFunc(streams[stage], record_step, steps[round * 3 + stage].get()), hipSuccess);
      ASSERT_EQ(hipEventRecord(done[stage][round], streams[stage]), hipSuccess);
      recorded[stage].fetch_add(1);
    }
  };
  std::thread threads[3] = {std::thread(feed, 2), std::thread(feed, 1), std::thread(feed, 0)};
  for (std::thread& t : threads) t.join();
  for (hipStream_t s : streams) ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  for (int round = 0; round < kRounds; ++round) {
    EXPECT_EQ(std::memcmp(output + kSize * round, input + kSize * round, kSize), 0) << "round " << round;
  }
  // Within a round the stages ran in order; each stream's own rounds ran in order.
  ASSERT_EQ(order.size(), size_t{3 * kRounds});
  std::vector<int> position(3 * kRounds);
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int>(i);
  for (int round = 0; round < kRounds; ++round) {
    EXPECT_LT(position[round * 3 + 0], position[round * 3 + 1]) << "round " << round;
    EXPECT_LT(position[round * 3 + 1], position[round * 3 + 2]) << "round " << round;
    if (round > 0) {
      for (int stage = 0; stage < 3; ++stage) {
        EXPECT_LT(position[(round - 1) * 3 + stage], position[round * 3 + stage]);
      }
    }
  }
  for (auto& round : done) {
    for (hipEvent_t e : round) {
      EXPECT_EQ(hipEventQuery(e), hipSuccess);
      EXPECT_EQ(hipEventDestroy(e), hipSuccess);
    }
  }
  for (hipStream_t s : streams) EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipFree(stage1), hipSuccess);
  EXPECT_EQ(hipFree(stage2), hipSuccess);
  EXPECT_EQ(hipHostFree(input), hipSuccess);
  EXPECT_EQ(hipHostFree(output), hipSuccess);
}

TEST_F(StreamConformance, CallbacksGetTheirStreamAndSuccessInOrder) {
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  struct Call {
    hipStream_t stream;
    hipError_t status;
    int index;
  };
  struct Log {
    std::mutex mu;
    std::vector<Call> calls;
  } log;
  struct Arg {
    Log* log;
    int index;
  };
  std::vector<Arg> args;
  for (int i = 0; i < 6; ++i) args.push_back(Arg{&log, i});
  auto callback = [](hipStream_t stream, hipError_t status, void* user) {
    auto* arg = static_cast<Arg*>(user);
    std::lock_guard<std::mutex> lock(arg->log->mu);
    arg->log->calls.push_back(Call{stream, status, arg->index});
  };
  for (int i = 0; i < 3; ++i) ASSERT_EQ(hipStreamAddCallback(s, callback, &args[i], 0), hipSuccess);
  for (int i = 3; i < 6; ++i) ASSERT_EQ(hipStreamAddCallback(nullptr, callback, &args[i], 0), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  ASSERT_EQ(log.calls.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(log.calls[i].index, i);
    EXPECT_EQ(log.calls[i].status, hipSuccess);
    EXPECT_EQ(log.calls[i].stream, i < 3 ? s : nullptr) << "the callback gets the stream as the caller named it";
  }
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(StreamConformance, QueriesSeeABlockedHostFunctionAndTheWorkBehindIt) {
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
  hipEvent_t before = nullptr, after = nullptr;
  ASSERT_EQ(hipEventCreate(&before), hipSuccess);
  ASSERT_EQ(hipEventCreate(&after), hipSuccess);
  unsigned char* host = Pinned();
  std::memset(host, 0, kSize);
  ASSERT_EQ(hipEventRecord(before, s), hipSuccess);
  Hold(s);
  ASSERT_EQ(hipMemsetAsync(host, 0x77, kSize, s), hipSuccess);
  ASSERT_EQ(hipEventRecord(after, s), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(before), hipSuccess);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);
    EXPECT_EQ(hipEventQuery(after), hipErrorNotReady);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(hipEventQuery(before), hipSuccess);
  Release();
  ASSERT_EQ(hipEventSynchronize(after), hipSuccess);
  EXPECT_EQ(hipEventQuery(after), hipSuccess);
  EXPECT_TRUE(AllBytes(host, kSize, 0x77));
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(hipStreamQuery(s), hipSuccess);
  EXPECT_EQ(hipEventDestroy(before), hipSuccess);
  EXPECT_EQ(hipEventDestroy(after), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipHostFree(host), hipSuccess);
}

TEST_F(StreamConformance, DestroyingAStreamWithQueuedWorkLetsTheWorkFinish) {
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  unsigned char* host = Pinned();
  std::memset(host, 0, kSize);
  hipEvent_t done = nullptr;
  ASSERT_EQ(hipEventCreate(&done), hipSuccess);
  std::atomic<bool> ran{false};
  ASSERT_EQ(hipLaunchHostFunc(
                s,
                [](void* flag) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(30));
                  static_cast<std::atomic<bool>*>(flag)->store(true);
                },
                &ran),
            hipSuccess);
  ASSERT_EQ(hipMemsetAsync(host, 0x3c, kSize, s), hipSuccess);
  ASSERT_EQ(hipEventRecord(done, s), hipSuccess);
  ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
  // Nothing queued is dropped: CLR's release waits for it, CUDA's lets it finish later; either way it is done
  // once the device is synchronized, and the event recorded on the destroyed stream still completes.
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(done), hipSuccess);
  EXPECT_TRUE(ran.load());
  EXPECT_TRUE(AllBytes(host, kSize, 0x3c));
  EXPECT_NE(hipStreamQuery(s), hipSuccess) << "a destroyed stream is no longer a stream";
  EXPECT_EQ(hipStreamDestroy(s), hipErrorContextIsDestroyed) << "hip-tests Unit_hipStreamDestroy_Negative_DoubleDestroy";
  EXPECT_EQ(hipEventDestroy(done), hipSuccess);
  EXPECT_EQ(hipHostFree(host), hipSuccess);
}

TEST_F(StreamConformance, AStreamWaitsForAnEventRecordedOnAnotherDevicesStream) {
  if (devices_ < 2) GTEST_SKIP() << "needs two GPUs";
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  hipStream_t remote = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&remote, hipStreamNonBlocking), hipSuccess);
  hipEvent_t remote_done = nullptr;
  ASSERT_EQ(hipEventCreate(&remote_done), hipSuccess);
  unsigned char* host = Pinned();
  std::memset(host, 0, kSize);
  Hold(remote);
  ASSERT_EQ(hipMemsetAsync(host, 0x10, kSize, remote), hipSuccess);
  ASSERT_EQ(hipEventRecord(remote_done, remote), hipSuccess);

  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  hipStream_t local = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&local, hipStreamNonBlocking), hipSuccess);
  hipDevice_t device = -1;
  ASSERT_EQ(hipStreamGetDevice(remote, &device), hipSuccess);
  EXPECT_EQ(device, 1);
  ASSERT_EQ(hipStreamWaitEvent(local, remote_done, 0), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(host, 0x20, kSize, local), hipSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(hipStreamQuery(local), hipErrorNotReady);
  EXPECT_EQ(hipEventQuery(remote_done), hipErrorNotReady);
  Release();
  ASSERT_EQ(hipStreamSynchronize(local), hipSuccess);
  EXPECT_EQ(hipEventQuery(remote_done), hipSuccess);
  EXPECT_TRUE(AllBytes(host, kSize, 0x20)) << "device 0's memset ran before device 1's";
  EXPECT_EQ(hipStreamDestroy(local), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(remote), hipSuccess);
  EXPECT_EQ(hipEventDestroy(remote_done), hipSuccess);
  EXPECT_EQ(hipHostFree(host), hipSuccess);
}

TEST_F(StreamConformance, ElapsedTimeErrors) {
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
  hipEvent_t start = nullptr, stop = nullptr, untimed = nullptr, unrecorded = nullptr, dead = nullptr;
  ASSERT_EQ(hipEventCreate(&start), hipSuccess);
  ASSERT_EQ(hipEventCreate(&stop), hipSuccess);
  ASSERT_EQ(hipEventCreateWithFlags(&untimed, hipEventDisableTiming), hipSuccess);
  ASSERT_EQ(hipEventCreate(&unrecorded), hipSuccess);
  ASSERT_EQ(hipEventCreate(&dead), hipSuccess);
  ASSERT_EQ(hipEventDestroy(dead), hipSuccess);
  float ms = -1;

  ASSERT_EQ(hipEventRecord(start, s), hipSuccess);
  ASSERT_EQ(hipEventRecord(untimed, s), hipSuccess);
  Hold(s);
  ASSERT_EQ(hipEventRecord(stop, s), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(start), hipSuccess);
  EXPECT_EQ(hipEventElapsedTime(&ms, start, stop), hipErrorNotReady) << "stop is still pending";
  EXPECT_EQ(hipEventElapsedTime(&ms, start, untimed), hipErrorInvalidHandle) << "no timing";
  EXPECT_EQ(hipEventElapsedTime(&ms, untimed, start), hipErrorInvalidHandle) << "no timing";
  EXPECT_EQ(hipEventElapsedTime(&ms, start, unrecorded), hipErrorInvalidHandle) << "never recorded";
  EXPECT_EQ(hipEventElapsedTime(&ms, start, dead), hipErrorInvalidHandle) << "destroyed";
  EXPECT_EQ(hipEventElapsedTime(&ms, start, nullptr), hipErrorInvalidHandle);
  EXPECT_EQ(hipEventElapsedTime(nullptr, start, stop), hipErrorInvalidValue);
  EXPECT_EQ(ms, -1) << "a failed call leaves the output alone";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Release();
  ASSERT_EQ(hipEventSynchronize(stop), hipSuccess);
  ASSERT_EQ(hipEventElapsedTime(&ms, start, stop), hipSuccess);
  // The stop mark passed the CP only after the host function returned, 20 ms or more after start's.
  EXPECT_GE(ms, 15.0f);
  float back = 0;
  ASSERT_EQ(hipEventElapsedTime(&back, stop, start), hipSuccess);
  EXPECT_FLOAT_EQ(back, -ms) << "the two orders agree";
  for (hipEvent_t e : {start, stop, untimed, unrecorded}) EXPECT_EQ(hipEventDestroy(e), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// The kernel priority (0..15) of the one compute AQL queue `create` added to the simulated machine; -1 when it
// added none or several.
template <typename Create>
int NewHardwareQueuePriority(Create create) {
  auto machine = hipmem::thunk::SimMachine::Default();
  if (!machine.ok()) return -1;
  auto queues = [&] {
    std::vector<std::pair<std::pair<uint64_t, uint32_t>, uint32_t>> out;
    for (const hipmem::kfd_sim::SimProcess& p : (*machine)->simulator().Snapshot().processes) {
      for (const hipmem::kfd_sim::SimQueue& q : p.queues) {
        if (q.type == hipmem::kfd_uapi::QueueType::kComputeAql) out.push_back({{p.id, q.id}, q.priority});
      }
    }
    return out;
  };
  std::set<std::pair<uint64_t, uint32_t>> before;
  for (const auto& [key, priority] : queues()) before.insert(key);
  create();
  int found = -1, added = 0;
  for (const auto& [key, priority] : queues()) {
    if (before.count(key) == 0) {
      ++added;
      found = static_cast<int>(priority);
    }
  }
  return added == 1 ? found : -1;
}

TEST_F(StreamConformance, AStreamsPriorityReachesItsHardwareQueue) {
  int least = 0, greatest = 0;
  ASSERT_EQ(hipDeviceGetStreamPriorityRange(&least, &greatest), hipSuccess);
  std::vector<hipStream_t> streams;
  auto create = [&](int priority) {
    return NewHardwareQueuePriority([&] {
      hipStream_t s = nullptr;
      ASSERT_EQ(hipStreamCreateWithPriority(&s, hipStreamDefault, priority), hipSuccess);
      streams.push_back(s);
    });
  };
  // HIP's greatest priority is HSA's HIGH (KFD maximum 15), its least LOW (minimum 0), 0 NORMAL (7); values past
  // the range are clamped into it.
  EXPECT_EQ(create(greatest), 15);
  EXPECT_EQ(create(greatest - 5), 15);
  EXPECT_EQ(create(0), 7);
  EXPECT_EQ(create(least), 0);
  EXPECT_EQ(create(least + 5), 0);
  // Work runs on every one of them.
  unsigned char* host = Pinned(4096 * streams.size());
  for (size_t i = 0; i < streams.size(); ++i) {
    ASSERT_EQ(hipMemsetAsync(host + 4096 * i, static_cast<int>(i + 1), 4096, streams[i]), hipSuccess);
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    ASSERT_EQ(hipStreamSynchronize(streams[i]), hipSuccess);
    EXPECT_TRUE(AllBytes(host + 4096 * i, 4096, static_cast<unsigned char>(i + 1)));
    EXPECT_EQ(hipStreamDestroy(streams[i]), hipSuccess);
  }
  EXPECT_EQ(hipHostFree(host), hipSuccess);
}

}  // namespace
