// Includes <hip/hip_runtime_api.h> first and alone, as a plain host program built without hipcc
// would, and checks what C++ callers rely on: the platform macro, declaration types, and that a
// dropped hipError_t is diagnosed as upstream does from C++17 on.
#include <cstddef>
#include <type_traits>

#include "gtest/gtest.h"
#include "hip/hip_runtime_api.h"

#if !defined(__HIP_PLATFORM_AMD__)
#error "hip_runtime_api.h selects the AMD platform"
#endif

namespace {

// hipMalloc is overloaded in C++ (the typed-pointer template), as upstream: select the C entry.
using CMalloc = hipError_t (*)(void**, size_t);
static_assert(std::is_same_v<decltype(static_cast<CMalloc>(&hipMalloc)), CMalloc>);
static_assert(std::is_same_v<decltype(&hipMemcpy),
                             hipError_t (*)(void*, const void*, size_t, hipMemcpyKind)>);
static_assert(std::is_same_v<decltype(&hipPointerGetAttributes),
                             hipError_t (*)(hipPointerAttribute_t*, const void*)>);
static_assert(std::is_same_v<decltype(&hipGetErrorName), const char* (*)(hipError_t)>);
static_assert(std::is_same_v<decltype(&hipGetLastError), hipError_t (*)()>);
static_assert(std::is_same_v<hipStream_t, ihipStream_t*>);
static_assert(sizeof(hipPointerAttribute_t) == 32);
static_assert(hipErrorInvalidMemcpyDirection == 21);
static_assert(hipErrorInvalidClusterSize == 1054);
static_assert(hipErrorTbd == 1055);

// Stands in for a runtime call; what matters is the return type.
hipError_t Fake() { return hipSuccess; }

TEST(HipHeadersTest, HipErrorIsNodiscardLikeUpstream) {
  // [[nodiscard]] on the enum makes every function returning it nodiscard; the cast to void is
  // the documented way to drop one, and must compile cleanly under -Werror.
  static_cast<void>(Fake());
  EXPECT_EQ(Fake(), hipSuccess);
}

TEST(HipHeadersTest, PointerAttributesZeroInitialise) {
  hipPointerAttribute_t attributes{};
  EXPECT_EQ(attributes.type, hipMemoryTypeUnregistered);
  attributes.device = hipInvalidDeviceId;
  EXPECT_EQ(attributes.device, -2);
}

}  // namespace
