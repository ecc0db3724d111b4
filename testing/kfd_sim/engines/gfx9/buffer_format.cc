// Typed buffer access (buffer_format.h). The format is a data format (how many components of how many bits, packed
// from bit 0 up in x, y, z, w order) and a number format (how each component converts to and from a register):
//
//   data formats: 1 8, 2 16, 3 8_8, 4 32, 5 16_16, 6 10_11_11, 7 11_11_10, 8 10_10_10_2, 9 2_10_10_10, 10 8_8_8_8,
//                 11 32_32, 12 16_16_16_16, 13 32_32_32, 14 32_32_32_32 (0 invalid, 15 reserved)
//   number formats: 0 UNORM, 1 SNORM, 2 USCALED, 3 SSCALED, 4 UINT, 5 SINT, 7 FLOAT (6 reserved)
//
// A data format's name lists its components from the most significant bits down (2_10_10_10: x in bits 9:0, w in
// 31:30; 10_11_11: x in 10:0, z in 31:22). MTBUF carries the format in the instruction (DFMT bits 22:19, NFMT
// 25:23); MUBUF's format ops take it from the V# (word3: NUM_FORMAT 14:12, DATA_FORMAT 18:15; its DST_SEL swizzle
// is not applied).
//
// Loads: UNORM x / (2^n - 1) and SNORM max(x / (2^(n-1) - 1), -1) as f32; USCALED/SSCALED as the integer in f32;
// UINT/SINT zero/sign-extended; FLOAT from f32, f16 or the unsigned 11/10-bit floats (5-bit exponent). Components
// the format lacks read as 0, w as 1 (1.0 for the float-valued number formats). Stores invert that: normalized
// values clamped to their range and rounded to nearest even, SCALED rounded and clamped, UINT/SINT truncated to the
// component's bits, f32 rounded to f16 or the small floats (negative to 0). A store with fewer components than a
// byte-aligned format writes only its components' bytes. The d16 forms carry 16-bit values, two per VGPR: integers
// as their low 16 bits, everything else as f16; d16 loads keep the half they do not write.
//
// Inferred, not documented: the defaults for missing components, truncation (not saturation) for UINT/SINT stores,
// and round-to-nearest-even for every store conversion. Refused as illegal instructions: the invalid/reserved
// formats, FLOAT on 8- or 2-bit components, a store with fewer components than a packed format (6-9) has, and the
// lds bit on a format load.
#include "testing/kfd_sim/engines/gfx9/buffer_format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/decoder.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/valu_fp.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

enum NumFormat : uint32_t { kUnorm = 0, kSnorm = 1, kUscaled = 2, kSscaled = 3, kUint = 4, kSint = 5, kFloat = 7 };

struct Layout {
  int count = 0;
  int bits[4] = {};
  int shift[4] = {};
  int bytes = 0;
  bool packed = false;  // components that are not whole bytes
};

bool FindLayout(uint32_t dfmt, Layout* out) {
  auto make = [](std::initializer_list<int> bits, bool packed) {
    Layout l;
    int at = 0;
    for (const int b : bits) {
      l.bits[l.count] = b;
      l.shift[l.count] = at;
      at += b;
      ++l.count;
    }
    l.bytes = at / 8;
    l.packed = packed;
    return l;
  };
  switch (dfmt) {
    case 1: *out = make({8}, false); return true;
    case 2: *out = make({16}, false); return true;
    case 3: *out = make({8, 8}, false); return true;
    case 4: *out = make({32}, false); return true;
    case 5: *out = make({16, 16}, false); return true;
    case 6: *out = make({11, 11, 10}, true); return true;
    case 7: *out = make({10, 11, 11}, true); return true;
    case 8: *out = make({2, 10, 10, 10}, true); return true;
    case 9: *out = make({10, 10, 10, 2}, true); return true;
    case 10: *out = make({8, 8, 8, 8}, false); return true;
    case 11: *out = make({32, 32}, false); return true;
    case 12: *out = make({16, 16, 16, 16}, false); return true;
    case 13: *out = make({32, 32, 32}, false); return true;
    case 14: *out = make({32, 32, 32, 32}, false); return true;
    default: return false;
  }
}

