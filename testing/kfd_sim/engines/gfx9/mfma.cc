// Matrix fused multiply-add (MFMA, VOP3P-MAI encoding, gfx908/gfx90a/gfx942): one instruction multiplies, for
// every one of its B blocks, an MxK matrix A by a KxN matrix B (M == N here) and adds an MxN matrix C, giving D;
// the matrices are spread over the lanes of the wave's registers.
//
// Fields (the VOP3P decoder's names in brackets): CBSZ bits 10:8 [neg_hi], ABID bits 14:11 [op_sel, op_sel_hi bit
// 2], ACC_CD bit 15 [clamp], the A and B operands' AGPR bits 59/60 [op_sel_hi bits 0/1], BLGP bits 63:61 [neg].
// gfx908 keeps C and D in AGPRs whatever ACC_CD says (its assembler leaves the bit clear); gfx90a+ read C and write
// D in AGPRs with ACC_CD, in VGPRs without. A and B are registers (VGPRs, or AGPRs under their bits); C may also be
// an inline constant on gfx90a+, the same value in every element.
//
// Element layout, as AMD's matrix instruction calculator documents it for gfx9 (in our words):
// - A (and B, with j for i and N for M): each lane holds E = K*M*blocks/64 consecutive k of one row, packed from the
//   low bits up in consecutive dwords (f64: register pairs). A[i][k] of block b is element k%E of lane
//   i + M*b + (k/E)*M*blocks: rows fill a lane group of M lanes, blocks the next groups, and further k-groups
//   come after all blocks.
// - C and D: 32-bit results go in multi-rows 4 rows (registers) tall and N lanes wide, 64-bit ones 1 row tall. With
//   R = 64/N multi-rows per register and P = ceil(64*h/(M*N)) blocks sharing a register (h the multi-row
//   height), D[i][j] of block b is in register b*(M*N/64) + (i/(h*R))*h + i%h (a pair for 64-bit), lane
//   (b%P)*N + ((i/h)%R)*P*N + j.
// Modifiers: CBSZ/ABID make block b use A's block (b with its low CBSZ bits replaced by ABID); BLGP makes the B
// operand's lane l read lane: 1 l%32, 2 32+l%32, 3 (l+16)%64, 4 l%16, 5 16+l%16, 6 32+l%16, 7 48+l%16. On gfx942 the
// f64 ops read BLGP's bits as negations of A, B and C instead; gfx90a's f64 ops do not allow BLGP.
//
// Arithmetic: float products and their sum with C are formed in double and rounded once to f32, round to nearest
// even, denormals kept (the hardware's internal order of additions is not documented; a result that the one
// rounding and a chain of f32 additions would round differently may differ from hardware in the last bit). f64
// ops chain fmas over k. Integer ops wrap in 32 bits. gfx942's fp8/bf8 are the FNUZ formats (E4M3 bias 8, E5M2
// bias 16, 0x80 the only NaN, no infinities); xf32 inputs are f32 registers of which the low 13 mantissa bits are
// dropped (xf32 keeps 10; truncation is inferred, not documented). EXEC does not mask MFMA: every lane of D is
// written (inferred from the operation being a whole-wave matrix product).
//
// SMFMAC (gfx942 sparse MFMA): D = A * B + D, one block, A MxK with 2:4 structured sparsity (of every four
// consecutive k of a row, at most two are non-zero) given compressed, B KxN dense, C being the destination itself
// (vdst, in AGPRs under ACC_CD). B is laid out as a dense MFMA's: lane j + N*g holds the E = K*M/64 consecutive k
// from g*E on. A's lane i + M*g holds the E/2 non-zero values of the same k, and the third source is a VGPR of
// index sets: 2 bits per compressed value, the position (0-3) of compressed value v within its group of four k
// (v / 2), lowest bits for value 0. A set is E bits of the A lane's index VGPR: four 8-bit sets for 16-bit data,
// two 16-bit sets for 8-bit data; CBSZ 0 selects set ABID, any other CBSZ set 0 (MLIR's amdgpu.sparse_mfma
// documents the sets and that choice; the order of the indices in a set and the lane layout are inferred from the
// dense layout and the 2:4 format, not documented). Two values naming the same position both count (inferred).
// Arithmetic and D's layout are as the dense op's of the same shape.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/valu_fp.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

enum class Elem : uint8_t { kF32, kXf32, kF16, kBf16, kI8, kFp8, kBf8, kF64 };

