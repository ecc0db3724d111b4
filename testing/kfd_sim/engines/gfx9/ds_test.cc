// DS (LDS) instructions, each encoded by llvm-mc-19, on one wave and the harness's LDS.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/ds_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/ds_gds_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/ds_gfx942_encodings_gfx942.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/memory_test_cases.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::ds_encodings_gfx90a;
using hipmem_testing::ds_gfx942_encodings_gfx942;

void Fill(Wave& w, int reg, uint32_t (*value)(int lane)) {
  for (int lane = 0; lane < kWaveSize; ++lane) w.vgpr(reg)[lane] = value(lane);
}

uint32_t LdsDword(IsaHarness& h, uint32_t offset) {
  uint32_t v;
  std::memcpy(&v, &h.lds()[offset], 4);
  return v;
}

TEST(DsTest, ReadsExtendOrKeepTheOtherHalf) {
  for (const LoadCase& c : kLoadCases) {
    SCOPED_TRACE(c.ds);
    IsaHarness h(Target::kGfx90a);
    Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(16 * lane); });
    FillLoadSlots(h.wave(), h.lds().data());
    ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {c.ds}).ok());
    ExpectLoaded(h.wave(), c, h.lds().data());
  }
}

TEST(DsTest, WritesStoreTheirBytesAndNoMore) {
  for (const StoreCase& c : kStoreCases) {
    SCOPED_TRACE(c.ds);
    IsaHarness h(Target::kGfx90a);
    Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(32 * lane); });
    FillStoreData(h.wave(), h.lds().data());
    ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {c.ds}).ok());
    ExpectStored(h.wave(), c, h.lds().data());
  }
}

TEST(DsTest, OffsetsAddToTheAddress) {
  IsaHarness h(Target::kGfx90a);
  Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(4 * lane); });
  Fill(h.wave(), 4, [](int lane) { return 0x900u + static_cast<uint32_t>(lane); });
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_write_b32 v0, v4 offset:65532", "ds_read_b32 v10, v0 offset:65532"}).ok());
  EXPECT_EQ(LdsDword(h, 65532), 0x900u);                        // lane 0: the last dword of 64 KiB
  for (int lane = 1; lane < kWaveSize; ++lane) EXPECT_EQ(h.wave().vgpr(10)[lane], 0u) << "past the LDS: 0";
  EXPECT_EQ(h.wave().vgpr(10)[0], 0x900u);
}

TEST(DsTest, AddressPlusOffsetWrapsAt32Bits) {
  IsaHarness h(Target::kGfx90a);
  h.wave().set_exec(1);
  h.wave().vgpr(0)[0] = 0xfffffffcu;  // -4
  h.wave().vgpr(4)[0] = 0x1234;
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_write_b16 v0, v4 offset:510", "ds_read_u16 v10, v0 offset:510"}).ok());
  EXPECT_EQ(h.lds()[506], 0x34);
  EXPECT_EQ(h.lds()[507], 0x12);
  EXPECT_EQ(h.wave().vgpr(10)[0], 0x1234u);
}

TEST(DsTest, Read2AndWrite2ScaleTheirOffsetsByTheElement) {
  struct Row {
    const char* write;
    const char* read;
    uint32_t first, second;  // byte offsets of the two elements
    int dwords;              // per element
  };
  constexpr Row kRows[] = {
      {"ds_write2_b32 v0, v4, v5 offset0:1 offset1:255", "ds_read2_b32 v[10:11], v0 offset0:1 offset1:255", 4, 1020, 1},
      {"ds_write2st64_b32 v0, v4, v5 offset0:1 offset1:3", "ds_read2st64_b32 v[10:11], v0 offset0:1 offset1:3", 256,
       768, 1},
      {"ds_write2_b64 v0, v[4:5], v[6:7] offset0:1 offset1:2", "ds_read2_b64 v[10:13], v0 offset0:1 offset1:2", 8, 16,
       2},
      {"ds_write2st64_b64 v0, v[4:5], v[6:7] offset0:1 offset1:2",
       "ds_read2st64_b64 v[10:13], v0 offset0:1 offset1:2", 512, 1024, 2},
  };
  for (const Row& r : kRows) {
    SCOPED_TRACE(r.write);
    IsaHarness h(Target::kGfx90a);
    h.wave().set_exec(1);
    h.wave().vgpr(0)[0] = 64;
    uint32_t second_data = r.dwords == 1 ? 5 : 6;  // data1 starts at v5 (b32) or v6 (b64)
    for (int k = 0; k < 4; ++k) h.wave().vgpr(4 + k)[0] = 0xa0u + static_cast<uint32_t>(k);
    ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {r.write, r.read}).ok());
    for (int k = 0; k < r.dwords; ++k) {
      EXPECT_EQ(LdsDword(h, 64 + r.first + 4 * k), 0xa0u + k);
      EXPECT_EQ(LdsDword(h, 64 + r.second + 4 * k), 0xa0u + (second_data - 4) + k);
      EXPECT_EQ(h.wave().vgpr(10 + k)[0], 0xa0u + k);
      EXPECT_EQ(h.wave().vgpr(10 + r.dwords + k)[0], 0xa0u + (second_data - 4) + k);
    }
  }
}

