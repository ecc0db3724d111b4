// Streams, events, async copies, memsets and host registration through the C API, as host-only HIP programs
// (hip-tests' stream, event and memory cases) use them.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

TEST(HipStreamCApi, StreamsAreCreatedQueriedAndDestroyed) {
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  unsigned int flags = 99;
  int priority = 99;
  hipDevice_t device = -1;
  EXPECT_EQ(hipStreamGetFlags(s, &flags), hipSuccess);
  EXPECT_EQ(flags, hipStreamDefault);
  EXPECT_EQ(hipStreamGetPriority(s, &priority), hipSuccess);
  EXPECT_EQ(priority, 0);
  EXPECT_EQ(hipStreamGetDevice(s, &device), hipSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(hipStreamQuery(s), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);

  EXPECT_EQ(hipStreamCreate(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamCreateWithFlags(&s, 0x4), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamDestroy(nullptr), hipErrorInvalidHandle);
  EXPECT_EQ(hipStreamDestroy(hipStreamPerThread), hipErrorInvalidHandle);
  EXPECT_EQ(hipStreamGetFlags(nullptr, nullptr), hipErrorInvalidValue);

  int least = 0, greatest = 0;
  EXPECT_EQ(hipDeviceGetStreamPriorityRange(&least, &greatest), hipSuccess);
  EXPECT_GE(least, greatest) << "a greater priority is a smaller number";
  ASSERT_EQ(hipStreamCreateWithPriority(&s, hipStreamNonBlocking, greatest - 10), hipSuccess);
  EXPECT_EQ(hipStreamGetPriority(s, &priority), hipSuccess);
  EXPECT_EQ(priority, greatest) << "clamped into the range";
  EXPECT_EQ(hipStreamGetFlags(s, &flags), hipSuccess);
  EXPECT_EQ(flags, hipStreamNonBlocking);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  // The null stream and the per-thread stream need no creation.
  EXPECT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(hipStreamPerThread), hipSuccess);
}

TEST(HipStreamCApi, AsyncChainsAcrossStreamsFollowEvents) {
  constexpr size_t kSize = 1 << 20;
  hipStream_t a = nullptr, b = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&a, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(hipStreamCreateWithFlags(&b, hipStreamNonBlocking), hipSuccess);
  hipEvent_t produced = nullptr;
  ASSERT_EQ(hipEventCreate(&produced), hipSuccess);
  unsigned char *d1 = nullptr, *d2 = nullptr, *pinned = nullptr;
  ASSERT_EQ(hipMalloc(&d1, kSize), hipSuccess);  // the C++ overload: no casts
  ASSERT_EQ(hipMalloc(&d2, kSize), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&pinned, kSize), hipSuccess);
  std::vector<unsigned char> in(kSize), out(kSize, 0);
  std::iota(in.begin(), in.end(), 0);
  for (int round = 0; round < 3; ++round) {
    in[0] = static_cast<unsigned char>(round);
    ASSERT_EQ(hipMemcpyAsync(d1, in.data(), kSize, hipMemcpyHostToDevice, a), hipSuccess);
    ASSERT_EQ(hipMemsetAsync(d1 + 1, 0xee, 15, a), hipSuccess);
    ASSERT_EQ(hipEventRecord(produced, a), hipSuccess);
    ASSERT_EQ(hipStreamWaitEvent(b, produced, 0), hipSuccess);
    ASSERT_EQ(hipMemcpyAsync(d2, d1, kSize, hipMemcpyDeviceToDevice, b), hipSuccess);
    ASSERT_EQ(hipMemcpyAsync(pinned, d2, kSize, hipMemcpyDeviceToHost, b), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(b), hipSuccess);
    EXPECT_EQ(hipEventQuery(produced), hipSuccess);
    std::memcpy(out.data(), pinned, kSize);
    std::vector<unsigned char> expected = in;
    std::memset(expected.data() + 1, 0xee, 15);
    EXPECT_EQ(out, expected) << "round " << round;
  }
  EXPECT_EQ(hipFree(d1), hipSuccess);
  EXPECT_EQ(hipFree(d2), hipSuccess);
  EXPECT_EQ(hipHostFree(pinned), hipSuccess);
  EXPECT_EQ(hipEventDestroy(produced), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(a), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(b), hipSuccess);
}

