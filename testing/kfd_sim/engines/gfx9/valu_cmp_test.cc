// VALU integer compares (valu_cmp.cc): every condition of i16/u16/i32/u32/i64/u64 in its e32 and e64 forms, as
// v_cmp and v_cmpx, encoded by llvm-mc-19 (testdata/valu_cmp.s) for gfx908, gfx90a and gfx942.
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/valu_test_util.h"
#include "testing/kfd_sim/engines/gfx9/valu_cmp_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/valu_cmp_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/valu_cmp_encodings_gfx942.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::AsmEncoding;

constexpr uint64_t kExec = ~(uint64_t{1} << 63);  // lane 63 inactive: its bit must be 0
constexpr uint64_t kUntouched = 0x5555aaaa5555aaaaull;

enum Rel : uint8_t { kLess, kEqual, kGreater };

// What each condition answers for each relation between src0 and src1 (rows in the opcode order f, lt, eq, le, gt,
// ne, ge, t; columns less, equal, greater).
constexpr struct {
  const char* name;
  bool answer[3];
} kConds[] = {
    {"f", {false, false, false}}, {"lt", {true, false, false}}, {"eq", {false, true, false}},
    {"le", {true, true, false}},  {"gt", {false, false, true}}, {"ne", {true, false, true}},
    {"ge", {false, true, true}},  {"t", {true, true, true}},
};

// Operand pairs and how they compare, signed and unsigned.
struct Pair {
  uint64_t a, b;
  Rel if_signed, if_unsigned;
};
// 16-bit: the high halves differ and must not matter.
constexpr Pair k16[] = {
    {0xabcd0001, 0x12340002, kLess, kLess},
    {0x0000ffff, 0x00000001, kLess, kGreater},  // -1 vs 1
    {0x11110005, 0x22220005, kEqual, kEqual},
    {0x00008000, 0x00007fff, kLess, kGreater},
};
constexpr Pair k32[] = {
    {1, 2, kLess, kLess},
    {0xffffffff, 1, kLess, kGreater},
    {5, 5, kEqual, kEqual},
    {0x80000000, 0x7fffffff, kLess, kGreater},
};
constexpr Pair k64[] = {
    {0x0000000100000000, 0x00000000ffffffff, kGreater, kGreater},  // the high dword decides
    {0xffffffffffffffff, 1, kLess, kGreater},
    {0x1234567800000000, 0x1234567800000000, kEqual, kEqual},
    {0x8000000000000000, 0x7fffffffffffffff, kLess, kGreater},
};

struct Type {
  const char* name;
  bool is_signed;
  std::span<const Pair> pairs;
};
constexpr Type kTypes[] = {
    {"i16", true, k16}, {"u16", false, k16}, {"i32", true, k32},
    {"u32", false, k32}, {"i64", true, k64}, {"u64", false, k64},
};

const std::array<TargetEncodings, 3> kTargets = Gfx9Targets(hipmem_testing::valu_cmp_encodings_gfx908,
                                                             hipmem_testing::valu_cmp_encodings_gfx90a,
                                                             hipmem_testing::valu_cmp_encodings_gfx942);

// a and b in v1/v2 (low dwords) and v[6:7]/v[8:9].
void SetPair(Wave& w, uint64_t a, uint64_t b) {
  Broadcast(w, 1, static_cast<uint32_t>(a));
  Broadcast(w, 2, static_cast<uint32_t>(b));
  Broadcast64(w, 6, a);
  Broadcast64(w, 8, b);
}

