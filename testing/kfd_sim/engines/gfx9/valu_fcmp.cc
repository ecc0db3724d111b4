// VALU float compares (VOPC and their VOP3 forms) for f16, f32 and f64: the sixteen predicates (ordered and
// unordered), v_cmp_class, and the v_cmpx forms, which also write the result to EXEC. A lane's bit is its
// verdict; inactive lanes' bits are 0.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"
#include "testing/kfd_sim/engines/gfx9/valu_fp.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// The predicates in opcode order (opcode & 15): f, lt, eq, le, gt, lg, ge, o, u, nge, nlg, ngt, nle, neq, nlt, tru.
constexpr const char* kPredicates[16] = {"f",   "lt",  "eq",  "le",  "gt",  "lg",  "ge",  "o",
                                         "u",   "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};

template <int kPred>
bool Compare(double a, double b) {
  switch (kPred) {
    case 0: return false;
    case 1: return a < b;
    case 2: return a == b;
    case 3: return a <= b;
    case 4: return a > b;
    case 5: return a < b || a > b;
    case 6: return a >= b;
    case 7: return !std::isnan(a) && !std::isnan(b);
    case 8: return std::isnan(a) || std::isnan(b);
    case 9: return !(a >= b);
    case 10: return !(a < b || a > b);
    case 11: return !(a > b);
    case 12: return !(a <= b);
    case 13: return !(a == b);
    case 14: return !(a < b);
    default: return true;
  }
}

// Reads source `index` of a compare as doubles (every f16/f32 value widens exactly), input denormals flushed as
// MODE says.
template <int kBits>
void ReadWide(const Wave& w, const Inst& i, const Context& c, const FpMode& m, int index, double out[kWaveSize]) {
  if constexpr (kBits == 64) {
    ReadF64In(w, i, c, m, index, out);
  } else if constexpr (kBits == 32) {
    float f[kWaveSize];
    ReadF32In(w, i, c, m, index, f);
    for (int l = 0; l < kWaveSize; ++l) out[l] = f[l];
  } else {
    ReadF16In(w, i, c, m, index, out);
  }
}

// Writes a compare's lane mask to its scalar destination (and to EXEC for v_cmpx).
void WriteCompare(Wave& w, const Inst& i, uint64_t result, bool exec) {
  WriteScalar64(w, i.sdst, result);
  if (exec) w.set_exec(result);
}

template <int kBits, int kPred, bool kExec>
void VCmp(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize];
  ReadWide<kBits>(w, i, c, m, 0, a);
  ReadWide<kBits>(w, i, c, m, 1, b);
  uint64_t result = 0;
  ForEachLane(w.exec(), [&](int l) { result |= uint64_t{Compare<kPred>(a[l], b[l])} << l; });
  WriteCompare(w, i, result, kExec);
}

// v_cmp_class: src1's bits name the classes that pass: 0 signaling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf. Denormals are classified as they are (no flushing).
int ClassBit(bool negative, bool nan, bool quiet, bool inf, bool zero, bool denormal) {
  if (nan) return quiet ? 1 : 0;
  if (inf) return negative ? 2 : 9;
  if (zero) return negative ? 5 : 6;
  if (denormal) return negative ? 4 : 7;
  return negative ? 3 : 8;
}

template <int kBits, bool kExec>
void VCmpClass(Wave& w, const Inst& i, Context& c) {
  uint32_t classes[kWaveSize];
  ReadU32(w, i, c, 1, classes);
  int bit[kWaveSize];
  if constexpr (kBits == 64) {
    double a[kWaveSize];
    ReadF64(w, i, c, 0, a);
    for (int l = 0; l < kWaveSize; ++l) {
      const uint64_t u = F64Bits(a[l]);
      bit[l] = ClassBit(std::signbit(a[l]), std::isnan(a[l]), ((u >> 51) & 1) != 0, std::isinf(a[l]), a[l] == 0,
                        std::fpclassify(a[l]) == FP_SUBNORMAL);
    }
  } else if constexpr (kBits == 32) {
    float a[kWaveSize];
    ReadF32(w, i, c, 0, a);
    for (int l = 0; l < kWaveSize; ++l) {
      const uint32_t u = F32Bits(a[l]);
      bit[l] = ClassBit(std::signbit(a[l]), std::isnan(a[l]), ((u >> 22) & 1) != 0, std::isinf(a[l]), a[l] == 0,
                        std::fpclassify(a[l]) == FP_SUBNORMAL);
    }
  } else {
    uint16_t h[kWaveSize];
    ReadF16Bits(w, i, c, 0, h);
    for (int l = 0; l < kWaveSize; ++l) {
      const int e = (h[l] >> 10) & 0x1f, mant = h[l] & 0x3ff;
      bit[l] = ClassBit((h[l] & 0x8000) != 0, e == 0x1f && mant != 0, (mant & 0x200) != 0, e == 0x1f && mant == 0,
                        e == 0 && mant == 0, e == 0 && mant != 0);
    }
  }
  uint64_t result = 0;
  ForEachLane(w.exec(), [&](int l) { result |= uint64_t{((classes[l] >> bit[l]) & 1) != 0} << l; });
  WriteCompare(w, i, result, kExec);
}

// Fills one width's 32 compares (v_cmp_* at base, v_cmpx_* at base + 16).
template <int kBits, int... kPred>
void AddCompares(ValuTable& t, uint16_t base, std::integer_sequence<int, kPred...>) {
  static const std::array<std::string, 32> names = [] {
    std::array<std::string, 32> n;
    const std::string suffix = "_f" + std::to_string(kBits);
    for (int p = 0; p < 16; ++p) {
      n[p] = std::string("v_cmp_") + kPredicates[p] + suffix;
      n[16 + p] = std::string("v_cmpx_") + kPredicates[p] + suffix;
    }
    return n;
  }();
  ((t[base + kPred] = {names[kPred].c_str(), &VCmp<kBits, kPred, false>}), ...);
  ((t[base + 16 + kPred] = {names[16 + kPred].c_str(), &VCmp<kBits, kPred, true>}), ...);
}

}  // namespace

void AddValuFloatCompareOps(ValuTable& t) {
  t[0x10] = {"v_cmp_class_f32", &VCmpClass<32, false>};
  t[0x11] = {"v_cmpx_class_f32", &VCmpClass<32, true>};
  t[0x12] = {"v_cmp_class_f64", &VCmpClass<64, false>};
  t[0x13] = {"v_cmpx_class_f64", &VCmpClass<64, true>};
  t[0x14] = {"v_cmp_class_f16", &VCmpClass<16, false>};
  t[0x15] = {"v_cmpx_class_f16", &VCmpClass<16, true>};
  AddCompares<16>(t, 0x20, std::make_integer_sequence<int, 16>{});
  AddCompares<32>(t, 0x40, std::make_integer_sequence<int, 16>{});
  AddCompares<64>(t, 0x60, std::make_integer_sequence<int, 16>{});
}

}  // namespace hipmem::kfd_sim::gfx9
