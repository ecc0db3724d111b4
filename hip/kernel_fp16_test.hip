// <hip/hip_fp16.h> and <hip/hip_bf16.h> on the simulated GPU and on the host: conversions in each rounding direction,
// arithmetic and comparisons held to exactness, the math functions to ulp bounds, shuffles. Every expectation comes
// from this file's own model of the two formats (each value decoded from its bits, a rounding found by searching the
// ordered values), never from the headers' code, so the headers' software path (used by the host side, and on the
// device for directed roundings and bfloat16) and the GPU's f16 instructions are both checked against it.
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

using LD = long double;

// --- The formats, from their definition ---------------------------------------------------------------------------
struct Fmt {
  const char* name;
  int mantissa;            // stored significand bits
  int bias;                // exponent bias; emin = 1 - bias, emax = bias
  unsigned short infinity; // the pattern of +infinity
};
constexpr Fmt kHalf{"binary16", 10, 15, 0x7c00};
constexpr Fmt kBf16{"bfloat16", 7, 127, 0x7f80};

LD Value(const Fmt& f, unsigned short bits) {
  const LD sign = (bits & 0x8000) ? -1 : 1;
  const int field = (bits & 0x7fff) >> f.mantissa;
  const int mantissa = bits & ((1 << f.mantissa) - 1);
  if ((bits & 0x7fff) == f.infinity) return sign * INFINITY;
  if ((bits & 0x7fff) > f.infinity) return NAN;
  if (field == 0) return sign * std::ldexp(static_cast<LD>(mantissa), 1 - f.bias - f.mantissa);
  return sign * std::ldexp(static_cast<LD>(mantissa + (1 << f.mantissa)), field - f.bias - f.mantissa);
}
bool IsNan(const Fmt& f, unsigned short bits) { return (bits & 0x7fff) > f.infinity; }

enum class Mode { kRn, kRz, kRd, kRu };
const char* ModeName(Mode m) {
  switch (m) {
    case Mode::kRn: return "rn";
    case Mode::kRz: return "rz";
    case Mode::kRd: return "rd";
    case Mode::kRu: return "ru";
  }
  return "?";
}

// The pattern of `v` rounded in direction `m` (NaN: the canonical quiet NaN; callers compare NaN as NaN). The
// positive patterns 0 ... infinity are ordered like their values, so the neighbours of |v| come from a binary search.
unsigned short Round(const Fmt& f, LD v, Mode m) {
  if (std::isnan(v)) return static_cast<unsigned short>(f.infinity | (1 << (f.mantissa - 1)));
  const bool negative = std::signbit(v);
  const LD a = std::fabs(v);
  // Directions on the magnitude: toward +infinity on a negative value is toward zero on its magnitude.
  if (negative && m == Mode::kRd) m = Mode::kRu;
  else if (negative && m == Mode::kRu) m = Mode::kRd;
  unsigned lo = 0, hi = f.infinity;  // Value(lo) <= a; find the largest such pattern
  while (lo < hi) {
    const unsigned mid = (lo + hi + 1) / 2;
    if (Value(f, static_cast<unsigned short>(mid)) <= a) lo = mid; else hi = mid - 1;
  }
  unsigned result = lo;
  if (Value(f, static_cast<unsigned short>(lo)) != a) {
    const unsigned up = lo + 1;
    // Past the largest finite value, infinity sits where the next binade would start (IEEE's overflow threshold).
    const LD up_value = up == f.infinity ? std::ldexp(1.0L, f.bias + 1) : Value(f, static_cast<unsigned short>(up));
    const LD low_value = Value(f, static_cast<unsigned short>(lo));
    switch (m) {
      case Mode::kRz:
      case Mode::kRd: result = lo; break;
      case Mode::kRu: result = up; break;
      case Mode::kRn: {
        const LD mid = (low_value + up_value) / 2;
        result = a < mid ? lo : a > mid ? up : ((lo & 1) == 0 ? lo : up);
        break;
      }
    }
  }
  return static_cast<unsigned short>((negative ? 0x8000 : 0) | result);
}

