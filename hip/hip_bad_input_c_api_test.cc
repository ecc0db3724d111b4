// Bad input through the HIP C API, one row per case, each asserting the code current upstream answers (issue #24
// §5). The comment on a row names the upstream function (ROCm/clr, now ROCm/rocm-systems projects/clr,
// hipamd/src) or the hip-tests case that decides it.
#include <cstddef>
#include <cstdint>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

// What the rows work on: made once per test, released at its end.
struct Env {
  hipStream_t live = nullptr;
  hipStream_t dead = nullptr;  // created, then destroyed
  hipEvent_t event = nullptr;
  hipEvent_t dead_event = nullptr;  // created, then destroyed
  void* device = nullptr;
};

struct Row {
  const char* name;
  hipError_t (*call)(const Env&);
  hipError_t expected;
};

constexpr Row kRows[] = {
    // hip-tests Unit_hipStreamDestroy_Negative_DoubleDestroy: a destroyed stream is not destroyed again.
    {"hipStreamDestroy(destroyed)", [](const Env& e) { return hipStreamDestroy(e.dead); },
     hipErrorContextIsDestroyed},
    // hip_stream.cpp hipStreamDestroy: the null stream is refused before anything else.
    {"hipStreamDestroy(nullptr)", [](const Env&) { return hipStreamDestroy(nullptr); }, hipErrorInvalidHandle},
    // hip_stream.cpp hipStreamGetDevice: !hip::isValid(stream) answers hipErrorContextIsDestroyed.
    {"hipStreamGetDevice(destroyed)",
     [](const Env& e) {
       hipDevice_t device = -1;
       return hipStreamGetDevice(e.dead, &device);
     },
     hipErrorContextIsDestroyed},
    // hip_stream.cpp hipStreamGetFlags_common / hipStreamGetId_common: !hip::isValid(stream) answers
    // hipErrorInvalidResourceHandle (400), the code every other stream argument check of CLR gives.
    {"hipStreamGetFlags(destroyed)",
     [](const Env& e) {
       unsigned int flags = 0;
       return hipStreamGetFlags(e.dead, &flags);
     },
     hipErrorInvalidHandle},
    {"hipMallocAsync(destroyed stream)",
     [](const Env& e) {
       void* p = nullptr;
       return hipMallocAsync(&p, 1024, e.dead);
     },
     hipErrorInvalidHandle},
    {"hipFreeAsync(destroyed stream)", [](const Env& e) { return hipFreeAsync(e.device, e.dead); },
     hipErrorInvalidHandle},
    {"hipStreamWaitEvent(destroyed stream)", [](const Env& e) { return hipStreamWaitEvent(e.dead, e.event, 0); },
     hipErrorInvalidHandle},
    // hip_mempool.cpp hipFreeAsync: a null pointer is freed successfully once the stream checks pass.
    {"hipFreeAsync(nullptr)", [](const Env& e) { return hipFreeAsync(nullptr, e.live); }, hipSuccess},
    // hip_memory.cpp hipPointerGetAttributes: attributes == nullptr || ptr == nullptr answers InvalidValue.
    {"hipPointerGetAttributes(&a, nullptr)",
     [](const Env&) {
       hipPointerAttribute_t a{};
       return hipPointerGetAttributes(&a, nullptr);
     },
     hipErrorInvalidValue},
    {"hipPointerGetAttributes(nullptr, p)", [](const Env& e) { return hipPointerGetAttributes(nullptr, e.device); },
     hipErrorInvalidValue},
    // hip_hmm.cpp ihipMallocManaged: a size no device can hold fails the SVM allocation, hipErrorMemoryAllocation.
    {"hipMallocManaged(SIZE_MAX)",
     [](const Env&) {
       void* p = nullptr;
       return hipMallocManaged(&p, SIZE_MAX, hipMemAttachGlobal);
     },
     hipErrorMemoryAllocation},
    // hip_event.cpp hipEventDestroy: an event no longer in the live set answers hipErrorContextIsDestroyed.
    {"hipEventDestroy(destroyed)", [](const Env& e) { return hipEventDestroy(e.dead_event); },
     hipErrorContextIsDestroyed},
    // hip_event.cpp hipEventDestroy: a null event is an invalid handle.
    {"hipEventDestroy(nullptr)", [](const Env&) { return hipEventDestroy(nullptr); }, hipErrorInvalidHandle},
};

TEST(HipBadInput, EachCaseAnswersUpstreamsCode) {
  Env env;
  ASSERT_EQ(hipStreamCreate(&env.live), hipSuccess);
  ASSERT_EQ(hipStreamCreate(&env.dead), hipSuccess);
  ASSERT_EQ(hipStreamDestroy(env.dead), hipSuccess);
  ASSERT_EQ(hipEventCreate(&env.event), hipSuccess);
  ASSERT_EQ(hipEventRecord(env.event, env.live), hipSuccess);
  ASSERT_EQ(hipEventCreate(&env.dead_event), hipSuccess);
  ASSERT_EQ(hipEventDestroy(env.dead_event), hipSuccess);
  ASSERT_EQ(hipMalloc(&env.device, 4096), hipSuccess);
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(row.call(env), row.expected) << hipGetErrorName(row.expected);
    // Nothing a bad call did may break the next good one.
    EXPECT_EQ(hipStreamSynchronize(env.live), hipSuccess);
  }
  EXPECT_EQ(hipFree(env.device), hipSuccess);
  EXPECT_EQ(hipEventDestroy(env.event), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(env.live), hipSuccess);
}

}  // namespace
