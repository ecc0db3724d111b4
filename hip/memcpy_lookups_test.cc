// How many times one hipMemcpy looks its pointers up (issue #26: "a hipMemcpy looks each pointer up once"), and how
// many locks it takes.
//
// Every layer's address query counts one lookup on the calling thread (base/lookup_count.h): CLR's object map, the
// HSA runtime's allocation map, the thunk's pointer queries. A hipMemcpy runs its lookups on the calling thread, so
// the count around one call is that call's. Each case first copies once untimed, so queues and staging made on
// first use are not counted, then makes identical copies, each from an idle device, and checks the bytes that landed.
//
// The goal, reached on every path here: 2, one per pointer. A change that adds a lookup fails here. The counts are
// also reported as test properties ("lookups"). Before hip resolved each pointer once and handed the result down:
// 8 for device to device, 6 for pinned to pinned, 10 for the rest; then 6 on the SDMA paths, whose HSA runtime looked
// each side up again (Copies::Submit's bounds check, GpuAccess::Acquire in the thunk). Now clr hands hsa the resolved
// sides (hsa::ResolvedCopyRequest), and only a side the copying GPU does not map yet (pageable memory ROCr pins,
// another GPU's VRAM) is looked up below clr.
//
// Locks (base/lock_count.h) are counted the same way. Measured when the count was added (fastbuild, locks_min-max
// over 8 copies): device to device 10-17, pinned <-> device 12 (14 before Copies' profiling flag became an atomic,
// read twice per copy), staged 21-27, 8 MiB through pinned chunks 32, pinned to pinned 4.
//
// Fills and rectangles (hipMemset*, hipMemcpy2D, hipMemset2D) are counted below the copies, the same way.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/lock_count.h"
#include "base/lookup_count.h"
#include "gtest/gtest.h"

namespace {

enum class Side { kDevice, kPinned, kPageable };

struct Case {
  const char* name;
  Side dst;
  Side src;
  size_t bytes;
  // The most locks one copy of this path may take (base/lock_count.h: every lock guard, on the calling thread,
  // outside waits for the GPU). Each copy starts from an idle device, yet a few releases and refills fall to
  // whichever copy finds them due (a finished operation the copy engine's watcher has not retired yet, a signal
  // pool that runs dry): the bound is the path's usual count plus that slack, and it holds the quietest of the
  // copies. The test reports what the copies took ("locks_min", "locks_max"). A change that adds locks to the path
  // fails here.
  uint64_t max_locks;
};

// One lookup per pointer, in HIP/CLR's object map; none below.
constexpr uint64_t kLookupsPerCopy = 2;
constexpr int kRounds = 8;

// Memory of each kind for one test, freed at its end.
class Memory {
 public:
  ~Memory() {
    for (void* d : device_) EXPECT_EQ(hipFree(d), hipSuccess);
    for (void* h : pinned_) EXPECT_EQ(hipHostFree(h), hipSuccess);
  }

  void* Make(Side side, size_t bytes) {
    void* p = nullptr;
    switch (side) {
      case Side::kDevice:
        EXPECT_EQ(hipMalloc(&p, bytes), hipSuccess);
        device_.push_back(p);
        break;
      case Side::kPinned:
        EXPECT_EQ(hipHostMalloc(&p, bytes, hipHostMallocDefault), hipSuccess);
        pinned_.push_back(p);
        break;
      case Side::kPageable:
        pageable_.emplace_back(bytes);
        p = pageable_.back().data();
        break;
    }
    return p;
  }

 private:
  std::vector<void*> device_;
  std::vector<void*> pinned_;
  std::vector<std::vector<uint8_t>> pageable_;
};

// Makes `call` kRounds times, each from an idle device, and checks that each looked up `expected` addresses. The
// caller makes it once before, so that what first use creates is not counted. Reports the count ("lookups").
template <typename Call>
void ExpectLookupsPerCall(uint64_t expected, const std::string& what, Call call) {
  for (int round = 0; round < kRounds; ++round) {
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    const uint64_t before = hipmem::AddressLookupsOnThisThread();
    ASSERT_EQ(call(round), hipSuccess);
    const uint64_t lookups = hipmem::AddressLookupsOnThisThread() - before;
    EXPECT_EQ(lookups, expected) << what;
    if (round == 0) ::testing::Test::RecordProperty("lookups", static_cast<int>(lookups));
  }
}

class MemcpyLookupsTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override { ASSERT_EQ(hipSetDevice(0), hipSuccess); }
  void* Make(Side side, size_t bytes) { return memory_.Make(side, bytes); }

