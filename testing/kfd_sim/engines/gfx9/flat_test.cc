// FLAT, GLOBAL and SCRATCH instructions, each encoded by llvm-mc-19, on one wave over host memory the identity page
// table maps.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/flat_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/flat_gfx942_encodings_gfx942.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/memory_test_cases.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::flat_encodings_gfx90a;
using hipmem_testing::flat_gfx942_encodings_gfx942;
using ::testing::HasSubstr;

constexpr uint64_t kSharedBase = uint64_t{1} << 48;   // IsaHarness's apertures
constexpr uint64_t kPrivateBase = uint64_t{2} << 48;

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Points the VGPR pair at `reg` of every lane at `base + lane * stride`.
void SetAddress(Wave& w, int reg, uint64_t base, uint64_t stride) {
  for (int lane = 0; lane < kWaveSize; ++lane) {
    const uint64_t a = base + static_cast<uint64_t>(lane) * stride;
    w.vgpr(reg)[lane] = static_cast<uint32_t>(a);
    w.vgpr(reg + 1)[lane] = static_cast<uint32_t>(a >> 32);
  }
}

void Fill(Wave& w, int reg, uint32_t (*value)(int lane)) {
  for (int lane = 0; lane < kWaveSize; ++lane) w.vgpr(reg)[lane] = value(lane);
}

TEST(FlatTest, LoadsExtendOrKeepTheOtherHalf) {
  for (const LoadCase& c : kLoadCases) {
    SCOPED_TRACE(c.global);
    IsaHarness h(Target::kGfx90a);
    std::vector<uint8_t> memory(16 * kWaveSize);
    h.memory().Map(memory.data(), memory.size());
    SetAddress(h.wave(), 2, Va(memory.data()), 16);
    FillLoadSlots(h.wave(), memory.data());
    ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {c.global}).ok());
    ExpectLoaded(h.wave(), c, memory.data());
  }
}

TEST(FlatTest, StoresWriteTheirBytesAndNoMore) {
  for (const StoreCase& c : kStoreCases) {
    SCOPED_TRACE(c.global);
    IsaHarness h(Target::kGfx90a);
    std::vector<uint8_t> memory(32 * kWaveSize);
    h.memory().Map(memory.data(), memory.size());
    SetAddress(h.wave(), 2, Va(memory.data()), 32);
    FillStoreData(h.wave(), memory.data());
    ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {c.global}).ok());
    ExpectStored(h.wave(), c, memory.data());
  }
}

// One lane runs each case, with and without return.
void RunAtomicCases(Target target, std::span<const hipmem_testing::AsmEncoding> encodings, bool gfx942_rows) {
  for (const AtomicCase& c : kAtomicCases) {
    if (c.global_rtn == nullptr || c.gfx942 != gfx942_rows) continue;
    SCOPED_TRACE(absl::StrCat(c.name, ": ", c.global_rtn));
    IsaHarness h(target);
    alignas(8) uint64_t word[2] = {0, 0x5555555555555555ull};
    h.memory().Map(word, sizeof(word));
    h.wave().set_exec(1);
    SetAddress(h.wave(), 2, Va(word), 0);
    SetAtomicOperands(h.wave(), c);
    const uint64_t mask = c.bits == 64 ? ~uint64_t{0} : 0xffffffffull;
    word[0] = c.memory;
    ASSERT_TRUE(h.Run(encodings, {c.global_rtn}).ok());
    EXPECT_EQ(word[0] & mask, c.expected);
    EXPECT_EQ(ReadResult(h.wave(), c.bits == 64 ? 0 : 1, c.bits, 0), c.memory) << "the value before";
    EXPECT_EQ(word[1], 0x5555555555555555ull) << "the next word";
    if (c.bits == 32) {
      EXPECT_EQ(word[0] >> 32, 0u) << "the word's other half";
    }

    word[0] = c.memory;
    h.wave().vgpr(0)[0] = h.wave().vgpr(1)[0] = 0xabcdu;
    ASSERT_TRUE(h.Run(encodings, {c.global}).ok());
    EXPECT_EQ(word[0] & mask, c.expected);
    EXPECT_EQ(h.wave().vgpr(1)[0], 0xabcdu) << "no return without GLC/SC0";
  }
}

