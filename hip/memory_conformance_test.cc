// Conformance scenarios for HIP's host-side memory API, written from what hip-tests' host-only memory cases check
// (rocm_facts.md §7.2: hipMalloc, hipMemGetInfo, hipFree, hipHostFree, hipHostUnregister, hipMemset, the 4-byte
// allocations, and the negative, null-size and half-copy sections of the hipMemcpy family). Behaviour, not code:
// each test states the rule a HIP program relies on, through the public C API only.
#include <hip/hip_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace {

constexpr size_t kElements = 1 << 16;
constexpr size_t kBytes = kElements * sizeof(float);

// What hip-tests' initArrays hands every memcpy case: three device buffers and three pageable host arrays.
class MemcpyFamily : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    for (float*& d : device_) ASSERT_EQ(hipMalloc(&d, kBytes), hipSuccess);
    for (std::vector<float>& h : host_) h.assign(kElements, 0.0f);
    std::iota(host_[0].begin(), host_[0].end(), 1.0f);
    std::iota(host_[2].begin(), host_[2].end(), 1000.0f);
    ASSERT_EQ(hipStreamCreate(&stream_), hipSuccess);
  }
  void TearDown() override {
    for (float* d : device_) EXPECT_EQ(hipFree(d), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(stream_), hipSuccess);
    (void)hipGetLastError();
  }
  hipDeviceptr_t D(int i) const { return reinterpret_cast<hipDeviceptr_t>(device_[i]); }
  float* H(int i) { return host_[i].data(); }

  float* device_[3] = {};
  std::vector<float> host_[3];
  hipStream_t stream_ = nullptr;
};

TEST_F(MemcpyFamily, NullPointersAreRejectedByEveryVariant) {
  float* a_d = device_[0];
  float* a_h = H(0);
  for (const auto& [dst, src] : {std::pair<void*, void*>{nullptr, a_d}, {a_h, nullptr}, {nullptr, nullptr}}) {
    EXPECT_NE(hipMemcpy(dst, src, kBytes, hipMemcpyDefault), hipSuccess);
    EXPECT_NE(hipMemcpyAsync(dst, src, kBytes, hipMemcpyDefault, stream_), hipSuccess);
  }
  const hipDeviceptr_t null_d = nullptr;
  EXPECT_EQ(hipMemcpyHtoD(null_d, a_h, kBytes), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyHtoD(D(0), nullptr, kBytes), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyHtoDAsync(null_d, a_h, kBytes, stream_), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyDtoH(nullptr, D(0), kBytes), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyDtoH(a_h, null_d, kBytes), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyDtoHAsync(nullptr, D(0), kBytes, stream_), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyDtoD(null_d, D(0), kBytes), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyDtoD(D(0), null_d, kBytes), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyDtoDAsync(null_d, null_d, kBytes, stream_), hipErrorInvalidValue);
  // The failure is also the thread's last error, and reading it clears it.
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
  EXPECT_EQ(hipGetLastError(), hipSuccess);
}

