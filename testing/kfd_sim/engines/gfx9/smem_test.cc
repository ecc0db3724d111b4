// SMEM instructions, each encoded by llvm-mc-19 (testdata/smem.s; the same bytes on every target, which
// sop_test.cc checks), on one wave over host memory that the harness's
// identity page table maps (GPU VA == host address).
#include <cstdint>
#include <atomic>
#include <cstring>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/smem_encodings_gfx90a.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::smem_encodings_gfx90a;

constexpr uint64_t kUnmapped = 0x1000;  // the identity page table maps only what a test maps
constexpr uint32_t kUntouched = 0xdddddddd;

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

// 64 dwords, dword k holding 0x1000 + k, mapped for the wave.
struct Memory {
  explicit Memory(IsaHarness& h) : words(64) {
    for (uint32_t k = 0; k < words.size(); ++k) words[k] = 0x1000 + k;
    h.memory().Map(words.data(), words.size() * 4);
  }
  std::vector<uint32_t> words;
};

// A buffer resource over `words` in s[8:11]: NUM_RECORDS bytes, and a stride in word1[29:16] that scalar accesses
// ignore.
void SetBuffer(IsaHarness& h, const void* base, uint32_t records) {
  h.wave().s[8] = static_cast<uint32_t>(Va(base));
  h.wave().s[9] = static_cast<uint32_t>(Va(base) >> 32) | (16u << 16);
  h.wave().s[10] = records;
  h.wave().s[11] = 0;
}

TEST(SmemTest, LoadsReadFromBasePlusOffset) {
  struct Row {
    const char* line;
    uint32_t base_bytes;  // s[2:3] = the memory + this
    uint32_t s8;
    uint32_t m0;
    uint16_t dst;
    uint32_t first;  // the first dword read
    uint32_t count;
  };
  constexpr Row kRows[] = {
      {"s_load_dword s4, s[2:3], 0x10", 0, 0, 0, 4, 4, 1},
      {"s_load_dwordx2 s[4:5], s[2:3], 0x8", 0, 0, 0, 4, 2, 2},
      {"s_load_dwordx4 s[4:7], s[2:3], 0x10", 0, 0, 0, 4, 4, 4},
      {"s_load_dwordx8 s[12:19], s[2:3], 0x20", 0, 0, 0, 12, 8, 8},
      {"s_load_dwordx16 s[12:27], s[2:3], 0x0", 0, 0, 0, 12, 0, 16},
      {"s_load_dword s4, s[2:3], s8", 0, 12, 0, 4, 3, 1},               // SGPR offset
      {"s_load_dword s4, s[2:3], s8 offset:0x10", 0, 12, 0, 4, 7, 1},   // SGPR + immediate (SOE)
      {"s_load_dword s4, s[2:3], m0", 0, 0, 20, 4, 5, 1},
      {"s_load_dword s4, s[2:3], -0x8", 16, 0, 0, 4, 2, 1},             // a negative immediate
      {"s_load_dword s4, s[2:3], 0x10", 2, 0, 0, 4, 4, 1},              // the address's low bits are ignored
      {"s_load_dwordx2 s[4:5], s[2:3], 0x8 glc", 0, 0, 0, 4, 2, 2},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    Memory m(h);
    h.wave().Write64(2, Va(m.words.data()) + row.base_bytes);
    h.wave().s[8] = row.s8;
    h.wave().s[op::kM0] = row.m0;
    h.wave().s[row.dst + row.count] = kUntouched;
    ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {row.line}).ok());
    for (uint32_t k = 0; k < row.count; ++k) EXPECT_EQ(h.wave().s[row.dst + k], 0x1000 + row.first + k) << k;
    EXPECT_EQ(h.wave().s[row.dst + row.count], kUntouched);
  }
}

TEST(SmemTest, LoadFromAnUnmappedAddressFaultsAndWritesNothing) {
  IsaHarness h(Target::kGfx90a);
  h.wave().Write64(2, kUnmapped);
  h.wave().s[4] = kUntouched;
  const absl::Status status = h.Run(smem_encodings_gfx90a, {"s_load_dword s4, s[2:3], 0x10"});
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_NE(status.message().find(absl::StrCat("0x", absl::Hex(kUnmapped + 0x10))), std::string::npos) << status;
  EXPECT_EQ(h.wave().s[4], kUntouched);
}

