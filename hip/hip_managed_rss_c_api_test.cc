// Issue #24 §3: managed memory is reserved at hipMallocManaged and committed where it is touched, as with HMM, so
// a large allocation costs the host only what is used of it; a size no host memory could back is refused with
// hipErrorOutOfMemory instead of exhausting the machine when it is touched.
//
// The resident set is read from /proc/self/statm. The margins are wide on purpose: what the assertions tell
// apart is 1 GiB committed against a few MiB of the runtime's own bookkeeping, never a near call.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kGiB = size_t{1} << 30;
constexpr size_t kMargin = 256 * kMiB;  // far above the runtime's own growth, far below a committed GiB

size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages_total = 0;
  size_t pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

class HipManagedRssTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The runtime's first use (devices, queues, the managed-memory worker) before anything is measured.
    void* warm = nullptr;
    ASSERT_EQ(hipMallocManaged(&warm, 4096, hipMemAttachGlobal), hipSuccess);
    ASSERT_EQ(hipMemset(warm, 0, 4096), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    ASSERT_EQ(hipFree(warm), hipSuccess);
  }
};

TEST_F(HipManagedRssTest, AGibibyteAllocationIsCommittedOnlyWhereTouched) {
  const size_t before = ResidentBytes();
  void* p = nullptr;
  ASSERT_EQ(hipMallocManaged(&p, kGiB, hipMemAttachGlobal), hipSuccess);
  EXPECT_LT(ResidentBytes(), before + kMargin) << "hipMallocManaged committed the allocation";

  // The CPU and the GPU each touch a part; the data is there, and only about those parts became resident.
  auto* bytes = static_cast<uint8_t*>(p);
  std::memset(bytes, 0x5a, 16 * kMiB);
  ASSERT_EQ(hipMemset(bytes + kGiB / 2, 0x33, 16 * kMiB), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(bytes[0], 0x5a);
  EXPECT_EQ(bytes[16 * kMiB - 1], 0x5a);
  EXPECT_EQ(bytes[kGiB / 2], 0x33);
  EXPECT_EQ(bytes[kGiB / 2 + 16 * kMiB - 1], 0x33);
  EXPECT_EQ(bytes[kGiB - 1], 0) << "untouched managed memory reads as zeroes";
  EXPECT_LT(ResidentBytes(), before + 32 * kMiB + kMargin);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HipManagedRssTest, ASizeNoHostMemoryCouldBackIsOutOfMemory) {
  const size_t before = ResidentBytes();
  void* p = reinterpret_cast<void*>(0x1234);
  EXPECT_EQ(hipMallocManaged(&p, size_t{1} << 46, hipMemAttachGlobal), hipErrorOutOfMemory);
  EXPECT_LT(ResidentBytes(), before + kMargin);
  // The error is not sticky: a reasonable allocation works next.
  void* q = nullptr;
  ASSERT_EQ(hipMallocManaged(&q, 4 * kMiB, hipMemAttachGlobal), hipSuccess);
  ASSERT_EQ(hipMemset(q, 0x7e, 4 * kMiB), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(static_cast<uint8_t*>(q)[4 * kMiB - 1], 0x7e);
  EXPECT_EQ(hipFree(q), hipSuccess);
}

}  // namespace