constexpr int Bits(Elem e) {
  switch (e) {
    case Elem::kF32:
    case Elem::kXf32: return 32;
    case Elem::kF16:
    case Elem::kBf16: return 16;
    case Elem::kI8:
    case Elem::kFp8:
    case Elem::kBf8: return 8;
    case Elem::kF64: return 64;
  }
  return 32;
}

// One MFMA's shape: M (== N) x K per block, the block count, and A's and B's element types (C and D are f32, i32
// for i8, f64 for f64).
struct Shape {
  int m;
  int k;
  int blocks;
  Elem a;
  Elem b;
};

// gfx942's 8-bit floats (FNUZ): 0x80 is NaN; exponent 0 is denormal.
double Fp8(uint32_t v, int mantissa_bits, int bias) {
  v &= 0xff;
  if (v == 0x80) return std::nan("");
  const int exponent = static_cast<int>((v & 0x7f) >> mantissa_bits);
  const int mantissa = static_cast<int>(v & ((1u << mantissa_bits) - 1));
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, 1 - bias - mantissa_bits)
                                         : std::ldexp(mantissa + (1 << mantissa_bits), exponent - bias - mantissa_bits);
  return (v & 0x80) != 0 ? -magnitude : magnitude;
}

// The value of one float element from its raw bits.
double FloatValue(Elem e, uint64_t bits) {
  switch (e) {
    case Elem::kF32: return BitsF32(static_cast<uint32_t>(bits));
    case Elem::kXf32: return BitsF32(static_cast<uint32_t>(bits) & ~0x1fffu);
    case Elem::kF16: return F16ToF64(static_cast<uint16_t>(bits));
    case Elem::kBf16: return BitsF32(static_cast<uint32_t>(bits) << 16);
    case Elem::kFp8: return Fp8(static_cast<uint32_t>(bits), 3, 8);
    case Elem::kBf8: return Fp8(static_cast<uint32_t>(bits), 2, 16);
    case Elem::kF64: return BitsF64(bits);
    case Elem::kI8: break;
  }
  return static_cast<int8_t>(bits);
}

// An A or B operand: the dwords of the register(s) each lane holds, and the element type.
struct Operand {
  std::array<const uint32_t*, 4> dwords{};  // at most 4: eight f16/bf16 would be the widest, f64 two
  Elem elem = Elem::kF32;

  uint64_t Raw(int lane, int item) const {
    const int bits = Bits(elem);
    if (bits == 64) return uint64_t{dwords[2 * item][lane]} | (uint64_t{dwords[2 * item + 1][lane]} << 32);
    const int offset = item * bits;
    const uint32_t word = dwords[offset / 32][lane] >> (offset % 32);
    return bits == 32 ? word : word & ((1u << bits) - 1);
  }
};

int BlgpLane(int blgp, int lane) {
  switch (blgp) {
    case 1: return lane % 32;
    case 2: return 32 + lane % 32;
    case 3: return (lane + 16) % 64;
    case 4: return lane % 16;
    case 5: return 16 + lane % 16;
    case 6: return 32 + lane % 16;
    case 7: return 48 + lane % 16;
    default: return lane;
  }
}

// Where D[i][j] of block `b` lives: a register (pair, for 64-bit results) offset from vdst and a lane.
struct Slot {
  int reg;
  int lane;
};
Slot OutputSlot(const Shape& s, bool wide, int b, int i, int j) {
  const int n = s.m;
  const int height = wide ? 1 : 4;
  const int multirows = 64 / n;
  const int per_register = std::max(1, (64 * height + s.m * n - 1) / (s.m * n));
  const int reg = b * (s.m * n / 64) + (i / (height * multirows)) * height + i % height;
  const int lane = (b % per_register) * n + ((i / height) % multirows) * per_register * n + j;
  return Slot{reg, lane};
}

