#include "testing/kfd_sim/engines/gfx9/operands.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/decoder.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// The inline float constants 240-248 (0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2*pi)) per width.
constexpr uint32_t kF32[] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
                             0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
constexpr uint16_t kF16[] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118};
constexpr uint64_t kF64[] = {0x3fe0000000000000, 0xbfe0000000000000, 0x3ff0000000000000,
                             0xbff0000000000000, 0x4000000000000000, 0xc000000000000000,
                             0x4010000000000000, 0xc010000000000000, 0x3fc45f306dc9c882};

bool Is64(Width w) { return w == Width::kB64 || w == Width::kI64 || w == Width::kF64; }

// The value of a non-register source code as `width` reads it (64 bits; a 32-bit reader takes the low half).
uint64_t Constant(const Wave& wave, const Inst& inst, const Context& context, uint16_t code, Width width) {
  if (code == op::kZero) return 0;
  if (code > op::kZero && code <= op::kIntPosLast) return code - op::kZero;
  if (code > op::kIntPosLast && code <= op::kIntNegLast) {
    const int64_t v = -static_cast<int64_t>(code - op::kIntPosLast);
    return Is64(width) ? static_cast<uint64_t>(v) : static_cast<uint32_t>(v);
  }
  if (code >= op::kFloatFirst && code <= op::kFloatLast) {
    const int k = code - op::kFloatFirst;
    if (width == Width::k16) return kF16[k];
    if (Is64(width)) return kF64[k];
    return kF32[k];
  }
  const DispatchInfo* d = context.dispatch;
  switch (code) {
    case op::kLiteral:
      if (width == Width::kF64) return uint64_t{inst.literal} << 32;
      if (width == Width::kI64) return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(inst.literal)));
      return inst.literal;
    case op::kSharedBase: return d == nullptr ? 0 : Is64(width) ? d->shared_aperture_base : d->shared_aperture_base >> 32;
    case op::kSharedLimit:
      return d == nullptr ? 0 : Is64(width) ? d->shared_aperture_base + 0xffffffffu : (d->shared_aperture_base >> 32);
    case op::kPrivateBase:
      return d == nullptr ? 0 : Is64(width) ? d->private_aperture_base : d->private_aperture_base >> 32;
    case op::kPrivateLimit:
      return d == nullptr ? 0 : Is64(width) ? d->private_aperture_base + 0xffffffffu : (d->private_aperture_base >> 32);
    case op::kVccz: return wave.vcc() == 0 ? 1 : 0;
    case op::kExecz: return wave.exec() == 0 ? 1 : 0;
    case op::kScc: return wave.scc ? 1 : 0;
    default: return 0;  // reserved codes read as zero
  }
}

// SDWA source selection: a byte or word of the dword, zero- or sign-extended.
uint32_t SdwaSelect(uint32_t v, uint8_t sel, bool sext) {
  switch (sel) {
    case 0: case 1: case 2: case 3: {
      const uint32_t b = (v >> (8 * sel)) & 0xff;
      return sext ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(b))) : b;
    }
    case 4: case 5: {
      const uint32_t h = (v >> (16 * (sel - 4))) & 0xffff;
      return sext ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(h))) : h;
    }
    default: return v;
  }
}

// The lane DPP reads for `lane`, or -1 when the source lane does not exist.
int DppSource(uint16_t ctrl, int lane) {
  const int row_lane = lane & 15;
  const int row = lane & ~15;
  if (ctrl <= 0xff) return (lane & ~3) + ((ctrl >> (2 * (lane & 3))) & 3);  // quad_perm
  if (ctrl >= 0x101 && ctrl <= 0x10f) {  // row_shl
    const int s = row_lane + (ctrl & 0xf);
    return s < 16 ? row + s : -1;
  }
  if (ctrl >= 0x111 && ctrl <= 0x11f) {  // row_shr
    const int s = row_lane - (ctrl & 0xf);
    return s >= 0 ? row + s : -1;
  }
  if (ctrl >= 0x121 && ctrl <= 0x12f) return row + ((row_lane - (ctrl & 0xf)) & 15);  // row_ror
  switch (ctrl) {
    case 0x130: return lane + 1 < kWaveSize ? lane + 1 : -1;  // wave_shl:1
    case 0x134: return (lane + 1) % kWaveSize;                // wave_rol:1
    case 0x138: return lane >= 1 ? lane - 1 : -1;             // wave_shr:1
    case 0x13c: return (lane + kWaveSize - 1) % kWaveSize;    // wave_ror:1
    case 0x140: return row + (15 - row_lane);                 // row_mirror
    case 0x141: return (lane & ~7) + (7 - (lane & 7));        // row_half_mirror
    // The broadcasts feed every lane of the rows after the source (row 1's lane 15 included, which reads lane 15
    // of row 0); rows before it have no source and are left alone.
    case 0x142: return lane < 16 ? -2 : row - 1;  // row_bcast:15
    case 0x143: return lane < 32 ? -2 : 31;       // row_bcast:31
    default: break;
  }
  if (ctrl >= 0x150 && ctrl <= 0x15f) return row + (ctrl & 0xf);  // gfx90a+ row_newbcast: lane n of each row
  return -1;
}

