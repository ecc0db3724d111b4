// Streams and events around kernels, as hip-tests' stream cases that launch kernels check them (issue #23 §4; the
// behaviour in our own words): ordering across streams through events, host functions and callbacks between
// kernels, queries while a kernel runs, the null stream against blocking and non-blocking streams, the per-thread
// default stream, priorities, elapsed time around a kernel, and many small launches on one stream.
//
// Nothing here depends on timing. Where a case needs a kernel that is still running, the kernel waits on a gate (a
// flag in pinned host memory) that only the host opens, so "not finished yet" is certain until the host says so.
#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdint>
#include <iterator>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

constexpr int kN = 4096;

// Waits (sleeping between looks, so the simulated CU runs other waves) until the host opens the gate, then writes
// p[i] = value + i. Launched as one block that strides over the buffer: few waiting waves leave the simulator's
// threads to the other streams' kernels.
__global__ void wait_then_fill(const unsigned* gate, int* p, int value) {
  while (__hip_atomic_load(gate, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) == 0u) __builtin_amdgcn_s_sleep(2);
  for (int i = threadIdx.x; i < kN; i += blockDim.x) p[i] = value + i;
}

__global__ void fill(int* p, int value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) p[i] = value + i;
}

// out[i] = in[i] * 2 + 1: a consumer whose result shows whether it read the producer's output or what was there before.
__global__ void consume(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) out[i] = in[i] * 2 + 1;
}

__global__ void add_one(int* p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) p[i] += 1;
}

// The smallest launch: one wave, each lane adds one to its element.
constexpr int kWave = 64;
__global__ void add_one_wave(int* p) { p[threadIdx.x] += 1; }

// Enough arithmetic per work-item that the kernel takes measurable time.
__global__ void busy(float* p, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = static_cast<float>(i);
  for (int r = 0; r < rounds; ++r) v = v * 0.999f + 1.0f;
  if (i < kN) p[i] = v;
}

constexpr dim3 kGrid(kN / 256), kBlock(256);

// A flag in pinned host memory that a kernel waits on. The destructor opens it, so a failing check never leaves a
// kernel waiting forever (the fixture's teardown synchronises the device).
class Gate {
 public:
  Gate() { EXPECT_EQ(hipHostMalloc(reinterpret_cast<void**>(&flag_), sizeof(unsigned), 0), hipSuccess); }
  ~Gate() {
    Open();
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(hipHostFree(flag_), hipSuccess);
  }
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  const unsigned* get() const { return flag_; }
  void Open() { __atomic_store_n(flag_, 1u, __ATOMIC_RELEASE); }

 private:
  unsigned* flag_ = nullptr;
};

class KernelStreamTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    for (int* p : device_) EXPECT_EQ(hipFree(p), hipSuccess);
    for (hipStream_t s : streams_) EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  }
  int* Device() {
    int* p = nullptr;
    EXPECT_EQ(hipMalloc(reinterpret_cast<void**>(&p), kN * sizeof(int)), hipSuccess);
    EXPECT_EQ(hipMemset(p, 0, kN * sizeof(int)), hipSuccess);
    device_.push_back(p);
    return p;
  }
  hipStream_t Stream(unsigned flags = hipStreamDefault) {
    hipStream_t s = nullptr;
    EXPECT_EQ(hipStreamCreateWithFlags(&s, flags), hipSuccess);
    streams_.push_back(s);
    return s;
  }
  static std::vector<int> Read(const int* d) {
    std::vector<int> host(kN);
    EXPECT_EQ(hipMemcpy(host.data(), d, kN * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    return host;
  }
  std::vector<int*> device_;
  std::vector<hipStream_t> streams_;
};

::testing::AssertionResult Filled(const std::vector<int>& v, int value, int times = 1, int plus = 0) {
  for (int i = 0; i < kN; ++i) {
    if (v[i] != (value + i) * times + plus) {
      return ::testing::AssertionFailure() << "element " << i << " is " << v[i] << ", expected "
                                           << (value + i) * times + plus;
    }
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------------------------

TEST_F(KernelStreamTest, AStreamWaitingOnAnEventRunsItsKernelAfterTheOtherStreamsKernel) {
  hipStream_t producer = Stream(), consumer = Stream();
  int* data = Device();
  int* out = Device();
  hipEvent_t produced = nullptr;
  ASSERT_HIP(hipEventCreateWithFlags(&produced, hipEventDisableTiming));
  Gate gate;
  wait_then_fill<<<1, kBlock, 0, producer>>>(gate.get(), data, 100);
  ASSERT_HIP(hipEventRecord(produced, producer));
  ASSERT_HIP(hipStreamWaitEvent(consumer, produced, 0));
  consume<<<kGrid, kBlock, 0, consumer>>>(data, out);
  // Neither can finish while the producer waits at the gate.
  EXPECT_EQ(hipEventQuery(produced), hipErrorNotReady);
  EXPECT_EQ(hipStreamQuery(producer), hipErrorNotReady);
  EXPECT_EQ(hipStreamQuery(consumer), hipErrorNotReady);
  gate.Open();
  ASSERT_HIP(hipStreamSynchronize(consumer));
  EXPECT_EQ(hipEventQuery(produced), hipSuccess);  // the consumer finished after the event
  EXPECT_TRUE(Filled(Read(out), 100, 2, 1));
  ASSERT_HIP(hipEventDestroy(produced));
}

// The event of a stream on device 0 orders a stream of device 1.
TEST_F(KernelStreamTest, AnEventOrdersStreamsOfTwoDevices) {
  int count = 0;
  ASSERT_HIP(hipGetDeviceCount(&count));
  if (count < 2) GTEST_SKIP() << "one device";
  hipStream_t producer = Stream();
  int* data = nullptr;
  ASSERT_HIP(hipMallocManaged(reinterpret_cast<void**>(&data), kN * sizeof(int), hipMemAttachGlobal));
  hipEvent_t produced = nullptr;
  ASSERT_HIP(hipEventCreate(&produced));
  Gate gate;
  wait_then_fill<<<1, kBlock, 0, producer>>>(gate.get(), data, 7);
  ASSERT_HIP(hipEventRecord(produced, producer));
  ASSERT_HIP(hipSetDevice(1));
  hipStream_t consumer = nullptr;
  ASSERT_HIP(hipStreamCreate(&consumer));
  int* out = nullptr;
  ASSERT_HIP(hipMallocManaged(reinterpret_cast<void**>(&out), kN * sizeof(int), hipMemAttachGlobal));
  ASSERT_HIP(hipStreamWaitEvent(consumer, produced, 0));
  consume<<<kGrid, kBlock, 0, consumer>>>(data, out);
  EXPECT_EQ(hipStreamQuery(consumer), hipErrorNotReady);
  gate.Open();
  ASSERT_HIP(hipStreamSynchronize(consumer));
  std::vector<int> result(out, out + kN);
  EXPECT_TRUE(Filled(result, 7, 2, 1));
  ASSERT_HIP(hipStreamDestroy(consumer));
  ASSERT_HIP(hipFree(out));
  ASSERT_HIP(hipSetDevice(0));
  ASSERT_HIP(hipEventDestroy(produced));
  ASSERT_HIP(hipFree(data));
}

// A host function runs after the kernel before it finished and before the kernel after it starts: it sees the first
// kernel's output, and what it writes is what the second kernel reads.
struct HostStep {
  int* pinned = nullptr;  // kN ints
  std::atomic<int> calls{0};
  bool saw_first_kernel = false;
};

void CheckAndRewrite(HostStep* step) {
  bool all = true;
  for (int i = 0; i < kN; ++i) all = all && step->pinned[i] == 5 + i;
  step->saw_first_kernel = all;
  for (int i = 0; i < kN; ++i) step->pinned[i] = 1000 + i;
  step->calls.fetch_add(1);
}

TEST_F(KernelStreamTest, AHostFunctionBetweenKernelsSeesTheFirstAndFeedsTheSecond) {
  hipStream_t stream = Stream();
  HostStep step;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&step.pinned), kN * sizeof(int), 0));
  int* out = Device();
  Gate gate;
  wait_then_fill<<<1, kBlock, 0, stream>>>(gate.get(), step.pinned, 5);
  ASSERT_HIP(hipLaunchHostFunc(stream, [](void* p) { CheckAndRewrite(static_cast<HostStep*>(p)); }, &step));
  consume<<<kGrid, kBlock, 0, stream>>>(step.pinned, out);
  EXPECT_EQ(step.calls.load(), 0);  // held behind the gated kernel
  gate.Open();
  ASSERT_HIP(hipStreamSynchronize(stream));
  EXPECT_EQ(step.calls.load(), 1);
  EXPECT_TRUE(step.saw_first_kernel);
  EXPECT_TRUE(Filled(Read(out), 1000, 2, 1));
  ASSERT_HIP(hipHostFree(step.pinned));
}