std::string Hex(LD v) {
  char b[64];
  std::snprintf(b, sizeof b, "%La", v);
  return b;
}

// --- Device plumbing ----------------------------------------------------------------------------------------------
template <typename In, typename Out, typename F>
__global__ void Map(const In* in, Out* out, int n, F f) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = f(in[i]);
}

template <typename Out, typename In, typename F>
std::vector<Out> OnDevice(const std::vector<In>& in, F f) {
  In* d_in = nullptr;
  Out* d_out = nullptr;
  std::vector<Out> out(in.size());
  EXPECT_EQ(hipMalloc(&d_in, sizeof(In) * in.size()), hipSuccess);
  EXPECT_EQ(hipMalloc(&d_out, sizeof(Out) * in.size()), hipSuccess);
  EXPECT_EQ(hipMemcpy(d_in, in.data(), sizeof(In) * in.size(), hipMemcpyHostToDevice), hipSuccess);
  constexpr int kBlock = 256;
  Map<<<static_cast<int>((in.size() + kBlock - 1) / kBlock), kBlock>>>(d_in, d_out, static_cast<int>(in.size()), f);
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(hipMemcpy(out.data(), d_out, sizeof(Out) * in.size(), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(hipFree(d_in), hipSuccess);
  EXPECT_EQ(hipFree(d_out), hipSuccess);
  return out;
}

// Results equal bit for bit, NaN matching any NaN. Reports the first few mismatches.
void ExpectSameBits(const Fmt& f, const std::string& what, const std::vector<float>& inputs,
                    const std::vector<unsigned short>& got, const std::vector<unsigned short>& want) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  size_t mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool same = got[i] == want[i] || (IsNan(f, got[i]) && IsNan(f, want[i]));
    if (same) continue;
    ++mismatches;
    if (reported++ < 5) {
      ADD_FAILURE() << what << "(" << Hex(inputs[i]) << ") = 0x" << std::hex << got[i] << ", want 0x" << want[i];
    }
  }
  EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of " << got.size() << " differ";
}