TEST(SmemTest, LoadRunningOffTheMappingFaultsAtItsEnd) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> words(64, 7);
  h.memory().Map(words.data(), 16);  // the rest of the vector keeps any other mapping from following on
  h.wave().Write64(2, Va(words.data()));
  for (int k = 4; k < 12; ++k) h.wave().s[k] = kUntouched;
  const absl::Status status = h.Run(smem_encodings_gfx90a, {"s_load_dwordx8 s[4:11], s[2:3], 0x0"});
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_NE(status.message().find(absl::StrCat("0x", absl::Hex(Va(words.data()) + 16))), std::string::npos);
  for (int k = 4; k < 12; ++k) EXPECT_EQ(h.wave().s[k], kUntouched) << k;
}

TEST(SmemTest, StoresWriteToBasePlusOffset) {
  struct Row {
    const char* line;
    uint32_t s8;
    uint32_t first;  // the first dword written
    uint32_t count;
  };
  constexpr Row kRows[] = {
      {"s_store_dword s4, s[2:3], 0x10", 0, 4, 1},
      {"s_store_dword s4, s[2:3], 0x0 glc", 0, 0, 1},
      {"s_store_dwordx2 s[4:5], s[2:3], 0x8", 0, 2, 2},
      {"s_store_dwordx4 s[4:7], s[2:3], s8", 40, 10, 4},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    Memory m(h);
    const std::vector<uint32_t> before = m.words;
    h.wave().Write64(2, Va(m.words.data()));
    h.wave().s[8] = row.s8;
    for (uint32_t k = 0; k < 4; ++k) h.wave().s[4 + k] = 0xa0 + k;
    ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {row.line}).ok());
    for (uint32_t k = 0; k < m.words.size(); ++k) {
      const bool written = k >= row.first && k < row.first + row.count;
      EXPECT_EQ(m.words[k], written ? 0xa0 + (k - row.first) : before[k]) << k;
    }
  }
}

TEST(SmemTest, StoreToAnUnmappedAddressFaults) {
  IsaHarness h(Target::kGfx90a);
  h.wave().Write64(2, kUnmapped);
  const absl::Status status = h.Run(smem_encodings_gfx90a, {"s_store_dwordx2 s[4:5], s[2:3], 0x8"});
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_NE(status.message().find(absl::StrCat("0x", absl::Hex(kUnmapped + 8))), std::string::npos) << status;
}

TEST(SmemTest, BufferLoadsAndStoresStayInsideNumRecords) {
  struct Row {
    const char* line;
    uint32_t records;
    uint32_t s12;
    uint32_t first;  // the first dword accessed
    uint32_t count;  // dwords the instruction names
    uint32_t in_range;
    bool store;
  };
  constexpr Row kRows[] = {
      {"s_buffer_load_dword s4, s[8:11], s12", 64, 8, 2, 1, 1, false},
      {"s_buffer_load_dwordx2 s[4:5], s[8:11], 0x0", 0, 0, 0, 2, 0, false},
      {"s_buffer_load_dwordx4 s[4:7], s[8:11], 0x10", 24, 0, 4, 4, 2, false},  // the last two past the end
      {"s_buffer_load_dwordx8 s[12:19], s[8:11], 0x20", 256, 0, 8, 8, 8, false},
      {"s_buffer_load_dwordx16 s[12:27], s[8:11], 0x40", 256, 0, 16, 16, 16, false},
      {"s_buffer_store_dword s4, s[8:11], s12", 64, 8, 2, 1, 1, true},
      {"s_buffer_store_dwordx2 s[4:5], s[8:11], 0x8", 12, 0, 2, 2, 1, true},
      {"s_buffer_store_dwordx4 s[4:7], s[8:11], 0x10 glc", 24, 0, 4, 4, 2, true},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    Memory m(h);
    const std::vector<uint32_t> before = m.words;
    SetBuffer(h, m.words.data(), row.records);
    const uint16_t data = row.count > 4 ? 12 : 4;
    for (uint32_t k = 0; k < row.count; ++k) h.wave().s[data + k] = row.store ? 0xa0 + k : kUntouched;
    if (row.s12 != 0) h.wave().s[12] = row.s12;
    ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {row.line}).ok());
    if (row.store) {
      for (uint32_t k = 0; k < m.words.size(); ++k) {
        const bool written = k >= row.first && k < row.first + row.in_range;
        EXPECT_EQ(m.words[k], written ? 0xa0 + (k - row.first) : before[k]) << k;
      }
    } else {
      for (uint32_t k = 0; k < row.count; ++k) {
        EXPECT_EQ(h.wave().s[data + k], k < row.in_range ? 0x1000 + row.first + k : 0u) << k;
      }
    }
  }
}

