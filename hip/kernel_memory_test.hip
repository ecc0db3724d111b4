// Kernels reading and writing memory from every allocator a HIP program uses, and the same data moving between
// kernels through every copy and fill path (issue #23 §4; the behaviour hip-tests' kernel-using memory cases check,
// in our own words). Every case runs one kernel that reads each byte and writes a value computed from it, its index
// and a seed, so a byte that a copy, a mapping or a pitch got wrong shows at its index. Every byte is checked.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

// Not a multiple of 4, 16 or a page: the tail of every path is exercised.
constexpr size_t kBytes = 3 * 4096 + 77;

// The value a kernel step writes: depends on the byte read, its index and the seed, so a misplaced, stale or
// duplicated byte shows.
__host__ __device__ inline uint8_t Next(uint8_t value, size_t i, uint32_t seed) {
  return static_cast<uint8_t>(value * 5u + static_cast<uint32_t>(i) * 7u + (static_cast<uint32_t>(i) >> 8) + seed);
}

inline uint8_t Initial(size_t i) { return static_cast<uint8_t>(i * 13u + (i >> 9) + 1u); }

// Grid-stride over n bytes: every byte read once and written once.
__global__ void step(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    p[i] = Next(p[i], i, seed);
  }
}

// Reads one buffer, writes another: a kernel between two allocations of different kinds.
__global__ void step_into(const uint8_t* in, uint8_t* out, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    out[i] = Next(in[i], i, seed);
  }
}

// A pitched 3D region: x bytes of each row, rows `pitch` apart, slices `pitch * height` apart. The logical index
// (x, y, z) -> x + width * (y + height * z) feeds Next, so a pitch mix-up changes the value, not only the place.
__global__ void step_pitched(uint8_t* base, size_t pitch, size_t width, size_t height, size_t depth, uint32_t seed) {
  const size_t x = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  const size_t y = blockIdx.y;
  const size_t z = blockIdx.z;
  if (x >= width || y >= height || z >= depth) return;
  uint8_t* row = base + (z * height + y) * pitch;
  row[x] = Next(row[x], x + width * (y + height * z), seed);
}

void LaunchStep(uint8_t* p, size_t n, uint32_t seed, hipStream_t stream = nullptr) {
  step<<<16, 256, 0, stream>>>(p, n, seed);
}

std::vector<uint8_t> InitialBytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = Initial(i);
  return v;
}

// `expected` after one more step with `seed`.
void Advance(std::vector<uint8_t>& expected, uint32_t seed) {
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = Next(expected[i], i, seed);
}

// Every byte of `actual` against `expected`; the first mismatch's index.
::testing::AssertionResult SameBytes(const uint8_t* actual, const std::vector<uint8_t>& expected) {
  for (size_t i = 0; i < expected.size(); ++i) {
    if (actual[i] != expected[i]) {
      return ::testing::AssertionFailure() << "byte " << i << " of " << expected.size() << " is "
                                           << int{actual[i]} << ", expected " << int{expected[i]};
    }
  }
  return ::testing::AssertionSuccess();
}

int DeviceCount() {
  int count = 0;
  EXPECT_EQ(hipGetDeviceCount(&count), hipSuccess);
  return count;
}

class KernelMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_HIP(hipSetDevice(0)); }
  void TearDown() override {
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(hipSetDevice(0), hipSuccess);
  }

  uint8_t* Device(size_t n = kBytes) {
    void* p = nullptr;
    EXPECT_EQ(hipMalloc(&p, n), hipSuccess);
    return static_cast<uint8_t*>(p);
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Allocators

TEST_F(KernelMemoryTest, DeviceMemoryFromHipMalloc) {
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  uint8_t* d = Device();
  ASSERT_HIP(hipMemcpy(d, expected.data(), kBytes, hipMemcpyHostToDevice));
  LaunchStep(d, kBytes, 1);
  LaunchStep(d, kBytes, 2);
  ASSERT_HIP(hipGetLastError());
  Advance(expected, 1);
  Advance(expected, 2);
  std::vector<uint8_t> out(kBytes);
  ASSERT_HIP(hipMemcpy(out.data(), d, kBytes, hipMemcpyDeviceToHost));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  ASSERT_HIP(hipFree(d));
}

// hipHostMalloc memory is reached by a kernel through the host pointer (one address space) and through the pointer
// hipHostGetDevicePointer answers; the host sees the kernel's writes after synchronising, whatever the coherence.
class HostMallocFlags : public KernelMemoryTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(HostMallocFlags, AKernelReadsAndWritesPinnedHostMemory) {
  uint8_t* host = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&host), kBytes, GetParam()));
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  std::memcpy(host, expected.data(), kBytes);
  LaunchStep(host, kBytes, 3);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 3);
  EXPECT_TRUE(SameBytes(host, expected));

  uint8_t* device_view = nullptr;
  ASSERT_HIP(hipHostGetDevicePointer(reinterpret_cast<void**>(&device_view), host, 0));
  ASSERT_NE(device_view, nullptr);
  LaunchStep(device_view, kBytes, 4);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 4);
  EXPECT_TRUE(SameBytes(host, expected));

  // The host writes between kernels reach the next kernel.
  for (size_t i = 0; i < kBytes; i += 97) host[i] = static_cast<uint8_t>(i);
  for (size_t i = 0; i < kBytes; i += 97) expected[i] = static_cast<uint8_t>(i);
  LaunchStep(device_view + 1, kBytes - 1, 5);  // an odd start inside the allocation
  ASSERT_HIP(hipDeviceSynchronize());
  for (size_t i = 1; i < kBytes; ++i) expected[i] = Next(expected[i], i - 1, 5);
  EXPECT_TRUE(SameBytes(host, expected));
  ASSERT_HIP(hipHostFree(host));
}

