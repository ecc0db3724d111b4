// MFMA: every opcode LLVM's assembler knows for gfx908, gfx90a and gfx942 (encoded by llvm-mc-19 from
// testdata/mfma_<target>.s), run on random small-integer matrices (exact in every element type, so the products and
// sums are exact and the check is bit for bit) against a host matrix multiply, in each register form the target
// has: C and D in AGPRs, in VGPRs, and C as an inline constant.
//
// The test places and finds matrix elements with its own register<->element mapping, written from the register side
// (which element a lane and register hold), and checks that mapping against the examples AMD's matrix instruction
// calculator documents.
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/mfma_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/mfma_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/mfma_encodings_gfx942.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::AsmEncoding;

enum class T : uint8_t { kF32, kXf32, kF16, kBf16, kI8, kFp8, kBf8, kF64 };

int Bits(T t) {
  switch (t) {
    case T::kF16:
    case T::kBf16: return 16;
    case T::kI8:
    case T::kFp8:
    case T::kBf8: return 8;
    case T::kF64: return 64;
    default: return 32;
  }
}

struct Op {
  const char* name;
  int m;  // == n
  int k;
  int blocks;
  T a, b;
};

// A small integer (|v| <= 8) in a float format with `mantissa` explicit bits and exponent bias `bias`.
uint32_t SmallFloat(int v, int mantissa, int bias, int sign_bit) {
  if (v == 0) return 0;
  const uint32_t magnitude = static_cast<uint32_t>(v < 0 ? -v : v);
  const int e = 31 - std::countl_zero(magnitude);
  const uint32_t bits = (static_cast<uint32_t>(bias + e) << mantissa) | ((magnitude - (1u << e)) << (mantissa - e));
  return v < 0 ? bits | (1u << sign_bit) : bits;
}

uint64_t Encode(T t, int v) {
  switch (t) {
    case T::kF32:
    case T::kXf32: return std::bit_cast<uint32_t>(static_cast<float>(v));
    case T::kBf16: return std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16;
    case T::kF16: return SmallFloat(v, 10, 15, 15);
    case T::kFp8: return SmallFloat(v, 3, 8, 7);   // E4M3 FNUZ
    case T::kBf8: return SmallFloat(v, 2, 16, 7);  // E5M2 FNUZ
    case T::kI8: return static_cast<uint8_t>(static_cast<int8_t>(v));
    case T::kF64: return std::bit_cast<uint64_t>(static_cast<double>(v));
  }
  return 0;
}

// The register side of the layout. Inputs: lane l holds, in element t (from the low bits up), row/column l % M of
// block (l / M) % blocks at k = (l / M / blocks) * E + t.
struct InElement {
  int block, row, k;
};
InElement InputAt(const Op& op, int lane, int item) {
  const int per_lane = op.k * op.m * op.blocks / 64;
  const int q = lane / op.m;
  return InElement{q % op.blocks, lane % op.m, (q / op.blocks) * per_lane + item};
}

// Outputs: register r (a pair for f64), lane l. Lanes come in groups of N (the column); a group holds a multi-row
// (4 rows of 32-bit results in consecutive registers, 1 row of 64-bit ones) of one block; groups go to blocks first
// when a block's matrix is smaller than a register, then to successive multi-rows.
struct OutElement {
  int block, i, j;
};
OutElement OutputAt(const Op& op, int reg, int lane) {
  const int n = op.m;
  const int h = op.a == T::kF64 ? 1 : 4;
  const int per_register = std::max(1, 64 * h / (op.m * n));  // blocks sharing one register
  const int multirows = 64 / n;
  const int regs_per_group = std::max(1, op.m * n * per_register / 64);
  const int group = lane / n;
  const int rem = reg % regs_per_group;
  const int i = (rem / h) * h * multirows + (group / per_register) * h + rem % h;
  return OutElement{(reg / regs_per_group) * per_register + group % per_register, i, lane % n};
}

int OutRegs(const Op& op) { return op.m * op.m * op.blocks / 64; }  // registers (pairs for f64) of D