TEST(DsTest, Read2TakesBothAddressesBeforeOverwritingTheAddressRegister) {
  IsaHarness h(Target::kGfx90a);
  h.wave().set_exec(1);
  h.wave().vgpr(0)[0] = 16;
  std::memcpy(&h.lds()[16], "\x01\x00\x00\x00\x02\x00\x00\x00", 8);
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_read2_b32 v[0:1], v0 offset1:1"}).ok());
  EXPECT_EQ(h.wave().vgpr(0)[0], 1u);
  EXPECT_EQ(h.wave().vgpr(1)[0], 2u);
}

void RunAtomicCases(Target target, std::span<const hipmem_testing::AsmEncoding> encodings, bool gfx942_rows) {
  for (const AtomicCase& c : kAtomicCases) {
    if (c.ds_rtn == nullptr || c.gfx942 != gfx942_rows) continue;
    SCOPED_TRACE(absl::StrCat(c.name, ": ", c.ds_rtn));
    IsaHarness h(target);
    const uint32_t at = c.bits == 64 ? 16 : 8;
    const uint64_t mask = c.bits == 64 ? ~uint64_t{0} : 0xffffffffull;
    h.wave().set_exec(1);
    h.wave().vgpr(0)[0] = 8;
    h.wave().vgpr(8)[0] = 16;
    SetAtomicOperands(h.wave(), c);
    auto set = [&](uint64_t v) { std::memcpy(&h.lds()[at], &v, c.bits / 8); };
    auto get = [&] {
      uint64_t v = 0;
      std::memcpy(&v, &h.lds()[at], c.bits / 8);
      return v & mask;
    };
    set(c.memory);
    ASSERT_TRUE(h.Run(encodings, {c.ds_rtn}).ok());
    EXPECT_EQ(get(), c.expected);
    EXPECT_EQ(ReadResult(h.wave(), c.bits == 64 ? 0 : 1, c.bits, 0), c.memory) << "the value before";
    if (c.ds == nullptr) continue;
    SCOPED_TRACE(c.ds);
    set(c.memory);
    h.wave().vgpr(1)[0] = 0xabcdu;
    ASSERT_TRUE(h.Run(encodings, {c.ds}).ok());
    EXPECT_EQ(get(), c.expected);
    EXPECT_EQ(h.wave().vgpr(1)[0], 0xabcdu) << "the form without return writes no register";
  }
}

TEST(DsTest, AtomicsComputeTheTableOnGfx90a) { RunAtomicCases(Target::kGfx90a, ds_encodings_gfx90a, false); }

TEST(DsTest, PackedAddsComputeTheTableOnGfx942) {
  RunAtomicCases(Target::kGfx942, ds_gfx942_encodings_gfx942, true);
}