// Wave-relative scratch byte A is lane (A / 4) % 64's private byte (A / 256) * 4 + A % 4 (the hardware's dword
// swizzle), and the address is FLAT_SCRATCH + offset whatever sbase says.
TEST(SmemTest, ScratchAccessesSeeTheLanesSwizzledPrivateMemory) {
  IsaHarness h(Target::kGfx90a, /*private_bytes=*/256);
  auto lane_word = [&](int lane, int byte) {
    uint32_t v;
    v = h.scratch_word(lane, byte);
    return v;
  };
  auto set_lane_word = [&](int lane, int byte, uint32_t v) { h.set_scratch_word(lane, byte, v); };
  h.wave().Write64(0, 0xdead0000dead0000ull);  // sbase: ignored
  h.wave().s[4] = 0x11;
  h.wave().s[5] = 0x22;
  ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {"s_scratch_store_dword s4, s[0:1], 0x104"}).ok());
  EXPECT_EQ(lane_word(1, 4), 0x11u);
  ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {"s_scratch_store_dwordx2 s[4:5], s[0:1], 0x1fc"}).ok());
  EXPECT_EQ(lane_word(63, 4), 0x11u);  // dword 127
  EXPECT_EQ(lane_word(0, 8), 0x22u);   // dword 128 wraps to lane 0

  for (int lane = 0; lane < 4; ++lane) set_lane_word(lane, 12, 0x300u + lane);
  set_lane_word(5, 8, 0x55);
  ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {"s_scratch_load_dwordx4 s[4:7], s[0:1], 0x300",
                                            "s_scratch_load_dword s8, s[0:1], 0x214"})
                  .ok());
  for (int k = 0; k < 4; ++k) EXPECT_EQ(h.wave().s[4 + k], 0x300u + k) << k;
  EXPECT_EQ(h.wave().s[8], 0x55u);

  // FLAT_SCRATCH moves the window; past the private segment reads 0 and writes nothing.
  h.wave().Write64(op::kFlatScratchLo, h.scratch_base() + 256);
  h.wave().s[9] = kUntouched;
  ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {"s_scratch_load_dwordx2 s[8:9], s[0:1], 0x4"}).ok());
  EXPECT_EQ(h.wave().s[8], 0x11u);  // 260: lane 1, byte 4
  EXPECT_EQ(h.wave().s[9], lane_word(2, 4));
  h.wave().Write64(op::kFlatScratchLo, h.scratch_base());
  h.wave().s[8] = kUntouched;
  ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {"s_scratch_store_dwordx4 s[4:7], s[0:1], 0x10000",
                                            "s_scratch_load_dword s8, s[0:1], 0x10000"})
                  .ok());
  EXPECT_EQ(h.wave().s[8], 0u);
}

// s_atomic_<op> and s_buffer_atomic_<op>, 32- and 64-bit.
struct AtomicRow {
  const char* op;
  uint64_t old;
  uint64_t data;
  uint64_t compare;
  uint64_t result;  // memory afterwards
};