void Run(Wave& w, const Inst& inst, Context& c, const Shape& s) {
  const Target target = c.dispatch->target;
  const int cbsz = inst.neg_hi & 7;
  const int abid = (inst.opsel & 7) | (((inst.opsel_hi >> 2) & 1) << 3);
  int blgp = inst.neg & 7;
  const bool acc_cd = target == Target::kGfx908 || inst.clamp;
  const bool f64 = s.a == Elem::kF64;
  const bool integer = s.a == Elem::kI8;
  uint8_t negate = 0;  // bit 0 A, 1 B, 2 C (gfx942's f64 ops)
  if (f64 && blgp != 0) {
    if (target != Target::kGfx942) {
      c.Illegal("BLGP is not allowed on gfx90a's f64 MFMA");
      return;
    }
    negate = static_cast<uint8_t>(blgp);
    blgp = 0;
  }
  if ((1 << cbsz) > s.blocks || abid >= (1 << cbsz)) {
    c.Illegal(absl::StrCat("MFMA with CBSZ ", cbsz, " and ABID ", abid, " on ", s.blocks, " blocks"));
    return;
  }
  if (inst.src[0] < op::kVgpr0 || inst.src[1] < op::kVgpr0 || inst.src[0] == op::kNone ||
      inst.src[1] == op::kNone) {
    c.Illegal("MFMA's A and B operands must be registers");
    return;
  }

  const int per_lane = s.k * s.m * s.blocks / 64;  // E: elements of A (and of B) in each lane
  const int in_dwords = std::max(1, per_lane * Bits(s.a) / 32);
  Operand a{{}, s.a}, b{{}, s.b};
  for (int d = 0; d < in_dwords; ++d) {
    const uint32_t ra = static_cast<uint32_t>(inst.src[0] - op::kVgpr0 + d);
    const uint32_t rb = static_cast<uint32_t>(inst.src[1] - op::kVgpr0 + d);
    a.dwords[d] = (inst.opsel_hi & 1) != 0 ? w.agpr(ra) : w.vgpr(ra);
    b.dwords[d] = (inst.opsel_hi & 2) != 0 ? w.agpr(rb) : w.vgpr(rb);
  }

  // C: registers of D's shape, or an inline constant in every element.
  const int out_dwords = s.m * s.m * s.blocks / 64 * (f64 ? 2 : 1);
  auto file = [&](uint32_t n) -> uint32_t* { return acc_cd ? w.agpr(n) : w.vgpr(n); };
  const bool c_constant = inst.src[2] < op::kVgpr0 || inst.src[2] == op::kNone;
  const uint64_t constant = !c_constant ? 0
                            : f64       ? ScalarSource64(w, inst, c, inst.src[2], Width::kF64)
                                        : ScalarSource32(w, inst, c, inst.src[2], Width::k32);
  auto c_raw = [&](const Slot& slot) -> uint64_t {
    if (c_constant) return constant;
    const uint32_t base = static_cast<uint32_t>(inst.src[2] - op::kVgpr0);
    if (!f64) return file(base + slot.reg)[slot.lane];
    return uint64_t{file(base + 2 * slot.reg)[slot.lane]} |
           (uint64_t{file(base + 2 * slot.reg + 1)[slot.lane]} << 32);
  };

  // D is formed whole before it is written: C, A or B may share its registers.
  std::array<uint32_t, 32 * kWaveSize> d{};
  const int n = s.m;
  for (int block = 0; block < s.blocks; ++block) {
    const int a_block = (block >> cbsz << cbsz) | abid;
    for (int i = 0; i < s.m; ++i) {
      for (int j = 0; j < n; ++j) {
        const Slot slot = OutputSlot(s, f64, block, i, j);
        const uint64_t c_bits = c_raw(slot);
        uint64_t result;
        if (integer) {
          uint32_t sum = static_cast<uint32_t>(c_bits);
          for (int k = 0; k < s.k; ++k) {
            const int group = (k / per_lane) * s.blocks;
            const int la = i + s.m * (a_block + group);
            const int lb = BlgpLane(blgp, j + n * (block + group));
            sum += static_cast<uint32_t>(static_cast<int8_t>(a.Raw(la, k % per_lane)) *
                                         static_cast<int8_t>(b.Raw(lb, k % per_lane)));
          }
          result = sum;
        } else if (f64) {
          double acc = BitsF64(c_bits);
          if ((negate & 4) != 0) acc = -acc;
          for (int k = 0; k < s.k; ++k) {
            const int group = (k / per_lane) * s.blocks;
            double x = FloatValue(s.a, a.Raw(i + s.m * (a_block + group), k % per_lane));
            double y = FloatValue(s.b, b.Raw(j + n * (block + group), k % per_lane));
            if ((negate & 1) != 0) x = -x;
            if ((negate & 2) != 0) y = -y;
            acc = std::fma(x, y, acc);
          }
          result = F64Bits(acc);
        } else {
          double sum = BitsF32(static_cast<uint32_t>(c_bits));
          for (int k = 0; k < s.k; ++k) {
            const int group = (k / per_lane) * s.blocks;
            const int la = i + s.m * (a_block + group);
            const int lb = BlgpLane(blgp, j + n * (block + group));
            sum += FloatValue(s.a, a.Raw(la, k % per_lane)) * FloatValue(s.b, b.Raw(lb, k % per_lane));
          }
          result = F32Bits(static_cast<float>(sum));
        }
        if (f64) {
          d[static_cast<size_t>(2 * slot.reg) * kWaveSize + slot.lane] = static_cast<uint32_t>(result);
          d[static_cast<size_t>(2 * slot.reg + 1) * kWaveSize + slot.lane] = static_cast<uint32_t>(result >> 32);
        } else {
          d[static_cast<size_t>(slot.reg) * kWaveSize + slot.lane] = static_cast<uint32_t>(result);
        }
      }
    }
  }
  const uint32_t dst = static_cast<uint32_t>(inst.dst - op::kVgpr0);
  for (int r = 0; r < out_dwords; ++r) std::copy_n(&d[static_cast<size_t>(r) * kWaveSize], kWaveSize, file(dst + r));
}