struct CallbackLog {
  int* pinned = nullptr;
  std::atomic<int> calls{0};
  hipError_t status = hipErrorUnknown;
  hipStream_t stream = nullptr;
  bool saw_first_kernel = false;
};

TEST_F(KernelStreamTest, AStreamCallbackBetweenKernelsSeesTheFirstAndFeedsTheSecond) {
  hipStream_t stream = Stream();
  CallbackLog log;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&log.pinned), kN * sizeof(int), 0));
  int* out = Device();
  Gate gate;
  wait_then_fill<<<1, kBlock, 0, stream>>>(gate.get(), log.pinned, 5);
  auto callback = [](hipStream_t s, hipError_t status, void* p) {
    auto* l = static_cast<CallbackLog*>(p);
    l->stream = s;
    l->status = status;
    bool all = true;
    for (int i = 0; i < kN; ++i) all = all && l->pinned[i] == 5 + i;
    l->saw_first_kernel = all;
    for (int i = 0; i < kN; ++i) l->pinned[i] = 2000 + i;
    l->calls.fetch_add(1);
  };
  ASSERT_HIP(hipStreamAddCallback(stream, callback, &log, 0));
  consume<<<kGrid, kBlock, 0, stream>>>(log.pinned, out);
  EXPECT_EQ(log.calls.load(), 0);
  gate.Open();
  ASSERT_HIP(hipStreamSynchronize(stream));
  EXPECT_EQ(log.calls.load(), 1);
  EXPECT_EQ(log.status, hipSuccess);
  EXPECT_EQ(log.stream, stream);
  EXPECT_TRUE(log.saw_first_kernel);
  EXPECT_TRUE(Filled(Read(out), 2000, 2, 1));
  ASSERT_HIP(hipHostFree(log.pinned));
}

TEST_F(KernelStreamTest, QueryWhileAKernelWaitsIsNotReadyThenSuccess) {
  hipStream_t stream = Stream();
  int* data = Device();
  hipEvent_t done = nullptr;
  ASSERT_HIP(hipEventCreate(&done));
  EXPECT_EQ(hipStreamQuery(stream), hipSuccess);  // no work yet
  Gate gate;
  wait_then_fill<<<1, kBlock, 0, stream>>>(gate.get(), data, 3);
  ASSERT_HIP(hipEventRecord(done, stream));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(hipStreamQuery(stream), hipErrorNotReady);
    EXPECT_EQ(hipEventQuery(done), hipErrorNotReady);
  }
  gate.Open();
  ASSERT_HIP(hipStreamSynchronize(stream));
  EXPECT_EQ(hipStreamQuery(stream), hipSuccess);
  EXPECT_EQ(hipEventQuery(done), hipSuccess);
  EXPECT_TRUE(Filled(Read(data), 3));
  ASSERT_HIP(hipEventDestroy(done));
}

// Polling without synchronising: every answer is NotReady or Success, and once it is Success the kernel's writes
// are all visible to the host. The loop ends because the kernel does.
TEST_F(KernelStreamTest, WhenAQueryAnswersSuccessTheKernelsWritesAreVisible) {
  hipStream_t stream = Stream();
  int* pinned = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&pinned), kN * sizeof(int), 0));
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < kN; ++i) pinned[i] = -1;
    fill<<<kGrid, kBlock, 0, stream>>>(pinned, round * 10000);
    hipError_t answer;
    while ((answer = hipStreamQuery(stream)) == hipErrorNotReady) std::this_thread::yield();
    ASSERT_EQ(answer, hipSuccess);
    std::vector<int> seen(pinned, pinned + kN);
    ASSERT_TRUE(Filled(seen, round * 10000)) << "round " << round;
  }
  ASSERT_HIP(hipHostFree(pinned));
}

