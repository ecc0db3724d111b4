// MUBUF instructions, each encoded by llvm-mc-19, on one wave: a buffer resource (V#) in s[8:11] over host memory
// the identity page table maps, or the dispatch's private segment buffer over the wave's scratch.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/memory_test_cases.h"
#include "testing/kfd_sim/engines/gfx9/mubuf_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/mubuf_gfx942_encodings_gfx942.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::mubuf_encodings_gfx90a;
using hipmem_testing::mubuf_gfx942_encodings_gfx942;
using ::testing::HasSubstr;

// Writes a V# to s[first:first+3].
void SetResource(Wave& w, int first, uint64_t base, uint32_t stride, uint32_t num_records, uint32_t word3 = 0) {
  w.s[first] = static_cast<uint32_t>(base);
  w.s[first + 1] = static_cast<uint32_t>(base >> 32) | (stride << 16);
  w.s[first + 2] = num_records;
  w.s[first + 3] = word3;
}

void Fill(Wave& w, int reg, uint32_t (*value)(int lane)) {
  for (int lane = 0; lane < kWaveSize; ++lane) w.vgpr(reg)[lane] = value(lane);
}

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

TEST(MubufTest, LoadsExtendOrKeepTheOtherHalf) {
  for (const LoadCase& c : kLoadCases) {
    SCOPED_TRACE(c.buffer);
    IsaHarness h(Target::kGfx90a);
    std::vector<uint8_t> memory(16 * kWaveSize);
    h.memory().Map(memory.data(), memory.size());
    SetResource(h.wave(), 8, Va(memory.data()), 0, static_cast<uint32_t>(memory.size()));
    Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(16 * lane); });
    FillLoadSlots(h.wave(), memory.data());
    ASSERT_TRUE(h.Run(mubuf_encodings_gfx90a, {c.buffer}).ok());
    ExpectLoaded(h.wave(), c, memory.data());
  }
}

TEST(MubufTest, StoresWriteTheirBytesAndNoMore) {
  for (const StoreCase& c : kStoreCases) {
    SCOPED_TRACE(c.buffer);
    IsaHarness h(Target::kGfx90a);
    std::vector<uint8_t> memory(32 * kWaveSize);
    h.memory().Map(memory.data(), memory.size());
    SetResource(h.wave(), 8, Va(memory.data()), 0, static_cast<uint32_t>(memory.size()));
    Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(32 * lane); });
    FillStoreData(h.wave(), memory.data());
    ASSERT_TRUE(h.Run(mubuf_encodings_gfx90a, {c.buffer}).ok());
    ExpectStored(h.wave(), c, memory.data());
  }
}

TEST(MubufTest, AtomicsComputeTheTable) {
  for (const AtomicCase& c : kAtomicCases) {
    if (c.buffer_rtn == nullptr) continue;
    SCOPED_TRACE(absl::StrCat(c.name, ": ", c.buffer_rtn));
    IsaHarness h(Target::kGfx90a);
    alignas(8) uint64_t words[3] = {0x5555, 0, 0x5555};
    h.memory().Map(words, sizeof(words));
    SetResource(h.wave(), 8, Va(&words[1]), 0, 8);
    h.wave().set_exec(1);
    const uint64_t mask = c.bits == 64 ? ~uint64_t{0} : 0xffffffffull;
    words[1] = c.memory;
    SetAtomicOperands(h.wave(), c);
    ASSERT_TRUE(h.Run(mubuf_encodings_gfx90a, {c.buffer_rtn}).ok());
    EXPECT_EQ(words[1] & mask, c.expected);
    EXPECT_EQ(ReadResult(h.wave(), 4, c.bits, 0), c.memory) << "the value before, in vdata";
    EXPECT_EQ(words[0], 0x5555u);
    EXPECT_EQ(words[2], 0x5555u);
    words[1] = c.memory;
    SetAtomicOperands(h.wave(), c);
    ASSERT_TRUE(h.Run(mubuf_encodings_gfx90a, {c.buffer}).ok());
    EXPECT_EQ(words[1] & mask, c.expected);
    EXPECT_EQ(ReadResult(h.wave(), 4, c.bits, 0), c.data & mask) << "vdata kept without GLC";
  }
}