TEST(DsTest, AddF32KeepsDenormalsWhenTheModeDoes) {
  IsaHarness h(Target::kGfx90a);
  h.wave().set_exec(1);
  h.wave().vgpr(0)[0] = 0;
  h.wave().vgpr(4)[0] = 1;  // the smallest denormal
  std::memcpy(&h.lds()[0], "\x01\x00\x00\x00", 4);
  h.wave().mode = 3u << 4;  // f32 denormals kept
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_add_rtn_f32 v1, v0, v4"}).ok());
  EXPECT_EQ(LdsDword(h, 0), 2u);
  h.wave().mode = 0;  // flushed
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_add_rtn_f32 v1, v0, v4"}).ok());
  EXPECT_EQ(LdsDword(h, 0), 0u);
}

TEST(DsTest, AtomicsFromEveryLaneApplyInLaneOrder) {
  IsaHarness h(Target::kGfx90a);
  Fill(h.wave(), 0, [](int) { return 40u; });
  Fill(h.wave(), 4, [](int lane) { return static_cast<uint32_t>(lane + 1); });
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_add_rtn_u32 v1, v0, v4"}).ok());
  EXPECT_EQ(LdsDword(h, 40), 64u * 65 / 2);
  uint32_t before = 0;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    EXPECT_EQ(h.wave().vgpr(1)[lane], before);
    before += static_cast<uint32_t>(lane + 1);
  }
}

TEST(DsTest, Exchange2SwapsTwoElements) {
  IsaHarness h(Target::kGfx90a);
  h.wave().set_exec(1);
  h.wave().vgpr(0)[0] = 0;
  h.wave().vgpr(4)[0] = 0x44;
  h.wave().vgpr(5)[0] = 0x55;
  std::memcpy(&h.lds()[4], "\x11\x00\x00\x00", 4);
  std::memcpy(&h.lds()[512], "\x22\x00\x00\x00", 4);
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_wrxchg2_rtn_b32 v[10:11], v0, v4, v5 offset0:1 offset1:128"}).ok());
  EXPECT_EQ(LdsDword(h, 4), 0x44u);
  EXPECT_EQ(LdsDword(h, 512), 0x55u);
  EXPECT_EQ(h.wave().vgpr(10)[0], 0x11u);
  EXPECT_EQ(h.wave().vgpr(11)[0], 0x22u);
  // st64 and b64: element offsets of 64 elements.
  h.wave().vgpr(6)[0] = 0x66;
  h.wave().vgpr(7)[0] = 0x77;
  ASSERT_TRUE(
      h.Run(ds_encodings_gfx90a, {"ds_wrxchg2st64_rtn_b64 v[10:13], v0, v[4:5], v[6:7] offset0:1 offset1:2"}).ok());
  EXPECT_EQ(LdsDword(h, 512), 0x44u);
  EXPECT_EQ(LdsDword(h, 516), 0x55u);
  EXPECT_EQ(LdsDword(h, 1024), 0x66u);
  EXPECT_EQ(LdsDword(h, 1028), 0x77u);
  EXPECT_EQ(h.wave().vgpr(10)[0], 0x55u);  // what the b32 exchange left at 512
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_wrxchg2st64_rtn_b32 v[10:11], v0, v4, v5 offset0:0 offset1:1"}).ok());
  EXPECT_EQ(LdsDword(h, 0), 0x44u);
  EXPECT_EQ(LdsDword(h, 256), 0x55u);
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_wrxchg2_rtn_b64 v[10:13], v0, v[4:5], v[6:7] offset0:1 offset1:3"}).ok());
  EXPECT_EQ(LdsDword(h, 8), 0x44u);
  EXPECT_EQ(LdsDword(h, 24), 0x66u);
}

TEST(DsTest, OutOfRangeReadsZeroAndDropsWritesAndAtomics) {
  IsaHarness h(Target::kGfx90a);
  h.lds().assign(1024, 0x11);  // the workgroup's allocation
  h.wave().set_exec(0b11);
  h.wave().vgpr(0)[0] = 1020;  // in range
  h.wave().vgpr(0)[1] = 1024;  // just past it
  Fill(h.wave(), 4, [](int) { return 0x77u; });
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a,
                    {"ds_read_b32 v10, v0", "ds_write_b32 v0, v4", "ds_add_rtn_u32 v1, v0, v4", "ds_read_b64 v[12:13], v0"})
                  .ok());
  EXPECT_EQ(h.wave().vgpr(10)[0], 0x11111111u);
  EXPECT_EQ(h.wave().vgpr(10)[1], 0u);
  EXPECT_EQ(h.wave().vgpr(1)[0], 0x77u);
  EXPECT_EQ(h.wave().vgpr(1)[1], 0u);
  EXPECT_EQ(LdsDword(h, 1020), 0xeeu);
  EXPECT_EQ(h.wave().vgpr(12)[0], 0u) << "a b64 read reaching past the end reads 0";
  EXPECT_EQ(h.lds().size(), 1024u);
}