// Documented examples of the calculator's register layouts (CDNA2): A[1][2] of block 4 of v_mfma_f32_4x4x4f16 is in
// the low half of v1, lane 17; D[3][2] of block 1 is v3 lane 6, and v2 lane 33 holds D[2][1] of block 8;
// v_mfma_f64_4x4x4f64 keeps D[i][j] of block b in lane 16i + 4b + j; v_mfma_f32_4x4x1f32 keeps D[i][j] of block b
// in register i, lane 4b + j.
TEST(MfmaTest, LayoutMatchesTheCalculatorsExamples) {
  const Op f16{"v_mfma_f32_4x4x4f16", 4, 4, 16, T::kF16, T::kF16};
  const InElement a = InputAt(f16, 17, 2);  // v1 low half = element 2 of the lane's v[0:1]
  EXPECT_EQ(a.block, 4);
  EXPECT_EQ(a.row, 1);
  EXPECT_EQ(a.k, 2);
  OutElement d = OutputAt(f16, 3, 6);
  EXPECT_EQ(d.block, 1);
  EXPECT_EQ(d.i, 3);
  EXPECT_EQ(d.j, 2);
  d = OutputAt(f16, 2, 33);
  EXPECT_EQ(d.block, 8);
  EXPECT_EQ(d.i, 2);
  EXPECT_EQ(d.j, 1);
  const Op f64{"v_mfma_f64_4x4x4f64", 4, 4, 4, T::kF64, T::kF64};
  for (int lane = 0; lane < 64; ++lane) {
    d = OutputAt(f64, 0, lane);
    EXPECT_EQ(16 * d.i + 4 * d.block + d.j, lane);
  }
  const Op f32{"v_mfma_f32_4x4x1f32", 4, 1, 16, T::kF32, T::kF32};
  for (int lane = 0; lane < 64; ++lane) {
    for (int r = 0; r < 4; ++r) {
      d = OutputAt(f32, r, lane);
      EXPECT_EQ(d.i, r);
      EXPECT_EQ(4 * d.block + d.j, lane);
    }
  }
  // 16x16x2bf16 (CDNA2's BLGP example): A row i of block b at lane 16b + i, k in the halves.
  const Op bf16{"v_mfma_f32_16x16x2bf16", 16, 2, 4, T::kBf16, T::kBf16};
  const InElement e = InputAt(bf16, 37, 1);
  EXPECT_EQ(e.block, 2);
  EXPECT_EQ(e.row, 5);
  EXPECT_EQ(e.k, 1);
}

enum class Form : uint8_t { kAcc, kVgpr, kConst };

int InDwords(const Op& op) { return std::max(1, op.k * op.m * op.blocks / 64 * Bits(op.a) / 32); }

std::string Range(char file, int first, int count) {
  if (count == 1) return std::string(1, file) + std::to_string(first);
  return std::string(1, file) + "[" + std::to_string(first) + ":" + std::to_string(first + count - 1) + "]";
}

// The line testdata/mfma_*.s has for `op` in `form`: A at v0 (or a0), B at v2, D at 32, C at 64 or the constant 1.
std::string Line(const Op& op, Form form, bool acc_ab = false) {
  const int out = OutRegs(op) * (op.a == T::kF64 ? 2 : 1);
  const char ab = acc_ab ? 'a' : 'v';
  const char cd = form == Form::kAcc ? 'a' : 'v';
  const std::string c = form == Form::kConst ? (op.a == T::kI8 ? "1" : "1.0") : Range(cd, 64, out);
  return std::string(op.name) + " " + Range(cd, 32, out) + ", " + Range(ab, 0, InDwords(op)) + ", " +
         Range(ab, 2, InDwords(op)) + ", " + c;
}

// Deterministic small integers.
class Values {
 public:
  explicit Values(uint32_t seed) : state_(seed) {}
  int Next(int limit) {
    state_ = state_ * 1664525u + 1013904223u;
    return static_cast<int>((state_ >> 16) % static_cast<uint32_t>(2 * limit + 1)) - limit;
  }

 private:
  uint32_t state_;
};

// Which blocks of A and B block b multiplies (the CBSZ/ABID and BLGP tests change them).
struct Routing {
  int (*a_block)(int block, int blocks) = [](int b, int) { return b; };
  int (*b_block)(int block, int blocks) = [](int b, int) { return b; };
  uint8_t negate = 0;  // gfx942 f64: A, B, C
};

constexpr uint32_t kSentinel = 0xdeadbeef;

