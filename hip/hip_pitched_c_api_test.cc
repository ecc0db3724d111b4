// Pitched allocations and the 2D/3D copies and memsets through the C API, as host-only HIP programs (hip-tests'
// hipMemcpy2D/3D, hipMemset2D/3D and hipMallocPitch cases) use them: partial rectangles at offsets, every
// hipMemcpyKind, async on a stream then hipStreamSynchronize, every result checked on the host; and the
// negative cases hip-tests check.
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 31 + (i >> 8));
  return v;
}

// `dst` after copying a width x height x depth box from `src`, each at its offset, pitch and slice pitch.
struct Box {
  size_t offset, pitch, slice;
};
std::vector<uint8_t> Expected(std::vector<uint8_t> dst, Box d, const std::vector<uint8_t>& src, Box s, size_t width,
                              size_t height, size_t depth = 1) {
  for (size_t z = 0; z < depth; ++z)
    for (size_t y = 0; y < height; ++y)
      std::memcpy(&dst[d.offset + z * d.slice + y * d.pitch], &src[s.offset + z * s.slice + y * s.pitch], width);
  return dst;
}
std::vector<uint8_t> Filled(std::vector<uint8_t> dst, Box d, uint8_t value, size_t width, size_t height,
                            size_t depth = 1) {
  for (size_t z = 0; z < depth; ++z)
    for (size_t y = 0; y < height; ++y) std::memset(&dst[d.offset + z * d.slice + y * d.pitch], value, width);
  return dst;
}

std::vector<uint8_t> ReadBack(const void* device, size_t size) {
  std::vector<uint8_t> out(size);
  EXPECT_EQ(hipMemcpy(out.data(), device, size, hipMemcpyDeviceToHost), hipSuccess);
  return out;
}

TEST(HipPitchedCApi, MallocPitchRoundsRowsUpAndRefusesNullOutputs) {
  int* p = nullptr;  // the C++ template overload
  size_t pitch = 0;
  ASSERT_EQ(hipMallocPitch(&p, &pitch, 10 * sizeof(int), 6), hipSuccess);
  EXPECT_NE(p, nullptr);
  EXPECT_GE(pitch, 10 * sizeof(int));
  EXPECT_EQ(pitch % 256, 0u);
  hipPointerAttribute_t attr{};
  ASSERT_EQ(hipPointerGetAttributes(&attr, reinterpret_cast<char*>(p) + pitch * 5 + 39), hipSuccess);
  EXPECT_EQ(attr.type, hipMemoryTypeDevice) << "the last byte of the last row is in the allocation";
  EXPECT_EQ(hipFree(p), hipSuccess);

  void* v = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(hipMallocPitch(&v, &pitch, 0, 6), hipSuccess);
  EXPECT_EQ(v, nullptr);
  EXPECT_EQ(hipMallocPitch(nullptr, &pitch, 10, 6), hipErrorInvalidValue);
  EXPECT_EQ(hipMallocPitch(&v, nullptr, 10, 6), hipErrorInvalidValue);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);

  // CLR's hipMemAllocPitch is hipMallocPitch: the element size is not looked at (hip-tests checks CUDA's
  // refusals of sizes other than 4, 8 and 16, and of a zero width, on NVIDIA only).
  hipDeviceptr_t d = nullptr;
  for (unsigned element : {0u, 3u, 4u, 8u, 16u, 32u}) {
    ASSERT_EQ(hipMemAllocPitch(&d, &pitch, 100, 3, element), hipSuccess) << element;
    EXPECT_GE(pitch, 100u);
    EXPECT_EQ(hipFree(d), hipSuccess);
  }
  d = reinterpret_cast<hipDeviceptr_t>(0x1);
  EXPECT_EQ(hipMemAllocPitch(&d, &pitch, 0, 3, 4), hipSuccess);
  EXPECT_EQ(d, nullptr);
  EXPECT_EQ(hipMemAllocPitch(nullptr, &pitch, 100, 3, 4), hipErrorInvalidValue);
  EXPECT_EQ(hipMallocPitch(&v, &pitch, SIZE_MAX / 2, 4), hipErrorOutOfMemory);

  hipPitchedPtr pp{};
  ASSERT_EQ(hipMalloc3D(&pp, make_hipExtent(30, 4, 5)), hipSuccess);
  EXPECT_NE(pp.ptr, nullptr);
  EXPECT_GE(pp.pitch, 30u);
  EXPECT_EQ(pp.xsize, 30u);
  EXPECT_EQ(pp.ysize, 4u);
  EXPECT_EQ(hipFree(pp.ptr), hipSuccess);
  EXPECT_EQ(hipMalloc3D(nullptr, make_hipExtent(30, 4, 5)), hipErrorInvalidValue);
  ASSERT_EQ(hipMalloc3D(&pp, make_hipExtent(30, 4, 0)), hipSuccess);
  EXPECT_EQ(pp.ptr, nullptr);
}