TEST(HipStreamCApi, EventsTimeTheWorkBetweenThem) {
  hipEvent_t start = nullptr, stop = nullptr, untimed = nullptr;
  ASSERT_EQ(hipEventCreate(&start), hipSuccess);
  ASSERT_EQ(hipEventCreateWithFlags(&stop, hipEventBlockingSync), hipSuccess);
  ASSERT_EQ(hipEventCreateWithFlags(&untimed, hipEventDisableTiming), hipSuccess);
  float ms = -1;
  EXPECT_EQ(hipEventElapsedTime(&ms, start, stop), hipErrorInvalidHandle) << "not recorded yet";
  ASSERT_EQ(hipEventRecord(start, nullptr), hipSuccess);
  ASSERT_EQ(hipLaunchHostFunc(
                nullptr, [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }, nullptr),
            hipSuccess);
  ASSERT_EQ(hipEventRecord(stop, nullptr), hipSuccess);
  ASSERT_EQ(hipEventRecord(untimed, nullptr), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(stop), hipSuccess);
  ASSERT_EQ(hipEventElapsedTime(&ms, start, stop), hipSuccess);
  EXPECT_GE(ms, 5.0f);
  EXPECT_EQ(hipEventElapsedTime(&ms, start, untimed), hipErrorInvalidHandle);
  EXPECT_EQ(hipEventElapsedTime(nullptr, start, stop), hipErrorInvalidValue);
  EXPECT_EQ(hipEventCreateWithFlags(&untimed, 0x100), hipErrorInvalidValue);
  EXPECT_EQ(hipEventCreateWithFlags(&untimed, hipEventInterprocess), hipErrorInvalidValue) << "needs DisableTiming";
  EXPECT_EQ(hipEventCreateWithFlags(&untimed, hipEventReleaseToDevice | hipEventReleaseToSystem), hipErrorInvalidValue);
  (void)hipGetLastError();
  EXPECT_EQ(hipEventDestroy(start), hipSuccess);
  // CLR answers from its set of live events, and this answer does not become the last error.
  EXPECT_EQ(hipEventDestroy(start), hipErrorContextIsDestroyed);
  EXPECT_EQ(hipPeekAtLastError(), hipSuccess);
  EXPECT_EQ(hipEventDestroy(nullptr), hipErrorInvalidHandle);
  EXPECT_EQ(hipEventQuery(start), hipErrorInvalidHandle);
  EXPECT_EQ(hipEventDestroy(stop), hipSuccess);
  (void)hipGetLastError();
}