TEST(FlatTest, GlobalAtomicsComputeTheTableOnGfx90a) {
  RunAtomicCases(Target::kGfx90a, flat_encodings_gfx90a, false);
}

TEST(FlatTest, GlobalAtomicsComputeTheTableOnGfx942) {
  RunAtomicCases(Target::kGfx942, flat_gfx942_encodings_gfx942, true);
}

TEST(FlatTest, AtomicAddFromEveryLaneOnOneWordReturnsEachPrefix) {
  IsaHarness h(Target::kGfx90a);
  uint32_t word = 1000;
  h.memory().Map(&word, sizeof(word));
  SetAddress(h.wave(), 2, Va(&word), 0);
  Fill(h.wave(), 4, [](int lane) { return static_cast<uint32_t>(lane + 1); });
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"global_atomic_add v1, v[2:3], v4, off glc"}).ok());
  EXPECT_EQ(word, 1000u + 64 * 65 / 2);
  uint32_t before = 1000;
  for (int lane = 0; lane < kWaveSize; ++lane) {  // lanes apply in order: each sees the sum of the lanes below it
    EXPECT_EQ(h.wave().vgpr(1)[lane], before) << "lane " << lane;
    before += static_cast<uint32_t>(lane + 1);
  }
}

TEST(FlatTest, FlatAtomicsReachLdsAndScratchThroughTheApertures) {
  IsaHarness h(Target::kGfx90a);
  uint32_t word = 5;
  h.memory().Map(&word, sizeof(word));
  std::memcpy(&h.lds()[64], "\x07\x00\x00\x00", 4);
  h.set_scratch_word(2, 8, 9);
  h.wave().set_exec(0b111);
  const uint64_t targets[3] = {Va(&word), kSharedBase + 64, kPrivateBase + 8};
  for (int lane = 0; lane < 3; ++lane) {
    h.wave().vgpr(2)[lane] = static_cast<uint32_t>(targets[lane]);
    h.wave().vgpr(3)[lane] = static_cast<uint32_t>(targets[lane] >> 32);
    h.wave().vgpr(4)[lane] = 100;
  }
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"flat_atomic_add v1, v[2:3], v4 glc"}).ok());
  EXPECT_EQ(word, 105u);
  EXPECT_EQ(h.lds()[64], 107);
  EXPECT_EQ(h.scratch_byte(2, 8), 109);
  EXPECT_EQ(h.wave().vgpr(1)[0], 5u);
  EXPECT_EQ(h.wave().vgpr(1)[1], 7u);
  EXPECT_EQ(h.wave().vgpr(1)[2], 9u);
}

TEST(FlatTest, FlatLoadsAndStoresFollowEachLanesAperture) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> global(kWaveSize);
  h.memory().Map(global.data(), global.size() * 4);
  // Lanes 0-31: even global, odd LDS; lanes 32-63: their own private segment.
  for (int lane = 0; lane < kWaveSize; ++lane) {
    uint64_t a = Va(&global[lane]);
    if (lane >= 32) {
      a = kPrivateBase + 12;
    } else if (lane % 2 == 1) {
      a = kSharedBase + 256 + 4 * static_cast<uint64_t>(lane);
    }
    h.wave().vgpr(2)[lane] = static_cast<uint32_t>(a - 4);  // offset:4 below
    h.wave().vgpr(3)[lane] = static_cast<uint32_t>((a - 4) >> 32);
    h.wave().vgpr(1)[lane] = 0x100u + static_cast<uint32_t>(lane);
  }
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"flat_store_dword v[2:3], v1 offset:4"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    uint32_t got = 0;
    if (lane >= 32) {
      got = h.scratch_word(lane, 12);
    } else if (lane % 2 == 1) {
      std::memcpy(&got, &h.lds()[256 + 4 * lane], 4);
    } else {
      got = global[lane];
    }
    EXPECT_EQ(got, 0x100u + lane) << "lane " << lane;
  }
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"flat_load_dword v5, v[2:3] offset:4"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) EXPECT_EQ(h.wave().vgpr(5)[lane], 0x100u + lane) << "lane " << lane;
}