void RunSparse(Wave& w, const Inst& inst, Context& c, const Shape& s) {
  const int cbsz = inst.neg_hi & 7;
  const int abid = (inst.opsel & 7) | (((inst.opsel_hi >> 2) & 1) << 3);
  const bool acc_cd = inst.clamp;
  if ((inst.neg & 7) != 0) {
    c.Illegal("SMFMAC takes no BLGP");
    return;
  }
  if (inst.src[0] < op::kVgpr0 || inst.src[1] < op::kVgpr0 || inst.src[2] < op::kVgpr0 || inst.src[0] == op::kNone ||
      inst.src[1] == op::kNone || inst.src[2] == op::kNone) {
    c.Illegal("SMFMAC's A, B and index operands must be registers");
    return;
  }
  const int dense = s.k * s.m / 64;  // E: k of a row (column) per lane
  const int sets = 32 / dense;       // index sets in the index VGPR
  const int set = cbsz != 0 ? 0 : abid & (sets - 1);
  Operand a{{}, s.a}, b{{}, s.b};
  for (int d = 0; d < dense * Bits(s.b) / 32; ++d) {
    const uint32_t rb = static_cast<uint32_t>(inst.src[1] - op::kVgpr0 + d);
    b.dwords[d] = (inst.opsel_hi & 2) != 0 ? w.agpr(rb) : w.vgpr(rb);
    if (d < dense * Bits(s.a) / 64) {
      const uint32_t ra = static_cast<uint32_t>(inst.src[0] - op::kVgpr0 + d);
      a.dwords[d] = (inst.opsel_hi & 1) != 0 ? w.agpr(ra) : w.vgpr(ra);
    }
  }
  const uint32_t* index = w.vgpr(static_cast<uint32_t>(inst.src[2] - op::kVgpr0));
  auto file = [&](uint32_t n) -> uint32_t* { return acc_cd ? w.agpr(n) : w.vgpr(n); };
  const uint32_t dst = static_cast<uint32_t>(inst.dst - op::kVgpr0);
  const bool integer = s.a == Elem::kI8;
  std::array<uint32_t, 16 * kWaveSize> d{};
  const int n = s.m;
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < n; ++j) {
      const Slot slot = OutputSlot(s, false, 0, i, j);
      const uint32_t c_bits = file(dst + slot.reg)[slot.lane];
      double sum = BitsF32(c_bits);
      uint32_t isum = c_bits;
      for (int g = 0; g < s.k / dense; ++g) {
        const int la = i + s.m * g;
        const int lb = j + n * g;
        const uint32_t positions = (index[la] >> (set * dense)) & ((1u << dense) - 1);
        for (int v = 0; v < dense / 2; ++v) {
          const int k = (v / 2) * 4 + static_cast<int>((positions >> (2 * v)) & 3);
          if (integer) {
            isum += static_cast<uint32_t>(static_cast<int8_t>(a.Raw(la, v)) * static_cast<int8_t>(b.Raw(lb, k)));
          } else {
            sum += FloatValue(s.a, a.Raw(la, v)) * FloatValue(s.b, b.Raw(lb, k));
          }
        }
      }
      d[static_cast<size_t>(slot.reg) * kWaveSize + slot.lane] = integer ? isum : F32Bits(static_cast<float>(sum));
    }
  }
  const int out_dwords = s.m * s.m / 64;
  for (int r = 0; r < out_dwords; ++r) std::copy_n(&d[static_cast<size_t>(r) * kWaveSize], kWaveSize, file(dst + r));
}