bool FloatValued(uint32_t nfmt) { return nfmt != kUint && nfmt != kSint; }

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

int64_t SignExtend(uint64_t v, int bits) {
  const uint64_t m = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((v ^ m) - m);
}

// The unsigned small floats of the packed formats: 5 exponent bits (bias 15), `mantissa` mantissa bits.
double SmallFloatValue(uint64_t v, int mantissa) {
  const int e = static_cast<int>(v >> mantissa) & 31;
  const double m = static_cast<double>(v & Mask(mantissa));
  if (e == 31) return m == 0 ? INFINITY : NAN;
  if (e == 0) return std::ldexp(m, -14 - mantissa);
  return std::ldexp(m + std::ldexp(1.0, mantissa), e - 15 - mantissa);
}

uint64_t SmallFloatBits(float f, int mantissa) {
  const uint64_t inf = uint64_t{31} << mantissa;
  if (std::isnan(f)) return inf | (uint64_t{1} << (mantissa - 1));
  if (!(f > 0)) return 0;
  if (std::isinf(f)) return inf;
  int e2;
  std::frexp(f, &e2);
  int e = std::max(e2 - 1, -14);
  double q = std::nearbyint(std::ldexp(static_cast<double>(f), mantissa - e));
  if (q >= std::ldexp(1.0, mantissa + 1)) {
    q /= 2;
    ++e;
  }
  if (e > 15) return inf;
  if (q < std::ldexp(1.0, mantissa)) return static_cast<uint64_t>(q);  // denormal (e == -14)
  return (static_cast<uint64_t>(e + 15) << mantissa) | (static_cast<uint64_t>(q) & Mask(mantissa));
}

// A component's field to its 32-bit register value.
uint32_t LoadValue(uint64_t x, int bits, uint32_t nfmt) {
  switch (nfmt) {
    case kUnorm: return F32Bits(static_cast<float>(static_cast<double>(x) / static_cast<double>(Mask(bits))));
    case kSnorm: {
      const double v = static_cast<double>(SignExtend(x, bits)) / static_cast<double>(Mask(bits - 1));
      return F32Bits(static_cast<float>(std::max(v, -1.0)));
    }
    case kUscaled: return F32Bits(static_cast<float>(x));
    case kSscaled: return F32Bits(static_cast<float>(SignExtend(x, bits)));
    case kUint: return static_cast<uint32_t>(x);
    case kSint: return static_cast<uint32_t>(SignExtend(x, bits));
    default: break;  // kFloat
  }
  switch (bits) {
    case 32: return static_cast<uint32_t>(x);
    case 16: return F32Bits(F16ToF32(static_cast<uint16_t>(x)));
    default: return F32Bits(static_cast<float>(SmallFloatValue(x, bits == 11 ? 6 : 5)));
  }
}

// A 32-bit register value to a component's field.
uint64_t StoreField(uint32_t r, int bits, uint32_t nfmt) {
  const float f = BitsF32(r);
  const double top = static_cast<double>(Mask(bits));
  switch (nfmt) {
    case kUnorm: return std::isnan(f) ? 0 : static_cast<uint64_t>(std::nearbyint(std::clamp<double>(f, 0, 1) * top));
    case kSnorm: {
      if (std::isnan(f)) return 0;
      const double half = static_cast<double>(Mask(bits - 1));
      return static_cast<uint64_t>(static_cast<int64_t>(std::nearbyint(std::clamp<double>(f, -1, 1) * half))) &
             Mask(bits);
    }
    case kUscaled: return std::isnan(f) ? 0 : static_cast<uint64_t>(std::nearbyint(std::clamp<double>(f, 0, top)));
    case kSscaled: {
      if (std::isnan(f)) return 0;
      const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1) - 1;
      return static_cast<uint64_t>(static_cast<int64_t>(std::nearbyint(std::clamp<double>(f, lo, hi)))) & Mask(bits);
    }
    case kUint:
    case kSint: return r & Mask(bits);
    default: break;  // kFloat
  }
  switch (bits) {
    case 32: return r;
    case 16: return F64ToF16(f, 0);
    default: return SmallFloatBits(f, bits == 11 ? 6 : 5);
  }
}