// Current CLR's two error slots: a failure stays the thread's last error until hipGetLastError reads it, whatever
// succeeds meanwhile, and hipErrorNotReady (a query's "still running") never becomes it.
TEST(HipStreamCApi, TheLastErrorIsStickyAndNotReadyIsNotAnError) {
  (void)hipGetLastError();
  void* p = nullptr;
  ASSERT_EQ(hipMalloc(&p, SIZE_MAX), hipErrorOutOfMemory);
  int device = -1;
  EXPECT_EQ(hipGetDevice(&device), hipSuccess);
  EXPECT_EQ(hipFree(nullptr), hipSuccess);
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(hipPeekAtLastError(), hipErrorOutOfMemory) << "successes do not clear it";
  EXPECT_EQ(hipGetLastError(), hipErrorOutOfMemory);
  EXPECT_EQ(hipGetLastError(), hipSuccess) << "reading it resets it";

  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  hipEvent_t e = nullptr;
  ASSERT_EQ(hipEventCreate(&e), hipSuccess);
  std::atomic<bool> release{false};
  ASSERT_EQ(hipLaunchHostFunc(
                s,
                [](void* flag) {
                  while (!static_cast<std::atomic<bool>*>(flag)->load()) std::this_thread::yield();
                },
                &release),
            hipSuccess);
  ASSERT_EQ(hipEventRecord(e, s), hipSuccess);
  EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);
  EXPECT_EQ(hipEventQuery(e), hipErrorNotReady);
  EXPECT_EQ(hipPeekAtLastError(), hipSuccess) << "hipErrorNotReady is an answer, not an error";
  EXPECT_EQ(hipStreamWaitEvent(s, e, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);
  EXPECT_EQ(hipPeekAtLastError(), hipErrorInvalidValue) << "nor does it hide an earlier error";
  release = true;
  EXPECT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(hipEventDestroy(e), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
}

TEST(HipStreamCApi, CallbacksRunInStreamOrderWithTheirUserData) {
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  struct Seen {
    std::atomic<int> calls{0};
    hipStream_t stream = nullptr;
    hipError_t status = hipErrorUnknown;
    unsigned char first = 0;
    unsigned char* host = nullptr;
  } seen;
  unsigned char* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, 4096), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&seen.host, 4096), hipSuccess);
  ASSERT_EQ(hipMemsetD8Async(d, 0x42, 4096, s), hipSuccess);
  ASSERT_EQ(hipMemcpyAsync(seen.host, d, 4096, hipMemcpyDeviceToHost, s), hipSuccess);
  ASSERT_EQ(hipStreamAddCallback(
                s,
                [](hipStream_t stream, hipError_t status, void* user) {
                  auto* seen = static_cast<Seen*>(user);
                  seen->stream = stream;
                  seen->status = status;
                  seen->first = seen->host[0];
                  ++seen->calls;
                },
                &seen, 0),
            hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(seen.calls.load(), 1);
  EXPECT_EQ(seen.stream, s);
  EXPECT_EQ(seen.status, hipSuccess);
  EXPECT_EQ(seen.first, 0x42);
  EXPECT_EQ(hipStreamAddCallback(s, nullptr, nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamAddCallback(s, [](hipStream_t, hipError_t, void*) {}, nullptr, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipHostFree(seen.host), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST(HipStreamCApi, MemsetsOfEveryWidth) {
  constexpr size_t kCount = 1000;
  uint32_t* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, kCount * 4), hipSuccess);
  std::vector<uint32_t> back(kCount);
  ASSERT_EQ(hipMemsetD32(d, static_cast<int>(0xdeadbeef), kCount), hipSuccess);
  ASSERT_EQ(hipMemcpy(back.data(), d, kCount * 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back[kCount - 1], 0xdeadbeefu);
  ASSERT_EQ(hipMemsetD16(d, 0x1234, kCount * 2), hipSuccess);
  ASSERT_EQ(hipMemcpy(back.data(), d, kCount * 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back[7], 0x12341234u);
  ASSERT_EQ(hipMemset(d, 0x1ab, kCount * 4), hipSuccess);  // the value's low byte
  ASSERT_EQ(hipMemcpy(back.data(), d, kCount * 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back[500], 0xababababu);
  ASSERT_EQ(hipMemsetD8(reinterpret_cast<unsigned char*>(d) + 3, 0x00, 2), hipSuccess);
  ASSERT_EQ(hipMemcpy(back.data(), d, kCount * 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back[0], 0x00abababu);
  EXPECT_EQ(back[1], 0xababab00u);
  int host[4];
  EXPECT_EQ(hipMemset(host, 0, sizeof(host)), hipErrorInvalidValue) << "host memory HIP does not know";
  EXPECT_EQ(hipMemset(d, 0, kCount * 4 + 1), hipErrorInvalidValue) << "past the end";
  EXPECT_EQ(hipMemset(nullptr, 0, 4), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST(HipStreamCApi, RegisteredHostMemory) {
  std::vector<int> user(16384, 7);
  EXPECT_EQ(hipHostRegister(user.data(), user.size() * sizeof(int), hipHostRegisterMapped), hipSuccess);
  EXPECT_EQ(hipHostRegister(user.data(), 64, 0), hipErrorHostMemoryAlreadyRegistered);
  void* device_view = nullptr;
  EXPECT_EQ(hipHostGetDevicePointer(&device_view, user.data(), 0), hipSuccess);
  EXPECT_NE(device_view, nullptr);
  unsigned int flags = 0;
  // Only hipHostMalloc memory has host allocation flags (CLR checks for a fine-grained SVM buffer).
  EXPECT_EQ(hipHostGetFlags(&flags, user.data()), hipErrorInvalidValue);
  (void)hipGetLastError();
  int* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, user.size() * sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMemcpy(d, user.data(), user.size() * sizeof(int), hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemsetD32(d, 9, 10), hipSuccess);
  ASSERT_EQ(hipMemcpy(user.data(), d, user.size() * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(user[9], 9);
  EXPECT_EQ(user[10], 7);

  // The GPU address names the same memory everywhere HIP takes a pointer (CLR maps it to the registration too).
  char* view = static_cast<char*>(device_view);
  if (view != reinterpret_cast<char*>(user.data())) {
    hipPointerAttribute_t attributes{};
    ASSERT_EQ(hipPointerGetAttributes(&attributes, view + 64), hipSuccess);
    EXPECT_EQ(attributes.type, hipMemoryTypeHost);
    EXPECT_EQ(attributes.hostPointer, reinterpret_cast<char*>(user.data()) + 64);
    EXPECT_EQ(attributes.devicePointer, view + 64);
    ASSERT_EQ(hipMemcpy(d, view + 4 * sizeof(int), 8 * sizeof(int), hipMemcpyDeviceToDevice), hipSuccess);
    std::vector<int> back(8, 0);
    ASSERT_EQ(hipMemcpy(back.data(), d, 8 * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(back, std::vector<int>({9, 9, 9, 9, 9, 9, 7, 7}));
    ASSERT_EQ(hipMemsetD32(d, 5, 4), hipSuccess);
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(hipMemcpyAsync(view, d, 4 * sizeof(int), hipMemcpyDefault, s), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(user[0], 5);
    EXPECT_EQ(user[3], 5);
    EXPECT_EQ(user[4], 9);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipMemcpy(d, view + user.size() * sizeof(int) - 4, 8, hipMemcpyDefault), hipErrorInvalidValue)
        << "past the registration, through its GPU address too";
    (void)hipGetLastError();
  }
  EXPECT_EQ(hipHostFree(user.data()), hipErrorInvalidValue);
  EXPECT_EQ(hipHostUnregister(user.data()), hipSuccess);
  hipPointerAttribute_t gone{};
  EXPECT_EQ(hipPointerGetAttributes(&gone, device_view), hipSuccess);
  EXPECT_EQ(gone.type, hipMemoryTypeUnregistered) << "the GPU address leaves the map with the registration";
  EXPECT_EQ(hipHostUnregister(user.data()), hipErrorHostMemoryNotRegistered);
  EXPECT_EQ(hipHostRegister(nullptr, 64, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST(HipStreamCApi, TheNullStreamWaitsForBlockingStreams) {
  hipStream_t blocking = nullptr;
  ASSERT_EQ(hipStreamCreate(&blocking), hipSuccess);
  std::atomic<bool> released{false};
  ASSERT_EQ(hipLaunchHostFunc(
                blocking,
                [](void* flag) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
                  static_cast<std::atomic<bool>*>(flag)->store(true);
                },
                &released),
            hipSuccess);
  // hipMemcpy on the null stream (legacy semantics) runs after the blocking stream's earlier work.
  int* d = nullptr;
  int value = 5, back = 0;
  ASSERT_EQ(hipMalloc(&d, sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMemcpy(d, &value, sizeof(int), hipMemcpyHostToDevice), hipSuccess);
  EXPECT_TRUE(released.load()) << "the null stream did not wait for the blocking stream";
  ASSERT_EQ(hipMemcpy(&back, d, sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, 5);
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(blocking), hipSuccess);
}

}  // namespace