  Memory memory_;
};

TEST_P(MemcpyLookupsTest, LooksEachPointerUpOnceAndTakesBoundedLocks) {
  const Case& c = GetParam();
  void* dst = Make(c.dst, c.bytes);
  void* src = Make(c.src, c.bytes);
  ASSERT_NE(dst, nullptr);
  ASSERT_NE(src, nullptr);
  // The source's bytes, written where the host reaches them (through a staging copy for device memory).
  std::vector<uint8_t> pattern(c.bytes);
  for (size_t i = 0; i < c.bytes; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
  ASSERT_EQ(hipMemcpy(src, pattern.data(), c.bytes, hipMemcpyDefault), hipSuccess);
  ASSERT_EQ(hipMemcpy(dst, src, c.bytes, hipMemcpyDefault), hipSuccess);  // first use: queues, staging

  // Several identical copies: the lookups are the same every time, the locks may differ by the wait rounds.
  uint64_t locks_min = UINT64_MAX;
  uint64_t locks_max = 0;
  for (int round = 0; round < kRounds; ++round) {
    // From an idle device, so that each copy finds the same state (no earlier copy left to retire on the way).
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    const uint64_t lookups_before = hipmem::AddressLookupsOnThisThread();
    const uint64_t locks_before = hipmem::LockAcquisitionsOnThisThread();
    ASSERT_EQ(hipMemcpy(dst, src, c.bytes, hipMemcpyDefault), hipSuccess);
    const uint64_t locks = hipmem::LockAcquisitionsOnThisThread() - locks_before;
    const uint64_t lookups = hipmem::AddressLookupsOnThisThread() - lookups_before;
    EXPECT_EQ(lookups, kLookupsPerCopy) << c.name << ": each pointer is looked up once, at the top";
    if (round == 0) RecordProperty("lookups", static_cast<int>(lookups));
    locks_min = std::min(locks_min, locks);
    locks_max = std::max(locks_max, locks);
  }
  RecordProperty("locks_min", static_cast<int>(locks_min));
  RecordProperty("locks_max", static_cast<int>(locks_max));
  EXPECT_GE(locks_min, 1u) << "every path takes at least the stream's lock";
  // The quietest of the copies is judged: how many of the others meet a due release depends on when the engines'
  // threads run, which a test may not depend on. A change that adds locks to the path adds them to every copy.
  EXPECT_LE(locks_min, c.max_locks) << c.name << ": locks per hipMemcpy went up";

  std::vector<uint8_t> landed(c.bytes);
  ASSERT_EQ(hipMemcpy(landed.data(), dst, c.bytes, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(std::memcmp(landed.data(), pattern.data(), c.bytes), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Paths, MemcpyLookupsTest,
    ::testing::Values(Case{"DeviceToDevice", Side::kDevice, Side::kDevice, 64 << 10, 20},  // the blit kernel
                      Case{"PinnedToDevice", Side::kDevice, Side::kPinned, 64 << 10, 16},  // SDMA
                      Case{"DeviceToPinned", Side::kPinned, Side::kDevice, 64 << 10, 16},
                      Case{"PageableToDevice", Side::kDevice, Side::kPageable, 64 << 10, 30},  // staged
                      Case{"DeviceToPageable", Side::kPageable, Side::kDevice, 64 << 10, 30},
                      Case{"LargePageableToDevice", Side::kDevice, Side::kPageable, 8 << 20, 36},  // pinned chunks
                      Case{"PinnedToPinned", Side::kPinned, Side::kPinned, 64 << 10, 6}),  // the host's memcpy
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });


// Fills: the destination is looked up once, at the top (hip's Runtime::Memset), and the blit manager fills the
// object it was handed. Before: 2, the second in BlitManager::Fill.
struct FillCase {
  const char* name;
  Side dst;
  uint32_t element_size;  // 1: hipMemset / hipMemsetAsync; 4: hipMemsetD32
  bool async;
};

constexpr uint64_t kLookupsPerFill = 1;
constexpr size_t kFillBytes = 64 << 10;

class FillLookupsTest : public ::testing::TestWithParam<FillCase> {
 protected:
  void SetUp() override { ASSERT_EQ(hipSetDevice(0), hipSuccess); }

  hipError_t Fill(void* dst, uint8_t value) {
    const FillCase& c = GetParam();
    if (c.element_size == 4) {
      const int word = value * 0x01010101;
      return c.async ? hipMemsetD32Async(dst, word, kFillBytes / 4, nullptr) : hipMemsetD32(dst, word, kFillBytes / 4);
    }
    return c.async ? hipMemsetAsync(dst, value, kFillBytes, nullptr) : hipMemset(dst, value, kFillBytes);
  }

  Memory memory_;
};

TEST_P(FillLookupsTest, LooksTheDestinationUpOnce) {
  const FillCase& c = GetParam();
  void* dst = memory_.Make(c.dst, kFillBytes);
  ASSERT_NE(dst, nullptr);
  ASSERT_EQ(Fill(dst, 0x11), hipSuccess);  // first use: the fill kernel's queue
  ExpectLookupsPerCall(kLookupsPerFill, std::string(c.name) + ": the destination is looked up once, at the top",
                       [&](int round) { return Fill(dst, static_cast<uint8_t>(0x20 + round)); });
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  std::vector<uint8_t> landed(kFillBytes);
  ASSERT_EQ(hipMemcpy(landed.data(), dst, kFillBytes, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(std::count(landed.begin(), landed.end(), static_cast<uint8_t>(0x20 + kRounds - 1)),
            static_cast<ptrdiff_t>(kFillBytes));
}

INSTANTIATE_TEST_SUITE_P(
    Fills, FillLookupsTest,
    ::testing::Values(FillCase{"MemsetDevice", Side::kDevice, 1, false},
                      FillCase{"MemsetAsyncDevice", Side::kDevice, 1, true},
                      FillCase{"MemsetD32Device", Side::kDevice, 4, false},
                      FillCase{"MemsetPinned", Side::kPinned, 1, false}),
    [](const ::testing::TestParamInfo<FillCase>& info) { return std::string(info.param.name); });

// Rectangles (hipMemcpy2D, hipMemset2D): each side is looked up once, at the top (hip/pitched.cc), and the blit
// manager's CopyRect / FillRect take the resolved sides. Rows narrower than the pitch, so the rectangle is not
// one linear copy. Before: hip looked each side up three or four times (whether HIP knows it, whether it needs
// peer staging, which device runs it) and clr once more: 11 or 12 lookups per hipMemcpy2D, 6 per hipMemset2D.
constexpr size_t kPitch = 256;
constexpr size_t kWidth = 200;
constexpr size_t kHeight = 64;
constexpr size_t kRectBytes = kPitch * kHeight;

// What the SDMA sub-window copy (hsa_amd_memory_async_copy_rect's engine path, which every rectangle here becomes)
// looks up below clr: nothing. Clr hands ROCr the sides it resolved (hsa::ResolvedCopyRectRequest), so
// Copies::CopyRectResolved neither bounds them again (FindPointer) nor asks the thunk where the GPU reaches them
// (GpuAccess::Acquire): device memory is mapped on its own GPU, and pinned memory and the staging ring on every
// GPU (hipMemset2D's staged rows of the value included). Before: 4, each side of the box looked up twice, once for
// each.
constexpr uint64_t kSdmaBoxLookups = 0;

// The rectangle's memory, read back, after checking that the gap after each row (zeroed before) is not the
// rectangle's.
std::vector<uint8_t> ReadRectBack(const void* dst) {
  std::vector<uint8_t> landed(kRectBytes);
  EXPECT_EQ(hipMemcpy(landed.data(), dst, kRectBytes, hipMemcpyDefault), hipSuccess);
  for (size_t row = 0; row < kHeight; ++row) {
    SCOPED_TRACE(row);
    const size_t gap = row * kPitch + kWidth;
    EXPECT_EQ(std::count(landed.begin() + gap, landed.begin() + gap + (kPitch - kWidth), 0),
              static_cast<ptrdiff_t>(kPitch - kWidth));
  }
  return landed;
}

struct RectCase {
  const char* name;
  Side dst;
  Side src;
};

class Memcpy2DLookupsTest : public ::testing::TestWithParam<RectCase> {
 protected:
  void SetUp() override { ASSERT_EQ(hipSetDevice(0), hipSuccess); }
  Memory memory_;
};

TEST_P(Memcpy2DLookupsTest, LooksEachPointerUpOnce) {
  const RectCase& c = GetParam();
  void* dst = memory_.Make(c.dst, kRectBytes);
  void* src = memory_.Make(c.src, kRectBytes);
  ASSERT_NE(dst, nullptr);
  ASSERT_NE(src, nullptr);
  std::vector<uint8_t> pattern(kRectBytes);
  for (size_t i = 0; i < kRectBytes; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
  ASSERT_EQ(hipMemcpy(src, pattern.data(), kRectBytes, hipMemcpyDefault), hipSuccess);
  const std::vector<uint8_t> zeros(kRectBytes, 0);
  ASSERT_EQ(hipMemcpy(dst, zeros.data(), kRectBytes, hipMemcpyDefault), hipSuccess);
  ASSERT_EQ(hipMemcpy2D(dst, kPitch, src, kPitch, kWidth, kHeight, hipMemcpyDefault), hipSuccess);  // first use
  ExpectLookupsPerCall(kLookupsPerCopy + kSdmaBoxLookups,
                       std::string(c.name) + ": each pointer is looked up once, at the top", [&](int) {
                         return hipMemcpy2D(dst, kPitch, src, kPitch, kWidth, kHeight, hipMemcpyDefault);
                       });
  const std::vector<uint8_t> landed = ReadRectBack(dst);
  for (size_t row = 0; row < kHeight; ++row) {
    SCOPED_TRACE(row);
    EXPECT_EQ(std::memcmp(landed.data() + row * kPitch, pattern.data() + row * kPitch, kWidth), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rects, Memcpy2DLookupsTest,
    ::testing::Values(RectCase{"PinnedToDevice", Side::kDevice, Side::kPinned},
                      RectCase{"DeviceToPinned", Side::kPinned, Side::kDevice},
                      RectCase{"PageableToDevice", Side::kDevice, Side::kPageable},  // rows packed in the ring
                      RectCase{"DeviceToPageable", Side::kPageable, Side::kDevice},
                      RectCase{"DeviceToDevice", Side::kDevice, Side::kDevice}),
    [](const ::testing::TestParamInfo<RectCase>& info) { return std::string(info.param.name); });

class Memset2DLookupsTest : public ::testing::TestWithParam<Side> {
 protected:
  void SetUp() override { ASSERT_EQ(hipSetDevice(0), hipSuccess); }
  Memory memory_;
};

TEST_P(Memset2DLookupsTest, LooksTheDestinationUpOnce) {
  void* dst = memory_.Make(GetParam(), kRectBytes);
  ASSERT_NE(dst, nullptr);
  const std::vector<uint8_t> zeros(kRectBytes, 0);
  ASSERT_EQ(hipMemcpy(dst, zeros.data(), kRectBytes, hipMemcpyDefault), hipSuccess);
  ASSERT_EQ(hipMemset2D(dst, kPitch, 0x11, kWidth, kHeight), hipSuccess);  // first use
  // The rows of the value are staged once and copied into the rectangle as one SDMA box.
  ExpectLookupsPerCall(kLookupsPerFill + kSdmaBoxLookups, "the destination is looked up once, at the top",
                       [&](int) { return hipMemset2D(dst, kPitch, 0x5a, kWidth, kHeight); });
  const std::vector<uint8_t> landed = ReadRectBack(dst);
  for (size_t row = 0; row < kHeight; ++row) {
    SCOPED_TRACE(row);
    EXPECT_EQ(std::count(landed.begin() + row * kPitch, landed.begin() + row * kPitch + kWidth, 0x5a),
              static_cast<ptrdiff_t>(kWidth));
  }
}

INSTANTIATE_TEST_SUITE_P(Rects, Memset2DLookupsTest, ::testing::Values(Side::kDevice, Side::kPinned),
                         [](const ::testing::TestParamInfo<Side>& info) {
                           return std::string(info.param == Side::kDevice ? "Device" : "Pinned");
                         });

}  // namespace