// The d16 forms' 16-bit values.
uint16_t To16(uint32_t v, uint32_t nfmt) { return FloatValued(nfmt) ? F64ToF16(BitsF32(v), 0) : static_cast<uint16_t>(v); }
uint32_t From16(uint16_t h, uint32_t nfmt) {
  if (FloatValued(nfmt)) return F32Bits(F16ToF32(h));
  return nfmt == kSint ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(h))) : h;
}

enum class D16 : uint8_t { kNo, kPacked, kHigh };  // kHigh: the d16_hi_x forms, in the register's high half

template <int kCount, bool kStore, D16 kD16, bool kTyped>
void FormatAccess(Wave& w, const Inst& i, Context& c) {
  uint32_t dfmt, nfmt;
  if constexpr (kTyped) {
    dfmt = i.dfmt;
    nfmt = i.nfmt;
  } else {
    if (i.lds) {
      c.Illegal("a MUBUF format load to LDS is not simulated");
      return;
    }
    const uint32_t word3 = w.s[i.saddr + 3];
    nfmt = (word3 >> 12) & 7;
    dfmt = (word3 >> 15) & 15;
  }
  Layout layout;
  bool ok = FindLayout(dfmt, &layout) && nfmt != 6;
  for (int k = 0; ok && k < layout.count; ++k) {
    ok = nfmt != kFloat || layout.bits[k] == 32 || layout.bits[k] == 16 || layout.bits[k] == 11 || layout.bits[k] == 10;
  }
  if (ok && kStore && kCount < layout.count && layout.packed) ok = false;
  if (!ok) {
    c.Illegal(absl::StrCat("buffer format: data format ", dfmt, ", number format ", nfmt, " for ", Mnemonic(i)));
    return;
  }
  const int written = std::min(kCount, layout.count);
  const uint32_t bytes = static_cast<uint32_t>(
      kStore && written < layout.count ? (layout.shift[written - 1] + layout.bits[written - 1]) / 8 : layout.bytes);

  const uint64_t mask = w.exec();
  const auto access = BufferAccessor(w, i, c);
  LaneSpan spans[kWaveSize];
  if (!ResolveLanes(c, mask, [&](int lane) { return access(lane, bytes); }, spans)) return;
  constexpr int kRegs = kD16 == D16::kNo ? kCount : (kCount + 1) / 2;
  uint32_t* r[kRegs];
  for (int d = 0; d < kRegs; ++d) r[d] = DataRegister(w, i, static_cast<uint16_t>(i.data0 + d));
  auto field = [&](const uint64_t words[2], int k) {
    const int s = layout.shift[k];
    return (words[s / 64] >> (s % 64)) & Mask(layout.bits[k]);
  };

  ForEachLane(mask, [&](int l) {
    if constexpr (!kStore) {
      unsigned char raw[16];
      ReadSpan(c, spans[l], raw, bytes);
      uint64_t words[2] = {0, 0};
      std::memcpy(words, raw, bytes);
      for (int k = 0; k < kCount; ++k) {
        uint32_t v;
        if (k < layout.count) {
          v = LoadValue(field(words, k), layout.bits[k], nfmt);
        } else {
          v = k == 3 ? (FloatValued(nfmt) ? F32Bits(1.0f) : 1u) : 0u;
        }
        if constexpr (kD16 == D16::kNo) {
          r[k][l] = v;
        } else if constexpr (kD16 == D16::kHigh) {
          r[0][l] = (r[0][l] & 0xffffu) | (uint32_t{To16(v, nfmt)} << 16);
        } else {
          uint32_t& reg = r[k / 2][l];
          reg = k % 2 == 0 ? (reg & 0xffff0000u) | To16(v, nfmt) : (reg & 0xffffu) | (uint32_t{To16(v, nfmt)} << 16);
        }
      }
    } else {
      uint64_t words[2] = {0, 0};
      for (int k = 0; k < written; ++k) {
        uint32_t v;
        if constexpr (kD16 == D16::kNo) {
          v = r[k][l];
        } else if constexpr (kD16 == D16::kHigh) {
          v = From16(static_cast<uint16_t>(r[0][l] >> 16), nfmt);
        } else {
          v = From16(static_cast<uint16_t>(k % 2 == 0 ? r[k / 2][l] : r[k / 2][l] >> 16), nfmt);
        }
        words[layout.shift[k] / 64] |= StoreField(v, layout.bits[k], nfmt) << (layout.shift[k] % 64);
      }
      unsigned char raw[16];
      std::memcpy(raw, words, sizeof(raw));
      WriteSpan(c, spans[l], raw);
    }
  });
}

