// hip/pitched.h's C++ API over a private CLR context: pitched allocation sizes, how the parameter blocks of
// hipMemcpyParam2D / hipDrvMemcpy3D / hipMemcpy3D become rectangles, and the error codes of bad rectangles.
#include "hip/pitched.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hip/hip_error.h"
#include "testing/status_matchers.h"

namespace hipmem::hip {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

class PitchedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<clr::Context>> ctx = clr::Context::Create();
    ASSERT_THAT(ctx, IsOk());
    rt_ = std::make_unique<Runtime>(*std::move(ctx));
  }
  std::unique_ptr<Runtime> rt_;
};

TEST_F(PitchedTest, PitchIsTheWidthRoundedUpTo256AndTheAllocationHoldsEveryRow) {
  absl::StatusOr<PitchedAllocation> a = MallocPitch(*rt_, 100, 7, 3);
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->pitch, 256u);
  const std::optional<clr::MemObjRef> ref = rt_->context().Find(DeviceAddress::FromPointer(a->ptr));
  ASSERT_TRUE(ref.has_value());
  EXPECT_GE(ref->desc.range.size.raw(), 256u * 7 * 3);
  EXPECT_THAT(rt_->Free(a->ptr), IsOk());

  absl::StatusOr<PitchedAllocation> exact = MallocPitch(*rt_, 512, 2, 1);
  ASSERT_THAT(exact, IsOk());
  EXPECT_EQ(exact->pitch, 512u);
  EXPECT_THAT(rt_->Free(exact->ptr), IsOk());
}

TEST_F(PitchedTest, EmptyExtentsAllocateNothingAndHugeOnesAreOutOfMemory) {
  for (auto [w, h, d] : {std::tuple{0, 5, 1}, {5, 0, 1}, {5, 5, 0}}) {
    absl::StatusOr<PitchedAllocation> a = MallocPitch(*rt_, w, h, d);
    ASSERT_THAT(a, IsOk());
    EXPECT_EQ(a->ptr, nullptr);
  }
  EXPECT_EQ(ToHipError(MallocPitch(*rt_, SIZE_MAX, 2, 1).status()), hipErrorOutOfMemory);
  EXPECT_EQ(ToHipError(MallocPitch(*rt_, 1 << 20, 1 << 20, 1 << 20).status()), hipErrorOutOfMemory);
  const uint64_t max_alloc = rt_->context().devices()[0].max_alloc_size.raw();
  EXPECT_EQ(ToHipError(MallocPitch(*rt_, 1024, max_alloc / 1024 + 1, 1).status()), hipErrorOutOfMemory);
}

TEST(PitchedParams, Param2DAppliesTheOffsetsAndPicksThePointerByMemoryType) {
  char host[1];
  char device[1];
  hip_Memcpy2D p{};
  p.srcMemoryType = hipMemoryTypeHost;
  p.srcHost = host;
  p.srcDevice = device;  // ignored for host memory
  p.srcXInBytes = 3;
  p.srcY = 2;
  p.srcPitch = 100;
  p.dstMemoryType = hipMemoryTypeDevice;
  p.dstHost = host;  // ignored for device memory
  p.dstDevice = device;
  p.dstXInBytes = 5;
  p.dstY = 1;
  p.dstPitch = 64;
  p.WidthInBytes = 10;
  p.Height = 4;
  absl::StatusOr<RectCopy> c = FromParam2D(&p);
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->src.ptr, host + 3 + 2 * 100);
  EXPECT_EQ(c->dst.ptr, device + 5 + 64);
  EXPECT_EQ(c->src.pitch, 100u);
  EXPECT_EQ(c->dst.pitch, 64u);
  EXPECT_EQ(c->width, 10u);
  EXPECT_EQ(c->height, 4u);
  EXPECT_EQ(c->depth, 1u);
  EXPECT_EQ(c->kind, MemcpyKind::kDefault);

  p.dstMemoryType = hipMemoryTypeArray;
  EXPECT_EQ(ToHipError(FromParam2D(&p).status()), hipErrorNotSupported);
  p.dstMemoryType = static_cast<hipMemoryType>(7);
  EXPECT_EQ(ToHipError(FromParam2D(&p).status()), hipErrorInvalidValue);
  EXPECT_EQ(ToHipError(FromParam2D(nullptr).status()), hipErrorInvalidValue);
  p.dstMemoryType = hipMemoryTypeUnified;
  p.srcY = SIZE_MAX / 2;
  EXPECT_EQ(ToHipError(FromParam2D(&p).status()), hipErrorInvalidValue) << "offsets that overflow";
}