TEST(MubufTest, AddressIsBasePlusSoffsetPlusIndexTimesStridePlusOffset) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> memory(8192);
  std::iota(memory.begin(), memory.end(), 0u);
  h.memory().Map(memory.data(), memory.size() * 4);
  SetResource(h.wave(), 8, Va(memory.data()), 16, 1000);  // structured: 16-byte records
  h.wave().s[4] = 32;
  Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(lane); });      // index
  Fill(h.wave(), 1, [](int lane) { return static_cast<uint32_t>(4 * lane); });  // offset
  ASSERT_TRUE(h.Run(mubuf_encodings_gfx90a, {"buffer_load_dword v10, v0, s[8:11], 0 idxen",
                                              "buffer_load_dword v11, v[0:1], s[8:11], s4 idxen offen offset:4",
                                              "buffer_load_dword v12, off, s[8:11], 4 offset:4092",
                                              "buffer_load_dword v13, v1, s[8:11], s4 offen"})
                  .ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    EXPECT_EQ(h.wave().vgpr(10)[lane], static_cast<uint32_t>(4 * lane));
    EXPECT_EQ(h.wave().vgpr(11)[lane], static_cast<uint32_t>((32 + 16 * lane + 4 * lane + 4) / 4));
    EXPECT_EQ(h.wave().vgpr(12)[lane], 1024u);
    EXPECT_EQ(h.wave().vgpr(13)[lane], static_cast<uint32_t>(8 + lane));
  }
}

TEST(MubufTest, RangeCheckDropsWhatLiesPastNumRecords) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> memory(64, 0x77777777u);
  h.memory().Map(memory.data(), memory.size() * 4);
  SetResource(h.wave(), 8, Va(memory.data()), 0, 10);  // raw: 10 bytes
  h.wave().set_exec(1);
  h.wave().vgpr(0)[0] = 0;
  h.wave().vgpr(1)[0] = 9;
  h.wave().s[4] = 100;  // soffset: outside the range check
  for (int k = 0; k < 4; ++k) h.wave().vgpr(4 + k)[0] = 0x100u + static_cast<uint32_t>(k);
  ASSERT_TRUE(h.Run(mubuf_encodings_gfx90a,
                    {"buffer_load_dwordx4 v[10:13], v0, s[8:11], 0 offen", "buffer_load_ubyte v14, v1, s[8:11], 0 offen",
                     "buffer_load_ushort v15, v1, s[8:11], 0 offen", "buffer_load_dword v16, v0, s[8:11], s4 offen",
                     "buffer_store_dwordx4 v[4:7], v0, s[8:11], 0 offen",
                     "buffer_atomic_add v4, v1, s[8:11], 0 offen offset:3 glc"})
                  .ok());
  EXPECT_EQ(h.wave().vgpr(10)[0], 0x77777777u);
  EXPECT_EQ(h.wave().vgpr(11)[0], 0x77777777u);
  EXPECT_EQ(h.wave().vgpr(12)[0], 0u) << "bytes 8-11 reach past 10";
  EXPECT_EQ(h.wave().vgpr(13)[0], 0u);
  EXPECT_EQ(h.wave().vgpr(14)[0], 0x77u) << "byte 9 is inside";
  EXPECT_EQ(h.wave().vgpr(15)[0], 0u) << "bytes 9-10 are not";
  EXPECT_EQ(h.wave().vgpr(16)[0], 0x77777777u);
  EXPECT_EQ(memory[0], 0x100u);
  EXPECT_EQ(memory[1], 0x101u);
  EXPECT_EQ(memory[2], 0x77777777u) << "the store's third dword is dropped";
  EXPECT_EQ(memory[3], 0x77777777u);
  EXPECT_EQ(h.wave().vgpr(4)[0], 0u) << "an out-of-range atomic returns 0";

  SetResource(h.wave(), 8, Va(memory.data()), 16, 2);  // structured: two 16-byte records
  h.wave().vgpr(0)[0] = 2;
  h.wave().vgpr(1)[0] = 1;
  ASSERT_TRUE(h.Run(mubuf_encodings_gfx90a, {"buffer_load_dword v10, v0, s[8:11], 0 idxen",
                                              "buffer_load_dword v11, v1, s[8:11], 0 idxen offset:4"})
                  .ok());
  EXPECT_EQ(h.wave().vgpr(10)[0], 0u) << "record 2 of 2";
  EXPECT_EQ(h.wave().vgpr(11)[0], 0x77777777u);
}