// --- Inputs -------------------------------------------------------------------------------------------------------
// Every finite value of the format, the midpoint between each two neighbours (a tie) and the floats next to it on
// both sides, all with both signs; float specials; random floats over the whole float range.
std::vector<float> ConversionInputs(const Fmt& f) {
  std::vector<float> v;
  for (unsigned p = 0; p < f.infinity; ++p) {
    const LD here = Value(f, static_cast<unsigned short>(p));
    const LD next = p + 1 == f.infinity ? std::ldexp(1.0L, f.bias + 1) : Value(f, static_cast<unsigned short>(p + 1));
    const float mid = static_cast<float>((here + next) / 2);  // exact: one bit more than the format
    for (float x : {static_cast<float>(here), mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
      v.push_back(x);
      v.push_back(-x);
    }
  }
  for (float x : {INFINITY, -INFINITY, NAN, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min(), 1e-30f, -1e-30f, 1e30f, -1e30f}) {
    v.push_back(x);
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint32_t bits = rng();
    float x;
    std::memcpy(&x, &bits, sizeof x);
    v.push_back(x);
  }
  return v;
}

// --- Conversions --------------------------------------------------------------------------------------------------
#define DEVICE_FN(Name, In, Out, expr) \
  struct Name {                        \
    __device__ Out operator()(In x) const { return expr; } \
  };

DEVICE_FN(HalfRn, float, unsigned short, __half_as_ushort(__float2half_rn(x)))
DEVICE_FN(HalfRz, float, unsigned short, __half_as_ushort(__float2half_rz(x)))
DEVICE_FN(HalfRd, float, unsigned short, __half_as_ushort(__float2half_rd(x)))
DEVICE_FN(HalfRu, float, unsigned short, __half_as_ushort(__float2half_ru(x)))
DEVICE_FN(HalfCtor, float, unsigned short, __half_as_ushort(__half(x)))
DEVICE_FN(Bf16Rn, float, unsigned short, __bfloat16_as_ushort(__float2bfloat16(x)))
DEVICE_FN(Bf16Rz, float, unsigned short, __bfloat16_as_ushort(__float2bfloat16_rz(x)))
DEVICE_FN(Bf16Rd, float, unsigned short, __bfloat16_as_ushort(__float2bfloat16_rd(x)))
DEVICE_FN(Bf16Ru, float, unsigned short, __bfloat16_as_ushort(__float2bfloat16_ru(x)))
DEVICE_FN(HalfToFloat, unsigned short, float, __half2float(__ushort_as_half(x)))
DEVICE_FN(Bf16ToFloat, unsigned short, float, __bfloat162float(__ushort_as_bfloat16(x)))

template <typename Device, typename Host>
void CheckConversion(const Fmt& f, Mode m, const std::string& name, const std::vector<float>& in, Device device,
                     Host host) {
  std::vector<unsigned short> want(in.size()), on_host(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    want[i] = Round(f, in[i], m);
    on_host[i] = host(in[i]);
  }
  ExpectSameBits(f, name + " (device)", in, OnDevice<unsigned short>(in, device), want);
  ExpectSameBits(f, name + " (host)", in, on_host, want);
}

TEST(HalfTest, FloatToHalfRoundsExactlyInEachDirection) {
  const auto in = ConversionInputs(kHalf);
  CheckConversion(kHalf, Mode::kRn, "__float2half_rn", in, HalfRn{}, [](float x) { return __half_as_ushort(__float2half_rn(x)); });
  CheckConversion(kHalf, Mode::kRn, "__half(float)", in, HalfCtor{}, [](float x) { return __half_as_ushort(__half(x)); });
  CheckConversion(kHalf, Mode::kRz, "__float2half_rz", in, HalfRz{}, [](float x) { return __half_as_ushort(__float2half_rz(x)); });
  CheckConversion(kHalf, Mode::kRd, "__float2half_rd", in, HalfRd{}, [](float x) { return __half_as_ushort(__float2half_rd(x)); });
  CheckConversion(kHalf, Mode::kRu, "__float2half_ru", in, HalfRu{}, [](float x) { return __half_as_ushort(__float2half_ru(x)); });
}

TEST(BFloat16Test, FloatToBFloat16RoundsExactlyInEachDirection) {
  const auto in = ConversionInputs(kBf16);
  CheckConversion(kBf16, Mode::kRn, "__float2bfloat16", in, Bf16Rn{}, [](float x) { return __bfloat16_as_ushort(__float2bfloat16(x)); });
  CheckConversion(kBf16, Mode::kRz, "__float2bfloat16_rz", in, Bf16Rz{}, [](float x) { return __bfloat16_as_ushort(__float2bfloat16_rz(x)); });
  CheckConversion(kBf16, Mode::kRd, "__float2bfloat16_rd", in, Bf16Rd{}, [](float x) { return __bfloat16_as_ushort(__float2bfloat16_rd(x)); });
  CheckConversion(kBf16, Mode::kRu, "__float2bfloat16_ru", in, Bf16Ru{}, [](float x) { return __bfloat16_as_ushort(__float2bfloat16_ru(x)); });
}

// Every pattern widens to float exactly (NaN to NaN).
template <typename Device, typename Host>
void CheckWidening(const Fmt& f, const std::string& name, Device device, Host host) {
  std::vector<unsigned short> all(65536);
  for (unsigned i = 0; i < all.size(); ++i) all[i] = static_cast<unsigned short>(i);
  const auto got = OnDevice<float>(all, device);
  size_t bad = 0;
  for (unsigned i = 0; i < all.size(); ++i) {
    const LD want = Value(f, all[i]);
    for (float g : {got[i], host(all[i])}) {
      const bool ok = std::isnan(want) ? std::isnan(g) : (static_cast<LD>(g) == want && std::signbit(g) == std::signbit(want));
      if (!ok && bad++ < 5) ADD_FAILURE() << name << "(0x" << std::hex << i << ") = " << g << ", want " << Hex(want);
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(HalfTest, HalfToFloatIsExactForEveryPattern) {
  CheckWidening(kHalf, "__half2float", HalfToFloat{}, [](unsigned short x) { return __half2float(__ushort_as_half(x)); });
}
TEST(BFloat16Test, BFloat16ToFloatIsExactForEveryPattern) {
  CheckWidening(kBf16, "__bfloat162float", Bf16ToFloat{},
                [](unsigned short x) { return __bfloat162float(__ushort_as_bfloat16(x)); });
}

// Integers: __half2int_r* saturate and take NaN to 0; __int2half_r* round like floats.
struct HalfIntResults {
  int to_int[4];
  unsigned short from_int[4];
};
struct HalfInts {
  __device__ HalfIntResults operator()(int2 in) const {
    const __half h = __ushort_as_half(static_cast<unsigned short>(in.x));
    return {{__half2int_rn(h), __half2int_rz(h), __half2int_rd(h), __half2int_ru(h)},
            {__half_as_ushort(__int2half_rn(in.y)), __half_as_ushort(__int2half_rz(in.y)),
             __half_as_ushort(__int2half_rd(in.y)), __half_as_ushort(__int2half_ru(in.y))}};
  }
};

TEST(HalfTest, IntegerConversionsRoundAndSaturate) {
  std::vector<int2> in;
  std::mt19937 rng(11);
  for (unsigned p = 0; p < 65536; ++p) {
    const int i = static_cast<int>(rng() % 3 == 0 ? rng() : (rng() % 140000) - 70000);
    in.push_back(int2(static_cast<int>(p), i));
  }
  const auto got = OnDevice<HalfIntResults>(in, HalfInts{});
  const Mode modes[] = {Mode::kRn, Mode::kRz, Mode::kRd, Mode::kRu};
  size_t bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const LD v = Value(kHalf, static_cast<unsigned short>(in[i].x));
    for (int m = 0; m < 4; ++m) {
      LD r = std::isnan(v) ? 0 : modes[m] == Mode::kRn ? std::nearbyint(v)  // the host's default: ties to even
             : modes[m] == Mode::kRz ? std::trunc(v) : modes[m] == Mode::kRd ? std::floor(v) : std::ceil(v);
      r = std::fmin(std::fmax(r, -2147483648.0L), 2147483647.0L);
      if (got[i].to_int[m] != static_cast<int>(r) && bad++ < 5) {
        ADD_FAILURE() << "__half2int_" << ModeName(modes[m]) << "(" << Hex(v) << ") = " << got[i].to_int[m];
      }
      const unsigned short want = Round(kHalf, in[i].y, modes[m]);
      if (got[i].from_int[m] != want && bad++ < 5) {
        ADD_FAILURE() << "__int2half_" << ModeName(modes[m]) << "(" << in[i].y << ") = 0x" << std::hex
                      << got[i].from_int[m] << ", want 0x" << want;
      }
    }
  }
  EXPECT_EQ(bad, 0u);
}

// --- Arithmetic and comparisons -----------------------------------------------------------------------------------
// Operands as patterns; results of add, sub, mul, div, fma (and the same through the operators and the pair forms),
// then the comparison bits.
struct Operands {
  unsigned short a, b, c;
};
struct ArithResults {
  unsigned short add, sub, mul, div, fma;
  unsigned short op_add, op_sub, op_mul, op_div;
  unsigned short pair_add_low, pair_fma_high;
  unsigned short max, min;
  unsigned int compares;  // bit k: the k-th comparison below
};

__host__ __device__ inline __half LowOf(__half2 v) { return __low2half(v); }
__host__ __device__ inline __hip_bfloat16 LowOf(__hip_bfloat162 v) { return __low2bfloat16(v); }
__host__ __device__ inline unsigned short Bits(__half h) { return __half_as_ushort(h); }
__host__ __device__ inline unsigned short Bits(__hip_bfloat16 h) { return __bfloat16_as_ushort(h); }

// The comparisons in bit order: eq ne lt le gt ge equ neu ltu leu gtu geu, isnan(a), isinf(a) (two bits: +1, -1),
// heq2 low lane == 1.0, hbeq2 (a, a) vs (b, b).
template <typename T, typename T2>
__host__ __device__ ArithResults Arith(T a, T b, T c) {
  constexpr auto bits = [](T v) { return Bits(v); };
  ArithResults r;
  r.add = bits(__hadd(a, b));
  r.sub = bits(__hsub(a, b));
  r.mul = bits(__hmul(a, b));
  r.div = bits(__hdiv(a, b));
  r.fma = bits(__hfma(a, b, c));
  r.op_add = bits(a + b);
  r.op_sub = bits(a - b);
  r.op_mul = bits(a * b);
  r.op_div = bits(a / b);
  const T2 p(a, c), q(b, b);
  r.pair_add_low = bits(LowOf(__hadd2(p, q)));
  r.pair_fma_high = bits(__hfma2(T2(c, a), T2(b, b), T2(a, c)).y);
  r.max = bits(__hmax(a, b));
  r.min = bits(__hmin(a, b));
  const bool cmp[] = {__heq(a, b),  __hne(a, b),  __hlt(a, b),  __hle(a, b),  __hgt(a, b),  __hge(a, b),
                      __hequ(a, b), __hneu(a, b), __hltu(a, b), __hleu(a, b), __hgtu(a, b), __hgeu(a, b),
                      __hisnan(a),  __hisinf(a) == 1, __hisinf(a) == -1,
                      bits(__heq2(p, q).x) == bits(T(1.0f)),
                      __hbeq2(T2(a, a), T2(b, b))};
  r.compares = 0;
  for (unsigned k = 0; k < sizeof cmp / sizeof cmp[0]; ++k) r.compares |= cmp[k] ? 1u << k : 0u;
  return r;
}

struct HalfArith {
  __device__ ArithResults operator()(Operands o) const {
    return Arith<__half, __half2>(__ushort_as_half(o.a), __ushort_as_half(o.b), __ushort_as_half(o.c));
  }
};
struct Bf16Arith {
  __device__ ArithResults operator()(Operands o) const {
    return Arith<__hip_bfloat16, __hip_bfloat162>(__ushort_as_bfloat16(o.a), __ushort_as_bfloat16(o.b),
                                                  __ushort_as_bfloat16(o.c));
  }
};

// a*b + c (a*b exact in long double) as a long double that rounds to any narrower format like the exact value: the
// long double sum, moved one long double ulp toward the exact value when it was inexact and even (round to odd).
LD FmaReference(LD a, LD b, LD c) {
  const LD p = a * b;
  const LD s = p + c;
  if (!std::isfinite(s)) return s;
  const LD c_part = s - p;
  const LD error = (p - (s - c_part)) + (c - c_part);
  int e;
  const LD m = std::frexp(s, &e);
  const bool odd = static_cast<unsigned long long>(std::ldexp(std::fabs(m), 64)) & 1;
  if (error == 0 || odd) return s;
  return std::nextafter(s, error > 0 ? INFINITY : -INFINITY);
}

ArithResults Expected(const Fmt& f, Operands o) {
  const LD a = Value(f, o.a), b = Value(f, o.b), c = Value(f, o.c);
  ArithResults r;
  // Sums and products of two such values are exact in long double; a quotient rounded to long double's 64 bits
  // rounds to the format as the exact one does.
  r.add = r.op_add = Round(f, a + b, Mode::kRn);
  r.sub = r.op_sub = Round(f, a - b, Mode::kRn);
  r.mul = r.op_mul = Round(f, a * b, Mode::kRn);
  r.div = r.op_div = Round(f, a / b, Mode::kRn);
  r.fma = Round(f, FmaReference(a, b, c), Mode::kRn);
  r.pair_add_low = r.add;
  r.pair_fma_high = r.fma;
  // fmax/fmin: NaN only when both are; -0 and +0 compare equal, so either may come back (checked apart).
  r.max = std::isnan(a) ? o.b : std::isnan(b) ? o.a : (a < b ? o.b : o.a);
  r.min = std::isnan(a) ? o.b : std::isnan(b) ? o.a : (b < a ? o.b : o.a);
  const bool un = std::isnan(a) || std::isnan(b);
  const bool cmp[] = {a == b, !un && a != b, a < b, a <= b, a > b, a >= b,
                      un || a == b, un || a != b, un || a < b, un || a <= b, un || a > b, un || a >= b,
                      std::isnan(a), std::isinf(a) && a > 0, std::isinf(a) && a < 0,
                      a == b, a == b};
  r.compares = 0;
  for (unsigned k = 0; k < sizeof cmp / sizeof cmp[0]; ++k) r.compares |= cmp[k] ? 1u << k : 0u;
  return r;
}

// Random operand patterns with specials mixed in.
std::vector<Operands> RandomOperands(const Fmt& f, unsigned seed) {
  std::mt19937 rng(seed);
  const unsigned short specials[] = {0x0000, 0x8000, f.infinity, static_cast<unsigned short>(f.infinity | 0x8000),
                                     static_cast<unsigned short>(f.infinity | 1), static_cast<unsigned short>(f.infinity - 1),
                                     0x0001, 0x8001, static_cast<unsigned short>(f.infinity == kHalf.infinity ? 0x3c00 : 0x3f80)};
  auto pick = [&]() -> unsigned short {
    if (rng() % 16 == 0) return specials[rng() % (sizeof specials / sizeof specials[0])];
    if (f.infinity == kBf16.infinity && rng() % 2 == 0) {
      // Half of bfloat16's operands within [2^-10, 2^10] in magnitude, where sums and products meet.
      const int e = static_cast<int>(rng() % 21) - 10;
      return static_cast<unsigned short>(((rng() & 1) << 15) | ((e + f.bias) << f.mantissa) | (rng() & 0x7f));
    }
    return static_cast<unsigned short>(rng());
  };
  std::vector<Operands> v(32768);
  for (auto& o : v) o = {pick(), pick(), pick()};
  // Ties and cancellation: a + (-a), equal operands.
  for (size_t i = 0; i < 512; ++i) v[i].b = static_cast<unsigned short>(v[i].a ^ (i % 2 ? 0x8000 : 0));
  return v;
}

template <typename Device, typename Host>
void CheckArithmetic(const Fmt& f, Device device, Host host) {
  const auto in = RandomOperands(f, 3);
  const auto got = OnDevice<ArithResults>(in, device);
  size_t bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const ArithResults want = Expected(f, in[i]);
    for (const auto& [where, r] : {std::pair<const char*, ArithResults>{"device", got[i]}, {"host", host(in[i])}}) {
      const std::pair<const char*, std::pair<unsigned short, unsigned short>> fields[] = {
          {"__hadd", {r.add, want.add}},       {"__hsub", {r.sub, want.sub}},
          {"__hmul", {r.mul, want.mul}},       {"__hdiv", {r.div, want.div}},
          {"__hfma", {r.fma, want.fma}},       {"operator+", {r.op_add, want.op_add}},
          {"operator-", {r.op_sub, want.op_sub}}, {"operator*", {r.op_mul, want.op_mul}},
          {"operator/", {r.op_div, want.op_div}}, {"__hadd2.x", {r.pair_add_low, want.pair_add_low}},
          {"__hfma2.y", {r.pair_fma_high, want.pair_fma_high}}};
      for (const auto& [name, g_w] : fields) {
        const bool ok = g_w.first == g_w.second || (IsNan(f, g_w.first) && IsNan(f, g_w.second));
        if (!ok && bad++ < 8) {
          ADD_FAILURE() << f.name << " " << name << " on " << where << "(" << Hex(Value(f, in[i].a)) << ", "
                        << Hex(Value(f, in[i].b)) << ", " << Hex(Value(f, in[i].c)) << ") = " << Hex(Value(f, g_w.first))
                        << ", want " << Hex(Value(f, g_w.second));
        }
      }
      const bool zeros = Value(f, in[i].a) == 0 && Value(f, in[i].b) == 0;
      const bool minmax_ok = zeros ? (Value(f, r.max) == 0 && Value(f, r.min) == 0)
                                   : (r.max == want.max && r.min == want.min) ||
                                         (IsNan(f, r.max) && IsNan(f, want.max) && IsNan(f, r.min));
      if (!minmax_ok && bad++ < 8) {
        ADD_FAILURE() << f.name << " __hmax/__hmin on " << where << "(" << Hex(Value(f, in[i].a)) << ", "
                      << Hex(Value(f, in[i].b)) << ")";
      }
      if (r.compares != want.compares && bad++ < 8) {
        ADD_FAILURE() << f.name << " comparisons on " << where << "(" << Hex(Value(f, in[i].a)) << ", "
                      << Hex(Value(f, in[i].b)) << "): bits 0x" << std::hex << r.compares << ", want 0x" << want.compares;
      }
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(HalfTest, ArithmeticAndComparisonsAreExact) {
  CheckArithmetic(kHalf, HalfArith{}, [](Operands o) {
    return Arith<__half, __half2>(__ushort_as_half(o.a), __ushort_as_half(o.b), __ushort_as_half(o.c));
  });
}
TEST(BFloat16Test, ArithmeticAndComparisonsAreExact) {
  CheckArithmetic(kBf16, Bf16Arith{}, [](Operands o) {
    return Arith<__hip_bfloat16, __hip_bfloat162>(__ushort_as_bfloat16(o.a), __ushort_as_bfloat16(o.b),
                                                  __ushort_as_bfloat16(o.c));
  });
}

// --- Math functions -----------------------------------------------------------------------------------------------
constexpr int kMathFunctions = 15;
const char* const kMathNames[kMathFunctions] = {"hsqrt", "hrsqrt", "hrcp", "hexp", "hexp2", "hexp10", "hlog", "hlog2",
                                                "hlog10", "hsin", "hcos", "hceil", "hfloor", "htrunc", "hrint"};
struct MathResults {
  unsigned short r[kMathFunctions];
};
template <typename T>
__device__ MathResults MathOf(T x) {
  constexpr auto bits = [](T v) { return Bits(v); };
  return {{bits(hsqrt(x)), bits(hrsqrt(x)), bits(hrcp(x)), bits(hexp(x)), bits(hexp2(x)), bits(hexp10(x)),
           bits(hlog(x)), bits(hlog2(x)), bits(hlog10(x)), bits(hsin(x)), bits(hcos(x)), bits(hceil(x)),
           bits(hfloor(x)), bits(htrunc(x)), bits(hrint(x))}};
}
struct HalfMath {
  __device__ MathResults operator()(unsigned short x) const { return MathOf(__ushort_as_half(x)); }
};
struct Bf16Math {
  __device__ MathResults operator()(unsigned short x) const { return MathOf(__ushort_as_bfloat16(x)); }
};

LD MathReference(int k, LD x) {
  switch (k) {
    case 0: return sqrtl(x);
    case 1: return 1 / sqrtl(x);
    case 2: return 1 / x;
    case 3: return expl(x);
    case 4: return exp2l(x);
    case 5: return exp10l(x);
    case 6: return logl(x);
    case 7: return log2l(x);
    case 8: return log10l(x);
    case 9: return sinl(x);
    case 10: return cosl(x);
    case 11: return ceill(x);
    case 12: return floorl(x);
    case 13: return truncl(x);
    default: return rintl(x);
  }
}

// The error of `got` in ulps of the format at the exact value `ref`. NaN must meet NaN; where `ref` rounds to an
// infinity the result must be that infinity, and otherwise an infinite result counts as the next binade's start.
LD UlpError(const Fmt& f, unsigned short got, LD ref) {
  if (std::isnan(ref)) return IsNan(f, got) ? 0 : INFINITY;
  if (IsNan(f, got)) return INFINITY;
  const unsigned short rounded = Round(f, ref, Mode::kRn);
  LD g = Value(f, got);
  if (std::isinf(Value(f, rounded))) return got == rounded ? 0 : INFINITY;
  if (std::isinf(g)) g = std::copysign(std::ldexp(1.0L, f.bias + 1), g);
  const int e = std::max(std::ilogb(ref == 0 ? std::ldexp(1.0L, 1 - f.bias) : ref), 1 - f.bias);
  return std::fabs(g - ref) / std::ldexp(1.0L, e - f.mantissa);
}

// Every pattern through every function; the worst error per function against its bound.
template <typename Device>
void CheckMath(const Fmt& f, Device device, const LD (&bounds)[kMathFunctions]) {
  std::vector<unsigned short> all(65536);
  for (unsigned i = 0; i < all.size(); ++i) all[i] = static_cast<unsigned short>(i);
  const auto got = OnDevice<MathResults>(all, device);
  for (int k = 0; k < kMathFunctions; ++k) {
    LD worst = 0;
    unsigned worst_i = 0;
    for (unsigned i = 0; i < all.size(); ++i) {
      const LD err = UlpError(f, got[i].r[k], MathReference(k, Value(f, all[i])));
      if (!(err <= worst)) {
        worst = err;
        worst_i = i;
      }
    }
    EXPECT_LE(worst, bounds[k]) << f.name << " " << kMathNames[k] << "(" << Hex(Value(f, all[worst_i])) << ") = "
                                << Hex(Value(f, got[worst_i].r[k])) << ", exact "
                                << Hex(MathReference(k, Value(f, all[worst_i])));
    std::printf("%s %-7s worst %.3Lf ulp\n", f.name, kMathNames[k], worst);
  }
}

// binary16: ocml's f16 functions, held to the OpenCL half-precision bounds ocml's contract follows (CUDA documents
// these as round-to-nearest without a figure): 2 ulps for exp, exp2, exp10, log, log2, log10, sin and cos; sqrt,
// rsqrt and rcp within 1 ulp; the rounding functions exact.
TEST(HalfTest, MathFunctionsOverEveryPattern) {
  const LD bounds[kMathFunctions] = {1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0};
  CheckMath(kHalf, HalfMath{}, bounds);
}
// bfloat16: float's functions (ocml's, a few float ulps at most) rounded once to bfloat16, so within 1 ulp; sqrt and
// rcp are correctly rounded; the rounding functions exact.
TEST(BFloat16Test, MathFunctionsOverEveryPattern) {
  const LD bounds[kMathFunctions] = {0.5, 1, 0.5, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  CheckMath(kBf16, Bf16Math{}, bounds);
}

// --- Shuffles -----------------------------------------------------------------------------------------------------
struct Shuffled {
  unsigned short xor1, down1_high, bcast0, up2_low;
};
__global__ void ShuffleKernel(Shuffled* out) {
  const int lane = static_cast<int>(threadIdx.x);
  const __half h = __int2half_rn(lane);
  const __half2 h2 = __halves2half2(__int2half_rn(-lane), __int2half_rn(lane + 100));
  const __hip_bfloat16 b = __hip_bfloat16(static_cast<float>(lane) * 2);
  const __hip_bfloat162 b2 = __halves2bfloat162(__hip_bfloat16(static_cast<float>(lane)), __hip_bfloat16(0.0f));
  out[lane] = {__half_as_ushort(__shfl_xor(h, 1)), __half_as_ushort(__shfl_down(h2, 1).y),
               __bfloat16_as_ushort(__shfl(b, 0)), __bfloat16_as_ushort(__shfl_up(b2, 2).x)};
}

TEST(HalfTest, ShufflesMoveHalvesAndPairsBetweenLanes) {
  Shuffled* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, sizeof(Shuffled) * 64), hipSuccess);
  ShuffleKernel<<<1, 64>>>(d);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  std::vector<Shuffled> got(64);
  ASSERT_EQ(hipMemcpy(got.data(), d, sizeof(Shuffled) * 64, hipMemcpyDeviceToHost), hipSuccess);
  ASSERT_EQ(hipFree(d), hipSuccess);
  for (int lane = 0; lane < 64; ++lane) {
    // Out-of-range sources (down past lane 63, up before lane 0) read the lane's own value.
    const int down = lane + 1 < 64 ? lane + 1 : lane;
    const int up = lane - 2 >= 0 ? lane - 2 : lane;
    EXPECT_EQ(Value(kHalf, got[lane].xor1), lane ^ 1) << lane;
    EXPECT_EQ(Value(kHalf, got[lane].down1_high), down + 100) << lane;
    EXPECT_EQ(Value(kBf16, got[lane].bcast0), 0) << lane;
    EXPECT_EQ(Value(kBf16, got[lane].up2_low), up) << lane;
  }
}

}  // namespace