INSTANTIATE_TEST_SUITE_P(Flags, HostMallocFlags,
                         ::testing::Values(hipHostMallocDefault, hipHostMallocCoherent, hipHostMallocNonCoherent,
                                           hipHostMallocMapped, hipHostMallocPortable | hipHostMallocMapped));

// hipHostRegister'ed malloc memory: the kernel goes through the device pointer, the host reads its own pointer.
class HostRegisterFlags : public KernelMemoryTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(HostRegisterFlags, AKernelReadsAndWritesRegisteredMallocMemory) {
  // Plain malloc memory: not page aligned at either end on purpose.
  std::unique_ptr<uint8_t, decltype(&std::free)> user(static_cast<uint8_t*>(std::malloc(kBytes + 64)), &std::free);
  ASSERT_NE(user, nullptr);
  uint8_t* host = user.get() + 8;
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  std::memcpy(host, expected.data(), kBytes);
  ASSERT_HIP(hipHostRegister(host, kBytes, GetParam()));
  uint8_t* device_view = nullptr;
  ASSERT_HIP(hipHostGetDevicePointer(reinterpret_cast<void**>(&device_view), host, 0));
  ASSERT_NE(device_view, nullptr);
  LaunchStep(device_view, kBytes, 6);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 6);
  EXPECT_TRUE(SameBytes(host, expected));

  // Registered memory is a source and destination of copies beside device memory.
  uint8_t* d = Device();
  ASSERT_HIP(hipMemcpy(d, host, kBytes, hipMemcpyHostToDevice));
  LaunchStep(d, kBytes, 7);
  ASSERT_HIP(hipMemcpy(host, d, kBytes, hipMemcpyDeviceToHost));
  Advance(expected, 7);
  EXPECT_TRUE(SameBytes(host, expected));
  ASSERT_HIP(hipFree(d));
  ASSERT_HIP(hipHostUnregister(host));
  // The memory is the user's again, unchanged.
  EXPECT_TRUE(SameBytes(host, expected));
}

INSTANTIATE_TEST_SUITE_P(Flags, HostRegisterFlags,
                         ::testing::Values(hipHostRegisterDefault, hipHostRegisterMapped, hipHostRegisterPortable));

TEST_F(KernelMemoryTest, ManagedMemoryTouchedByTheHostBeforeAndAfter) {
  uint8_t* m = nullptr;
  ASSERT_HIP(hipMallocManaged(reinterpret_cast<void**>(&m), kBytes, hipMemAttachGlobal));
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  std::memcpy(m, expected.data(), kBytes);  // the host touches first
  LaunchStep(m, kBytes, 8);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 8);
  EXPECT_TRUE(SameBytes(m, expected));  // the host reads the kernel's writes
  for (size_t i = 0; i < kBytes; i += 3) m[i] ^= 0x5a;  // and writes again
  for (size_t i = 0; i < kBytes; i += 3) expected[i] ^= 0x5a;
  LaunchStep(m, kBytes, 9);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 9);
  EXPECT_TRUE(SameBytes(m, expected));
  // Copies treat it as any other memory.
  std::vector<uint8_t> out(kBytes);
  ASSERT_HIP(hipMemcpy(out.data(), m, kBytes, hipMemcpyDefault));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  ASSERT_HIP(hipFree(m));
}

TEST_F(KernelMemoryTest, ManagedMemoryAKernelWritesFirst) {
  uint8_t* m = nullptr;
  ASSERT_HIP(hipMallocManaged(reinterpret_cast<void**>(&m), kBytes, hipMemAttachGlobal));
  // Untouched managed memory reads as zeros.
  std::vector<uint8_t> expected(kBytes, 0);
  LaunchStep(m, kBytes, 10);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 10);
  EXPECT_TRUE(SameBytes(m, expected));
  ASSERT_HIP(hipFree(m));
}

TEST_F(KernelMemoryTest, StreamOrderedAllocationFromTheDefaultPool) {
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  std::vector<uint8_t> out(kBytes);
  for (uint32_t round = 0; round < 3; ++round) {  // later rounds reuse the pool's freed block
    uint8_t* d = nullptr;
    ASSERT_HIP(hipMallocAsync(reinterpret_cast<void**>(&d), kBytes, stream));
    ASSERT_HIP(hipMemcpyAsync(d, expected.data(), kBytes, hipMemcpyHostToDevice, stream));
    LaunchStep(d, kBytes, 11 + round, stream);
    ASSERT_HIP(hipMemcpyAsync(out.data(), d, kBytes, hipMemcpyDeviceToHost, stream));
    ASSERT_HIP(hipFreeAsync(d, stream));
    ASSERT_HIP(hipStreamSynchronize(stream));
    Advance(expected, 11 + round);
    ASSERT_TRUE(SameBytes(out.data(), expected)) << "round " << round;
  }
  ASSERT_HIP(hipStreamDestroy(stream));
}