TEST(PitchedParams, Memcpy3DSlicesAreYsizeRowsApart) {
  char src[1];
  char dst[1];
  hipMemcpy3DParms p{};
  p.srcPtr = make_hipPitchedPtr(src, 128, 100, 10);
  p.srcPos = make_hipPos(1, 2, 3);
  p.dstPtr = make_hipPitchedPtr(dst, 256, 100, 20);
  p.dstPos = make_hipPos(4, 0, 1);
  p.extent = make_hipExtent(50, 6, 2);
  p.kind = hipMemcpyHostToDevice;
  absl::StatusOr<RectCopy> c = FromMemcpy3DParms(&p);
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->src.ptr, src + 1 + 2 * 128 + 3 * 128 * 10);
  EXPECT_EQ(c->src.slice_pitch, 1280u);
  EXPECT_EQ(c->dst.ptr, dst + 4 + 256 * 20);
  EXPECT_EQ(c->dst.slice_pitch, 256u * 20);
  EXPECT_EQ(c->width, 50u);
  EXPECT_EQ(c->depth, 2u);
  EXPECT_EQ(c->kind, MemcpyKind::kHostToDevice);

  hipMemcpy3DParms array = p;
  array.srcArray = reinterpret_cast<hipArray_t>(0x1000);
  EXPECT_EQ(ToHipError(FromMemcpy3DParms(&array).status()), hipErrorInvalidValue) << "an array and a pointer";
  array.srcPtr.ptr = nullptr;
  EXPECT_EQ(ToHipError(FromMemcpy3DParms(&array).status()), hipErrorNotSupported);
  hipMemcpy3DParms neither = p;
  neither.dstPtr.ptr = nullptr;
  EXPECT_EQ(ToHipError(FromMemcpy3DParms(&neither).status()), hipErrorInvalidValue);
  EXPECT_EQ(ToHipError(FromMemcpy3DParms(nullptr).status()), hipErrorInvalidValue);
}

TEST(PitchedParams, DrvMemcpy3DSlicesAreHeightRowsApart) {
  char src[1];
  char dst[1];
  HIP_MEMCPY3D p{};
  p.srcMemoryType = hipMemoryTypeDevice;
  p.srcDevice = src;
  p.srcXInBytes = 2;
  p.srcY = 1;
  p.srcZ = 1;
  p.srcPitch = 64;
  p.srcHeight = 8;
  p.dstMemoryType = hipMemoryTypeHost;
  p.dstHost = dst;
  p.dstPitch = 32;
  p.dstHeight = 4;
  p.dstZ = 2;
  p.WidthInBytes = 16;
  p.Height = 4;
  p.Depth = 3;
  absl::StatusOr<RectCopy> c = FromDrvMemcpy3D(&p);
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->src.ptr, src + 2 + 64 + 64 * 8);
  EXPECT_EQ(c->src.slice_pitch, 512u);
  EXPECT_EQ(c->dst.ptr, dst + 2 * 32 * 4);
  EXPECT_EQ(c->dst.slice_pitch, 128u);
  EXPECT_EQ(c->depth, 3u);
  p.srcMemoryType = hipMemoryTypeArray;
  EXPECT_EQ(ToHipError(FromDrvMemcpy3D(&p).status()), hipErrorNotSupported);
}