// The legacy null stream waits for a blocking stream's earlier work, and a blocking stream waits for the null
// stream's.
TEST_F(KernelStreamTest, TheNullStreamAndABlockingStreamWaitForEachOther) {
  hipStream_t blocking = Stream(hipStreamDefault);
  int* data = Device();
  int* out = Device();
  {
    Gate gate;
    wait_then_fill<<<1, kBlock, 0, blocking>>>(gate.get(), data, 11);
    consume<<<kGrid, kBlock>>>(data, out);  // null stream
    EXPECT_EQ(hipStreamQuery(nullptr), hipErrorNotReady);
    gate.Open();
    ASSERT_HIP(hipStreamSynchronize(nullptr));
    EXPECT_TRUE(Filled(Read(out), 11, 2, 1));
  }
  {
    Gate gate;
    wait_then_fill<<<1, kBlock>>>(gate.get(), data, 22);  // null stream
    consume<<<kGrid, kBlock, 0, blocking>>>(data, out);
    EXPECT_EQ(hipStreamQuery(blocking), hipErrorNotReady);
    gate.Open();
    ASSERT_HIP(hipStreamSynchronize(blocking));
    EXPECT_TRUE(Filled(Read(out), 22, 2, 1));
  }
}

// hipStreamNonBlocking: no implicit ordering with the null stream either way. Were there one, the synchronise below
// would wait for the gated kernel and never return (the test would time out).
TEST_F(KernelStreamTest, ANonBlockingStreamDoesNotSynchroniseWithTheNullStream) {
  hipStream_t non_blocking = Stream(hipStreamNonBlocking);
  unsigned flags = 0;
  ASSERT_HIP(hipStreamGetFlags(non_blocking, &flags));
  EXPECT_EQ(flags, hipStreamNonBlocking);
  int* gated = Device();
  int* free_running = Device();
  {
    Gate gate;
    wait_then_fill<<<1, kBlock, 0, non_blocking>>>(gate.get(), gated, 1);
    fill<<<kGrid, kBlock>>>(free_running, 2);  // null stream: runs and finishes past the gated kernel
    ASSERT_HIP(hipStreamSynchronize(nullptr));
    EXPECT_EQ(hipStreamQuery(non_blocking), hipErrorNotReady);
    std::vector<int> host(kN);
    ASSERT_HIP(hipMemcpyAsync(host.data(), free_running, kN * sizeof(int), hipMemcpyDeviceToHost, nullptr));
    ASSERT_HIP(hipStreamSynchronize(nullptr));
    EXPECT_TRUE(Filled(host, 2));
    gate.Open();
    ASSERT_HIP(hipStreamSynchronize(non_blocking));
    EXPECT_TRUE(Filled(Read(gated), 1));
  }
  {
    Gate gate;
    wait_then_fill<<<1, kBlock>>>(gate.get(), gated, 3);  // null stream
    fill<<<kGrid, kBlock, 0, non_blocking>>>(free_running, 4);
    ASSERT_HIP(hipStreamSynchronize(non_blocking));
    EXPECT_EQ(hipStreamQuery(nullptr), hipErrorNotReady);
    gate.Open();
  }
  EXPECT_TRUE(Filled(Read(gated), 3));
  EXPECT_TRUE(Filled(Read(free_running), 4));
}

// hipStreamPerThread is each thread's own stream: one thread's kernel waiting at a gate does not hold another
// thread's per-thread stream, and each thread's launches keep their order.
TEST_F(KernelStreamTest, EachThreadHasItsOwnPerThreadStream) {
  int* first = Device();
  int* second = Device();
  int* out = Device();
  Gate gate;
  wait_then_fill<<<1, kBlock, 0, hipStreamPerThread>>>(gate.get(), first, 50);
  consume<<<kGrid, kBlock, 0, hipStreamPerThread>>>(first, out);
  // The other thread reads its result on its own stream too: hipMemcpy on the null stream would also wait for
  // this thread's per-thread stream if that one is blocking (CUDA's per-thread streams are).
  hipError_t other_sync = hipErrorUnknown;
  std::vector<int> second_host(kN);
  std::thread other([&] {
    fill<<<kGrid, kBlock, 0, hipStreamPerThread>>>(second, 60);
    add_one<<<kGrid, kBlock, 0, hipStreamPerThread>>>(second);
    const hipError_t copied = hipMemcpyAsync(second_host.data(), second, kN * sizeof(int), hipMemcpyDeviceToHost,
                                             hipStreamPerThread);
    other_sync = copied != hipSuccess ? copied : hipStreamSynchronize(hipStreamPerThread);
  });
  other.join();
  ASSERT_HIP(other_sync);
  EXPECT_EQ(hipStreamQuery(hipStreamPerThread), hipErrorNotReady);  // this thread's is still at the gate
  EXPECT_TRUE(Filled(second_host, 60, 1, 1));
  gate.Open();
  ASSERT_HIP(hipStreamSynchronize(hipStreamPerThread));
  EXPECT_TRUE(Filled(Read(out), 50, 2, 1));
}