constexpr uint32_t kOld32 = 0x80000005;  // negative when signed
constexpr uint32_t kData32 = 7;
constexpr AtomicRow kAtomic32[] = {
    {"swap", kOld32, kData32, 0, kData32},
    {"cmpswap", kOld32, kData32, kOld32, kData32},
    {"cmpswap", kOld32, kData32, kOld32 + 1, kOld32},
    {"add", kOld32, kData32, 0, uint32_t{kOld32 + kData32}},
    {"sub", kOld32, kData32, 0, uint32_t{kOld32 - kData32}},
    {"smin", kOld32, kData32, 0, kOld32},
    {"umin", kOld32, kData32, 0, kData32},
    {"smax", kOld32, kData32, 0, kData32},
    {"umax", kOld32, kData32, 0, kOld32},
    {"and", kOld32, kData32, 0, kOld32 & kData32},
    {"or", kOld32, kData32, 0, kOld32 | kData32},
    {"xor", kOld32, kData32, 0, kOld32 ^ kData32},
    {"inc", kOld32, kData32, 0, 0},  // at or past the limit: wraps to 0
    {"inc", 3, kData32, 0, 4},
    {"inc", kData32, kData32, 0, 0},
    {"dec", kOld32, kData32, 0, kData32},  // above the limit: reloads it
    {"dec", 0, kData32, 0, kData32},
    {"dec", 3, kData32, 0, 2},
    {"dec", kData32, kData32, 0, kData32 - 1},
};
constexpr uint64_t kOld64 = 0x8000000000000005ull;
constexpr uint64_t kData64 = 0x0000000100000007ull;
constexpr AtomicRow kAtomic64[] = {
    {"swap", kOld64, kData64, 0, kData64},
    {"cmpswap", kOld64, kData64, kOld64, kData64},
    {"cmpswap", kOld64, kData64, kOld64 ^ (uint64_t{1} << 40), kOld64},
    {"add", kOld64, kData64, 0, kOld64 + kData64},
    {"sub", kOld64, kData64, 0, kOld64 - kData64},
    {"smin", kOld64, kData64, 0, kOld64},
    {"umin", kOld64, kData64, 0, kData64},
    {"smax", kOld64, kData64, 0, kData64},
    {"umax", kOld64, kData64, 0, kOld64},
    {"and", kOld64, kData64, 0, kOld64 & kData64},
    {"or", kOld64, kData64, 0, kOld64 | kData64},
    {"xor", kOld64, kData64, 0, kOld64 ^ kData64},
    {"inc", kOld64, kData64, 0, 0},
    {"inc", kData64 - 1, kData64, 0, kData64},
    {"inc", kData64, kData64, 0, 0},
    {"dec", kOld64, kData64, 0, kData64},
    {"dec", 0, kData64, 0, kData64},
    {"dec", kData64, kData64, 0, kData64 - 1},
};

// The line for one atomic: data (and compare) from s4, the word at offset 8 of s[2:3] or of the buffer in s[8:11].
std::string AtomicLine(const AtomicRow& row, bool wide, bool buffer, bool glc) {
  const bool cmpswap = std::string(row.op) == "cmpswap";
  const int dwords = (wide ? 2 : 1) * (cmpswap ? 2 : 1);
  const std::string data = dwords == 1 ? "s4" : absl::StrCat("s[4:", 3 + dwords, "]");
  return absl::StrCat(buffer ? "s_buffer_atomic_" : "s_atomic_", row.op, wide ? "_x2 " : " ", data, ", ",
                      buffer ? "s[8:11]" : "s[2:3]", ", 0x8", glc ? " glc" : "");
}

void RunAtomicRows(std::span<const AtomicRow> rows, bool wide) {
  for (const bool buffer : {false, true}) {
    for (const bool glc : {true, false}) {
      for (const AtomicRow& row : rows) {
        const std::string line = AtomicLine(row, wide, buffer, glc);
        SCOPED_TRACE(line);
        IsaHarness h(Target::kGfx90a);
        uint64_t words[4] = {0x1111, row.old, 0x2222, 0x3333};  // the target at byte 8
        h.memory().Map(words, sizeof(words));
        h.wave().Write64(2, Va(words));
        SetBuffer(h, words, sizeof(words));
        const uint64_t mask = wide ? ~uint64_t{0} : 0xffffffffu;
        if (wide) {
          h.wave().Write64(4, row.data);
          h.wave().Write64(6, row.compare);
        } else {
          h.wave().s[4] = static_cast<uint32_t>(row.data);
          h.wave().s[5] = static_cast<uint32_t>(row.compare);
          words[1] = (row.old & mask) | (uint64_t{0xabcd} << 32);  // the high half is another word
        }
        ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {line.c_str()}).ok());
        EXPECT_EQ(words[1] & mask, row.result & mask);
        if (!wide) {
          EXPECT_EQ(words[1] >> 32, 0xabcdu);
        }
        EXPECT_EQ(words[0], 0x1111u);
        EXPECT_EQ(words[2], 0x2222u);
        const uint64_t returned = wide ? h.wave().Read64(4) : h.wave().s[4];
        EXPECT_EQ(returned, glc ? row.old & mask : row.data & mask);
      }
    }
  }
}