class HipPitched2D : public ::testing::Test {
 protected:
  static constexpr size_t kWidth = 100, kHeight = 9;
  void SetUp() override {
    ASSERT_EQ(hipMallocPitch(&dev_, &pitch_, kWidth, kHeight), hipSuccess);
    before_ = Pattern(pitch_ * kHeight, 0x70);
    ASSERT_EQ(hipMemcpy(dev_, before_.data(), before_.size(), hipMemcpyHostToDevice), hipSuccess);
  }
  void TearDown() override { EXPECT_EQ(hipFree(dev_), hipSuccess); }
  void* dev_ = nullptr;
  size_t pitch_ = 0;
  std::vector<uint8_t> before_;
};

TEST_F(HipPitched2D, EveryKindCopiesPartialRectanglesAtOffsets) {
  // 60 x 5 at (x=7, y=3) of the pitched allocation, from a 80-pitched host buffer at (x=2, y=1).
  const Box dev{3 * pitch_ + 7, pitch_, 0};
  const Box host{80 + 2, 80, 0};
  const std::vector<uint8_t> src = Pattern(80 * 8, 0x11);
  char* d = static_cast<char*>(dev_);
  for (hipMemcpyKind kind : {hipMemcpyHostToDevice, hipMemcpyDefault}) {
    ASSERT_EQ(hipMemcpy2D(d + dev.offset, pitch_, src.data() + host.offset, 80, 60, 5, kind), hipSuccess);
  }
  const std::vector<uint8_t> want = Expected(before_, dev, src, host, 60, 5);
  EXPECT_EQ(ReadBack(dev_, want.size()), want);

  // Device to host into a third layout, pageable and then hipHostMalloc memory.
  const Box out_box{5, 70, 0};
  for (hipMemcpyKind kind : {hipMemcpyDeviceToHost, hipMemcpyDefault}) {
    std::vector<uint8_t> out(70 * 6, 0);
    ASSERT_EQ(hipMemcpy2D(out.data() + 5, 70, d + dev.offset, pitch_, 60, 5, kind), hipSuccess);
    EXPECT_EQ(out, Expected(std::vector<uint8_t>(70 * 6, 0), out_box, want, dev, 60, 5));
  }
  uint8_t* pinned = nullptr;
  ASSERT_EQ(hipHostMalloc(&pinned, 70 * 6, 0), hipSuccess);
  std::memset(pinned, 0, 70 * 6);
  ASSERT_EQ(hipMemcpy2D(pinned + 5, 70, d + dev.offset, pitch_, 60, 5, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(std::vector<uint8_t>(pinned, pinned + 70 * 6),
            Expected(std::vector<uint8_t>(70 * 6, 0), out_box, want, dev, 60, 5));

  // Device to device, into a second pitched allocation.
  void* dev2 = nullptr;
  size_t pitch2 = 0;
  ASSERT_EQ(hipMallocPitch(&dev2, &pitch2, 300, 4), hipSuccess);
  const std::vector<uint8_t> before2 = Pattern(pitch2 * 4, 0x05);
  ASSERT_EQ(hipMemcpy(dev2, before2.data(), before2.size(), hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy2D(static_cast<char*>(dev2) + 200, pitch2, d + dev.offset, pitch_, 60, 4,
                        hipMemcpyDeviceToDevice),
            hipSuccess);
  EXPECT_EQ(ReadBack(dev2, before2.size()), Expected(before2, Box{200, pitch2, 0}, want, dev, 60, 4));
  // DeviceToDeviceNoCU is a valid kind for rectangles too.
  ASSERT_EQ(hipMemcpy2D(dev2, pitch2, d, pitch_, 100, 4, hipMemcpyDeviceToDeviceNoCU), hipSuccess);
  EXPECT_EQ(ReadBack(dev2, before2.size()),
            Expected(Expected(before2, Box{200, pitch2, 0}, want, dev, 60, 4), Box{0, pitch2, 0}, want,
                     Box{0, pitch_, 0}, 100, 4));
  EXPECT_EQ(hipFree(dev2), hipSuccess);

  // Host to host, pageable and pinned.
  std::vector<uint8_t> h2h(80 * 8, 0);
  ASSERT_EQ(hipMemcpy2D(h2h.data(), 80, src.data(), 80, 33, 8, hipMemcpyHostToHost), hipSuccess);
  EXPECT_EQ(h2h, Expected(std::vector<uint8_t>(80 * 8, 0), Box{0, 80, 0}, src, Box{0, 80, 0}, 33, 8));
  ASSERT_EQ(hipMemcpy2D(pinned, 70, src.data(), 80, 70, 6, hipMemcpyHostToHost), hipSuccess);
  EXPECT_EQ(std::vector<uint8_t>(pinned, pinned + 70 * 6),
            Expected(std::vector<uint8_t>(70 * 6, 0), Box{0, 70, 0}, src, Box{0, 80, 0}, 70, 6));
  EXPECT_EQ(hipHostFree(pinned), hipSuccess);
}

TEST_F(HipPitched2D, AsyncCopiesAndMemsetsAreDoneAfterStreamSynchronize) {
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  uint8_t* pinned = nullptr;
  ASSERT_EQ(hipHostMalloc(&pinned, kWidth * kHeight, 0), hipSuccess);
  const std::vector<uint8_t> src = Pattern(kWidth * kHeight, 0x3d);
  std::memcpy(pinned, src.data(), src.size());
  // Rows 1..7 from packed pinned memory, then a 40-wide stripe set to 0xab, then read back into pinned memory.
  char* d = static_cast<char*>(dev_);
  ASSERT_EQ(hipMemcpy2DAsync(d + pitch_, pitch_, pinned, kWidth, kWidth, 7, hipMemcpyHostToDevice, stream),
            hipSuccess);
  ASSERT_EQ(hipMemset2DAsync(d + pitch_ + 30, pitch_, 0x1ab, 40, 7, stream), hipSuccess);
  std::vector<uint8_t> out(kWidth * kHeight, 0);
  uint8_t* back = nullptr;
  ASSERT_EQ(hipHostMalloc(&back, kWidth * kHeight, 0), hipSuccess);
  std::memset(back, 0, kWidth * kHeight);
  ASSERT_EQ(hipMemcpy2DAsync(back, kWidth, dev_, pitch_, kWidth, kHeight, hipMemcpyDeviceToHost, stream), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);

  std::vector<uint8_t> want = Expected(before_, Box{pitch_, pitch_, 0}, src, Box{0, kWidth, 0}, kWidth, 7);
  want = Filled(want, Box{pitch_ + 30, pitch_, 0}, 0xab, 40, 7);
  EXPECT_EQ(std::vector<uint8_t>(back, back + kWidth * kHeight),
            Expected(std::vector<uint8_t>(kWidth * kHeight, 0), Box{0, kWidth, 0}, want, Box{0, pitch_, 0}, kWidth,
                     kHeight));
  EXPECT_EQ(ReadBack(dev_, want.size()), want);

  // Pageable memory on a stream: staged, done once the stream is.
  std::vector<uint8_t> pageable(kWidth * 2);
  ASSERT_EQ(hipMemcpy2DAsync(pageable.data(), kWidth, d + pitch_, pitch_, kWidth, 2, hipMemcpyDefault, stream),
            hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(pageable, Expected(std::vector<uint8_t>(kWidth * 2), Box{0, kWidth, 0}, want, Box{pitch_, pitch_, 0},
                               kWidth, 2));

  EXPECT_EQ(hipHostFree(pinned), hipSuccess);
  EXPECT_EQ(hipHostFree(back), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  EXPECT_EQ(hipMemcpy2DAsync(dev_, pitch_, src.data(), kWidth, kWidth, 1, hipMemcpyHostToDevice, stream),
            hipErrorInvalidHandle);
  EXPECT_EQ(hipMemset2DAsync(dev_, pitch_, 0, kWidth, 1, stream), hipErrorInvalidHandle);
}

TEST_F(HipPitched2D, Memset2DSetsOnlyTheRectangle) {
  char* d = static_cast<char*>(dev_);
  ASSERT_EQ(hipMemset2D(d + 2 * pitch_ + 3, pitch_, 0x5a, 61, 4), hipSuccess);  // byte-aligned rows
  ASSERT_EQ(hipMemset2D(d + 6 * pitch_ + 8, pitch_, 0x00, 64, 3), hipSuccess);  // dword-aligned rows
  std::vector<uint8_t> want = Filled(before_, Box{2 * pitch_ + 3, pitch_, 0}, 0x5a, 61, 4);
  want = Filled(want, Box{6 * pitch_ + 8, pitch_, 0}, 0, 64, 3);
  EXPECT_EQ(ReadBack(dev_, want.size()), want);
  // The whole allocation with the pitch as the width: one contiguous fill.
  ASSERT_EQ(hipMemset2D(dev_, pitch_, 0xff, pitch_, kHeight), hipSuccess);
  EXPECT_EQ(ReadBack(dev_, want.size()), std::vector<uint8_t>(want.size(), 0xff));
}

TEST_F(HipPitched2D, ParamCopiesTakeTheirPointersFromTheMemoryTypes) {
  const std::vector<uint8_t> src = Pattern(64 * 10, 0x21);
  hip_Memcpy2D p{};
  p.srcMemoryType = hipMemoryTypeHost;
  p.srcHost = src.data();
  p.srcXInBytes = 4;
  p.srcY = 1;
  p.srcPitch = 64;
  p.dstMemoryType = hipMemoryTypeDevice;
  p.dstDevice = dev_;
  p.dstXInBytes = 10;
  p.dstY = 2;
  p.dstPitch = pitch_;
  p.WidthInBytes = 50;
  p.Height = 6;
  ASSERT_EQ(hipMemcpyParam2D(&p), hipSuccess);
  const std::vector<uint8_t> want = Expected(before_, Box{2 * pitch_ + 10, pitch_, 0}, src, Box{68, 64, 0}, 50, 6);
  EXPECT_EQ(ReadBack(dev_, want.size()), want);

  std::vector<uint8_t> out(50 * 6, 0);
  hip_Memcpy2D back{};
  back.srcMemoryType = hipMemoryTypeUnified;
  back.srcDevice = dev_;
  back.srcXInBytes = 10;
  back.srcY = 2;
  back.srcPitch = pitch_;
  back.dstMemoryType = hipMemoryTypeHost;
  back.dstHost = out.data();
  back.dstPitch = 50;
  back.WidthInBytes = 50;
  back.Height = 6;
  ASSERT_EQ(hipMemcpyParam2DAsync(&back, nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(out, Expected(std::vector<uint8_t>(50 * 6, 0), Box{0, 50, 0}, src, Box{68, 64, 0}, 50, 6));

  back.srcMemoryType = hipMemoryTypeArray;
  EXPECT_EQ(hipMemcpyParam2D(&back), hipErrorNotSupported);
  EXPECT_EQ(hipMemcpyParam2D(nullptr), hipErrorInvalidValue);
}

TEST_F(HipPitched2D, NegativeCopiesAsHipTestsCheckThem) {
  const std::vector<uint8_t> host(pitch_ * kHeight);
  int max_pitch = 0;
  ASSERT_EQ(hipDeviceGetAttribute(&max_pitch, hipDeviceAttributeMaxPitch, 0), hipSuccess);
  for (bool async : {false, true}) {
    auto copy = [&](void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height) {
      return async ? hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, hipMemcpyHostToDevice, nullptr)
                   : hipMemcpy2D(dst, dpitch, src, spitch, width, height, hipMemcpyHostToDevice);
    };
    SCOPED_TRACE(async ? "async" : "sync");
    EXPECT_EQ(copy(nullptr, pitch_, host.data(), pitch_, kWidth, kHeight), hipErrorInvalidValue);
    EXPECT_EQ(copy(dev_, pitch_, nullptr, pitch_, kWidth, kHeight), hipErrorInvalidValue);
    EXPECT_EQ(copy(dev_, kWidth - 1, host.data(), pitch_, kWidth, kHeight), hipErrorInvalidPitchValue);
    EXPECT_EQ(copy(dev_, pitch_, host.data(), kWidth - 1, kWidth, kHeight), hipErrorInvalidPitchValue);
    EXPECT_EQ(copy(dev_, static_cast<size_t>(max_pitch) + 1, host.data(), pitch_, kWidth, kHeight),
              hipErrorInvalidValue);
    EXPECT_EQ(copy(dev_, pitch_, host.data(), static_cast<size_t>(max_pitch) + 1, kWidth, kHeight),
              hipErrorInvalidValue);
    EXPECT_EQ(copy(dev_, pitch_, host.data(), pitch_, kWidth, kHeight + 1), hipErrorInvalidValue)
        << "a row past the allocation";
    EXPECT_EQ(copy(dev_, pitch_, host.data(), pitch_, 0, kHeight), hipSuccess);
    EXPECT_EQ(copy(dev_, pitch_, host.data(), pitch_, kWidth, 0), hipSuccess);
  }
  EXPECT_EQ(hipMemcpy2D(dev_, pitch_, host.data(), pitch_, kWidth, 1, static_cast<hipMemcpyKind>(9)),
            hipErrorInvalidMemcpyDirection);
  EXPECT_EQ(ReadBack(dev_, before_.size()), before_) << "no refused copy wrote anything";
}

TEST_F(HipPitched2D, NegativeMemsetsAsHipTestsCheckThem) {
  std::vector<char> host(pitch_ * kHeight);
  for (bool async : {false, true}) {
    auto memset2d = [&](void* dst, size_t pitch, size_t width, size_t height) {
      return async ? hipMemset2DAsync(dst, pitch, 1, width, height, nullptr) : hipMemset2D(dst, pitch, 1, width, height);
    };
    SCOPED_TRACE(async ? "async" : "sync");
    EXPECT_EQ(memset2d(nullptr, pitch_, kWidth, kHeight), hipErrorInvalidValue);
    EXPECT_EQ(memset2d(host.data(), pitch_, kWidth, kHeight), hipErrorInvalidValue);
    EXPECT_EQ(memset2d(dev_, 1, kWidth, kHeight), hipErrorInvalidValue);
    EXPECT_EQ(memset2d(dev_, pitch_, pitch_ + 1, kHeight), hipErrorInvalidValue);
    EXPECT_EQ(memset2d(dev_, pitch_, kWidth, kHeight + 1), hipErrorInvalidValue);
    EXPECT_EQ(memset2d(static_cast<char*>(dev_) + pitch_ * kHeight + 1, pitch_, kWidth, kHeight),
              hipErrorInvalidValue);
    EXPECT_EQ(memset2d(dev_, pitch_, 0, kHeight), hipSuccess);
  }
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(ReadBack(dev_, before_.size()), before_) << "no refused memset wrote anything";
}

TEST(HipPitchedCApi, ThreeDimensionalCopiesAndMemsetsOfSubVolumes) {
  const hipExtent full = make_hipExtent(40, 6, 5);
  hipPitchedPtr vol{};
  ASSERT_EQ(hipMalloc3D(&vol, full), hipSuccess);
  const size_t slice = vol.pitch * vol.ysize;
  ASSERT_EQ(hipMemset3D(vol, 0x11, full), hipSuccess);
  std::vector<uint8_t> want = Filled(std::vector<uint8_t>(slice * 5, 0), Box{0, vol.pitch, slice}, 0x11, 40, 6, 5);

  // A 20 x 3 x 2 box from a packed host volume at (1, 2, 1) into the device volume at (5, 1, 2).
  const std::vector<uint8_t> src = Pattern(32 * 4 * 3, 0x44);
  hipMemcpy3DParms p{};
  p.srcPtr = make_hipPitchedPtr(const_cast<uint8_t*>(src.data()), 32, 32, 4);
  p.srcPos = make_hipPos(1, 2, 1);
  p.dstPtr = vol;
  p.dstPos = make_hipPos(5, 1, 2);
  p.extent = make_hipExtent(20, 2, 2);
  p.kind = hipMemcpyHostToDevice;
  ASSERT_EQ(hipMemcpy3D(&p), hipSuccess);
  want = Expected(want, Box{5 + vol.pitch + 2 * slice, vol.pitch, slice}, src, Box{1 + 2 * 32 + 32 * 4, 32, 32 * 4},
                  20, 2, 2);
  // And a memset of a sub-volume on a stream.
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  hipPitchedPtr corner = vol;
  corner.ptr = static_cast<char*>(vol.ptr) + 30 + 3 * vol.pitch + 1 * slice;
  ASSERT_EQ(hipMemset3DAsync(corner, 0xc4, make_hipExtent(10, 3, 4), stream), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  want = Filled(want, Box{30 + 3 * vol.pitch + slice, vol.pitch, slice}, 0xc4, 10, 3, 4);
  EXPECT_EQ(ReadBack(vol.ptr, want.size()), want);

  // The whole volume back, asynchronously, into pageable memory with another pitch.
  std::vector<uint8_t> out(48 * 6 * 5, 0);
  hipMemcpy3DParms back{};
  back.srcPtr = vol;
  back.dstPtr = make_hipPitchedPtr(out.data(), 48, 40, 6);
  back.extent = full;
  back.kind = hipMemcpyDefault;
  ASSERT_EQ(hipMemcpy3DAsync(&back, stream), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(out, Expected(std::vector<uint8_t>(out.size(), 0), Box{0, 48, 48 * 6}, want, Box{0, vol.pitch, slice},
                          40, 6, 5));

  // The driver API's block: device to device within the volume (slice 0 <- slice 4).
  HIP_MEMCPY3D drv{};
  drv.srcMemoryType = hipMemoryTypeDevice;
  drv.srcDevice = vol.ptr;
  drv.srcZ = 4;
  drv.srcPitch = vol.pitch;
  drv.srcHeight = vol.ysize;
  drv.dstMemoryType = hipMemoryTypeDevice;
  drv.dstDevice = vol.ptr;
  drv.dstPitch = vol.pitch;
  drv.dstHeight = vol.ysize;
  drv.WidthInBytes = 40;
  drv.Height = 6;
  drv.Depth = 1;
  ASSERT_EQ(hipDrvMemcpy3D(&drv), hipSuccess);
  want = Expected(want, Box{0, vol.pitch, slice}, want, Box{4 * slice, vol.pitch, slice}, 40, 6, 1);
  EXPECT_EQ(ReadBack(vol.ptr, want.size()), want);
  drv.srcZ = 0;
  drv.dstZ = 3;
  ASSERT_EQ(hipDrvMemcpy3DAsync(&drv, stream), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  want = Expected(want, Box{3 * slice, vol.pitch, slice}, want, Box{0, vol.pitch, slice}, 40, 6, 1);
  EXPECT_EQ(ReadBack(vol.ptr, want.size()), want);

  // Negative: hip-tests' hipMemset3D and hipMemcpy3D cases.
  hipPitchedPtr bad = vol;
  bad.ptr = nullptr;
  EXPECT_EQ(hipMemset3D(bad, 1, full), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset3D(hipPitchedPtr{}, 1, full), hipErrorInvalidValue);
  bad = vol;
  bad.pitch = 1;
  EXPECT_EQ(hipMemset3D(bad, 1, full), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset3DAsync(vol, 1, make_hipExtent(SIZE_MAX, 6, 5), nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset3D(vol, 1, make_hipExtent(40, SIZE_MAX, 5)), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset3D(vol, 1, make_hipExtent(40, 6, SIZE_MAX)), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset3D(vol, 1, make_hipExtent(vol.pitch + 1, 6, 5)), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset3D(vol, 1, make_hipExtent(40, 6, 6)), hipErrorInvalidValue);
  hipPitchedPtr past = vol;
  past.ptr = static_cast<char*>(vol.ptr) + slice * 5 + 1;
  EXPECT_EQ(hipMemset3D(past, 1, full), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset3D(past, 1, make_hipExtent(0, 0, 0)), hipSuccess);
  EXPECT_EQ(hipMemset3DAsync(past, 1, make_hipExtent(0, 0, 0), nullptr), hipSuccess);
  EXPECT_EQ(hipMemcpy3D(nullptr), hipErrorInvalidValue);
  hipMemcpy3DParms with_array = back;
  with_array.srcPtr.ptr = nullptr;
  with_array.srcArray = reinterpret_cast<hipArray_t>(0x1000);
  EXPECT_EQ(hipMemcpy3D(&with_array), hipErrorNotSupported);
  hipMemcpy3DParms narrow = back;
  narrow.dstPtr.pitch = 39;
  EXPECT_EQ(hipMemcpy3D(&narrow), hipErrorInvalidPitchValue);
  hipMemcpy3DParms too_deep = back;
  too_deep.extent.depth = 6;
  EXPECT_EQ(hipMemcpy3D(&too_deep), hipErrorInvalidValue);
  hipMemcpy3DParms empty = back;
  empty.extent = make_hipExtent(0, 6, 5);
  EXPECT_EQ(hipMemcpy3D(&empty), hipSuccess);
  EXPECT_EQ(ReadBack(vol.ptr, want.size()), want) << "no refused call wrote anything";

  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  EXPECT_EQ(hipFree(vol.ptr), hipSuccess);
}

}  // namespace

namespace {

TEST(HipPitchedCApi, CopiesIssuedFromAnotherDeviceRunWhereTheMemoryIs) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  if (count < 2) GTEST_SKIP() << "one GPU in this preset";
  // hip-tests' multiDevice-D2D: both allocations on device 0, every call made with device 1 current, no peer
  // access enabled.
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  void* a = nullptr;
  void* x = nullptr;
  size_t pitch_a = 0, pitch_x = 0;
  ASSERT_EQ(hipMallocPitch(&a, &pitch_a, 64, 16), hipSuccess);
  ASSERT_EQ(hipMallocPitch(&x, &pitch_x, 64, 16), hipSuccess);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  const std::vector<uint8_t> src = Pattern(32 * 8, 0x17);
  std::vector<uint8_t> out(32 * 8, 0);
  ASSERT_EQ(hipMemcpy2D(a, pitch_a, src.data(), 32, 32, 8, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy2D(x, pitch_x, a, pitch_a, 32, 8, hipMemcpyDeviceToDevice), hipSuccess);
  ASSERT_EQ(hipMemset2D(static_cast<char*>(x) + pitch_x, pitch_x, 0xee, 8, 2), hipSuccess);
  ASSERT_EQ(hipMemcpy2D(out.data(), 32, x, pitch_x, 32, 8, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(out, Filled(src, Box{32, 32, 0}, 0xee, 8, 2));
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(x), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
}

// Without peer access the engines of neither GPU reach the other's VRAM: the rectangle is staged through host
// memory, as CLR stages P2P copies, whichever stream it is issued on.
TEST(HipPitchedCApi, RectanglesBetweenDevicesWithoutPeerAccessAreStaged) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  if (count < 2) GTEST_SKIP() << "one GPU in this preset";
  void* on0 = nullptr;
  void* on1 = nullptr;
  size_t pitch0 = 0, pitch1 = 0;
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipMallocPitch(&on0, &pitch0, 300, 9), hipSuccess);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  ASSERT_EQ(hipMallocPitch(&on1, &pitch1, 300, 9), hipSuccess);
  const std::vector<uint8_t> src = Pattern(pitch0 * 9, 0x41);
  const std::vector<uint8_t> before = Pattern(pitch1 * 9, 0x17);
  ASSERT_EQ(hipMemcpy(on0, src.data(), src.size(), hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(on1, before.data(), before.size(), hipMemcpyHostToDevice), hipSuccess);
  // Rows 2..8 of device 0, columns 5..259, into device 1 at x = 40, y = 1; issued from device 1's stream.
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  ASSERT_EQ(hipMemcpy2DAsync(static_cast<char*>(on1) + pitch1 + 40, pitch1, static_cast<char*>(on0) + 2 * pitch0 + 5,
                             pitch0, 255, 7, hipMemcpyDeviceToDevice, stream),
            hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(ReadBack(on1, before.size()),
            Expected(before, Box{pitch1 + 40, pitch1, 0}, src, Box{2 * pitch0 + 5, pitch0, 0}, 255, 7));
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  EXPECT_EQ(hipFree(on0), hipSuccess);
  EXPECT_EQ(hipFree(on1), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
}

TEST(HipPitchedCApi, PeerRectanglesReachTheOtherDevicesMemory) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  if (count < 2) GTEST_SKIP() << "one GPU in this preset";
  void* on0 = nullptr;
  void* on1 = nullptr;
  size_t pitch0 = 0, pitch1 = 0;
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipMallocPitch(&on0, &pitch0, 96, 8), hipSuccess);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  ASSERT_EQ(hipMallocPitch(&on1, &pitch1, 96, 8), hipSuccess);
  // Each GPU's engines reach the other's VRAM once peer access is enabled both ways.
  ASSERT_EQ(hipDeviceEnablePeerAccess(0, 0), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipDeviceEnablePeerAccess(1, 0), hipSuccess);
  const std::vector<uint8_t> src = Pattern(pitch0 * 8, 0x29);
  const std::vector<uint8_t> before = Pattern(pitch1 * 8, 0x93);
  ASSERT_EQ(hipMemcpy(on0, src.data(), src.size(), hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(on1, before.data(), before.size(), hipMemcpyHostToDevice), hipSuccess);
  // Device 0's rows 1..6 into device 1's allocation at x = 8, issued from device 0's null stream.
  ASSERT_EQ(hipMemcpy2D(static_cast<char*>(on1) + 8, pitch1, static_cast<char*>(on0) + pitch0, pitch0, 80, 6,
                        hipMemcpyDeviceToDevice),
            hipSuccess);
  EXPECT_EQ(ReadBack(on1, before.size()), Expected(before, Box{8, pitch1, 0}, src, Box{pitch0, pitch0, 0}, 80, 6));
  // And back, asynchronously on a stream of device 1.
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  ASSERT_EQ(hipMemcpy2DAsync(on0, pitch0, on1, pitch1, 96, 8, hipMemcpyDefault, stream), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  const std::vector<uint8_t> now1 = ReadBack(on1, before.size());
  EXPECT_EQ(ReadBack(on0, src.size()), Expected(src, Box{0, pitch0, 0}, now1, Box{0, pitch1, 0}, 96, 8));
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  EXPECT_EQ(hipFree(on0), hipSuccess);
  EXPECT_EQ(hipFree(on1), hipSuccess);
  EXPECT_EQ(hipDeviceDisablePeerAccess(0), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipSuccess);
}

}  // namespace

namespace {

TEST(HipPitchedCApi, ThreadsCopyRectanglesOnTheirOwnStreams) {
  constexpr int kThreads = 4;
  // Streams and memory are made and released on this thread: hipFree synchronizing a device while another
  // thread destroys one of its streams is a race of its own (StreamTable::SynchronizeDevice), not this test's.
  std::vector<hipStream_t> streams(kThreads, nullptr);
  std::vector<void*> devs(kThreads, nullptr);
  std::vector<size_t> pitches(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(hipStreamCreate(&streams[t]), hipSuccess);
    ASSERT_EQ(hipMallocPitch(&devs[t], &pitches[t], 200, 50), hipSuccess);
  }
  std::vector<std::thread> threads;
  std::vector<int> ok(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &ok, stream = streams[t], dev = devs[t], pitch = pitches[t]] {
      const std::vector<uint8_t> src = Pattern(200 * 50, static_cast<uint8_t>(t * 40));
      std::vector<uint8_t> out(200 * 50, 0);
      bool good = true;
      for (int round = 0; round < 5 && good; ++round) {
        good = hipMemcpy2DAsync(dev, pitch, src.data(), 200, 200, 50, hipMemcpyHostToDevice, stream) == hipSuccess &&
               hipMemset2DAsync(static_cast<char*>(dev) + 10 * pitch + 4, pitch, t, 100, 20, stream) == hipSuccess &&
               hipMemcpy2DAsync(out.data(), 200, dev, pitch, 200, 50, hipMemcpyDeviceToHost, stream) == hipSuccess &&
               hipStreamSynchronize(stream) == hipSuccess &&
               out == Filled(src, Box{10 * 200 + 4, 200, 0}, static_cast<uint8_t>(t), 100, 20);
      }
      ok[t] = good;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(ok[t]) << "thread " << t;
    EXPECT_EQ(hipFree(devs[t]), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(streams[t]), hipSuccess);
  }
}

}  // namespace