TEST(FlatTest, GlobalAddsTheScalarBaseAndTheSignedOffset) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> memory(4096);
  std::iota(memory.begin(), memory.end(), 0u);
  h.memory().Map(memory.data(), memory.size() * 4);
  h.wave().Write64(4, Va(memory.data()));
  Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(4 * lane + 8); });
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"global_load_dword v1, v0, s[4:5] offset:-8"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) EXPECT_EQ(h.wave().vgpr(1)[lane], static_cast<uint32_t>(lane));
  SetAddress(h.wave(), 2, Va(&memory[2048]), 4);
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a,
                    {"global_load_dword v1, v[2:3], off offset:4095", "global_load_dword v6, v[2:3], off offset:-4096"})
                  .ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    uint32_t expected;
    std::memcpy(&expected, reinterpret_cast<const uint8_t*>(&memory[2048 + lane]) + 4095, 4);
    EXPECT_EQ(h.wave().vgpr(1)[lane], expected);
    EXPECT_EQ(h.wave().vgpr(6)[lane], static_cast<uint32_t>(1024 + lane));
  }
  Fill(h.wave(), 7, [](int lane) { return 0xf000u + static_cast<uint32_t>(lane); });
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"global_store_dword v0, v7, s[4:5] offset:4"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) EXPECT_EQ(memory[lane + 3], 0xf000u + lane);
}

TEST(FlatTest, ScratchAddressesEachLanesPrivateSegmentOnGfx90a) {
  IsaHarness h(Target::kGfx90a, 64);
  for (int lane = 0; lane < kWaveSize; ++lane) {
    for (int k = 0; k < 64; ++k) h.scratch_byte(lane, k) = static_cast<uint8_t>(lane + k);
  }
  h.wave().s[2] = 8;
  Fill(h.wave(), 2, [](int lane) { return static_cast<uint32_t>(lane % 16) * 4 + 4; });
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"scratch_load_dword v1, off, s2 offset:4",
                                             "scratch_load_dword v3, v2, off offset:-4",
                                             "scratch_load_dword v5, off, s2 offset:60"})
                  .ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    uint32_t expected;
    expected = h.scratch_word(lane, 12);
    EXPECT_EQ(h.wave().vgpr(1)[lane], expected);
    expected = h.scratch_word(lane, (lane % 16) * 4);
    EXPECT_EQ(h.wave().vgpr(3)[lane], expected);
    EXPECT_EQ(h.wave().vgpr(5)[lane], 0u) << "past the 64-byte private segment reads 0";
  }
  Fill(h.wave(), 4, [](int lane) { return 0xabc00u + static_cast<uint32_t>(lane); });
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"scratch_store_dword off, v4, s2", "scratch_store_dword v2, v4, off offset:60"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    uint32_t got;
    got = h.scratch_word(lane, 8);
    EXPECT_EQ(got, 0xabc00u + lane);
    EXPECT_EQ(h.scratch_byte(lane, 60), static_cast<uint8_t>(lane + 60)) << "a store past the segment is dropped";
  }
}

TEST(FlatTest, ScratchOnGfx942UsesTheVgprOnlyUnderSve) {
  IsaHarness h(Target::kGfx942, 64);
  for (int lane = 0; lane < kWaveSize; ++lane) {
    for (int k = 0; k < 64; ++k) h.scratch_byte(lane, k) = static_cast<uint8_t>(3 * lane + k);
  }
  h.wave().s[3] = 16;
  Fill(h.wave(), 2, [](int lane) { return static_cast<uint32_t>(lane % 8) * 4; });
  ASSERT_TRUE(h.Run(flat_gfx942_encodings_gfx942,
                    {"scratch_load_dword v1, v2, off", "scratch_load_dword v4, off, off offset:16",
                     "scratch_load_dword v5, v2, s3", "scratch_load_dword v6, off, s3 offset:4"})
                  .ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    auto at = [&](int offset) {
      uint32_t v;
      v = h.scratch_word(lane, offset);
      return v;
    };
    EXPECT_EQ(h.wave().vgpr(1)[lane], at((lane % 8) * 4));
    EXPECT_EQ(h.wave().vgpr(4)[lane], at(16));
    EXPECT_EQ(h.wave().vgpr(5)[lane], at(16 + (lane % 8) * 4));
    EXPECT_EQ(h.wave().vgpr(6)[lane], at(20));
  }
}