// The lane DPP reads for `lane` as DppSource says, except that a source lane EXEC disables is as invalid as one
// outside the wave: it reads as zero under bound_ctrl and otherwise keeps the destination lane from being written
// (the GCN3/Vega DPP rule compilers rely on when they set bound_ctrl to read zero from inactive lanes).
int DppLane(const Wave& wave, const Inst& inst, int lane) {
  const int source = DppSource(inst.dpp_ctrl, lane);
  if (source >= 0 && ((wave.exec() >> source) & 1) == 0) return -1;
  return source;
}

// The 64 lanes of a source register as DPP permutes them (src0 only) or as they are.
template <typename T, typename Fetch>
void PermuteLanes(const Wave& wave, const Inst& inst, int index, T out[kWaveSize], Fetch fetch) {
  const bool dpp = index == 0 && inst.extra == Extra::kDpp;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    const int s = dpp ? DppLane(wave, inst, lane) : lane;
    out[lane] = s >= 0 ? fetch(s) : T{0};
  }
}

}  // namespace

uint32_t ScalarSource32(const Wave& wave, const Inst& inst, const Context& context, uint16_t code, Width width) {
  if (code < 128) return wave.s[code];
  return static_cast<uint32_t>(Constant(wave, inst, context, code, width));
}

uint64_t ScalarSource64(const Wave& wave, const Inst& inst, const Context& context, uint16_t code, Width width) {
  if (code < 128) return wave.Read64(code);
  return Constant(wave, inst, context, code, width);
}

void WriteScalar32(Wave& wave, uint16_t code, uint32_t value) {
  if (code < 128 && code != 125) wave.s[code] = value;
}

void WriteScalar64(Wave& wave, uint16_t code, uint64_t value) {
  WriteScalar32(wave, code, static_cast<uint32_t>(value));
  WriteScalar32(wave, static_cast<uint16_t>(code + 1), static_cast<uint32_t>(value >> 32));
}

uint64_t WriteMask(const Wave& wave, const Inst& inst) {
  uint64_t mask = wave.exec();
  if (inst.extra != Extra::kDpp) return mask;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    const int row = lane >> 4;
    const int bank = (lane >> 2) & 3;
    const bool enabled = ((inst.dpp_row_mask >> row) & 1) != 0 && ((inst.dpp_bank_mask >> bank) & 1) != 0;
    const int source = DppLane(wave, inst, lane);
    // A lane whose source is invalid is written with zero under bound_ctrl, and left alone otherwise; a broadcast
    // leaves the lanes it does not reach alone.
    const bool has_source = source >= 0 || (source == -1 && inst.dpp_bound_ctrl);
    if (!enabled || !has_source) mask &= ~(uint64_t{1} << lane);
  }
  return mask;
}

void ReadU32(const Wave& wave, const Inst& inst, const Context& context, int index, uint32_t out[kWaveSize],
             Width width) {
  const uint16_t code = inst.src[index];
  if (code >= op::kVgpr0 && code != op::kNone) {
    const uint32_t* v = wave.vgpr(code - op::kVgpr0);
    if (index == 0 && inst.extra == Extra::kDpp) {
      PermuteLanes(wave, inst, index, out, [&](int s) { return v[s]; });
    } else {
      std::memcpy(out, v, sizeof(uint32_t) * kWaveSize);  // the common case: the register as it is
    }
  } else {
    std::fill(out, out + kWaveSize, ScalarSource32(wave, inst, context, code, width));
  }
  if (inst.extra == Extra::kSdwa && index < 2 && inst.sdwa_sel[index] != 6) {
    const bool sext = ((inst.sdwa_sext >> index) & 1) != 0;
    for (int lane = 0; lane < kWaveSize; ++lane) out[lane] = SdwaSelect(out[lane], inst.sdwa_sel[index], sext);
  }
}