hipMemPool_t CreatePool(int device) {
  hipMemPoolProps props{};
  props.allocType = hipMemAllocationTypePinned;
  props.location = {hipMemLocationTypeDevice, device};
  hipMemPool_t pool = nullptr;
  EXPECT_EQ(hipMemPoolCreate(&pool, &props), hipSuccess);
  return pool;
}

TEST_F(KernelMemoryTest, AllocationFromACreatedPool) {
  hipMemPool_t pool = CreatePool(0);
  ASSERT_NE(pool, nullptr);
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  ASSERT_HIP(hipMallocFromPoolAsync(reinterpret_cast<void**>(&a), kBytes, pool, stream));
  ASSERT_HIP(hipMallocFromPoolAsync(reinterpret_cast<void**>(&b), kBytes, pool, stream));
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  ASSERT_HIP(hipMemcpyAsync(a, expected.data(), kBytes, hipMemcpyHostToDevice, stream));
  step_into<<<16, 256, 0, stream>>>(a, b, kBytes, 14);
  LaunchStep(b, kBytes, 15, stream);
  std::vector<uint8_t> out(kBytes);
  ASSERT_HIP(hipMemcpyAsync(out.data(), b, kBytes, hipMemcpyDeviceToHost, stream));
  ASSERT_HIP(hipFreeAsync(a, stream));
  ASSERT_HIP(hipFreeAsync(b, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  Advance(expected, 14);
  Advance(expected, 15);
  EXPECT_TRUE(SameBytes(out.data(), expected));
  ASSERT_HIP(hipStreamDestroy(stream));
  ASSERT_HIP(hipMemPoolDestroy(pool));
}

// A pool of device 0 whose access is granted to device 1: a kernel on device 1 reads and writes its blocks.
TEST_F(KernelMemoryTest, APoolGrantedToAPeerIsUsedByThePeersKernel) {
  if (DeviceCount() < 2) GTEST_SKIP() << "one device";
  hipMemPool_t pool = CreatePool(0);
  ASSERT_NE(pool, nullptr);
  hipMemAccessDesc desc = {{hipMemLocationTypeDevice, 1}, hipMemAccessFlagsProtReadWrite};
  ASSERT_HIP(hipMemPoolSetAccess(pool, &desc, 1));
  uint8_t* p = nullptr;
  ASSERT_HIP(hipMallocFromPoolAsync(reinterpret_cast<void**>(&p), kBytes, pool, nullptr));
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  ASSERT_HIP(hipMemcpy(p, expected.data(), kBytes, hipMemcpyHostToDevice));
  ASSERT_HIP(hipSetDevice(1));
  LaunchStep(p, kBytes, 16);
  ASSERT_HIP(hipDeviceSynchronize());
  ASSERT_HIP(hipSetDevice(0));
  LaunchStep(p, kBytes, 17);
  Advance(expected, 16);
  Advance(expected, 17);
  std::vector<uint8_t> out(kBytes);
  ASSERT_HIP(hipMemcpy(out.data(), p, kBytes, hipMemcpyDeviceToHost));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  ASSERT_HIP(hipFreeAsync(p, nullptr));
  ASSERT_HIP(hipDeviceSynchronize());
  ASSERT_HIP(hipMemPoolDestroy(pool));
}

// hipMallocPitch: the kernel indexes rows by the pitch; the padding between rows is never touched by the kernel or
// by hipMemcpy2D.
TEST_F(KernelMemoryTest, PitchedMemoryIndexedByItsPitch) {
  constexpr size_t kWidth = 333, kHeight = 21;
  uint8_t* d = nullptr;
  size_t pitch = 0;
  ASSERT_HIP(hipMallocPitch(reinterpret_cast<void**>(&d), &pitch, kWidth, kHeight));
  ASSERT_GE(pitch, kWidth);
  constexpr uint8_t kPad = 0xab;
  ASSERT_HIP(hipMemset2D(d, pitch, kPad, pitch, kHeight));
  std::vector<uint8_t> expected = InitialBytes(kWidth * kHeight);
  ASSERT_HIP(hipMemcpy2D(d, pitch, expected.data(), kWidth, kWidth, kHeight, hipMemcpyHostToDevice));
  step_pitched<<<dim3((kWidth + 63) / 64, kHeight, 1), 64>>>(d, pitch, kWidth, kHeight, 1, 18);
  ASSERT_HIP(hipGetLastError());
  Advance(expected, 18);
  std::vector<uint8_t> out(kWidth * kHeight);
  ASSERT_HIP(hipMemcpy2D(out.data(), kWidth, d, pitch, kWidth, kHeight, hipMemcpyDeviceToHost));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  std::vector<uint8_t> whole(pitch * kHeight);
  ASSERT_HIP(hipMemcpy(whole.data(), d, whole.size(), hipMemcpyDeviceToHost));
  for (size_t y = 0; y < kHeight; ++y) {
    for (size_t x = 0; x < pitch; ++x) {
      const uint8_t want = x < kWidth ? expected[y * kWidth + x] : kPad;
      ASSERT_EQ(whole[y * pitch + x], want) << "row " << y << " byte " << x;
    }
  }
  // A device-to-device 2D copy into a second pitched allocation, another kernel, and back.
  uint8_t* e = nullptr;
  size_t pitch_e = 0;
  ASSERT_HIP(hipMallocPitch(reinterpret_cast<void**>(&e), &pitch_e, kWidth, kHeight));
  ASSERT_HIP(hipMemcpy2D(e, pitch_e, d, pitch, kWidth, kHeight, hipMemcpyDeviceToDevice));
  step_pitched<<<dim3((kWidth + 63) / 64, kHeight, 1), 64>>>(e, pitch_e, kWidth, kHeight, 1, 19);
  Advance(expected, 19);
  ASSERT_HIP(hipMemcpy2D(out.data(), kWidth, e, pitch_e, kWidth, kHeight, hipMemcpyDeviceToHost));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  ASSERT_HIP(hipFree(d));
  ASSERT_HIP(hipFree(e));
}

// hipMalloc3D: rows by the pitch, slices by pitch * height; hipMemcpy3D in and out, hipMemset3D for the padding.
TEST_F(KernelMemoryTest, ThreeDimensionalMemoryIndexedByPitchAndSlice) {
  constexpr size_t kWidth = 70, kHeight = 9, kDepth = 5;
  hipPitchedPtr d{};
  ASSERT_HIP(hipMalloc3D(&d, make_hipExtent(kWidth, kHeight, kDepth)));
  ASSERT_GE(d.pitch, kWidth);
  constexpr uint8_t kPad = 0x3c;
  ASSERT_HIP(hipMemset3D(d, kPad, make_hipExtent(d.pitch, kHeight, kDepth)));
  std::vector<uint8_t> expected = InitialBytes(kWidth * kHeight * kDepth);
  hipMemcpy3DParms in{};
  in.srcPtr = make_hipPitchedPtr(expected.data(), kWidth, kWidth, kHeight);
  in.dstPtr = d;
  in.extent = make_hipExtent(kWidth, kHeight, kDepth);
  in.kind = hipMemcpyHostToDevice;
  ASSERT_HIP(hipMemcpy3D(&in));
  step_pitched<<<dim3((kWidth + 63) / 64, kHeight, kDepth), 64>>>(static_cast<uint8_t*>(d.ptr), d.pitch, kWidth,
                                                                   kHeight, kDepth, 20);
  ASSERT_HIP(hipGetLastError());
  Advance(expected, 20);
  std::vector<uint8_t> out(expected.size());
  hipMemcpy3DParms back{};
  back.srcPtr = d;
  back.dstPtr = make_hipPitchedPtr(out.data(), kWidth, kWidth, kHeight);
  back.extent = make_hipExtent(kWidth, kHeight, kDepth);
  back.kind = hipMemcpyDeviceToHost;
  ASSERT_HIP(hipMemcpy3D(&back));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  std::vector<uint8_t> whole(d.pitch * kHeight * kDepth);
  ASSERT_HIP(hipMemcpy(whole.data(), d.ptr, whole.size(), hipMemcpyDeviceToHost));
  for (size_t z = 0; z < kDepth; ++z) {
    for (size_t y = 0; y < kHeight; ++y) {
      for (size_t x = 0; x < d.pitch; ++x) {
        const uint8_t want = x < kWidth ? expected[(z * kHeight + y) * kWidth + x] : kPad;
        ASSERT_EQ(whole[(z * kHeight + y) * d.pitch + x], want) << z << " " << y << " " << x;
      }
    }
  }
  // A stream-ordered 3D copy device to device, a kernel on the same stream, and back.
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  hipPitchedPtr e{};
  ASSERT_HIP(hipMalloc3D(&e, make_hipExtent(kWidth, kHeight, kDepth)));
  hipMemcpy3DParms d2d{};
  d2d.srcPtr = d;
  d2d.dstPtr = e;
  d2d.extent = make_hipExtent(kWidth, kHeight, kDepth);
  d2d.kind = hipMemcpyDeviceToDevice;
  ASSERT_HIP(hipMemcpy3DAsync(&d2d, stream));
  step_pitched<<<dim3((kWidth + 63) / 64, kHeight, kDepth), 64, 0, stream>>>(static_cast<uint8_t*>(e.ptr), e.pitch,
                                                                              kWidth, kHeight, kDepth, 21);
  back.srcPtr = e;
  ASSERT_HIP(hipMemcpy3DAsync(&back, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  Advance(expected, 21);
  EXPECT_TRUE(SameBytes(out.data(), expected));
  ASSERT_HIP(hipStreamDestroy(stream));
  ASSERT_HIP(hipFree(d.ptr));
  ASSERT_HIP(hipFree(e.ptr));
}

// The stream-ordered pitched fills (hipMemset2DAsync, hipMemset3DAsync) between kernels on one stream: a whole fill,
// a kernel, a fill of an inner box, a kernel, and an async 2D/3D copy out; every byte of the logical region checked.
TEST_F(KernelMemoryTest, AsyncPitchedFillsBetweenKernels) {
  constexpr size_t kWidth = 45, kHeight = 7, kDepth = 3;
  constexpr size_t kBoxX = 3, kBoxY = 2, kBoxZ = 1, kBoxWidth = 30, kBoxHeight = 4, kBoxDepth = 2;
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  uint8_t* host = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&host), kWidth * kHeight * kDepth, 0));
  auto in_rectangle = [&](size_t x, size_t y) {
    return x >= kBoxX && x < kBoxX + kBoxWidth && y >= kBoxY && y < kBoxY + kBoxHeight;
  };
  auto in_box = [&](size_t x, size_t y, size_t z) { return in_rectangle(x, y) && z >= kBoxZ && z < kBoxZ + kBoxDepth; };

  // 2D, one slice.
  uint8_t* d = nullptr;
  size_t pitch = 0;
  ASSERT_HIP(hipMallocPitch(reinterpret_cast<void**>(&d), &pitch, kWidth, kHeight));
  ASSERT_HIP(hipMemset2DAsync(d, pitch, 0x21, kWidth, kHeight, stream));
  step_pitched<<<dim3(1, kHeight, 1), 64, 0, stream>>>(d, pitch, kWidth, kHeight, 1, 60);
  ASSERT_HIP(hipMemset2DAsync(d + kBoxY * pitch + kBoxX, pitch, 0x77, kBoxWidth, kBoxHeight, stream));
  step_pitched<<<dim3(1, kHeight, 1), 64, 0, stream>>>(d, pitch, kWidth, kHeight, 1, 61);
  ASSERT_HIP(hipMemcpy2DAsync(host, kWidth, d, pitch, kWidth, kHeight, hipMemcpyDeviceToHost, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  std::vector<uint8_t> expected(kWidth * kHeight);
  for (size_t y = 0; y < kHeight; ++y) {
    for (size_t x = 0; x < kWidth; ++x) {
      const size_t i = y * kWidth + x;
      const uint8_t first = Next(0x21, i, 60);
      expected[i] = Next(in_rectangle(x, y) ? uint8_t{0x77} : first, i, 61);
    }
  }
  EXPECT_TRUE(SameBytes(host, expected));
  ASSERT_HIP(hipFree(d));

  // 3D.
  hipPitchedPtr p{};
  ASSERT_HIP(hipMalloc3D(&p, make_hipExtent(kWidth, kHeight, kDepth)));
  ASSERT_HIP(hipMemset3DAsync(p, 0x35, make_hipExtent(kWidth, kHeight, kDepth), stream));
  step_pitched<<<dim3(1, kHeight, kDepth), 64, 0, stream>>>(static_cast<uint8_t*>(p.ptr), p.pitch, kWidth, kHeight,
                                                             kDepth, 62);
  hipPitchedPtr box = p;
  box.ptr = static_cast<uint8_t*>(p.ptr) + (kBoxZ * kHeight + kBoxY) * p.pitch + kBoxX;
  ASSERT_HIP(hipMemset3DAsync(box, 0x99, make_hipExtent(kBoxWidth, kBoxHeight, kBoxDepth), stream));
  step_pitched<<<dim3(1, kHeight, kDepth), 64, 0, stream>>>(static_cast<uint8_t*>(p.ptr), p.pitch, kWidth, kHeight,
                                                             kDepth, 63);
  hipMemcpy3DParms out{};
  out.srcPtr = p;
  out.dstPtr = make_hipPitchedPtr(host, kWidth, kWidth, kHeight);
  out.extent = make_hipExtent(kWidth, kHeight, kDepth);
  out.kind = hipMemcpyDeviceToHost;
  ASSERT_HIP(hipMemcpy3DAsync(&out, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  expected.assign(kWidth * kHeight * kDepth, 0);
  for (size_t z = 0; z < kDepth; ++z) {
    for (size_t y = 0; y < kHeight; ++y) {
      for (size_t x = 0; x < kWidth; ++x) {
        const size_t i = (z * kHeight + y) * kWidth + x;
        const uint8_t first = Next(0x35, i, 62);
        expected[i] = Next(in_box(x, y, z) ? uint8_t{0x99} : first, i, 63);
      }
    }
  }
  EXPECT_TRUE(SameBytes(host, expected));
  ASSERT_HIP(hipFree(p.ptr));
  ASSERT_HIP(hipHostFree(host));
  ASSERT_HIP(hipStreamDestroy(stream));
}

__device__ uint8_t device_bytes[kBytes];
__managed__ uint8_t managed_bytes[kBytes];

__global__ void step_device_variable(uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < kBytes; i += size_t{gridDim.x} * blockDim.x) {
    device_bytes[i] = Next(device_bytes[i], i, seed);
  }
}

__global__ void copy_device_to_managed_variable(uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < kBytes; i += size_t{gridDim.x} * blockDim.x) {
    managed_bytes[i] = Next(device_bytes[i], i, seed);
  }
}

TEST_F(KernelMemoryTest, DeviceAndManagedVariables) {
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  ASSERT_HIP(hipMemcpyToSymbol(HIP_SYMBOL(device_bytes), expected.data(), kBytes));
  step_device_variable<<<16, 256>>>(22);
  Advance(expected, 22);
  std::vector<uint8_t> out(kBytes);
  ASSERT_HIP(hipMemcpyFromSymbol(out.data(), HIP_SYMBOL(device_bytes), kBytes));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  // Through the symbol's address, as ordinary device memory.
  uint8_t* address = nullptr;
  ASSERT_HIP(hipGetSymbolAddress(reinterpret_cast<void**>(&address), HIP_SYMBOL(device_bytes)));
  LaunchStep(address, kBytes, 23);
  Advance(expected, 23);
  // Into the managed variable, which the host reads by name.
  copy_device_to_managed_variable<<<16, 256>>>(24);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 24);
  EXPECT_TRUE(SameBytes(managed_bytes, expected));
  managed_bytes[5] = 0;
  expected[5] = 0;
  LaunchStep(managed_bytes, kBytes, 25);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 25);
  EXPECT_TRUE(SameBytes(managed_bytes, expected));
}

// ---------------------------------------------------------------------------------------------------------------
// Copy paths between kernels: each copy hands a kernel's output to the next kernel or to the host.

// Host memory of each kind a copy can take: pageable (std::vector) or pinned (hipHostMalloc).
class HostBuffer {
 public:
  HostBuffer(bool pinned, size_t n) : pinned_(pinned), pageable_(pinned ? 0 : n) {
    if (pinned_) EXPECT_EQ(hipHostMalloc(reinterpret_cast<void**>(&pinned_ptr_), n, 0), hipSuccess);
  }
  ~HostBuffer() {
    if (pinned_) EXPECT_EQ(hipHostFree(pinned_ptr_), hipSuccess);
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  uint8_t* data() { return pinned_ ? pinned_ptr_ : pageable_.data(); }

 private:
  bool pinned_;
  uint8_t* pinned_ptr_ = nullptr;
  std::vector<uint8_t> pageable_;
};

struct CopyCase {
  bool pinned;
  bool async;
  hipMemcpyKind kind_in;  // hipMemcpyHostToDevice or hipMemcpyDefault
};

class CopyPaths : public KernelMemoryTest, public ::testing::WithParamInterface<CopyCase> {};

// host -> H2D -> kernel -> D2D -> kernel -> D2H -> host, then the same bytes back in at an odd offset.
TEST_P(CopyPaths, KernelsSeeEveryByteEveryCopyMoved) {
  const CopyCase c = GetParam();
  hipStream_t stream = nullptr;
  if (c.async) ASSERT_HIP(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  const hipMemcpyKind d2h = c.kind_in == hipMemcpyDefault ? hipMemcpyDefault : hipMemcpyDeviceToHost;
  const hipMemcpyKind d2d = c.kind_in == hipMemcpyDefault ? hipMemcpyDefault : hipMemcpyDeviceToDevice;
  auto copy = [&](void* dst, const void* src, size_t n, hipMemcpyKind kind) {
    return c.async ? hipMemcpyAsync(dst, src, n, kind, stream) : hipMemcpy(dst, src, n, kind);
  };
  HostBuffer host(c.pinned, kBytes);
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  std::memcpy(host.data(), expected.data(), kBytes);
  uint8_t* a = Device();
  uint8_t* b = Device();
  ASSERT_HIP(copy(a, host.data(), kBytes, c.kind_in));
  LaunchStep(a, kBytes, 30, stream);
  ASSERT_HIP(copy(b, a, kBytes, d2d));
  LaunchStep(a, kBytes, 99, stream);  // a changes after the copy took it: b must not see this
  step_into<<<16, 256, 0, stream>>>(b, b, kBytes, 31);
  ASSERT_HIP(copy(host.data(), b, kBytes, d2h));
  if (c.async) ASSERT_HIP(hipStreamSynchronize(stream));
  Advance(expected, 30);
  Advance(expected, 31);
  EXPECT_TRUE(SameBytes(host.data(), expected));

  // Partial copies at odd offsets and lengths: host bytes [3, n-5) into device bytes [1, n-7).
  constexpr size_t kIn = 3, kOut = 1, kLen = kBytes - 8;
  ASSERT_HIP(copy(b + kOut, host.data() + kIn, kLen, c.kind_in));
  LaunchStep(b + kOut, kLen, 32, stream);
  ASSERT_HIP(copy(host.data(), b, kBytes, d2h));
  if (c.async) ASSERT_HIP(hipStreamSynchronize(stream));
  std::vector<uint8_t> shifted = expected;
  for (size_t i = 0; i < kLen; ++i) shifted[kOut + i] = Next(expected[kIn + i], i, 32);
  EXPECT_TRUE(SameBytes(host.data(), shifted));
  ASSERT_HIP(hipFree(a));
  ASSERT_HIP(hipFree(b));
  if (c.async) ASSERT_HIP(hipStreamDestroy(stream));
}

INSTANTIATE_TEST_SUITE_P(Kinds, CopyPaths,
                         ::testing::Values(CopyCase{false, false, hipMemcpyHostToDevice},
                                           CopyCase{true, false, hipMemcpyHostToDevice},
                                           CopyCase{false, true, hipMemcpyHostToDevice},
                                           CopyCase{true, true, hipMemcpyHostToDevice},
                                           CopyCase{false, false, hipMemcpyDefault},
                                           CopyCase{true, true, hipMemcpyDefault}),
                         [](const ::testing::TestParamInfo<CopyCase>& info) {
                           return std::string(info.param.pinned ? "Pinned" : "Pageable") +
                                  (info.param.async ? "Async" : "Sync") +
                                  (info.param.kind_in == hipMemcpyDefault ? "Default" : "Explicit");
                         });

// The driver-API forms (hipMemcpyHtoD, DtoD, DtoH and their Async) and hipMemcpyWithStream.
TEST_F(KernelMemoryTest, DriverCopyFormsBetweenKernels) {
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  std::vector<uint8_t> host = expected;
  uint8_t* a = Device();
  uint8_t* b = Device();
  ASSERT_HIP(hipMemcpyHtoD(reinterpret_cast<hipDeviceptr_t>(a), host.data(), kBytes));
  LaunchStep(a, kBytes, 33);
  ASSERT_HIP(hipMemcpyDtoD(reinterpret_cast<hipDeviceptr_t>(b), reinterpret_cast<hipDeviceptr_t>(a), kBytes));
  LaunchStep(b, kBytes, 34);
  ASSERT_HIP(hipMemcpyDtoH(host.data(), reinterpret_cast<hipDeviceptr_t>(b), kBytes));
  Advance(expected, 33);
  Advance(expected, 34);
  EXPECT_TRUE(SameBytes(host.data(), expected));

  uint8_t* pinned = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&pinned), kBytes, 0));
  std::memcpy(pinned, expected.data(), kBytes);
  ASSERT_HIP(hipMemcpyHtoDAsync(reinterpret_cast<hipDeviceptr_t>(a), pinned, kBytes, stream));
  LaunchStep(a, kBytes, 35, stream);
  ASSERT_HIP(hipMemcpyDtoDAsync(reinterpret_cast<hipDeviceptr_t>(b), reinterpret_cast<hipDeviceptr_t>(a), kBytes,
                                stream));
  LaunchStep(b, kBytes, 36, stream);
  ASSERT_HIP(hipMemcpyDtoHAsync(pinned, reinterpret_cast<hipDeviceptr_t>(b), kBytes, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  Advance(expected, 35);
  Advance(expected, 36);
  EXPECT_TRUE(SameBytes(pinned, expected));

  ASSERT_HIP(hipMemcpyWithStream(a, pinned, kBytes, hipMemcpyHostToDevice, stream));
  LaunchStep(a, kBytes, 37, stream);
  ASSERT_HIP(hipMemcpyWithStream(host.data(), a, kBytes, hipMemcpyDeviceToHost, stream));
  Advance(expected, 37);
  EXPECT_TRUE(SameBytes(host.data(), expected));
  ASSERT_HIP(hipHostFree(pinned));
  ASSERT_HIP(hipFree(a));
  ASSERT_HIP(hipFree(b));
  ASSERT_HIP(hipStreamDestroy(stream));
}

// Every fill: the kernel reads what the fill wrote, bytes outside the fill keep the kernel's earlier output.
TEST_F(KernelMemoryTest, FillsBetweenKernels) {
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  uint8_t* d = Device();
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  ASSERT_HIP(hipMemcpy(d, expected.data(), kBytes, hipMemcpyHostToDevice));
  struct Fill {
    const char* name;
    size_t offset;  // bytes
    size_t count;   // elements
    size_t element;
    uint32_t value;
  };
  // Odd offsets and counts for the byte forms; element-aligned for the 16- and 32-bit forms, as they require.
  const Fill fills[] = {
      {"hipMemset", 5, kBytes - 9, 1, 0x11},      {"hipMemsetAsync", 1, 4099, 1, 0xee},
      {"hipMemsetD8", 3, 1000, 1, 0x7f},          {"hipMemsetD8Async", 2, kBytes - 2, 1, 0x80},
      {"hipMemsetD16", 2, 3000, 2, 0xbeef},       {"hipMemsetD16Async", 6, 2047, 2, 0x0102},
      {"hipMemsetD32", 4, 3001, 4, 0xdeadbeef},   {"hipMemsetD32Async", 8, 777, 4, 0x80402010},
  };
  std::vector<uint8_t> out(kBytes);
  uint32_t seed = 40;
  for (const Fill& f : fills) {
    SCOPED_TRACE(f.name);
    uint8_t* at = d + f.offset;
    const std::string name = f.name;
    hipError_t e = hipErrorUnknown;
    if (name == "hipMemset") e = hipMemset(at, static_cast<int>(f.value), f.count);
    if (name == "hipMemsetAsync") e = hipMemsetAsync(at, static_cast<int>(f.value), f.count, stream);
    if (name == "hipMemsetD8") e = hipMemsetD8(reinterpret_cast<hipDeviceptr_t>(at), f.value, f.count);
    if (name == "hipMemsetD8Async") {
      e = hipMemsetD8Async(reinterpret_cast<hipDeviceptr_t>(at), f.value, f.count, stream);
    }
    if (name == "hipMemsetD16") e = hipMemsetD16(reinterpret_cast<hipDeviceptr_t>(at), f.value, f.count);
    if (name == "hipMemsetD16Async") {
      e = hipMemsetD16Async(reinterpret_cast<hipDeviceptr_t>(at), f.value, f.count, stream);
    }
    if (name == "hipMemsetD32") e = hipMemsetD32(reinterpret_cast<hipDeviceptr_t>(at), f.value, f.count);
    if (name == "hipMemsetD32Async") {
      e = hipMemsetD32Async(reinterpret_cast<hipDeviceptr_t>(at), static_cast<int>(f.value), f.count, stream);
    }
    ASSERT_HIP(e);
    for (size_t i = 0; i < f.count * f.element; ++i) {
      expected[f.offset + i] = static_cast<uint8_t>(f.value >> (8 * (i % f.element)));  // little endian
    }
    LaunchStep(d, kBytes, seed, stream);
    Advance(expected, seed++);
    ASSERT_HIP(hipMemcpyAsync(out.data(), d, kBytes, hipMemcpyDeviceToHost, stream));
    ASSERT_HIP(hipStreamSynchronize(stream));
    ASSERT_TRUE(SameBytes(out.data(), expected));
  }
  // A fill of pinned host memory, read by a kernel through the same pointer (hipMemset2D/3D: the pitched cases).
  uint8_t* pinned = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&pinned), kBytes, 0));
  std::memcpy(pinned, expected.data(), kBytes);
  ASSERT_HIP(hipMemsetAsync(pinned + 7, 0x42, 100, stream));
  LaunchStep(pinned, kBytes, seed, stream);
  ASSERT_HIP(hipStreamSynchronize(stream));
  for (size_t i = 7; i < 107; ++i) expected[i] = 0x42;
  Advance(expected, seed++);
  EXPECT_TRUE(SameBytes(pinned, expected));
  ASSERT_HIP(hipHostFree(pinned));
  ASSERT_HIP(hipFree(d));
  ASSERT_HIP(hipStreamDestroy(stream));
}