TEST(FlatTest, Gfx942ReturnsUnderSc0AndIgnoresSc1AndNt) {
  IsaHarness h(Target::kGfx942);
  uint32_t word = 10;
  h.memory().Map(&word, sizeof(word));
  h.wave().set_exec(1);
  SetAddress(h.wave(), 2, Va(&word), 0);
  h.wave().vgpr(4)[0] = 1;
  h.wave().vgpr(1)[0] = 0xabcd;
  ASSERT_TRUE(h.Run(flat_gfx942_encodings_gfx942, {"global_atomic_add v[2:3], v4, off sc1 nt"}).ok());
  EXPECT_EQ(word, 11u);
  EXPECT_EQ(h.wave().vgpr(1)[0], 0xabcdu);
  ASSERT_TRUE(h.Run(flat_gfx942_encodings_gfx942,
                    {"global_atomic_add v1, v[2:3], v4, off sc0", "global_load_dword v6, v[2:3], off sc0 sc1 nt"})
                  .ok());
  EXPECT_EQ(word, 12u);
  EXPECT_EQ(h.wave().vgpr(1)[0], 11u);
  EXPECT_EQ(h.wave().vgpr(6)[0], 12u);
}

TEST(FlatTest, Gfx942LoadsToLdsAtM0PlusTheOffsetPerLane) {
  IsaHarness h(Target::kGfx942);
  std::vector<uint32_t> memory(kWaveSize + 2);
  std::iota(memory.begin(), memory.end(), 0x700u);
  h.memory().Map(memory.data(), memory.size() * 4);
  SetAddress(h.wave(), 2, Va(memory.data()), 4);
  h.wave().s[op::kM0] = 128;
  h.wave().set_exec(~uint64_t{0} & ~uint64_t{2});
  ASSERT_TRUE(h.Run(flat_gfx942_encodings_gfx942, {"global_load_lds_dword v[2:3], off offset:8"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    uint32_t got;
    std::memcpy(&got, &h.lds()[128 + 8 + 4 * lane], 4);
    EXPECT_EQ(got, lane == 1 ? 0u : 0x702u + lane) << "lane " << lane;
  }
}

TEST(FlatTest, InactiveLanesNeitherLoadNorStore) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> memory(kWaveSize, 7);
  h.memory().Map(memory.data(), memory.size() * 4);
  SetAddress(h.wave(), 2, Va(memory.data()), 4);
  Fill(h.wave(), 1, [](int lane) { return static_cast<uint32_t>(lane); });
  h.wave().set_exec(0b101);
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"global_store_dword v[2:3], v1, off", "global_load_dword v6, v[2:3], off"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    EXPECT_EQ(memory[lane], lane == 0 || lane == 2 ? static_cast<uint32_t>(lane) : 7u);
    EXPECT_EQ(h.wave().vgpr(6)[lane], lane == 0 || lane == 2 ? static_cast<uint32_t>(lane) : 0u);
  }
  h.wave().set_exec(0);  // EXEC=0: nothing at all, even at an unmapped address
  SetAddress(h.wave(), 2, 0x10, 0);
  EXPECT_TRUE(h.Run(flat_encodings_gfx90a, {"global_store_dword v[2:3], v1, off"}).ok());
}