template <Shape kShape>
void Mfma(Wave& w, const Inst& i, Context& c) {
  Run(w, i, c, kShape);
}

template <Shape kShape>
void Smfmac(Wave& w, const Inst& i, Context& c) {
  RunSparse(w, i, c, kShape);
}

constexpr Elem F32 = Elem::kF32, F16 = Elem::kF16, BF16 = Elem::kBf16, I8 = Elem::kI8, F64 = Elem::kF64,
               XF32 = Elem::kXf32, FP8 = Elem::kFp8, BF8 = Elem::kBf8;

using Table = std::array<OpInfo, 128>;

// The shapes gfx908 introduced, under its names (gfx90a keeps them; gfx942 renames them).
void AddGfx908(Table& t) {
  t[0x40] = {"v_mfma_f32_32x32x1f32", &Mfma<Shape{32, 1, 2, F32, F32}>};
  t[0x41] = {"v_mfma_f32_16x16x1f32", &Mfma<Shape{16, 1, 4, F32, F32}>};
  t[0x42] = {"v_mfma_f32_4x4x1f32", &Mfma<Shape{4, 1, 16, F32, F32}>};
  t[0x44] = {"v_mfma_f32_32x32x2f32", &Mfma<Shape{32, 2, 1, F32, F32}>};
  t[0x45] = {"v_mfma_f32_16x16x4f32", &Mfma<Shape{16, 4, 1, F32, F32}>};
  t[0x48] = {"v_mfma_f32_32x32x4f16", &Mfma<Shape{32, 4, 2, F16, F16}>};
  t[0x49] = {"v_mfma_f32_16x16x4f16", &Mfma<Shape{16, 4, 4, F16, F16}>};
  t[0x4a] = {"v_mfma_f32_4x4x4f16", &Mfma<Shape{4, 4, 16, F16, F16}>};
  t[0x4c] = {"v_mfma_f32_32x32x8f16", &Mfma<Shape{32, 8, 1, F16, F16}>};
  t[0x4d] = {"v_mfma_f32_16x16x16f16", &Mfma<Shape{16, 16, 1, F16, F16}>};
  t[0x50] = {"v_mfma_i32_32x32x4i8", &Mfma<Shape{32, 4, 2, I8, I8}>};
  t[0x51] = {"v_mfma_i32_16x16x4i8", &Mfma<Shape{16, 4, 4, I8, I8}>};
  t[0x52] = {"v_mfma_i32_4x4x4i8", &Mfma<Shape{4, 4, 16, I8, I8}>};
  t[0x54] = {"v_mfma_i32_32x32x8i8", &Mfma<Shape{32, 8, 1, I8, I8}>};
  t[0x55] = {"v_mfma_i32_16x16x16i8", &Mfma<Shape{16, 16, 1, I8, I8}>};
  t[0x68] = {"v_mfma_f32_32x32x2bf16", &Mfma<Shape{32, 2, 2, BF16, BF16}>};
  t[0x69] = {"v_mfma_f32_16x16x2bf16", &Mfma<Shape{16, 2, 4, BF16, BF16}>};
  t[0x6b] = {"v_mfma_f32_4x4x2bf16", &Mfma<Shape{4, 2, 16, BF16, BF16}>};
  t[0x6c] = {"v_mfma_f32_32x32x4bf16", &Mfma<Shape{32, 4, 1, BF16, BF16}>};
  t[0x6d] = {"v_mfma_f32_16x16x8bf16", &Mfma<Shape{16, 8, 1, BF16, BF16}>};
}