// Peer copies between two devices' kernels, and a kernel on one device reading and writing the other's memory once
// peer access is enabled.
TEST_F(KernelMemoryTest, PeerCopiesAndPeerAccessBetweenTwoDevicesKernels) {
  if (DeviceCount() < 2) GTEST_SKIP() << "one device";
  int can = 0;
  ASSERT_HIP(hipDeviceCanAccessPeer(&can, 1, 0));
  ASSERT_EQ(can, 1);
  std::vector<uint8_t> expected = InitialBytes(kBytes);
  uint8_t* d0 = Device();
  ASSERT_HIP(hipMemcpy(d0, expected.data(), kBytes, hipMemcpyHostToDevice));
  LaunchStep(d0, kBytes, 50);
  ASSERT_HIP(hipSetDevice(1));
  uint8_t* d1 = Device();
  hipStream_t stream1 = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream1));
  ASSERT_HIP(hipMemcpyPeer(d1, 1, d0, 0, kBytes));
  LaunchStep(d1, kBytes, 51);
  ASSERT_HIP(hipMemcpyPeerAsync(d0, 0, d1, 1, kBytes, stream1));
  ASSERT_HIP(hipStreamSynchronize(stream1));
  ASSERT_HIP(hipSetDevice(0));
  LaunchStep(d0, kBytes, 52);
  Advance(expected, 50);
  Advance(expected, 51);
  Advance(expected, 52);
  std::vector<uint8_t> out(kBytes);
  ASSERT_HIP(hipMemcpy(out.data(), d0, kBytes, hipMemcpyDeviceToHost));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  // hipMemcpyDeviceToDevice between the devices goes peer too.
  ASSERT_HIP(hipMemcpy(d1, d0, kBytes, hipMemcpyDeviceToDevice));
  ASSERT_HIP(hipSetDevice(1));
  ASSERT_HIP(hipDeviceEnablePeerAccess(0, 0));
  // Device 1's kernel reads device 0's memory directly and writes its own.
  step_into<<<16, 256>>>(d0, d1, kBytes, 53);
  ASSERT_HIP(hipDeviceSynchronize());
  std::vector<uint8_t> in_d1 = expected;
  Advance(in_d1, 53);
  ASSERT_HIP(hipMemcpy(out.data(), d1, kBytes, hipMemcpyDeviceToHost));
  EXPECT_TRUE(SameBytes(out.data(), in_d1));
  // And writes device 0's, which the kernel above only read.
  LaunchStep(d0, kBytes, 54);
  ASSERT_HIP(hipDeviceSynchronize());
  Advance(expected, 54);
  ASSERT_HIP(hipMemcpy(out.data(), d0, kBytes, hipMemcpyDeviceToHost));
  EXPECT_TRUE(SameBytes(out.data(), expected));
  ASSERT_HIP(hipDeviceDisablePeerAccess(0));
  ASSERT_HIP(hipStreamDestroy(stream1));
  ASSERT_HIP(hipFree(d1));
  ASSERT_HIP(hipSetDevice(0));
  ASSERT_HIP(hipFree(d0));
}

}  // namespace