TEST(DsTest, SwizzlePermutesWithinQuadsOrByBitMasks) {
  struct Row {
    const char* line;
    int (*source)(int lane);
  };
  constexpr Row kRows[] = {
      {"ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,1,2,3,0)", [](int l) { return (l & ~3) | ((l + 1) & 3); }},
      {"ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)", [](int l) { return l ^ 16; }},
      {"ds_swizzle_b32 v1, v2 offset:swizzle(REVERSE,8)", [](int l) { return l ^ 7; }},
      {"ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,8,3)", [](int l) { return (l & ~7) | 3; }},
      // 0x906 (LLVM's BITMASK_PERM "01pi0"): and 0b00110, or 0b01000, xor 0b00010: bit 4 forced 0, bit 3 forced 1,
      // bit 2 kept, bit 1 inverted, bit 0 forced 0.
      {"ds_swizzle_b32 v1, v2 offset:2310",
       [](int l) { return (l & 0x20) | 0x8 | (l & 4) | ((l & 2) ^ 2); }},
  };
  for (const Row& r : kRows) {
    SCOPED_TRACE(r.line);
    IsaHarness h(Target::kGfx90a);
    Fill(h.wave(), 2, [](int lane) { return 0x300u + static_cast<uint32_t>(lane); });
    Fill(h.wave(), 1, [](int) { return 0xabcdu; });
    const uint64_t exec = ~uint64_t{0} & ~(uint64_t{1} << 10);  // lane 10 off: it reads nothing and gives 0
    h.wave().set_exec(exec);
    ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {r.line}).ok());
    for (int lane = 0; lane < kWaveSize; ++lane) {
      const int s = r.source(lane);
      const uint32_t expected = lane == 10 ? 0xabcdu : s == 10 ? 0u : 0x300u + static_cast<uint32_t>(s);
      ASSERT_EQ(h.wave().vgpr(1)[lane], expected) << "lane " << lane;
    }
  }
}

TEST(DsTest, BpermuteReadsAndPermuteWritesTheLaneTheAddressNames) {
  IsaHarness h(Target::kGfx90a);
  Fill(h.wave(), 2, [](int lane) { return 0x500u + static_cast<uint32_t>(lane); });
  // Lane l names lane (63 - l) with the offset of 4 added: address 4 * (62 - l), plus 256 (wraps modulo 64 lanes).
  Fill(h.wave(), 0, [](int lane) { return 4u * static_cast<uint32_t>(62 - lane + 64) + 256; });
  h.wave().set_exec(~uint64_t{0} & ~(uint64_t{1} << 5));
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_bpermute_b32 v1, v0, v2 offset:4", "ds_permute_b32 v3, v0, v2 offset:4"}).ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    if (lane == 5) continue;
    const int other = 63 - lane;
    EXPECT_EQ(h.wave().vgpr(1)[lane], other == 5 ? 0u : 0x500u + other) << "bpermute lane " << lane;
    EXPECT_EQ(h.wave().vgpr(3)[lane], other == 5 ? 0u : 0x500u + other) << "permute lane " << lane;
  }
  // permute: when two lanes name one target the higher lane wins; a lane nobody names gets 0.
  Fill(h.wave(), 0, [](int lane) { return lane < 2 ? 0u : 4u * static_cast<uint32_t>(lane); });
  h.wave().set_exec(~uint64_t{0});
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_permute_b32 v3, v0, v2"}).ok());
  EXPECT_EQ(h.wave().vgpr(3)[0], 0x501u);
  EXPECT_EQ(h.wave().vgpr(3)[1], 0u);
  EXPECT_EQ(h.wave().vgpr(3)[2], 0x502u);
}