TEST_F(PitchedTest, BadRectanglesGetClrsCodesAndQueueNothing) {
  absl::StatusOr<PitchedAllocation> a = MallocPitch(*rt_, 64, 4, 1);
  ASSERT_THAT(a, IsOk());
  std::vector<uint8_t> host(4096);
  auto copy = [&](size_t dpitch, size_t spitch, size_t width, size_t height, const void* dst, const void* src) {
    return ToHipError(MemcpyRect(*rt_, RectCopy{{dst, dpitch, 0}, {src, spitch, 0}, width, height, 1,
                                                MemcpyKind::kHostToDevice},
                                 kNullStreamHandle, false));
  };
  EXPECT_EQ(copy(256, 64, 64, 4, a->ptr, host.data()), hipSuccess);
  EXPECT_EQ(copy(256, 64, 64, 5, a->ptr, host.data()), hipErrorInvalidValue) << "a fifth row past the allocation";
  EXPECT_EQ(copy(63, 64, 64, 4, a->ptr, host.data()), hipErrorInvalidPitchValue);
  EXPECT_EQ(copy(256, 63, 64, 4, a->ptr, host.data()), hipErrorInvalidPitchValue);
  EXPECT_EQ(copy(256, 64, 64, 4, nullptr, host.data()), hipErrorInvalidValue);
  EXPECT_EQ(copy(256, 64, 64, 4, a->ptr, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(copy(size_t{1} << 40, 64, 64, 1, a->ptr, host.data()), hipErrorInvalidValue) << "above the max pitch";
  EXPECT_EQ(copy(256, 64, 0, 4, a->ptr, host.data()), hipSuccess);
  EXPECT_EQ(copy(256, 64, 64, 0, a->ptr, host.data()), hipSuccess);
  EXPECT_EQ(ToHipError(MemcpyRect(*rt_, RectCopy{{a->ptr, 256, 0}, {host.data(), 64, 0}, 64, 1, 1,
                                                  static_cast<MemcpyKind>(7)},
                                  kNullStreamHandle, false)),
            hipErrorInvalidMemcpyDirection);
  // Two pageable sides with a device kind: nothing the device could reach.
  EXPECT_EQ(copy(64, 64, 64, 4, host.data() + 2048, host.data()), hipErrorInvalidValue);

  auto memset = [&](void* ptr, size_t pitch, size_t ysize, hipExtent extent) {
    return ToHipError(MemsetRect(*rt_, make_hipPitchedPtr(ptr, pitch, 64, ysize), 1, extent, kNullStreamHandle, false));
  };
  EXPECT_EQ(memset(a->ptr, 256, 4, make_hipExtent(64, 4, 1)), hipSuccess);
  EXPECT_EQ(memset(a->ptr, 1, 4, make_hipExtent(64, 4, 1)), hipErrorInvalidValue) << "pitch below the width";
  EXPECT_EQ(memset(a->ptr, 256, 4, make_hipExtent(257, 1, 1)), hipErrorInvalidValue);
  EXPECT_EQ(memset(a->ptr, 256, 4, make_hipExtent(64, 5, 1)), hipErrorInvalidValue) << "past the allocation";
  EXPECT_EQ(memset(a->ptr, 256, 2, make_hipExtent(64, 2, 2)), hipSuccess) << "two slices of two rows fit";
  EXPECT_EQ(memset(a->ptr, 256, 4, make_hipExtent(64, 2, 2)), hipErrorInvalidValue) << "a second slice past it";
  EXPECT_EQ(memset(a->ptr, 256, 1, make_hipExtent(64, 2, 2)), hipErrorInvalidValue) << "more rows than ysize";
  EXPECT_EQ(memset(a->ptr, 256, 4, make_hipExtent(SIZE_MAX, 1, 1)), hipErrorInvalidValue);
  EXPECT_EQ(memset(a->ptr, 256, 4, make_hipExtent(64, SIZE_MAX, 1)), hipErrorInvalidValue);
  EXPECT_EQ(memset(a->ptr, 256, 4, make_hipExtent(64, 1, SIZE_MAX)), hipErrorInvalidValue);
  EXPECT_EQ(memset(host.data(), 256, 4, make_hipExtent(64, 4, 1)), hipErrorInvalidValue) << "pageable memory";
  EXPECT_EQ(memset(nullptr, 256, 4, make_hipExtent(64, 4, 1)), hipErrorInvalidValue);
  EXPECT_EQ(memset(static_cast<char*>(a->ptr) + 256 * 4 + 1, 256, 4, make_hipExtent(0, 0, 0)), hipSuccess)
      << "an empty extent does not look at the pointer";
  EXPECT_THAT(rt_->Free(a->ptr), IsOk());
}

}  // namespace
}  // namespace hipmem::hip
