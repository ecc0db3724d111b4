#include "testing/kfd_sim/engines/gfx9/vector_memory.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "testing/kfd_sim/engines/gfx9/memory_port.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

constexpr uint64_t kApertureBytes = uint64_t{1} << 32;

// The host bytes of [offset, offset + bytes) of the LDS, or null when any of it is out of range (the hardware's range
// check against the workgroup's LDS allocation).
unsigned char* Lds(Context& c, const LaneAddress& a, uint32_t bytes) {
  return a.address + bytes <= c.lds_bytes && a.address + bytes >= a.address ? c.lds + a.address : nullptr;
}

// The pieces of a scratch access of `bytes` bytes from swizzled VA `va`: the rest of the first dword, then dword by
// dword 256 bytes apart. `piece(va, offset, n)` returns false to stop.
template <typename PieceFn>
bool ForEachScratchPiece(uint64_t va, uint32_t bytes, PieceFn piece) {
  uint32_t done = 0;
  while (done < bytes) {
    const uint32_t n = std::min<uint32_t>(bytes - done, 4 - static_cast<uint32_t>(va % 4));
    if (!piece(va, done, n)) return false;
    done += n;
    va = (va & ~uint64_t{3}) + 4 * kWaveSize;
  }
  return true;
}

// Resolves a scratch access: inside the wave's private memory (Context::scratch_va) or out of range as a whole (reads
// 0, writes nothing, as the engine has always treated a lane's access past its private segment); in range, through
// the page table like any global access, so an unmapped scratch backing is a VM fault.
bool ResolveScratch(Context& c, const LaneAccess& access, LaneSpan* span) {
  const uint64_t first = access.address.address;
  const uint64_t k = first % 4 + access.bytes - 1;  // the last byte, counted from the first's dword
  const uint64_t last = (first & ~uint64_t{3}) + (k / 4) * (4 * kWaveSize) + k % 4;
  if (first < c.scratch_va || last < first || last >= c.scratch_va + c.scratch_bytes) return true;  // out of range
  span->global = true;  // the runtime (and a debugger) may look at the queue's scratch while the wave runs
  span->bytes = access.bytes;
  if (first % 4 + access.bytes <= 4) {
    span->host = static_cast<unsigned char*>(c.memory->Word(first, access.bytes));
    if (span->host != nullptr) return true;
  }
  unsigned char probe[4];
  const bool mapped = ForEachScratchPiece(first, access.bytes, [&](uint64_t va, uint32_t, uint32_t n) {
    if (std::optional<uint64_t> fault = c.memory->Read(va, probe, n)) {
      c.Fault(*fault);
      return false;
    }
    return true;
  });
  span->swizzled = true;
  return mapped;
}

float F32(uint32_t bits) { return BitsF32(bits); }

uint32_t FlushF32(uint32_t bits) { return (bits & 0x7f800000u) == 0 ? bits & 0x80000000u : bits; }

float F16ToF32(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t e = (h >> 10) & 0x1f;
  const uint32_t m = h & 0x3ffu;
  if (e == 0) {
    const float magnitude = static_cast<float>(m) * 0x1p-24f;  // exact: at most 10 significant bits
    return BitsF32(F32Bits(magnitude) | sign);
  }
  if (e == 31) return BitsF32(sign | 0x7f800000u | (m << 13));
  return BitsF32(sign | ((e + 112) << 23) | (m << 13));
}

// Rounds to nearest even; NaNs stay NaNs (quieted), overflow goes to infinity.
uint16_t F32ToF16(float f) {
  const uint32_t x = F32Bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t e = (x >> 23) & 0xff;
  uint32_t m = x & 0x7fffffu;
  if (e == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (m != 0 ? 0x200u | (m >> 13) : 0));
  const int exp = static_cast<int>(e) - 127 + 15;
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);  // below half the smallest denormal
    m |= 0x800000u;
    const int shift = 14 - exp;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    uint32_t q = m >> shift;
    if (rem > half || (rem == half && (q & 1) != 0)) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (m >> 13);
  const uint32_t rem = m & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1) != 0)) ++h;  // a carry into the exponent is still right
  return static_cast<uint16_t>(h);
}