// The four loads, four stores, four d16 loads and four d16 stores, in the order both encodings number them.
template <bool kTyped>
void AddFormatOps(std::array<OpInfo, 128>& t, const char* const names[16]) {
  t[0] = {names[0], &FormatAccess<1, false, D16::kNo, kTyped>};
  t[1] = {names[1], &FormatAccess<2, false, D16::kNo, kTyped>};
  t[2] = {names[2], &FormatAccess<3, false, D16::kNo, kTyped>};
  t[3] = {names[3], &FormatAccess<4, false, D16::kNo, kTyped>};
  t[4] = {names[4], &FormatAccess<1, true, D16::kNo, kTyped>};
  t[5] = {names[5], &FormatAccess<2, true, D16::kNo, kTyped>};
  t[6] = {names[6], &FormatAccess<3, true, D16::kNo, kTyped>};
  t[7] = {names[7], &FormatAccess<4, true, D16::kNo, kTyped>};
  t[8] = {names[8], &FormatAccess<1, false, D16::kPacked, kTyped>};
  t[9] = {names[9], &FormatAccess<2, false, D16::kPacked, kTyped>};
  t[10] = {names[10], &FormatAccess<3, false, D16::kPacked, kTyped>};
  t[11] = {names[11], &FormatAccess<4, false, D16::kPacked, kTyped>};
  t[12] = {names[12], &FormatAccess<1, true, D16::kPacked, kTyped>};
  t[13] = {names[13], &FormatAccess<2, true, D16::kPacked, kTyped>};
  t[14] = {names[14], &FormatAccess<3, true, D16::kPacked, kTyped>};
  t[15] = {names[15], &FormatAccess<4, true, D16::kPacked, kTyped>};
}

}  // namespace

const OpInfo* MubufFormatOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    static const char* const kNames[16] = {
        "buffer_load_format_x",      "buffer_load_format_xy",      "buffer_load_format_xyz",
        "buffer_load_format_xyzw",   "buffer_store_format_x",      "buffer_store_format_xy",
        "buffer_store_format_xyz",   "buffer_store_format_xyzw",   "buffer_load_format_d16_x",
        "buffer_load_format_d16_xy", "buffer_load_format_d16_xyz", "buffer_load_format_d16_xyzw",
        "buffer_store_format_d16_x", "buffer_store_format_d16_xy", "buffer_store_format_d16_xyz",
        "buffer_store_format_d16_xyzw",
    };
    AddFormatOps<false>(t, kNames);
    t[0x26] = {"buffer_load_format_d16_hi_x", &FormatAccess<1, false, D16::kHigh, false>};
    t[0x27] = {"buffer_store_format_d16_hi_x", &FormatAccess<1, true, D16::kHigh, false>};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* MtbufOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    static const char* const kNames[16] = {
        "tbuffer_load_format_x",      "tbuffer_load_format_xy",      "tbuffer_load_format_xyz",
        "tbuffer_load_format_xyzw",   "tbuffer_store_format_x",      "tbuffer_store_format_xy",
        "tbuffer_store_format_xyz",   "tbuffer_store_format_xyzw",   "tbuffer_load_format_d16_x",
        "tbuffer_load_format_d16_xy", "tbuffer_load_format_d16_xyz", "tbuffer_load_format_d16_xyzw",
        "tbuffer_store_format_d16_x", "tbuffer_store_format_d16_xy", "tbuffer_store_format_d16_xyz",
        "tbuffer_store_format_d16_xyzw",
    };
    AddFormatOps<true>(t, kNames);
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