TEST(DsTest, AppendAndConsumeCountEnabledLanesAtM0) {
  IsaHarness h(Target::kGfx90a);
  h.wave().s[op::kM0] = 0x100;
  std::memcpy(&h.lds()[0x108], "\x0a\x00\x00\x00", 4);
  h.wave().set_exec(0xf0f);
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_append v1 offset:8"}).ok());
  EXPECT_EQ(LdsDword(h, 0x108), 18u);
  for (int lane = 0; lane < 12; ++lane) EXPECT_EQ(h.wave().vgpr(1)[lane], ((0xf0f >> lane) & 1) != 0 ? 10u : 0u);
  ASSERT_TRUE(h.Run(ds_encodings_gfx90a, {"ds_consume v2 offset:8"}).ok());
  EXPECT_EQ(LdsDword(h, 0x108), 10u);
  EXPECT_EQ(h.wave().vgpr(2)[0], 18u);
}

// A queue has no GDS partition (gfx908) or the GPU no GDS at all (gfx90a, gfx942); see ds.cc.
TEST(DsTest, GdsOnGfx908IsAnEmptyPartition) {
  using hipmem_testing::ds_gds_encodings_gfx908;
  IsaHarness h(Target::kGfx908);
  Fill(h.wave(), 0, [](int lane) { return static_cast<uint32_t>(lane) * 8; });
  Fill(h.wave(), 4, [](int lane) { return 0x100u + static_cast<uint32_t>(lane); });
  Fill(h.wave(), 5, [](int) { return 7u; });
  for (int r : {10, 11, 12, 13, 14}) Fill(h.wave(), r, [](int) { return 0xdeadbeefu; });
  std::fill(h.lds().begin(), h.lds().end(), static_cast<unsigned char>(0x5a));
  h.wave().s[op::kM0] = 0xffffffffu;  // whatever M0 says, the partition is empty
  ASSERT_TRUE(h.Run(ds_gds_encodings_gfx908,
                    {"ds_write_b32 v0, v4 gds", "ds_add_u32 v0, v4 gds", "ds_write2_b32 v0, v4, v5 offset1:1 gds",
                     "ds_read_b32 v10, v0 gds", "ds_add_rtn_u32 v11, v0, v4 gds",
                     "ds_read2_b32 v[12:13], v0 offset1:1 gds", "ds_append v14 gds"})
                  .ok());
  for (int lane = 0; lane < kWaveSize; ++lane) {
    for (int r : {10, 11, 12, 13, 14}) EXPECT_EQ(h.wave().vgpr(r)[lane], 0u) << "v" << r << " lane " << lane;
  }
  EXPECT_TRUE(std::all_of(h.lds().begin(), h.lds().end(), [](unsigned char b) { return b == 0x5a; }))
      << "GDS is not the workgroup's LDS";
}

TEST(DsTest, GdsWhereTheGpuHasNoneIsAnIllegalInstruction) {
  for (Target target : {Target::kGfx90a, Target::kGfx942}) {
    IsaHarness h(target);
    const absl::Status status = h.Run(hipmem_testing::ds_gds_encodings_gfx908, {"ds_add_u32 v0, v4 gds"});
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(status.message().find("without GDS"), std::string_view::npos) << status;
  }
}

// Global wave sync needs resources the KFD gives a queue only on request (ALLOC_QUEUE_GWS): without them every GWS
// operation is a queue error, on each target.
TEST(DsTest, GwsWithoutAnAllocationIsAnIllegalInstruction) {
  for (Target target : {Target::kGfx908, Target::kGfx90a, Target::kGfx942}) {
    for (const char* line : {"ds_gws_init v2 offset:4 gds", "ds_gws_sema_v offset:4 gds", "ds_gws_sema_br v2 gds",
                             "ds_gws_sema_p gds", "ds_gws_barrier v2 gds", "ds_gws_sema_release_all gds"}) {
      SCOPED_TRACE(line);
      IsaHarness h(target);
      const absl::Status status = h.Run(hipmem_testing::ds_gds_encodings_gfx908, {line});
      EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_NE(status.message().find("no global wave sync"), std::string_view::npos) << status;
    }
  }
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