TEST(ValuCmpTest, EveryConditionOfEveryTypeInBothFormsAsCmpAndCmpx) {
  for (const TargetEncodings& t : kTargets) {
    for (const Type& type : kTypes) {
      const bool wide = std::string(type.name).ends_with("64");
      const std::string operands = wide ? "v[6:7], v[8:9]" : "v1, v2";
      for (const auto& cond : kConds) {
        for (const bool cmpx : {false, true}) {
          for (const bool e64 : {false, true}) {
            const std::string line = std::string(cmpx ? "v_cmpx_" : "v_cmp_") + cond.name + "_" + type.name +
                                     (e64 ? "_e64 s[2:3], " : "_e32 vcc, ") + operands;
            for (const Pair& p : type.pairs) {
              SCOPED_TRACE(std::string(t.name) + ": " + line + " a=" + std::to_string(p.a) +
                           " b=" + std::to_string(p.b));
              IsaHarness h(t.target);
              Wave& w = h.wave();
              SetPair(w, p.a, p.b);
              w.set_exec(kExec);
              w.set_vcc(kUntouched);
              w.Write64(2, kUntouched);
              ASSERT_TRUE(h.Run(t.encodings, {line.c_str()}).ok());
              const bool answer = cond.answer[type.is_signed ? p.if_signed : p.if_unsigned];
              const uint64_t want = answer ? kExec : 0;
              EXPECT_EQ(e64 ? w.Read64(2) : w.vcc(), want);
              EXPECT_EQ(e64 ? w.vcc() : w.Read64(2), kUntouched) << "the other mask was written";
              EXPECT_EQ(w.exec(), cmpx ? want : kExec);
            }
          }
        }
      }
    }
  }
}

TEST(ValuCmpTest, LanesCompareTheirOwnValues) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  for (int l = 0; l < kWaveSize; ++l) w.vgpr(1)[l] = static_cast<uint32_t>(l);
  Broadcast(w, 2, 31);
  w.set_exec(0xffffffff0000ffffull);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_cmp_encodings_gfx90a, {"v_cmp_lt_u32_e32 vcc, v1, v2"}).ok());
  EXPECT_EQ(w.vcc(), 0x000000000000ffffull);  // lanes 0-30 are below 31; 16-30 are inactive
  ASSERT_TRUE(h.Run(hipmem_testing::valu_cmp_encodings_gfx90a, {"v_cmpx_ne_u32_e64 s[2:3], v1, 0"}).ok());
  EXPECT_EQ(w.Read64(2), 0xfffffffffffffffeull & 0xffffffff0000ffffull);
  EXPECT_EQ(w.exec(), w.Read64(2));
}

TEST(ValuCmpTest, ExecZeroGivesAnEmptyMask) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  SetPair(w, 1, 1);
  w.set_exec(0);
  w.set_vcc(kUntouched);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_cmp_encodings_gfx90a, {"v_cmpx_t_u32_e32 vcc, v1, v2"}).ok());
  EXPECT_EQ(w.vcc(), 0u);
  EXPECT_EQ(w.exec(), 0u);
}

// A 32-bit literal feeding a 64-bit compare is sign-extended for the signed types, zero-extended for the unsigned.
TEST(ValuCmpTest, LiteralsAndInlineConstantsTakeTheOperandsWidth) {
  struct Row {
    const char* line;
    uint64_t a;
    uint64_t b;  // v2 / v[8:9]
    bool want;
  };
  constexpr Row kRows[] = {
      {"v_cmp_lt_i64_e32 vcc, 0x80000000, v[6:7]", 0, 0, true},                    // -2^31 < 0
      {"v_cmp_lt_u64_e32 vcc, 0x80000000, v[6:7]", 0x100000000, 0, true},          // 2^31 < 2^32
      {"v_cmp_lt_u64_e32 vcc, 0x80000000, v[6:7]", 0x7fffffff, 0, false},
      {"v_cmp_eq_u32_e64 s[2:3], v1, -1", 0xffffffff, 0, true},
      {"v_cmp_gt_i16_e32 vcc, -1, v1", 0x0000fffe, 0, true},                        // -1 > -2
      {"v_cmp_eq_u16_e32 vcc, 0x1234, v1", 0xffff1234, 0, true},
  };
  for (const Row& r : kRows) {
    SCOPED_TRACE(r.line);
    IsaHarness h(Target::kGfx90a);
    Wave& w = h.wave();
    SetPair(w, r.a, r.b);
    ASSERT_TRUE(h.Run(hipmem_testing::valu_cmp_encodings_gfx90a, {r.line}).ok());
    const bool e64 = std::string(r.line).find("_e64") != std::string::npos;
    EXPECT_EQ(e64 ? w.Read64(2) : w.vcc(), r.want ? ~uint64_t{0} : 0);
  }
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