TEST(FlatTest, AFaultStopsAtTheLowestLanesAddressAndNothingLands) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> memory(kWaveSize, 7);
  h.memory().Map(memory.data(), memory.size() * 4);
  SetAddress(h.wave(), 2, Va(memory.data()), 4);
  // Lane 9 points above lane 3, both unmapped: lane 3's address is the fault's.
  const uint64_t bad3 = 0x5000'0000ull, bad9 = 0x6000'0000ull;
  for (const auto& [lane, va] : {std::pair{3, bad3}, std::pair{9, bad9}}) {
    h.wave().vgpr(2)[lane] = static_cast<uint32_t>(va);
    h.wave().vgpr(3)[lane] = static_cast<uint32_t>(va >> 32);
  }
  Fill(h.wave(), 1, [](int lane) { return 100u + static_cast<uint32_t>(lane); });
  Fill(h.wave(), 6, [](int) { return 0x5eedu; });
  for (const char* line : {"global_store_dword v[2:3], v1, off", "global_atomic_add v6, v[2:3], v1, off glc",
                           "global_load_dword v6, v[2:3], off"}) {
    SCOPED_TRACE(line);
    const absl::Status status = h.Run(flat_encodings_gfx90a, {line});
    EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
    EXPECT_THAT(std::string(status.message()), HasSubstr(absl::StrCat("0x", absl::Hex(bad3))));
    for (int lane = 0; lane < kWaveSize; ++lane) {
      ASSERT_EQ(memory[lane], 7u) << "lane " << lane;
      ASSERT_EQ(h.wave().vgpr(6)[lane], 0x5eedu) << "lane " << lane;
    }
  }
}

// A whole wave of consecutive dwords, which moves as one block when one translation holds it: with its upper half
// unmapped it faults at lane 32's address and nothing is stored or loaded; once the upper half is mapped separately
// (two translations) every lane moves, as lane by lane.
TEST(FlatTest, AWaveOfConsecutiveDwordsFaultsOrLandsAsLaneByLane) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint32_t> memory(kWaveSize, 7);
  h.memory().Map(memory.data(), 32 * 4);
  SetAddress(h.wave(), 2, Va(memory.data()), 4);
  Fill(h.wave(), 1, [](int lane) { return 100u + static_cast<uint32_t>(lane); });
  Fill(h.wave(), 6, [](int) { return 0x5eedu; });
  for (const char* line : {"global_store_dword v[2:3], v1, off", "global_load_dword v6, v[2:3], off"}) {
    SCOPED_TRACE(line);
    const absl::Status status = h.Run(flat_encodings_gfx90a, {line});
    EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
    EXPECT_THAT(std::string(status.message()), HasSubstr(absl::StrCat("0x", absl::Hex(Va(memory.data() + 32)))));
    for (int lane = 0; lane < kWaveSize; ++lane) {
      ASSERT_EQ(memory[lane], 7u) << "lane " << lane;
      ASSERT_EQ(h.wave().vgpr(6)[lane], 0x5eedu) << "lane " << lane;
    }
  }
  h.memory().Map(memory.data() + 32, 32 * 4);
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"global_store_dword v[2:3], v1, off", "global_load_dword v6, v[2:3], off"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    EXPECT_EQ(memory[lane], 100u + lane);
    EXPECT_EQ(h.wave().vgpr(6)[lane], 100u + lane);
  }
}

TEST(FlatTest, AStoreAcrossTwoMappingsLandsWhole) {
  IsaHarness h(Target::kGfx90a);
  alignas(16) uint8_t memory[32] = {};
  h.memory().Map(memory, 14);  // two mappings meeting inside the store's bytes
  h.memory().Map(memory + 14, 18);
  h.wave().set_exec(1);
  SetAddress(h.wave(), 2, Va(memory + 12), 0);
  for (int k = 0; k < 2; ++k) h.wave().vgpr(4 + k)[0] = 0x04030201u + 0x04040404u * k;
  ASSERT_TRUE(h.Run(flat_encodings_gfx90a, {"global_store_dwordx2 v[2:3], v[4:5], off",
                                             "global_load_dwordx2 v[10:11], v[2:3], off"})
                  .ok());
  for (int k = 0; k < 8; ++k) EXPECT_EQ(memory[12 + k], k + 1);
  EXPECT_EQ(h.wave().vgpr(11)[0], 0x08070605u);
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