void ReadF32(const Wave& wave, const Inst& inst, const Context& context, int index, float out[kWaveSize]) {
  uint32_t raw[kWaveSize];
  ReadU32(wave, inst, context, index, raw, Width::k32);
  const uint32_t clear = ((inst.abs >> index) & 1) != 0 ? 0x7fffffffu : 0xffffffffu;
  const uint32_t flip = ((inst.neg >> index) & 1) != 0 ? 0x80000000u : 0;
  for (int lane = 0; lane < kWaveSize; ++lane) out[lane] = BitsF32((raw[lane] & clear) ^ flip);
}

void ReadU64(const Wave& wave, const Inst& inst, const Context& context, int index, uint64_t out[kWaveSize],
             Width width) {
  const uint16_t code = inst.src[index];
  if (code >= op::kVgpr0 && code != op::kNone) {
    const uint32_t* lo = wave.vgpr(code - op::kVgpr0);
    const uint32_t* hi = wave.vgpr(code - op::kVgpr0 + 1);
    if (index == 0 && inst.extra == Extra::kDpp) {
      // gfx90a+ DPP on a 64-bit source (v_mov_b64, row_newbcast) permutes the register pair as one.
      PermuteLanes(wave, inst, index, out, [&](int s) { return uint64_t{lo[s]} | (uint64_t{hi[s]} << 32); });
    } else {
      for (int lane = 0; lane < kWaveSize; ++lane) out[lane] = uint64_t{lo[lane]} | (uint64_t{hi[lane]} << 32);
    }
  } else {
    std::fill(out, out + kWaveSize, ScalarSource64(wave, inst, context, code, width));
  }
}

void ReadF64(const Wave& wave, const Inst& inst, const Context& context, int index, double out[kWaveSize]) {
  uint64_t raw[kWaveSize];
  ReadU64(wave, inst, context, index, raw, Width::kF64);
  const uint64_t clear = ((inst.abs >> index) & 1) != 0 ? ~(uint64_t{1} << 63) : ~uint64_t{0};
  const uint64_t flip = ((inst.neg >> index) & 1) != 0 ? uint64_t{1} << 63 : 0;
  for (int lane = 0; lane < kWaveSize; ++lane) out[lane] = BitsF64((raw[lane] & clear) ^ flip);
}

void ReadU16(const Wave& wave, const Inst& inst, const Context& context, int index, uint16_t out[kWaveSize]) {
  uint32_t raw[kWaveSize];
  ReadU32(wave, inst, context, index, raw, Width::k16);
  const bool high = inst.encoding == Encoding::kVop3 && ((inst.opsel >> index) & 1) != 0;
  for (int lane = 0; lane < kWaveSize; ++lane) out[lane] = static_cast<uint16_t>(high ? raw[lane] >> 16 : raw[lane]);
}

void ReadF16Bits(const Wave& wave, const Inst& inst, const Context& context, int index, uint16_t out[kWaveSize]) {
  ReadU16(wave, inst, context, index, out);
  const uint16_t clear = ((inst.abs >> index) & 1) != 0 ? 0x7fff : 0xffff;
  const uint16_t flip = ((inst.neg >> index) & 1) != 0 ? 0x8000 : 0;
  for (int lane = 0; lane < kWaveSize; ++lane) out[lane] = static_cast<uint16_t>((out[lane] & clear) ^ flip);
}

void WriteV32(Wave& wave, const Inst& inst, const uint32_t value[kWaveSize], uint64_t mask) {
  uint32_t* d = wave.vgpr(inst.dst - op::kVgpr0);
  if (inst.extra != Extra::kSdwa || inst.sdwa_dst_sel == 6) {
    ForEachLane(mask, [&](int lane) { d[lane] = value[lane]; });
    return;
  }
  const uint8_t sel = inst.sdwa_dst_sel;
  const int shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
  const int top = shift + (sel < 4 ? 8 : 16);  // one past the field's highest bit
  const uint32_t field = (sel < 4 ? 0xffu : 0xffffu) << shift;
  const uint32_t above = top >= 32 ? 0 : ~((1u << top) - 1);
  ForEachLane(mask, [&](int lane) {
    const uint32_t placed = (value[lane] << shift) & field;
    uint32_t rest = 0;
    if (inst.sdwa_dst_unused == 2) {
      rest = d[lane] & ~field;  // UNUSED_PRESERVE
    } else if (inst.sdwa_dst_unused == 1 && ((placed >> (top - 1)) & 1) != 0) {
      rest = above;  // UNUSED_SEXT: the field's sign fills the bits above it
    }
    d[lane] = placed | rest;
  });
}