uint16_t F32ToBf16(float f) {
  const uint32_t x = F32Bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

float Bf16ToF32(uint16_t b) { return BitsF32(uint32_t{b} << 16); }

template <typename F>
F MinNum(F a, F b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;  // -0 below +0
  return a < b ? a : b;
}

template <typename F>
F MaxNum(F a, F b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

}  // namespace

namespace atomic_op {
// Two f16 (or bf16) sums computed in f32 and rounded once more: f32's 24 bits are at least twice the 11 (8) bits of
// the narrow format plus two, so the double rounding gives the correctly rounded narrow sum.
uint32_t PkAddF16(uint32_t old, uint32_t d, uint32_t) {
  const uint16_t lo = F32ToF16(F16ToF32(static_cast<uint16_t>(old)) + F16ToF32(static_cast<uint16_t>(d)));
  const uint16_t hi = F32ToF16(F16ToF32(static_cast<uint16_t>(old >> 16)) + F16ToF32(static_cast<uint16_t>(d >> 16)));
  return uint32_t{lo} | (uint32_t{hi} << 16);
}
uint32_t PkAddBf16(uint32_t old, uint32_t d, uint32_t) {
  const uint16_t lo = F32ToBf16(Bf16ToF32(static_cast<uint16_t>(old)) + Bf16ToF32(static_cast<uint16_t>(d)));
  const uint16_t hi =
      F32ToBf16(Bf16ToF32(static_cast<uint16_t>(old >> 16)) + Bf16ToF32(static_cast<uint16_t>(d >> 16)));
  return uint32_t{lo} | (uint32_t{hi} << 16);
}
uint32_t AddF32(uint32_t old, uint32_t d, uint32_t) { return F32Bits(F32(old) + F32(d)); }
uint32_t AddF32Ftz(uint32_t old, uint32_t d, uint32_t) {
  return FlushF32(F32Bits(F32(FlushF32(old)) + F32(FlushF32(d))));
}
uint64_t AddF64(uint64_t old, uint64_t d, uint64_t) { return F64Bits(BitsF64(old) + BitsF64(d)); }
uint32_t MinF32(uint32_t old, uint32_t d, uint32_t) { return F32Bits(MinNum(F32(old), F32(d))); }
uint32_t MaxF32(uint32_t old, uint32_t d, uint32_t) { return F32Bits(MaxNum(F32(old), F32(d))); }
uint64_t MinF64(uint64_t old, uint64_t d, uint64_t) { return F64Bits(MinNum(BitsF64(old), BitsF64(d))); }
uint64_t MaxF64(uint64_t old, uint64_t d, uint64_t) { return F64Bits(MaxNum(BitsF64(old), BitsF64(d))); }
}  // namespace atomic_op

LaneAddress Classify(const Context& context, uint64_t flat_address, uint64_t flat_scratch, int lane) {
  const DispatchInfo* d = context.dispatch;
  if (d != nullptr) {
    if (flat_address - d->shared_aperture_base < kApertureBytes) {
      return LaneAddress{Space::kLds, flat_address - d->shared_aperture_base};
    }
    if (flat_address - d->private_aperture_base < kApertureBytes) {
      return ScratchLane(flat_scratch, flat_address - d->private_aperture_base, lane);
    }
  }
  return LaneAddress{Space::kGlobal, flat_address};
}

bool ResolveLane(Context& context, const LaneAccess& access, LaneSpan* span) {
  *span = LaneSpan{};
  span->va = access.address.address;
  if (access.bytes == 0) return true;
  if (access.address.space == Space::kScratch) return ResolveScratch(context, access, span);
  if (access.address.space == Space::kLds) {
    span->host = Lds(context, access.address, access.bytes);
    span->bytes = span->host == nullptr ? 0 : access.bytes;
    return true;
  }
  span->global = true;
  span->bytes = access.bytes;
  // Word() answers for any size: the host bytes when the whole access lies in one translation.
  span->host = static_cast<unsigned char*>(context.memory->Word(access.address.address, access.bytes));
  if (span->host != nullptr) return true;
  // Unmapped, or straddling two translations: find out which by reading (reads have no side effects here).
  unsigned char probe[16];
  if (std::optional<uint64_t> fault = context.memory->Read(access.address.address, probe, access.bytes)) {
    context.Fault(*fault);
    return false;
  }
  span->split = true;
  return true;
}

bool ResolveWave(Context& context, uint64_t mask, const uint64_t va[kWaveSize], uint32_t bytes, unsigned char** host,
                 uint64_t* lowest, bool* unit) {
  *unit = false;
  if (mask == 0) {  // no lane accesses anything: nothing to translate
    *host = nullptr;
    *lowest = 0;
    return true;
  }
  uint64_t lo = ~uint64_t{0};
  uint64_t hi = 0;
  if (UnitStride(mask, va, bytes)) {  // the streaming case: the ends are the first and last lanes'
    *unit = true;
    lo = va[0];
    hi = va[kWaveSize - 1];
  } else if (mask == ~uint64_t{0}) {  // a plain loop the compiler vectorises
    for (int l = 0; l < kWaveSize; ++l) {
      lo = std::min(lo, va[l]);
      hi = std::max(hi, va[l]);
    }
  } else {
    ForEachLane(mask, [&](int l) {
      lo = std::min(lo, va[l]);
      hi = std::max(hi, va[l]);
    });
  }
  const uint64_t end = hi + bytes;
  if (end < hi) return false;  // wraps around the address space: lane by lane
  void* base = context.memory->Range(lo, end - lo);
  if (base == nullptr) return false;
  *host = static_cast<unsigned char*>(base);
  *lowest = lo;
  return true;
}

void ReadSpan(Context& context, const LaneSpan& span, void* out, uint32_t bytes) {
  auto* dst = static_cast<unsigned char*>(out);
  uint32_t have = span.bytes < bytes ? span.bytes : bytes;
  if (span.host != nullptr) {
    std::memcpy(dst, span.host, have);
  } else if (span.swizzled) {
    ForEachScratchPiece(span.va, have, [&](uint64_t va, uint32_t at, uint32_t n) {
      (void)context.memory->Read(va, dst + at, n);  // resolved: mapped
      return true;
    });
  } else if (span.split) {
    (void)context.memory->Read(span.va, dst, have);  // resolved: mapped
  } else {
    have = 0;
  }
  if (have < bytes) std::memset(dst + have, 0, bytes - have);
}

void WriteSpan(Context& context, const LaneSpan& span, const void* in) {
  if (span.host != nullptr) {
    std::memcpy(span.host, in, span.bytes);
  } else if (span.swizzled) {
    ForEachScratchPiece(span.va, span.bytes, [&](uint64_t va, uint32_t at, uint32_t n) {
      (void)context.memory->Write(va, static_cast<const unsigned char*>(in) + at, n);  // resolved: mapped
      return true;
    });
  } else if (span.split) {
    (void)context.memory->Write(span.va, in, span.bytes);  // resolved: mapped
  }
}

bool LaneRead(Context& context, const LaneAddress& a, void* out, uint32_t bytes) {
  LaneSpan span;
  if (!ResolveLane(context, LaneAccess{a, bytes}, &span)) return false;
  ReadSpan(context, span, out, bytes);
  return true;
}

bool LaneWrite(Context& context, const LaneAddress& a, const void* in, uint32_t bytes) {
  LaneSpan span;
  if (!ResolveLane(context, LaneAccess{a, bytes}, &span)) return false;
  WriteSpan(context, span, in);
  return true;
}

uint32_t LoadedDword(LoadKind kind, uint32_t bytes, const unsigned char* data, uint32_t previous) {
  const uint32_t raw = bytes == 1 ? data[0] : uint32_t{data[0]} | (uint32_t{data[1]} << 8);
  const uint32_t sext = bytes == 1 ? static_cast<uint32_t>(static_cast<int8_t>(raw))
                                   : static_cast<uint32_t>(static_cast<int16_t>(raw));
  switch (kind) {
    case LoadKind::kZext: return raw;
    case LoadKind::kSext: return sext;
    case LoadKind::kD16Zext: return (previous & 0xffff0000u) | raw;
    case LoadKind::kD16Sext: return (previous & 0xffff0000u) | (sext & 0xffffu);
    case LoadKind::kD16HiZext: return (previous & 0xffffu) | (raw << 16);
    case LoadKind::kD16HiSext: return (previous & 0xffffu) | (sext << 16);
    case LoadKind::kDwords: break;
  }
  uint32_t v;
  std::memcpy(&v, data, 4);
  return v;
}

}  // namespace hipmem::kfd_sim::gfx9