TEST(SmemTest, Atomics32ReturnTheOldValueUnderGlc) { RunAtomicRows(kAtomic32, false); }
TEST(SmemTest, Atomics64ReturnTheOldValueUnderGlc) { RunAtomicRows(kAtomic64, true); }

TEST(SmemTest, BufferAtomicOutsideNumRecordsDoesNothingAndReturnsZero) {
  IsaHarness h(Target::kGfx90a);
  uint64_t words[2] = {5, 5};
  h.memory().Map(words, sizeof(words));
  SetBuffer(h, words, 8);  // the word at 8 is outside
  h.wave().s[4] = 9;
  ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {"s_buffer_atomic_add s4, s[8:11], 0x8 glc"}).ok());
  EXPECT_EQ(words[1], 5u);
  EXPECT_EQ(h.wave().s[4], 0u);
}

TEST(SmemTest, AtomicOnAnUnmappedAddressFaults) {
  IsaHarness h(Target::kGfx90a);
  h.wave().Write64(2, kUnmapped);
  h.wave().s[4] = kUntouched;
  const absl::Status status = h.Run(smem_encodings_gfx90a, {"s_atomic_add s4, s[2:3], 0x8 glc"});
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_NE(status.message().find(absl::StrCat("0x", absl::Hex(kUnmapped + 8))), std::string::npos) << status;
  EXPECT_EQ(h.wave().s[4], kUntouched);
}

TEST(SmemTest, MisalignedSixtyFourBitAtomicIsIllegal) {
  IsaHarness h(Target::kGfx90a);
  uint64_t words[2] = {};
  h.memory().Map(words, sizeof(words));
  h.wave().Write64(2, Va(words) + 4);
  const absl::Status status = h.Run(smem_encodings_gfx90a, {"s_atomic_add_x2 s[4:5], s[2:3], 0x8 glc"});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
}

// Waves on several host threads adding to one counter lose no update.
TEST(SmemTest, AtomicAddsFromConcurrentWavesAreAtomic) {
  constexpr int kThreads = 4;
  constexpr uint32_t kAdds = 2000;
  alignas(8) uint32_t counter = 0;
  std::vector<std::thread> threads;
  std::vector<absl::Status> results(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      IsaHarness h(Target::kGfx90a);
      h.memory().Map(&counter, sizeof(counter));
      h.wave().Write64(2, Va(&counter));
      h.wave().s[4] = 1;
      h.wave().s[6] = kAdds;
      // The branch goes back over itself, the compare, the subtract and the two-dword atomic.
      results[t] = h.Run(smem_encodings_gfx90a, {"s_atomic_add s4, s[2:3], 0x0", "s_sub_u32 s6, s6, 1",
                                                 "s_cmp_lg_u32 s6, 0", "s_cbranch_scc1 -5"});
    });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(std::atomic_ref<uint32_t>(counter).load(), kThreads * kAdds);
}

TEST(SmemTest, MemtimeCountsUp) {
  IsaHarness h(Target::kGfx90a);
  ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {"s_memtime s[4:5]", "s_memrealtime s[6:7]", "s_memtime s[8:9]"}).ok());
  EXPECT_NE(h.wave().Read64(4), 0u);
  EXPECT_GE(h.wave().Read64(8), h.wave().Read64(4));
  EXPECT_NE(h.wave().Read64(6), 0u);
}

// The scalar cache is coherent here: the cache controls and probes run and change no register.
TEST(SmemTest, CacheControlsAndProbesChangeNothing) {
  constexpr const char* kLines[] = {
      "s_dcache_inv",          "s_dcache_wb",          "s_dcache_inv_vol",
      "s_dcache_wb_vol",       "s_atc_probe 1, s[2:3], 0x10", "s_atc_probe_buffer 1, s[8:11], 0x10",
      "s_dcache_discard s[2:3], 0x10", "s_dcache_discard_x2 s[2:3], 0x10",
  };
  for (const char* line : kLines) {
    SCOPED_TRACE(line);
    IsaHarness h(Target::kGfx90a);
    h.wave().Write64(2, kUnmapped);  // not even a probe of an unmapped page faults
    const auto before = h.wave().s;
    ASSERT_TRUE(h.Run(smem_encodings_gfx90a, {line}).ok());
    EXPECT_EQ(h.wave().s, before);
    EXPECT_EQ(h.executed(), 2u);
  }
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