TEST_F(MemcpyFamily, CopiesOntoThemselvesSucceed) {
  EXPECT_EQ(hipMemcpy(device_[0], device_[0], kBytes / 2, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(hipMemcpy(H(0), H(0), kBytes / 2, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(hipMemcpyAsync(device_[0], device_[0], kBytes / 2, hipMemcpyDefault, stream_), hipSuccess);
  EXPECT_EQ(hipMemcpyAsync(H(0), H(0), kBytes / 2, hipMemcpyDefault, stream_), hipSuccess);
  EXPECT_EQ(hipMemcpyDtoD(D(0), D(0), kBytes), hipSuccess);
  EXPECT_EQ(hipMemcpyDtoDAsync(D(0), D(0), kBytes, stream_), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  // And the host array is what it was.
  EXPECT_EQ(host_[0][kElements - 1], static_cast<float>(kElements));
}

TEST_F(MemcpyFamily, ZeroSizedCopiesChangeNothing) {
  ASSERT_EQ(hipMemcpy(device_[0], H(2), kBytes, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(device_[2], H(0), kBytes, hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(hipMemcpyHtoD(D(0), H(0), 0), hipSuccess);
  EXPECT_EQ(hipMemcpyHtoDAsync(D(0), H(0), 0, stream_), hipSuccess);
  EXPECT_EQ(hipMemcpy(device_[0], H(1), 0, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(hipMemcpyAsync(device_[0], H(1), 0, hipMemcpyDefault, stream_), hipSuccess);
  EXPECT_EQ(hipMemcpyDtoH(H(2), D(0), 0), hipSuccess);
  EXPECT_EQ(hipMemcpyDtoHAsync(H(2), D(0), 0, stream_), hipSuccess);
  EXPECT_EQ(hipMemcpyDtoD(D(2), D(0), 0), hipSuccess);
  EXPECT_EQ(hipMemcpyDtoDAsync(D(2), D(0), 0, stream_), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  ASSERT_EQ(hipMemcpy(H(1), device_[0], kBytes, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(host_[1], host_[2]);
  ASSERT_EQ(hipMemcpy(H(1), device_[2], kBytes, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(host_[1], host_[0]);
}

TEST_F(MemcpyFamily, HalfCopiesMoveExactlyHalf) {
  const size_t half = kBytes / 2;
  ASSERT_EQ(hipMemcpyHtoD(D(0), H(0), half), hipSuccess);
  ASSERT_EQ(hipMemcpyDtoDAsync(D(1), D(0), half, stream_), hipSuccess);
  host_[1].assign(kElements, -1.0f);
  ASSERT_EQ(hipMemcpyDtoHAsync(H(1), D(1), half, stream_), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
  EXPECT_TRUE(std::equal(host_[0].begin(), host_[0].begin() + kElements / 2, host_[1].begin()));
  EXPECT_EQ(host_[1][kElements / 2], -1.0f);  // the second half was not written
  EXPECT_EQ(host_[1][kElements - 1], -1.0f);
}

TEST_F(MemcpyFamily, CopiesPastAnAllocationAndBadKindsAreRefused) {
  EXPECT_EQ(hipMemcpy(device_[0], H(0), kBytes + 4, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(H(0), device_[0] + 1, kBytes, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(device_[0], H(0), kBytes, static_cast<hipMemcpyKind>(7)), hipErrorInvalidMemcpyDirection);
  hipStream_t dead = nullptr;
  ASSERT_EQ(hipStreamCreate(&dead), hipSuccess);
  ASSERT_EQ(hipStreamDestroy(dead), hipSuccess);
  EXPECT_EQ(hipMemcpyWithStream(device_[0], H(0), kBytes, hipMemcpyHostToDevice, dead), hipErrorInvalidHandle);
}

TEST(MallocConformance, SizesAlignmentAndLimits) {
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(hipMalloc(&p, 0), hipSuccess);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(hipMalloc(static_cast<void**>(nullptr), 4096), hipErrorInvalidValue);
  EXPECT_EQ(hipMalloc(&p, SIZE_MAX), hipErrorOutOfMemory);
  (void)hipGetLastError();
  // Every allocation is aligned to at least 256 bytes, the small ones included.
  std::vector<void*> all;
  for (size_t size : {size_t{1}, size_t{4}, size_t{255}, size_t{257}, size_t{4096}, size_t{1} << 21}) {
    void* q = nullptr;
    ASSERT_EQ(hipMalloc(&q, size), hipSuccess);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 256, 0u) << size;
    all.push_back(q);
  }
  // A 4-byte allocation holds 4 bytes that survive a round trip (Unit_hipMalloc_4bytes, hipMemset_4bytes).
  const uint32_t in = 0xdeadbeef;
  uint32_t out = 0;
  ASSERT_EQ(hipMemcpy(all[1], &in, 4, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(&out, all[1], 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(out, in);
  ASSERT_EQ(hipMemset(all[1], 0x3c, 4), hipSuccess);
  ASSERT_EQ(hipMemcpy(&out, all[1], 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(out, 0x3c3c3c3cu);
  for (void* q : all) EXPECT_EQ(hipFree(q), hipSuccess);
}

TEST(MemGetInfoConformance, FreeDropsByAnAllocationAndTotalStays) {
  size_t free0 = 0, total0 = 0;
  ASSERT_EQ(hipMemGetInfo(&free0, &total0), hipSuccess);
  EXPECT_LT(free0, total0 + 1);
  void* p = nullptr;
  constexpr size_t kBig = size_t{256} << 20;
  ASSERT_EQ(hipMalloc(&p, kBig), hipSuccess);
  size_t free1 = 0, total1 = 0;
  ASSERT_EQ(hipMemGetInfo(&free1, &total1), hipSuccess);
  EXPECT_EQ(total1, total0);
  EXPECT_LE(free1 + kBig, free0);
  EXPECT_LT(free1, total1);
  ASSERT_EQ(hipFree(p), hipSuccess);
}

TEST(FreeConformance, StackDoubleAndInteriorPointersAreInvalidValue) {
  int on_stack = 0;
  EXPECT_EQ(hipFree(&on_stack), hipErrorInvalidValue);
  EXPECT_EQ(hipHostFree(&on_stack), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(nullptr), hipSuccess);
  EXPECT_EQ(hipHostFree(nullptr), hipSuccess);
  void* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, 4096), hipSuccess);
  EXPECT_EQ(hipFree(static_cast<char*>(d) + 16), hipErrorInvalidValue);
  ASSERT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipFree(d), hipErrorInvalidValue);
  void* h = nullptr;
  ASSERT_EQ(hipHostMalloc(&h, 4096), hipSuccess);
  ASSERT_EQ(hipHostFree(h), hipSuccess);
  EXPECT_EQ(hipHostFree(h), hipErrorInvalidValue);
  (void)hipGetLastError();
}

TEST(FreeConformance, RegisteredMemoryIsNotFreedByHipHostFree) {
  void* mem = std::aligned_alloc(4096, 1 << 16);
  ASSERT_NE(mem, nullptr);
  ASSERT_EQ(hipHostRegister(mem, 1 << 16, hipHostRegisterDefault), hipSuccess);
  EXPECT_EQ(hipHostFree(mem), hipErrorInvalidValue);
  // Still registered: it unregisters once.
  EXPECT_EQ(hipHostUnregister(mem), hipSuccess);
  EXPECT_EQ(hipHostUnregister(mem), hipErrorHostMemoryNotRegistered);
  std::free(mem);
  (void)hipGetLastError();
}

// hipFree synchronises the device: work queued on any of its streams before the free is done when it returns.
// hip-tests shows it with a long kernel; a host function that holds the stream does the same without one.
TEST(FreeConformance, FreeWaitsForTheDevicesQueuedWork) {
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  void* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, 1 << 20), hipSuccess);
  std::atomic<bool> ran{false};
  ASSERT_EQ(hipLaunchHostFunc(
                stream,
                [](void* flag) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(50));
                  static_cast<std::atomic<bool>*>(flag)->store(true);
                },
                &ran),
            hipSuccess);
  EXPECT_EQ(hipStreamQuery(stream), hipErrorNotReady);
  ASSERT_EQ(hipFree(d), hipSuccess);
  EXPECT_TRUE(ran.load());
  EXPECT_EQ(hipStreamQuery(stream), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
}

// Threads freeing their own host allocations at once never disturb each other (Unit_hipHostFree_Multithreading).
TEST(FreeConformance, ConcurrentHostAllocAndFree) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&failures] {
      for (int i = 0; i < kRounds; ++i) {
        void* h = nullptr;
        if (hipHostMalloc(&h, 4096 * (1 + i % 3)) != hipSuccess) failures.fetch_add(1);
        static_cast<char*>(h)[0] = 1;
        if (hipHostFree(h) != hipSuccess) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(HostUnregisterConformance, NullOffsetAndUnknownPointers) {
  EXPECT_EQ(hipHostUnregister(nullptr), hipErrorInvalidValue);
  std::vector<char> plain(8192);
  EXPECT_EQ(hipHostUnregister(plain.data()), hipErrorHostMemoryNotRegistered);
  void* mem = std::aligned_alloc(4096, 1 << 16);
  ASSERT_NE(mem, nullptr);
  ASSERT_EQ(hipHostRegister(mem, 1 << 16, hipHostRegisterDefault), hipSuccess);
  EXPECT_EQ(hipHostUnregister(static_cast<char*>(mem) + 4096), hipErrorHostMemoryNotRegistered);
  void* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, 4096), hipSuccess);
  EXPECT_EQ(hipHostUnregister(d), hipErrorHostMemoryNotRegistered);  // device memory was never registered
  EXPECT_EQ(hipHostUnregister(mem), hipSuccess);
  EXPECT_EQ(hipFree(d), hipSuccess);
  std::free(mem);
  (void)hipGetLastError();
}

TEST(MemsetConformance, OffsetsSmallSizesAndTwoAsyncFills) {
  constexpr size_t kSize = 1 << 12;
  unsigned char* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, kSize), hipSuccess);
  std::vector<unsigned char> out(kSize);
  // A memset at every small size and offset writes exactly its bytes.
  for (size_t offset : {size_t{0}, size_t{1}, size_t{3}, size_t{17}}) {
    for (size_t size : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{64}, size_t{1023}}) {
      ASSERT_EQ(hipMemset(d, 0, kSize), hipSuccess);
      ASSERT_EQ(hipMemset(d + offset, 0xa5, size), hipSuccess);
      ASSERT_EQ(hipMemcpy(out.data(), d, kSize, hipMemcpyDeviceToHost), hipSuccess);
      for (size_t i = 0; i < kSize; ++i) {
        ASSERT_EQ(out[i], (i >= offset && i < offset + size) ? 0xa5 : 0) << offset << "+" << size << " @" << i;
      }
    }
  }
  // Two async memsets on one stream land in order.
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(d, 0x11, kSize, stream), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(d + kSize / 2, 0x22, kSize / 2, stream), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  ASSERT_EQ(hipMemcpy(out.data(), d, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(out[0], 0x11);
  EXPECT_EQ(out[kSize / 2 - 1], 0x11);
  EXPECT_EQ(out[kSize / 2], 0x22);
  EXPECT_EQ(out[kSize - 1], 0x22);
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  ASSERT_EQ(hipFree(d), hipSuccess);
}

TEST(MemsetConformance, BadTargetsAreInvalidValue) {
  void* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, 4096), hipSuccess);
  std::vector<char> pageable(4096);
  EXPECT_EQ(hipMemset(nullptr, 0, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset(pageable.data(), 0, 16), hipErrorInvalidValue);  // not memory HIP knows
  EXPECT_EQ(hipMemset(d, 0, 4097), hipErrorInvalidValue);              // past the allocation
  EXPECT_EQ(hipMemset(static_cast<char*>(d) + 4000, 0, 97), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset(d, 0, 0), hipSuccess);
  EXPECT_EQ(hipMemset(nullptr, 0, 0), hipSuccess) << "size 0 is checked first";
  EXPECT_EQ(hipMemsetD32(nullptr, 0, 0), hipSuccess);
  EXPECT_EQ(hipMemsetD32(static_cast<hipDeviceptr_t>(d), 0, 1025), hipErrorInvalidValue);
  ASSERT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipMemset(d, 0, 16), hipErrorInvalidValue);  // freed
  (void)hipGetLastError();
}

TEST(HostMallocConformance, FlagsAreValidatedAndTinyAllocationsWork) {
  void* h = nullptr;
  EXPECT_EQ(hipHostMalloc(static_cast<void**>(nullptr), 16), hipErrorInvalidValue);
  EXPECT_EQ(hipHostMalloc(&h, 16, hipHostMallocCoherent | hipHostMallocNonCoherent), hipErrorInvalidValue);
  EXPECT_EQ(hipHostMalloc(&h, 0), hipSuccess);
  EXPECT_EQ(h, nullptr);
  ASSERT_EQ(hipHostMalloc(&h, 4, hipHostMallocMapped), hipSuccess);
  *static_cast<uint32_t*>(h) = 0x01020304;
  void* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, 4), hipSuccess);
  ASSERT_EQ(hipMemcpy(d, h, 4, hipMemcpyHostToDevice), hipSuccess);
  uint32_t out = 0;
  ASSERT_EQ(hipMemcpy(&out, d, 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(out, 0x01020304u);
  unsigned int flags = 0;
  ASSERT_EQ(hipHostGetFlags(&flags, h), hipSuccess);
  EXPECT_TRUE(flags & hipHostMallocMapped);
  EXPECT_EQ(hipHostGetFlags(&flags, d), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipHostFree(h), hipSuccess);
  (void)hipGetLastError();
}

// Threads copying pageable memory through the null stream at the same time: each copy goes through the same
// staging ring, and every thread gets its own bytes back (hipMemcpy_MultiThread).
TEST(MemcpyConformance, ThreadsShareTheNullStreamsStaging) {
  constexpr int kThreads = 4;
  constexpr size_t kSize = size_t{3} << 20;  // three staging chunks
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &bad] {
      std::vector<unsigned char> in(kSize), out(kSize);
      void* d = nullptr;
      if (hipMalloc(&d, kSize) != hipSuccess) {
        bad.fetch_add(1);
        return;
      }
      for (int round = 0; round < 5; ++round) {
        for (size_t i = 0; i < kSize; i += 4096) in[i] = static_cast<unsigned char>(t * 31 + round + i / 4096);
        if (hipMemcpy(d, in.data(), kSize, hipMemcpyHostToDevice) != hipSuccess ||
            hipMemcpy(out.data(), d, kSize, hipMemcpyDeviceToHost) != hipSuccess || out != in) {
          bad.fetch_add(1);
        }
      }
      if (hipFree(d) != hipSuccess) bad.fetch_add(1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