void RunOne(Target target, std::span<const AsmEncoding> encodings, const Op& op, Form form, bool acc_ab,
            const std::string& line, const Routing& routing = {}) {
  SCOPED_TRACE(line);
  IsaHarness h(target);
  Wave& w = h.wave();
  Values values(static_cast<uint32_t>(line.size() * 7919));
  const int n = op.m;
  std::vector<int> a(static_cast<size_t>(op.blocks) * op.m * op.k), b(static_cast<size_t>(op.blocks) * op.k * n),
      c(static_cast<size_t>(op.blocks) * op.m * n);
  const int limit = op.a == T::kI8 ? 8 : 4;
  for (int& v : a) v = values.Next(limit);
  for (int& v : b) v = values.Next(limit);
  for (int& v : c) v = form == Form::kConst ? 1 : values.Next(8);

  // A and B into registers 0.. and 2.. (AGPRs for acc_ab), lane by lane.
  auto place_input = [&](int base, T type, bool is_b) {
    const int per_lane = op.k * op.m * op.blocks / 64;
    for (int lane = 0; lane < 64; ++lane) {
      for (int t = 0; t < per_lane; ++t) {
        const InElement e = InputAt(op, lane, t);
        const int v = is_b ? b[(static_cast<size_t>(e.block) * op.k + e.k) * n + e.row]
                           : a[(static_cast<size_t>(e.block) * op.m + e.row) * op.k + e.k];
        const uint64_t raw = Encode(type, v);
        const int bits = Bits(type);
        auto reg = [&](int r) { return acc_ab ? w.agpr(base + r) : w.vgpr(base + r); };
        if (bits == 64) {
          reg(2 * t)[lane] = static_cast<uint32_t>(raw);
          reg(2 * t + 1)[lane] = static_cast<uint32_t>(raw >> 32);
        } else {
          uint32_t& dword = reg(t * bits / 32)[lane];
          if ((t * bits) % 32 == 0) dword = 0;
          dword |= static_cast<uint32_t>(raw) << ((t * bits) % 32);
        }
      }
    }
  };
  place_input(0, op.a, false);
  place_input(2, op.b, true);

  const bool wide = op.a == T::kF64;
  const bool agpr_cd = form == Form::kAcc;
  auto cd_reg = [&](int r) { return agpr_cd ? w.agpr(r) : w.vgpr(r); };
  const int out_dwords = OutRegs(op) * (wide ? 2 : 1);
  for (int r = 0; r <= out_dwords; ++r) {
    for (int lane = 0; lane < 64; ++lane) cd_reg(32 + r)[lane] = kSentinel;
  }
  if (form != Form::kConst) {
    for (int r = 0; r < OutRegs(op); ++r) {
      for (int lane = 0; lane < 64; ++lane) {
        const OutElement e = OutputAt(op, r, lane);
        const int v = c[(static_cast<size_t>(e.block) * op.m + e.i) * n + e.j];
        if (wide) {
          const uint64_t raw = Encode(T::kF64, v);
          cd_reg(64 + 2 * r)[lane] = static_cast<uint32_t>(raw);
          cd_reg(64 + 2 * r + 1)[lane] = static_cast<uint32_t>(raw >> 32);
        } else {
          cd_reg(64 + r)[lane] = static_cast<uint32_t>(op.a == T::kI8 ? static_cast<uint32_t>(v) : Encode(T::kF32, v));
        }
      }
    }
  }

  const absl::Status status = h.Run(encodings, {line.c_str()});
  ASSERT_TRUE(status.ok()) << status;

  int mismatches = 0;
  for (int r = 0; r < OutRegs(op); ++r) {
    for (int lane = 0; lane < 64; ++lane) {
      const OutElement e = OutputAt(op, r, lane);
      const int ab = routing.a_block(e.block, op.blocks);
      const int bb = routing.b_block(e.block, op.blocks);
      int64_t sum = c[(static_cast<size_t>(e.block) * op.m + e.i) * n + e.j] * ((routing.negate & 4) != 0 ? -1 : 1);
      for (int k = 0; k < op.k; ++k) {
        const int64_t x = a[(static_cast<size_t>(ab) * op.m + e.i) * op.k + k] * ((routing.negate & 1) != 0 ? -1 : 1);
        const int64_t y = b[(static_cast<size_t>(bb) * op.k + k) * n + e.j] * ((routing.negate & 2) != 0 ? -1 : 1);
        sum += x * y;
      }
      uint64_t expect, got;
      if (wide) {
        expect = std::bit_cast<uint64_t>(static_cast<double>(sum));
        got = uint64_t{cd_reg(32 + 2 * r)[lane]} | (uint64_t{cd_reg(32 + 2 * r + 1)[lane]} << 32);
      } else {
        expect = op.a == T::kI8 ? static_cast<uint32_t>(sum) : std::bit_cast<uint32_t>(static_cast<float>(sum));
        got = cd_reg(32 + r)[lane];
      }
      if (expect != got && ++mismatches <= 4) {
        ADD_FAILURE() << "D[" << e.i << "][" << e.j << "] of block " << e.block << " (register " << r << ", lane "
                      << lane << "): got 0x" << std::hex << got << ", want 0x" << expect;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
  if (out_dwords < 32) {
    EXPECT_EQ(cd_reg(32 + out_dwords)[0], kSentinel) << "wrote past D";
  }
}

constexpr T F32 = T::kF32, F16 = T::kF16, BF16 = T::kBf16, I8 = T::kI8, F64 = T::kF64, XF32 = T::kXf32,
            FP8 = T::kFp8, BF8 = T::kBf8;

const Op kGfx908[] = {
    {"v_mfma_f32_32x32x1f32", 32, 1, 2, F32, F32},    {"v_mfma_f32_16x16x1f32", 16, 1, 4, F32, F32},
    {"v_mfma_f32_4x4x1f32", 4, 1, 16, F32, F32},      {"v_mfma_f32_32x32x2f32", 32, 2, 1, F32, F32},
    {"v_mfma_f32_16x16x4f32", 16, 4, 1, F32, F32},    {"v_mfma_f32_32x32x4f16", 32, 4, 2, F16, F16},
    {"v_mfma_f32_16x16x4f16", 16, 4, 4, F16, F16},    {"v_mfma_f32_4x4x4f16", 4, 4, 16, F16, F16},
    {"v_mfma_f32_32x32x8f16", 32, 8, 1, F16, F16},    {"v_mfma_f32_16x16x16f16", 16, 16, 1, F16, F16},
    {"v_mfma_i32_32x32x4i8", 32, 4, 2, I8, I8},       {"v_mfma_i32_16x16x4i8", 16, 4, 4, I8, I8},
    {"v_mfma_i32_4x4x4i8", 4, 4, 16, I8, I8},         {"v_mfma_i32_32x32x8i8", 32, 8, 1, I8, I8},
    {"v_mfma_i32_16x16x16i8", 16, 16, 1, I8, I8},     {"v_mfma_f32_32x32x2bf16", 32, 2, 2, BF16, BF16},
    {"v_mfma_f32_16x16x2bf16", 16, 2, 4, BF16, BF16}, {"v_mfma_f32_4x4x2bf16", 4, 2, 16, BF16, BF16},
    {"v_mfma_f32_32x32x4bf16", 32, 4, 1, BF16, BF16}, {"v_mfma_f32_16x16x8bf16", 16, 8, 1, BF16, BF16},
};

const Op kGfx90aOnly[] = {
    {"v_mfma_f32_32x32x4bf16_1k", 32, 4, 2, BF16, BF16},  {"v_mfma_f32_16x16x4bf16_1k", 16, 4, 4, BF16, BF16},
    {"v_mfma_f32_4x4x4bf16_1k", 4, 4, 16, BF16, BF16},    {"v_mfma_f32_32x32x8bf16_1k", 32, 8, 1, BF16, BF16},
    {"v_mfma_f32_16x16x16bf16_1k", 16, 16, 1, BF16, BF16}, {"v_mfma_f64_16x16x4f64", 16, 4, 1, F64, F64},
    {"v_mfma_f64_4x4x4f64", 4, 4, 4, F64, F64},
};

const Op kGfx942[] = {
    {"v_mfma_f32_16x16x8_xf32", 16, 8, 1, XF32, XF32},       {"v_mfma_f32_32x32x4_xf32", 32, 4, 1, XF32, XF32},
    {"v_mfma_f32_32x32x1_2b_f32", 32, 1, 2, F32, F32},       {"v_mfma_f32_16x16x1_4b_f32", 16, 1, 4, F32, F32},
    {"v_mfma_f32_4x4x1_16b_f32", 4, 1, 16, F32, F32},        {"v_mfma_f32_32x32x2_f32", 32, 2, 1, F32, F32},
    {"v_mfma_f32_16x16x4_f32", 16, 4, 1, F32, F32},          {"v_mfma_f32_32x32x4_2b_f16", 32, 4, 2, F16, F16},
    {"v_mfma_f32_16x16x4_4b_f16", 16, 4, 4, F16, F16},       {"v_mfma_f32_4x4x4_16b_f16", 4, 4, 16, F16, F16},
    {"v_mfma_f32_32x32x8_f16", 32, 8, 1, F16, F16},          {"v_mfma_f32_16x16x16_f16", 16, 16, 1, F16, F16},
    {"v_mfma_i32_32x32x4_2b_i8", 32, 4, 2, I8, I8},          {"v_mfma_i32_16x16x4_4b_i8", 16, 4, 4, I8, I8},
    {"v_mfma_i32_4x4x4_16b_i8", 4, 4, 16, I8, I8},           {"v_mfma_i32_32x32x16_i8", 32, 16, 1, I8, I8},
    {"v_mfma_i32_16x16x32_i8", 16, 32, 1, I8, I8},           {"v_mfma_f32_32x32x4_2b_bf16", 32, 4, 2, BF16, BF16},
    {"v_mfma_f32_16x16x4_4b_bf16", 16, 4, 4, BF16, BF16},    {"v_mfma_f32_4x4x4_16b_bf16", 4, 4, 16, BF16, BF16},
    {"v_mfma_f32_32x32x8_bf16", 32, 8, 1, BF16, BF16},       {"v_mfma_f32_16x16x16_bf16", 16, 16, 1, BF16, BF16},
    {"v_mfma_f64_16x16x4_f64", 16, 4, 1, F64, F64},          {"v_mfma_f64_4x4x4_4b_f64", 4, 4, 4, F64, F64},
    {"v_mfma_f32_16x16x32_bf8_bf8", 16, 32, 1, BF8, BF8},    {"v_mfma_f32_16x16x32_bf8_fp8", 16, 32, 1, BF8, FP8},
    {"v_mfma_f32_16x16x32_fp8_bf8", 16, 32, 1, FP8, BF8},    {"v_mfma_f32_16x16x32_fp8_fp8", 16, 32, 1, FP8, FP8},
    {"v_mfma_f32_32x32x16_bf8_bf8", 32, 16, 1, BF8, BF8},    {"v_mfma_f32_32x32x16_bf8_fp8", 32, 16, 1, BF8, FP8},
    {"v_mfma_f32_32x32x16_fp8_bf8", 32, 16, 1, FP8, BF8},    {"v_mfma_f32_32x32x16_fp8_fp8", 32, 16, 1, FP8, FP8},
};

// Every op of a target in each of `forms`, then `with_agpr_ab` with A and B in AGPRs.
void RunAll(Target target, std::span<const AsmEncoding> encodings, std::span<const Op> ops,
            std::initializer_list<Form> forms, const Op& with_agpr_ab) {
  for (const Op& op : ops) {
    for (const Form form : forms) RunOne(target, encodings, op, form, false, Line(op, form));
  }
  const Form form = *forms.begin() == Form::kAcc && forms.size() == 1 ? Form::kAcc : Form::kVgpr;
  RunOne(target, encodings, with_agpr_ab, form, true, Line(with_agpr_ab, form, true));
}

TEST(MfmaTest, Gfx908EveryOpcodeWithCAndDInAgprs) {
  RunAll(Target::kGfx908, hipmem_testing::mfma_encodings_gfx908, kGfx908, {Form::kAcc}, kGfx908[2]);
}

TEST(MfmaTest, Gfx90aEveryOpcodeInEveryRegisterForm) {
  std::vector<Op> ops(std::begin(kGfx908), std::end(kGfx908));
  ops.insert(ops.end(), std::begin(kGfx90aOnly), std::end(kGfx90aOnly));
  RunAll(Target::kGfx90a, hipmem_testing::mfma_encodings_gfx90a, ops, {Form::kAcc, Form::kVgpr, Form::kConst},
         kGfx908[2]);
}

TEST(MfmaTest, Gfx942EveryOpcodeInEveryRegisterForm) {
  RunAll(Target::kGfx942, hipmem_testing::mfma_encodings_gfx942, kGfx942, {Form::kAcc, Form::kVgpr, Form::kConst},
         kGfx942[4]);
}

// CBSZ/ABID broadcast one A block to groups of 2^CBSZ blocks; BLGP re-routes B's lanes, which for
// v_mfma_f32_16x16x1f32 (one 16-lane group per block) is a choice of B block per block.
TEST(MfmaTest, BroadcastModifiers) {
  const Op& op = kGfx908[1];
  const std::string base = "v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79]";
  Routing all3;
  all3.a_block = [](int, int) { return 3; };
  RunOne(Target::kGfx908, hipmem_testing::mfma_encodings_gfx908, op, Form::kAcc, false, base + " cbsz:2 abid:3", all3);
  Routing odd;
  odd.a_block = [](int b, int) { return b | 1; };
  RunOne(Target::kGfx908, hipmem_testing::mfma_encodings_gfx908, op, Form::kAcc, false, base + " cbsz:1 abid:1", odd);
  using BlockFn = int (*)(int, int);
  const BlockFn blgp[8] = {
      nullptr,
      [](int b, int) { return b % 2; },            // lanes 0-31 to 32-63
      [](int b, int) { return 2 + b % 2; },        // lanes 32-63 to 0-31
      [](int b, int) { return (b + 1) % 4; },      // rotated down by 16 lanes
      [](int, int) { return 0; },                  // lanes 0-15 everywhere
      [](int, int) { return 1; },
      [](int, int) { return 2; },
      [](int, int) { return 3; },
  };
  for (int n = 1; n < 8; ++n) {
    Routing r;
    r.b_block = blgp[n];
    RunOne(Target::kGfx908, hipmem_testing::mfma_encodings_gfx908, op, Form::kAcc, false,
           base + " blgp:" + std::to_string(n), r);
  }
}

// gfx942's f64 MFMA reads BLGP as negations of A, B and C.
TEST(MfmaTest, Gfx942F64Negation) {
  Routing ac;
  ac.negate = 5;
  RunOne(Target::kGfx942, hipmem_testing::mfma_encodings_gfx942, kGfx942[22], Form::kVgpr, false,
         "v_mfma_f64_16x16x4_f64 v[32:39], v[0:1], v[2:3], v[64:71] neg:[1,0,1]", ac);
  Routing b;
  b.negate = 2;
  RunOne(Target::kGfx942, hipmem_testing::mfma_encodings_gfx942, kGfx942[23], Form::kVgpr, false,
         "v_mfma_f64_4x4x4_4b_f64 v[32:33], v[0:1], v[2:3], v[64:65] neg:[0,1,0]", b);
}

// D may be C's own registers (the usual accumulation loop), and the result is as if C were read first.
TEST(MfmaTest, AccumulatesInPlace) {
  IsaHarness h(Target::kGfx90a);
  for (int l = 0; l < 64; ++l) {
    h.wave().vgpr(0)[l] = std::bit_cast<uint32_t>(2.0f);
    h.wave().vgpr(2)[l] = std::bit_cast<uint32_t>(3.0f);
    for (int r = 0; r < 32; ++r) h.wave().vgpr(32 + r)[l] = std::bit_cast<uint32_t>(static_cast<float>(r));
  }
  ASSERT_TRUE(h.Run(hipmem_testing::mfma_encodings_gfx90a, {"v_mfma_f32_32x32x1f32 v[32:63], v0, v2, v[32:63]"}).ok());
  for (int r = 0; r < 32; ++r) EXPECT_EQ(h.wave().vgpr(32 + r)[5], std::bit_cast<uint32_t>(static_cast<float>(r) + 6.0f));
}

// What the engine refuses: modifiers the ISA rules out; each is an illegal instruction (kFailedPrecondition from the
// harness), never a wrong result.
TEST(MfmaTest, RefusesWhatItCannotRun) {
  struct Case {
    Target target;
    std::span<const AsmEncoding> encodings;
    const char* line;
  };
  const Case cases[] = {
      {Target::kGfx908, hipmem_testing::mfma_encodings_gfx908,
       "v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[64:79] cbsz:1 abid:2"},  // ABID beyond 2^CBSZ
      {Target::kGfx908, hipmem_testing::mfma_encodings_gfx908,
       "v_mfma_f32_32x32x2f32 a[32:47], v0, v2, a[64:79] cbsz:1"},  // one block: nothing to broadcast
      {Target::kGfx90a, hipmem_testing::mfma_encodings_gfx90a,
       "v_mfma_f64_16x16x4f64 v[32:39], v[0:1], v[2:3], v[64:71] blgp:1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    IsaHarness h(c.target);
    EXPECT_EQ(h.Run(c.encodings, {c.line}).code(), absl::StatusCode::kFailedPrecondition);
  }
}

// SMFMAC (gfx942): A is MxK with 2:4 structured sparsity, given as its non-zero values (two of every four k) and an
// index VGPR of 2-bit positions; B is dense; D = A * B + D. The test builds a random sparse A, packs it as
// mfma.cc's header describes (lane i + M*g holds the non-zero values of k g*E..g*E+E-1 of row i, E = K*M/64, and
// their positions in index set ABID, every other set holding other positions), and checks D against a host matrix
// multiply of the dense A.
struct SparseOp {
  const char* name;
  int m;
  int k;
  T a, b;
};

void RunSparse(const SparseOp& op, bool agpr_cd, int cbsz, int abid) {
  const int out_regs = op.m * op.m / 64;
  const std::string line = std::string(op.name) + " " + Range(agpr_cd ? 'a' : 'v', 32, out_regs) +
                           ", v[0:1], v[2:5], v6" + (cbsz != 0 ? " cbsz:" + std::to_string(cbsz) : "") +
                           (abid != 0 ? " abid:" + std::to_string(abid) : "");
  SCOPED_TRACE(line);
  IsaHarness h(Target::kGfx942);
  Wave& w = h.wave();
  Values values(static_cast<uint32_t>(line.size() * 104729));
  const int n = op.m;
  const int e = op.k * op.m / 64;  // k of a row per lane, dense
  const int sets = 32 / e;
  const int set = cbsz != 0 ? 0 : abid;
  const int limit = op.a == T::kI8 ? 8 : 4;
  std::vector<int> a(static_cast<size_t>(op.m) * op.k, 0), b(static_cast<size_t>(op.k) * n), c(static_cast<size_t>(op.m) * n);
  for (int& v : b) v = values.Next(limit);
  for (int& v : c) v = values.Next(8);
  for (int r = 0; r < 6; ++r) {
    for (int lane = 0; lane < 64; ++lane) w.vgpr(r)[lane] = 0;
  }
  // A: lane la = row + M*g packs its e/2 non-zero values (two per group of four k) and their positions.
  for (int lane = 0; lane < 64; ++lane) {
    const int row = lane % op.m;
    const int g = lane / op.m;
    uint32_t positions = 0;
    for (int group = 0; group < e / 4; ++group) {
      const int first = (values.Next(8) + 8) % 3;                // 0..2
      const int second = first + 1 + (values.Next(8) + 8) % (3 - first);  // first+1..3
      const int pos[2] = {first, second};
      for (int t = 0; t < 2; ++t) {
        const int v = group * 2 + t;  // compressed value index in the lane
        const int value = values.Next(limit);
        a[static_cast<size_t>(row) * op.k + g * e + group * 4 + pos[t]] = value;
        positions |= static_cast<uint32_t>(pos[t]) << (2 * v);
        const int bits = Bits(op.a);
        w.vgpr(v * bits / 32)[lane] |= static_cast<uint32_t>(Encode(op.a, value)) << ((v * bits) % 32);
      }
    }
    uint32_t index = 0;
    for (int s2 = 0; s2 < sets; ++s2) {
      // The other sets name other positions (each 2-bit index moved by one), so reading the wrong set shows.
      const uint32_t other = positions ^ (e == 8 ? 0x55u : 0x5555u);
      index |= (s2 == set ? positions : other) << (s2 * e);
    }
    w.vgpr(6)[lane] = index;
  }
  // B: dense, lane j + N*g holds k g*E.. of column j.
  for (int lane = 0; lane < 64; ++lane) {
    const int col = lane % n;
    const int g = lane / n;
    for (int t = 0; t < e; ++t) {
      const int bits = Bits(op.b);
      w.vgpr(2 + t * bits / 32)[lane] |=
          static_cast<uint32_t>(Encode(op.b, b[static_cast<size_t>(g * e + t) * n + col])) << ((t * bits) % 32);
    }
  }
  const Op dense{op.name, op.m, op.k, 1, op.a, op.b};
  auto cd = [&](int r) { return agpr_cd ? w.agpr(r) : w.vgpr(r); };
  for (int r = 0; r < out_regs; ++r) {
    for (int lane = 0; lane < 64; ++lane) {
      const OutElement o = OutputAt(dense, r, lane);
      const int v = c[static_cast<size_t>(o.i) * n + o.j];
      cd(32 + r)[lane] = op.a == T::kI8 ? static_cast<uint32_t>(v) : static_cast<uint32_t>(Encode(T::kF32, v));
    }
  }
  if (out_regs < 32) {
    for (int lane = 0; lane < 64; ++lane) cd(32 + out_regs)[lane] = kSentinel;
  }
  const absl::Status status = h.Run(hipmem_testing::mfma_encodings_gfx942, {line.c_str()});
  ASSERT_TRUE(status.ok()) << status;
  int mismatches = 0;
  for (int r = 0; r < out_regs; ++r) {
    for (int lane = 0; lane < 64; ++lane) {
      const OutElement o = OutputAt(dense, r, lane);
      int64_t sum = c[static_cast<size_t>(o.i) * n + o.j];
      for (int k = 0; k < op.k; ++k) {
        sum += int64_t{a[static_cast<size_t>(o.i) * op.k + k]} * b[static_cast<size_t>(k) * n + o.j];
      }
      const uint32_t expect =
          op.a == T::kI8 ? static_cast<uint32_t>(sum) : std::bit_cast<uint32_t>(static_cast<float>(sum));
      const uint32_t got = cd(32 + r)[lane];
      if (expect != got && ++mismatches <= 4) {
        ADD_FAILURE() << "D[" << o.i << "][" << o.j << "] (register " << r << ", lane " << lane << "): got 0x"
                      << std::hex << got << ", want 0x" << expect;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
  if (out_regs < 32) {
    EXPECT_EQ(cd(32 + out_regs)[0], kSentinel) << "wrote past D";
  }
}

const SparseOp kSmfmac[] = {
    {"v_smfmac_f32_16x16x32_f16", 16, 32, F16, F16},        {"v_smfmac_f32_32x32x16_f16", 32, 16, F16, F16},
    {"v_smfmac_f32_16x16x32_bf16", 16, 32, BF16, BF16},     {"v_smfmac_f32_32x32x16_bf16", 32, 16, BF16, BF16},
    {"v_smfmac_i32_16x16x64_i8", 16, 64, I8, I8},           {"v_smfmac_i32_32x32x32_i8", 32, 32, I8, I8},
    {"v_smfmac_f32_16x16x64_bf8_bf8", 16, 64, BF8, BF8},    {"v_smfmac_f32_16x16x64_bf8_fp8", 16, 64, BF8, FP8},
    {"v_smfmac_f32_16x16x64_fp8_bf8", 16, 64, FP8, BF8},    {"v_smfmac_f32_16x16x64_fp8_fp8", 16, 64, FP8, FP8},
    {"v_smfmac_f32_32x32x32_bf8_bf8", 32, 32, BF8, BF8},    {"v_smfmac_f32_32x32x32_bf8_fp8", 32, 32, BF8, FP8},
    {"v_smfmac_f32_32x32x32_fp8_bf8", 32, 32, FP8, BF8},    {"v_smfmac_f32_32x32x32_fp8_fp8", 32, 32, FP8, FP8},
};

// Every SMFMAC opcode with C/D in VGPRs and in AGPRs (ACC_CD), reading index set 0.
TEST(MfmaTest, Gfx942SmfmacEveryOpcodeAgainstADenseProduct) {
  for (const SparseOp& op : kSmfmac) {
    RunSparse(op, false, 0, 0);
    RunSparse(op, true, 0, 0);
  }
}

// ABID picks the index set when CBSZ is 0 (four 8-bit sets for 16-bit data, two 16-bit sets for 8-bit data); any
// other CBSZ reads set 0.
TEST(MfmaTest, Gfx942SmfmacAbidSelectsTheIndexSet) {
  for (int abid = 1; abid < 4; ++abid) RunSparse(kSmfmac[0], false, 0, abid);
  RunSparse(kSmfmac[4], false, 0, 1);
  RunSparse(kSmfmac[13], false, 0, 1);
  RunSparse(kSmfmac[1], false, 1, 1);
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
