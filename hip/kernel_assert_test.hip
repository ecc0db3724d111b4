// Device abort() and assert(), as HIP's headers give them: a failed assert prints its condition, file, line and
// function to stderr, one line per failing work-item, and traps; abort() traps. The trap fails the launch with
// hipErrorLaunchFailure (kernel_trap_test.hip); an assert that holds costs nothing visible.
#include <hip/hip_runtime.h>

#include <cassert>
#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace {

__global__ void assert_below(const uint32_t* in, uint32_t limit, uint32_t* out) {
  const uint32_t i = threadIdx.x;
  assert(in[i] < limit);
  out[i] = in[i] + 1;
}

__global__ void abort_on(uint32_t lane, uint32_t* out) {
  out[threadIdx.x] = 5;
  if (threadIdx.x == lane) abort();
}

__global__ void hip_assert_below(const uint32_t* in, uint32_t limit, uint32_t* out) {
  __hip_assert(in[threadIdx.x] < limit);
  out[threadIdx.x] = 1;
}

class KernelAssertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hipHostMalloc(&in_, kLanes * sizeof(uint32_t), 0), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&out_, kLanes * sizeof(uint32_t), 0), hipSuccess);
    for (uint32_t i = 0; i < kLanes; ++i) in_[i] = i;
    ASSERT_EQ(hipStreamCreate(&stream_), hipSuccess);
  }
  void TearDown() override {
    (void)hipStreamDestroy(stream_);
    (void)hipHostFree(in_);
    (void)hipHostFree(out_);
  }

  static constexpr uint32_t kLanes = 64;
  uint32_t* in_ = nullptr;
  uint32_t* out_ = nullptr;
  hipStream_t stream_ = nullptr;
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(KernelAssertTest, AFailedAssertPrintsItsConditionOncePerFailingWorkItemAndFailsTheLaunch) {
  ::testing::internal::CaptureStderr();
  assert_below<<<1, kLanes, 0, stream_>>>(in_, 62, out_);  // work-items 62 and 63 fail
  const hipError_t synced = hipStreamSynchronize(stream_);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(synced, hipErrorLaunchFailure);
  EXPECT_EQ(hipGetLastError(), hipErrorLaunchFailure);
  EXPECT_EQ(Count(err, "Device-side assertion `in[i] < limit' failed.\n"), 2u) << err;
  EXPECT_NE(err.find("kernel_assert_test.hip:" + std::to_string(16) + ": "), std::string::npos) << err;
  EXPECT_NE(err.find("assert_below"), std::string::npos) << "the function's name: " << err;
}

TEST_F(KernelAssertTest, AnAssertThatHoldsPrintsNothingAndTheKernelRuns) {
  ::testing::internal::CaptureStderr();
  assert_below<<<1, kLanes, 0, stream_>>>(in_, kLanes, out_);
  const hipError_t synced = hipStreamSynchronize(stream_);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(synced, hipSuccess);
  EXPECT_EQ(err.find("Device-side assertion"), std::string::npos) << err;
  for (uint32_t i = 0; i < kLanes; ++i) EXPECT_EQ(out_[i], i + 1) << i;
}

TEST_F(KernelAssertTest, DeviceAbortFailsTheLaunch) {
  abort_on<<<1, kLanes, 0, stream_>>>(7, out_);
  EXPECT_EQ(hipStreamSynchronize(stream_), hipErrorLaunchFailure);
  for (uint32_t i = 0; i < kLanes; ++i) EXPECT_EQ(out_[i], 5u) << "stored before the trap: " << i;
}

TEST_F(KernelAssertTest, HipAssertTrapsWithoutAMessage) {
  ::testing::internal::CaptureStderr();
  hip_assert_below<<<1, kLanes, 0, stream_>>>(in_, 1, out_);
  const hipError_t synced = hipStreamSynchronize(stream_);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(synced, hipErrorLaunchFailure);
  EXPECT_EQ(err.find("Device-side assertion"), std::string::npos) << err;
}

// The same failed assert in a cooperative launch, which runs on the device's cooperative queue: its message is on
// stderr by the time the launching stream's synchronise returns the failure, as for an ordinary launch. The trap
// halted the cooperative queue; the device's next cooperative launch gets a working one.
TEST_F(KernelAssertTest, AFailedAssertInACooperativeLaunchPrintsByItsStreamsSynchronise) {
  uint32_t limit = 63;  // work-item 63 fails
  void* args[] = {&in_, &limit, &out_};
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(assert_below), dim3(1), dim3(kLanes), args, 0,
                                       stream_),
            hipSuccess);
  const hipError_t synced = hipStreamSynchronize(stream_);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(synced, hipErrorLaunchFailure);
  EXPECT_EQ(Count(err, "Device-side assertion `in[i] < limit' failed.\n"), 1u) << err;

  hipStream_t again = nullptr;
  ASSERT_EQ(hipStreamCreate(&again), hipSuccess);
  limit = kLanes;
  for (uint32_t i = 0; i < kLanes; ++i) out_[i] = 0;
  ASSERT_EQ(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(assert_below), dim3(1), dim3(kLanes), args, 0,
                                       again),
            hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(again), hipSuccess);
  for (uint32_t i = 0; i < kLanes; ++i) EXPECT_EQ(out_[i], i + 1) << i;
  ASSERT_EQ(hipStreamDestroy(again), hipSuccess);
}

}  // namespace