TEST(MubufTest, AddTidResourceAddressesEachLanesScratch) {
  IsaHarness h(Target::kGfx90a, 64);
  // The dispatch's private segment buffer over the wave's scratch, its base advanced by 1024 bytes as a kernel adds
  // its wave offset: wave-level offsets are unswizzled, so that is 16 bytes of each lane's private segment. s5 = 256
  // is 4 more.
  SetResource(h.wave(), 0, h.scratch_base() + 1024, 0, 0xffffffffu, 1u << 23);
  h.wave().s[5] = 256;
  Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(lane % 4) * 4; });
  Fill(h.wave(), 1, [](int lane) { return 0xc000u + static_cast<uint32_t>(lane); });
  ASSERT_TRUE(h.Run(mubuf_encodings_gfx90a, {"buffer_store_dword v1, v0, s[0:3], 0 offen offset:4",
                                              "buffer_load_dword v2, off, s[0:3], s5 offset:16",
                                              "buffer_store_dword v1, off, s[0:3], 0 offset:48"})
                  .ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    uint32_t got;
    got = h.scratch_word(lane, 16 + (lane % 4) * 4 + 4);
    EXPECT_EQ(got, 0xc000u + lane) << "lane " << lane;
    got = h.scratch_word(lane, 36);
    EXPECT_EQ(h.wave().vgpr(2)[lane], got);
    EXPECT_EQ(h.scratch_byte(lane, 63), 0) << "offset 64 is past the segment: dropped";
  }
}

TEST(MubufTest, CacheControlChangesNothing) {
  IsaHarness h(Target::kGfx90a);
  EXPECT_TRUE(h.Run(mubuf_encodings_gfx90a, {"buffer_wbl2", "buffer_invl2", "buffer_wbinvl1", "buffer_wbinvl1_vol"}).ok());
  IsaHarness h942(Target::kGfx942);
  EXPECT_TRUE(h942.Run(mubuf_gfx942_encodings_gfx942, {"buffer_wbl2 sc1", "buffer_inv sc1"}).ok());
  EXPECT_EQ(h942.executed(), 3u);
}

TEST(MubufTest, Gfx942ReturnsUnderSc0) {
  IsaHarness h(Target::kGfx942);
  uint32_t word = 10;
  h.memory().Map(&word, sizeof(word));
  SetResource(h.wave(), 8, Va(&word), 0, 4);
  h.wave().set_exec(1);
  h.wave().vgpr(4)[0] = 5;
  ASSERT_TRUE(h.Run(mubuf_gfx942_encodings_gfx942, {"buffer_atomic_add v4, off, s[8:11], 0 sc1 nt"}).ok());
  EXPECT_EQ(word, 15u);
  EXPECT_EQ(h.wave().vgpr(4)[0], 5u);
  ASSERT_TRUE(h.Run(mubuf_gfx942_encodings_gfx942, {"buffer_atomic_add v4, off, s[8:11], 0 sc0"}).ok());
  EXPECT_EQ(word, 20u);
  EXPECT_EQ(h.wave().vgpr(4)[0], 15u);
}

TEST(MubufTest, AFaultReportsTheLowestLanesAddress) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> memory(16, 7);
  h.memory().Map(memory.data(), memory.size() * 4);
  SetResource(h.wave(), 8, Va(memory.data()), 0, 0xffffffffu);
  Fill(h.wave(), 0, [](int lane) { return lane < 16 ? static_cast<uint32_t>(4 * lane) : 0x100000u - 4u * lane; });
  Fill(h.wave(), 1, [](int) { return 1u; });
  const absl::Status status = h.Run(mubuf_encodings_gfx90a, {"buffer_store_dword v1, v0, s[8:11], 0 offen"});
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(status.message()), HasSubstr(absl::StrCat("0x", absl::Hex(Va(memory.data()) + 0x100000 - 64))));
  for (uint32_t v : memory) EXPECT_EQ(v, 7u) << "nothing of the faulting store lands";
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