// gfx90a's additions: bf16 with four elements per lane (_1k) and f64.
void AddGfx90a(Table& t) {
  t[0x63] = {"v_mfma_f32_32x32x4bf16_1k", &Mfma<Shape{32, 4, 2, BF16, BF16}>};
  t[0x64] = {"v_mfma_f32_16x16x4bf16_1k", &Mfma<Shape{16, 4, 4, BF16, BF16}>};
  t[0x65] = {"v_mfma_f32_4x4x4bf16_1k", &Mfma<Shape{4, 4, 16, BF16, BF16}>};
  t[0x66] = {"v_mfma_f32_32x32x8bf16_1k", &Mfma<Shape{32, 8, 1, BF16, BF16}>};
  t[0x67] = {"v_mfma_f32_16x16x16bf16_1k", &Mfma<Shape{16, 16, 1, BF16, BF16}>};
  t[0x6e] = {"v_mfma_f64_16x16x4f64", &Mfma<Shape{16, 4, 1, F64, F64}>};
  t[0x6f] = {"v_mfma_f64_4x4x4f64", &Mfma<Shape{4, 4, 4, F64, F64}>};
}

// gfx942: the gfx90a shapes renamed (the _1k bf16 ops moved to 0x5d-0x61, the old bf16 and the K=8/16 i8 ops
// dropped), twice-as-deep i8, xf32, fp8/bf8, and SMFMAC (K is the dense depth).
void AddGfx942(Table& t) {
  t[0x3e] = {"v_mfma_f32_16x16x8_xf32", &Mfma<Shape{16, 8, 1, XF32, XF32}>};
  t[0x3f] = {"v_mfma_f32_32x32x4_xf32", &Mfma<Shape{32, 4, 1, XF32, XF32}>};
  t[0x40] = {"v_mfma_f32_32x32x1_2b_f32", &Mfma<Shape{32, 1, 2, F32, F32}>};
  t[0x41] = {"v_mfma_f32_16x16x1_4b_f32", &Mfma<Shape{16, 1, 4, F32, F32}>};
  t[0x42] = {"v_mfma_f32_4x4x1_16b_f32", &Mfma<Shape{4, 1, 16, F32, F32}>};
  t[0x44] = {"v_mfma_f32_32x32x2_f32", &Mfma<Shape{32, 2, 1, F32, F32}>};
  t[0x45] = {"v_mfma_f32_16x16x4_f32", &Mfma<Shape{16, 4, 1, F32, F32}>};
  t[0x48] = {"v_mfma_f32_32x32x4_2b_f16", &Mfma<Shape{32, 4, 2, F16, F16}>};
  t[0x49] = {"v_mfma_f32_16x16x4_4b_f16", &Mfma<Shape{16, 4, 4, F16, F16}>};
  t[0x4a] = {"v_mfma_f32_4x4x4_16b_f16", &Mfma<Shape{4, 4, 16, F16, F16}>};
  t[0x4c] = {"v_mfma_f32_32x32x8_f16", &Mfma<Shape{32, 8, 1, F16, F16}>};
  t[0x4d] = {"v_mfma_f32_16x16x16_f16", &Mfma<Shape{16, 16, 1, F16, F16}>};
  t[0x50] = {"v_mfma_i32_32x32x4_2b_i8", &Mfma<Shape{32, 4, 2, I8, I8}>};
  t[0x51] = {"v_mfma_i32_16x16x4_4b_i8", &Mfma<Shape{16, 4, 4, I8, I8}>};
  t[0x52] = {"v_mfma_i32_4x4x4_16b_i8", &Mfma<Shape{4, 4, 16, I8, I8}>};
  t[0x56] = {"v_mfma_i32_32x32x16_i8", &Mfma<Shape{32, 16, 1, I8, I8}>};
  t[0x57] = {"v_mfma_i32_16x16x32_i8", &Mfma<Shape{16, 32, 1, I8, I8}>};
  t[0x5d] = {"v_mfma_f32_32x32x4_2b_bf16", &Mfma<Shape{32, 4, 2, BF16, BF16}>};
  t[0x5e] = {"v_mfma_f32_16x16x4_4b_bf16", &Mfma<Shape{16, 4, 4, BF16, BF16}>};
  t[0x5f] = {"v_mfma_f32_4x4x4_16b_bf16", &Mfma<Shape{4, 4, 16, BF16, BF16}>};
  t[0x60] = {"v_mfma_f32_32x32x8_bf16", &Mfma<Shape{32, 8, 1, BF16, BF16}>};
  t[0x61] = {"v_mfma_f32_16x16x16_bf16", &Mfma<Shape{16, 16, 1, BF16, BF16}>};
  t[0x62] = {"v_smfmac_f32_16x16x32_f16", &Smfmac<Shape{16, 32, 1, F16, F16}>};
  t[0x64] = {"v_smfmac_f32_32x32x16_f16", &Smfmac<Shape{32, 16, 1, F16, F16}>};
  t[0x66] = {"v_smfmac_f32_16x16x32_bf16", &Smfmac<Shape{16, 32, 1, BF16, BF16}>};
  t[0x68] = {"v_smfmac_f32_32x32x16_bf16", &Smfmac<Shape{32, 16, 1, BF16, BF16}>};
  t[0x6a] = {"v_smfmac_i32_16x16x64_i8", &Smfmac<Shape{16, 64, 1, I8, I8}>};
  t[0x6c] = {"v_smfmac_i32_32x32x32_i8", &Smfmac<Shape{32, 32, 1, I8, I8}>};
  t[0x6e] = {"v_mfma_f64_16x16x4_f64", &Mfma<Shape{16, 4, 1, F64, F64}>};
  t[0x6f] = {"v_mfma_f64_4x4x4_4b_f64", &Mfma<Shape{4, 4, 4, F64, F64}>};
  t[0x70] = {"v_mfma_f32_16x16x32_bf8_bf8", &Mfma<Shape{16, 32, 1, BF8, BF8}>};
  t[0x71] = {"v_mfma_f32_16x16x32_bf8_fp8", &Mfma<Shape{16, 32, 1, BF8, FP8}>};
  t[0x72] = {"v_mfma_f32_16x16x32_fp8_bf8", &Mfma<Shape{16, 32, 1, FP8, BF8}>};
  t[0x73] = {"v_mfma_f32_16x16x32_fp8_fp8", &Mfma<Shape{16, 32, 1, FP8, FP8}>};
  t[0x74] = {"v_mfma_f32_32x32x16_bf8_bf8", &Mfma<Shape{32, 16, 1, BF8, BF8}>};
  t[0x75] = {"v_mfma_f32_32x32x16_bf8_fp8", &Mfma<Shape{32, 16, 1, BF8, FP8}>};
  t[0x76] = {"v_mfma_f32_32x32x16_fp8_bf8", &Mfma<Shape{32, 16, 1, FP8, BF8}>};
  t[0x77] = {"v_mfma_f32_32x32x16_fp8_fp8", &Mfma<Shape{32, 16, 1, FP8, FP8}>};
  t[0x78] = {"v_smfmac_f32_16x16x64_bf8_bf8", &Smfmac<Shape{16, 64, 1, BF8, BF8}>};
  t[0x79] = {"v_smfmac_f32_16x16x64_bf8_fp8", &Smfmac<Shape{16, 64, 1, BF8, FP8}>};
  t[0x7a] = {"v_smfmac_f32_16x16x64_fp8_bf8", &Smfmac<Shape{16, 64, 1, FP8, BF8}>};
  t[0x7b] = {"v_smfmac_f32_16x16x64_fp8_fp8", &Smfmac<Shape{16, 64, 1, FP8, FP8}>};
  t[0x7c] = {"v_smfmac_f32_32x32x32_bf8_bf8", &Smfmac<Shape{32, 32, 1, BF8, BF8}>};
  t[0x7d] = {"v_smfmac_f32_32x32x32_bf8_fp8", &Smfmac<Shape{32, 32, 1, BF8, FP8}>};
  t[0x7e] = {"v_smfmac_f32_32x32x32_fp8_bf8", &Smfmac<Shape{32, 32, 1, FP8, BF8}>};
  t[0x7f] = {"v_smfmac_f32_32x32x32_fp8_fp8", &Smfmac<Shape{32, 32, 1, FP8, FP8}>};
}

}  // namespace

const OpInfo* MfmaOp(uint16_t op, Target target) {
  static const Table gfx908 = [] {
    Table t{};
    AddGfx908(t);
    return t;
  }();
  static const Table gfx90a = [] {
    Table t{};
    AddGfx908(t);
    AddGfx90a(t);
    return t;
  }();
  static const Table gfx942 = [] {
    Table t{};
    AddGfx942(t);
    return t;
  }();
  switch (target) {
    case Target::kGfx908: return FindOp(gfx908, op);
    case Target::kGfx90a: return FindOp(gfx90a, op);
    case Target::kGfx942: return FindOp(gfx942, op);
  }
  return nullptr;
}

}  // namespace hipmem::kfd_sim::gfx9