TEST_F(KernelStreamTest, StreamsOfEveryPriorityRunKernels) {
  int least = 0, greatest = 0;
  ASSERT_HIP(hipDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT_LE(greatest, least);  // a lower number is a higher priority
  // Out-of-range priorities are clamped into the range.
  const int asked[] = {least, greatest, (least + greatest) / 2, least + 10, greatest - 10};
  const int given[] = {least, greatest, (least + greatest) / 2, least, greatest};
  std::vector<int*> buffers;
  for (size_t k = 0; k < std::size(asked); ++k) {
    hipStream_t s = nullptr;
    ASSERT_HIP(hipStreamCreateWithPriority(&s, hipStreamDefault, asked[k]));
    streams_.push_back(s);
    int priority = 12345;
    ASSERT_HIP(hipStreamGetPriority(s, &priority));
    EXPECT_EQ(priority, given[k]) << "asked " << asked[k];
    buffers.push_back(Device());
    fill<<<kGrid, kBlock, 0, s>>>(buffers.back(), static_cast<int>(k) * 100);
    add_one<<<kGrid, kBlock, 0, s>>>(buffers.back());
  }
  for (size_t k = 0; k < streams_.size(); ++k) {
    ASSERT_HIP(hipStreamSynchronize(streams_[k]));
    EXPECT_TRUE(Filled(Read(buffers[k]), static_cast<int>(k) * 100, 1, 1)) << "stream " << k;
  }
}

TEST_F(KernelStreamTest, ElapsedTimeAroundAKernelIsPositive) {
  hipStream_t stream = Stream();
  float* p = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&p), kN * sizeof(float)));
  hipEvent_t start = nullptr, stop = nullptr;
  ASSERT_HIP(hipEventCreate(&start));
  ASSERT_HIP(hipEventCreate(&stop));
  ASSERT_HIP(hipEventRecord(start, stream));
  busy<<<kGrid, kBlock, 0, stream>>>(p, 200);
  ASSERT_HIP(hipEventRecord(stop, stream));
  ASSERT_HIP(hipEventSynchronize(stop));
  float ms = 0.0f;
  ASSERT_HIP(hipEventElapsedTime(&ms, start, stop));
  EXPECT_GT(ms, 0.0f);
  // Reversed, the same span is negative.
  float back = 0.0f;
  ASSERT_HIP(hipEventElapsedTime(&back, stop, start));
  EXPECT_FLOAT_EQ(back, -ms);
  ASSERT_HIP(hipEventDestroy(start));
  ASSERT_HIP(hipEventDestroy(stop));
  ASSERT_HIP(hipFree(p));
}

// Many small launches (more than an AQL queue holds at once) on one stream: one synchronise waits for them all and
// every launch ran once, in order (each adds one to what the one before left).
TEST_F(KernelStreamTest, OneSynchroniseAfterThousandsOfSmallLaunches) {
  constexpr int kLaunches = 2500;
  hipStream_t stream = Stream();
  int* data = Device();
  fill<<<kGrid, kBlock, 0, stream>>>(data, 0);
  for (int k = 0; k < kLaunches; ++k) add_one_wave<<<1, kWave, 0, stream>>>(data);
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipStreamSynchronize(stream));
  EXPECT_EQ(hipStreamQuery(stream), hipSuccess);
  std::vector<int> host = Read(data);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(host[i], i + (i < kWave ? kLaunches : 0)) << i;
}

}  // namespace