void WriteV64(Wave& wave, const Inst& inst, const uint64_t value[kWaveSize], uint64_t mask) {
  uint32_t* lo = wave.vgpr(inst.dst - op::kVgpr0);
  uint32_t* hi = wave.vgpr(inst.dst - op::kVgpr0 + 1);
  ForEachLane(mask, [&](int lane) {
    lo[lane] = static_cast<uint32_t>(value[lane]);
    hi[lane] = static_cast<uint32_t>(value[lane] >> 32);
  });
}

void WriteV16(Wave& wave, const Inst& inst, const uint16_t value[kWaveSize], uint64_t mask) {
  if (inst.extra == Extra::kSdwa) {
    uint32_t widened[kWaveSize];
    for (int lane = 0; lane < kWaveSize; ++lane) widened[lane] = value[lane];
    WriteV32(wave, inst, widened, mask);
    return;
  }
  uint32_t* d = wave.vgpr(inst.dst - op::kVgpr0);
  const bool high = inst.encoding == Encoding::kVop3 && ((inst.opsel >> 3) & 1) != 0;
  ForEachLane(mask, [&](int lane) {
    d[lane] = high ? (d[lane] & 0xffffu) | (uint32_t{value[lane]} << 16) : (d[lane] & 0xffff0000u) | value[lane];
  });
}

bool IndexVgprs(const Wave& wave, const Inst& inst, Target target, Inst* indexed, std::string* why) {
  const uint32_t m0 = wave.s[op::kM0];
  const uint32_t index = m0 & kM0GprIndexMask;
  const uint32_t enabled = (m0 & kM0GprModeMask) >> kM0GprModeShift;
  *indexed = inst;
  if (index == 0 || enabled == 0) return true;
  auto offset = [&](uint16_t* code, bool acc) {
    if (*code == op::kNone || *code < op::kVgpr0) return true;
    const uint32_t n = *code - op::kVgpr0 + index;
    const uint32_t limit = acc ? wave.agpr_count : wave.vgpr_count;
    if (n >= limit) {
      *why = absl::StrCat(Mnemonic(inst), ": VGPR index ", index, " takes ", acc ? "a" : "v", *code - op::kVgpr0,
                          " to ", acc ? "a" : "v", n, ", outside the kernel's ", limit);
      return false;
    }
    *code = static_cast<uint16_t>(op::kVgpr0 + n);
    return true;
  };
  // v_madmk_f32/f16 (VOP2 0x17/0x24): the VALU gets dst = src0 * K + src2, src2 being the src1 field.
  const bool madmk = inst.encoding == Encoding::kVop2 && (inst.op == kVop2Base + 0x17 || inst.op == kVop2Base + 0x24);
  for (int k = 0; k < 3; ++k) {
    const int bit = madmk && k == 1 ? 2 : k;
    if (((enabled >> bit) & 1) != 0 && !offset(&indexed->src[k], SourceIsAgpr(inst, k, target))) return false;
  }
  if (((enabled >> 3) & 1) != 0 && !DestinationIsScalar(inst) && !offset(&indexed->dst, DestinationIsAgpr(inst, target))) {
    return false;
  }
  return true;
}

float OutputModifiersF32(const Inst& inst, float value) {
  switch (inst.omod) {
    case 1: value *= 2.0f; break;
    case 2: value *= 4.0f; break;
    case 3: value *= 0.5f; break;
    default: break;
  }
  if (inst.clamp) value = std::isnan(value) ? 0.0f : std::clamp(value, 0.0f, 1.0f);
  return value;
}

double OutputModifiersF64(const Inst& inst, double value) {
  switch (inst.omod) {
    case 1: value *= 2.0; break;
    case 2: value *= 4.0; break;
    case 3: value *= 0.5; break;
    default: break;
  }
  if (inst.clamp) value = std::isnan(value) ? 0.0 : std::clamp(value, 0.0, 1.0);
  return value;
}

}  // namespace hipmem::kfd_sim::gfx9
