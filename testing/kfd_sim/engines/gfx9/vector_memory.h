// Per-lane memory access shared by the vector memory families (FLAT/GLOBAL/SCRATCH, MUBUF, DS): where a lane's
// address lands (GPU virtual memory through the page table, the workgroup's LDS, the wave's scratch), the register
// a data operand names (a VGPR, or an AGPR under gfx90a's ACC bit), and the read-modify-write operations the atomics
// of every family share.
//
// An instruction first resolves every active lane's access (ResolveLanes), then moves data. A lane that touches an
// unmapped VA stops the wave with a VM fault at the lowest such lane's address, and since resolution happens before
// any data moves, nothing of the faulting instruction lands: no store is written, no atomic applied, no register
// loaded (as on hardware with XNACK off, where the wave halts on the fault and its results are never committed).
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VECTOR_MEMORY_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VECTOR_MEMORY_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/memory_port.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

// Where one lane's access goes.
enum class Space : uint8_t { kGlobal, kLds, kScratch };

struct LaneAddress {
  Space space = Space::kGlobal;
  // A VA (kGlobal), an LDS byte offset, or (kScratch) the VA of the access's first byte in the wave's swizzled
  // scratch (ScratchLaneVa): its later dwords are 256 bytes apart, one dword of each of the 64 lanes between them.
  uint64_t address = 0;
};

// Scratch is swizzled per lane in dwords (the private segment buffer's ELEMENT_SIZE 4 and INDEX_STRIDE 64, which the
// flat and scratch instructions follow too): lane `lane`'s private byte `offset` of the wave whose scratch starts at
// `wave_base` (MUBUF: the V#'s base plus soffset; FLAT/SCRATCH: FLAT_SCRATCH).
inline uint64_t ScratchLaneVa(uint64_t wave_base, uint64_t offset, int lane) {
  return wave_base + (offset / 4) * (4 * kWaveSize) + static_cast<uint64_t>(lane) * 4 + offset % 4;
}
inline LaneAddress ScratchLane(uint64_t wave_base, uint64_t offset, int lane) {
  return LaneAddress{Space::kScratch, ScratchLaneVa(wave_base, offset, lane)};
}

// Register `n` of the data file an instruction's data or destination operand names.
inline uint32_t* DataRegister(Wave& wave, const Inst& inst, uint16_t code) {
  return inst.acc ? wave.agpr(code - op::kVgpr0) : wave.vgpr(code - op::kVgpr0);
}

// One lane's access before resolution: where it goes and how many of its leading bytes are inside the range the
// instruction may touch (fewer than the access's size when a buffer's range check drops its later dwords; 0 drops
// the whole access).
struct LaneAccess {
  LaneAddress address;
  uint32_t bytes = 0;
};

// One lane's access, resolved: the host bytes behind its first `bytes` bytes (none for an out-of-range LDS or scratch
// access, which reads zeros and drops writes). A global access whose bytes straddle two translations has no single
// host pointer: it goes through the memory port (`split`); so does a scratch access of more than one dword
// (`swizzled`: its dwords are 256 bytes apart).
struct LaneSpan {
  unsigned char* host = nullptr;
  uint64_t va = 0;
  uint32_t bytes = 0;
  bool split = false;
  bool global = false;  // other host threads (waves, the host, copy engines) may touch these bytes at once
  bool swizzled = false;
};

// Resolves one lane's access. Returns false after reporting a VM fault.
bool ResolveLane(Context& context, const LaneAccess& access, LaneSpan* span);

// Resolves the access of every lane in `mask`, lowest lane first, `access(lane)` giving each lane's LaneAccess.
// Returns false after reporting the VM fault of the lowest faulting lane; nothing has been read or written then.
template <typename AccessFn>
bool ResolveLanes(Context& context, uint64_t mask, AccessFn access, LaneSpan spans[kWaveSize]) {
  uint64_t left = mask;
  while (left != 0) {
    const int lane = __builtin_ctzll(left);
    left &= left - 1;
    const LaneAccess a = access(lane);
    // The common case inline: a global access inside the translation the previous lane used.
    if (a.address.space == Space::kGlobal && a.bytes != 0) {
      if (void* host = context.memory->Word(a.address.address, a.bytes)) {
        spans[lane] = LaneSpan{static_cast<unsigned char*>(host), a.address.address, a.bytes, false, true};
        continue;
      }
    }
    if (!ResolveLane(context, a, &spans[lane])) return false;
  }
  return true;
}

// Whether every lane is active and lane l's address is va[0] + l * stride, without wrapping: the wave moves one
// contiguous block. An or-reduction of the differences, so the compiler vectorises it.
inline bool UnitStride(uint64_t mask, const uint64_t va[kWaveSize], uint64_t stride) {
  if (mask != ~uint64_t{0}) return false;
  uint64_t differ = 0;
  for (int l = 0; l < kWaveSize; ++l) differ |= va[l] - (va[0] + static_cast<uint64_t>(l) * stride);
  return differ == 0 && va[kWaveSize - 1] >= va[0];
}

// The whole-wave path of a global access, the common case of a streaming kernel: when the `bytes`-byte accesses of
// every lane in `mask` at va[lane] all fall inside one translation, each lane's host bytes are at
// `*host + (va[lane] - *lowest)` and no lane can fault; one translation lookup serves the wave. `*unit` says whether
// the lanes are also one contiguous block, every lane active and lane l at *lowest + l * bytes (UnitStride). Returns
// false when they do not (some lane unmapped, or the lanes spread over more than one translation): nothing has been
// reported then, and the caller resolves lane by lane (ResolveLanes), which finds the lowest faulting lane as before.
bool ResolveWave(Context& context, uint64_t mask, const uint64_t va[kWaveSize], uint32_t bytes, unsigned char** host,
                 uint64_t* lowest, bool* unit);

// Copies `bytes` bytes of a resolved span out (zeros past the bytes it has) or in (dropping what it has not).
void ReadSpan(Context& context, const LaneSpan& span, void* out, uint32_t bytes);
void WriteSpan(Context& context, const LaneSpan& span, const void* in);

// One lane's access in one call, for instructions that touch a single address (the scalar unit's scratch access):
// reads `bytes` (1-16) at a lane's address into `out`, zeros where LDS or scratch is out of range; writes likewise,
// dropping what is out of range. An unmapped VA is a VM fault reported through the context, and the call returns
// false having moved nothing.
bool LaneRead(Context& context, const LaneAddress& a, void* out, uint32_t bytes);
bool LaneWrite(Context& context, const LaneAddress& a, const void* in, uint32_t bytes);

// Applies `op(old) -> new` to the naturally aligned T at a resolved span and returns the old value; atomically
// with respect to other host threads for global memory (a compare-exchange loop on the host word, so float and
// integer operations alike are atomic against the host, other waves and the copy engines). A span without bytes
// (out of range) reads as 0 and keeps nothing. LDS and scratch belong to one workgroup's waves, which run on one
// host thread (dispatch.h), so they need no host atomics; should workgroups ever span threads, they would take the
// global path.
template <typename T, typename Op>
T AtomicAt(const LaneSpan& span, Op op) {
  if (span.host == nullptr || span.bytes < sizeof(T)) return T{0};
  if (!span.global) {
    T old;
    std::memcpy(&old, span.host, sizeof(T));
    const T updated = op(old);
    std::memcpy(span.host, &updated, sizeof(T));
    return old;
  }
  std::atomic_ref<T> ref(*reinterpret_cast<T*>(span.host));  // naturally aligned host word
  T old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, op(old), std::memory_order_seq_cst, std::memory_order_relaxed)) {
  }
  return old;
}

// The flat address space: a 64-bit address in the shared (LDS) or private (scratch) aperture goes there, anything
// else is global. A private address is lane `lane`'s private byte at FLAT_SCRATCH `flat_scratch` (ScratchLane).
LaneAddress Classify(const Context& context, uint64_t flat_address, uint64_t flat_scratch = 0, int lane = 0);

// The read-modify-write operations of the atomics, on the old memory value, the data operand and (compare-swap
// only) a compare value. inc and dec wrap at the data operand, as the ISA defines them: inc stores 0 once the old
// value reaches the data, dec stores the data when the old value is 0 or above it.
namespace atomic_op {
template <typename T> T Swap(T, T d, T) { return d; }
template <typename T> T CmpSwap(T old, T d, T cmp) { return old == cmp ? d : old; }
template <typename T> T Add(T old, T d, T) { return static_cast<T>(old + d); }
template <typename T> T Sub(T old, T d, T) { return static_cast<T>(old - d); }
template <typename T> T Rsub(T old, T d, T) { return static_cast<T>(d - old); }
template <typename T> T SMin(T old, T d, T) {
  using S = std::make_signed_t<T>;
  return static_cast<S>(d) < static_cast<S>(old) ? d : old;
}
template <typename T> T SMax(T old, T d, T) {
  using S = std::make_signed_t<T>;
  return static_cast<S>(d) > static_cast<S>(old) ? d : old;
}
template <typename T> T UMin(T old, T d, T) { return d < old ? d : old; }
template <typename T> T UMax(T old, T d, T) { return d > old ? d : old; }
template <typename T> T And(T old, T d, T) { return old & d; }
template <typename T> T Or(T old, T d, T) { return old | d; }
template <typename T> T Xor(T old, T d, T) { return old ^ d; }
template <typename T> T Inc(T old, T d, T) { return old >= d ? T{0} : static_cast<T>(old + 1); }
template <typename T> T Dec(T old, T d, T) { return old == 0 || old > d ? d : static_cast<T>(old - 1); }
// DS only: masked or (the compare operand is the mask of bits cleared), and wrap (subtract the compare operand when
// the old value reaches it, else add the data).
template <typename T> T MskOr(T old, T d, T mask) { return (old & ~mask) | d; }
template <typename T> T Wrap(T old, T d, T limit) { return old >= limit ? static_cast<T>(old - limit) : static_cast<T>(old + d); }
// Floats: IEEE round-to-nearest-even arithmetic on the bit patterns. AddF32Ftz flushes denormal inputs and results
// to zero of the same sign: what global and buffer f32 atomic adds do on gfx908/gfx90a/gfx942 whatever the MODE
// register says (LLVM uses them only when the kernel's f32 denormal mode is preserve-sign for that reason).
uint32_t AddF32(uint32_t old, uint32_t d, uint32_t);
uint32_t AddF32Ftz(uint32_t old, uint32_t d, uint32_t);
uint64_t AddF64(uint64_t old, uint64_t d, uint64_t);
// min/max of doubles and floats with IEEE-754 minNum/maxNum's NaN rule: a quiet NaN operand yields the other.
uint32_t MinF32(uint32_t old, uint32_t d, uint32_t);
uint32_t MaxF32(uint32_t old, uint32_t d, uint32_t);
uint64_t MinF64(uint64_t old, uint64_t d, uint64_t);
uint64_t MaxF64(uint64_t old, uint64_t d, uint64_t);
// Two 16-bit halves added independently, each rounded to nearest even.
uint32_t PkAddF16(uint32_t old, uint32_t d, uint32_t);
uint32_t PkAddBf16(uint32_t old, uint32_t d, uint32_t);
}  // namespace atomic_op

// How a load fills its destination from the bytes it read (1, 2 or 4*n), for FLAT/GLOBAL/SCRATCH and MUBUF alike.
enum class LoadKind : uint8_t {
  kZext,     // ubyte, ushort: zero-extended to the dword
  kSext,     // sbyte, sshort: sign-extended
  kDwords,   // dword..dwordx4
  kD16Zext,  // *_d16: the low half written (zero- or sign-extended to 16 bits), the high half kept
  kD16Sext,
  kD16HiZext,  // *_d16_hi: the high half written, the low half kept
  kD16HiSext,
};

// The new value of a dword destination register after a load of `bytes` (1, 2; 4 for kDwords) of `data`
// (little-endian), `previous` being its value before.
uint32_t LoadedDword(LoadKind kind, uint32_t bytes, const unsigned char* data, uint32_t previous);

// The handler bodies FLAT/GLOBAL/SCRATCH, MUBUF and DS share. `access(lane, bytes)` gives a lane's LaneAccess for an
// access of `bytes` bytes; only EXEC's lanes take part.

// Loads kBytes per lane into the registers from `dst` on (DataRegister: VGPRs or AGPRs).
template <LoadKind kKind, uint32_t kBytes, typename AccessFn>
void LoadLanes(Wave& w, const Inst& i, Context& c, uint16_t dst, AccessFn access) {
  constexpr uint32_t kDwords = kBytes < 4 ? 1 : kBytes / 4;
  const uint64_t mask = w.exec();
  LaneSpan spans[kWaveSize];
  if (!ResolveLanes(c, mask, [&](int lane) { return access(lane, kBytes); }, spans)) return;
  uint32_t* d[kDwords];
  for (uint32_t k = 0; k < kDwords; ++k) d[k] = DataRegister(w, i, static_cast<uint16_t>(dst + k));
  ForEachLane(mask, [&](int l) {
    if constexpr (kKind == LoadKind::kDwords) {
      // The common case, whole dwords in one translation: straight into the registers.
      if (spans[l].host != nullptr && spans[l].bytes == kBytes) {
        uint32_t v[kDwords];
        std::memcpy(v, spans[l].host, kBytes);
        for (uint32_t k = 0; k < kDwords; ++k) d[k][l] = v[k];
        return;
      }
    }
    unsigned char bytes[16];
    ReadSpan(c, spans[l], bytes, kBytes);
    for (uint32_t k = 0; k < kDwords; ++k) d[k][l] = LoadedDword(kKind, kBytes, bytes + 4 * k, d[k][l]);
  });
}

// LoadLanes for a global access whose lanes' VAs are known (va[lane]): the whole-wave path when ResolveWave allows
// it. Returns false, having done nothing, when it does not; the caller then takes LoadLanes.
template <LoadKind kKind, uint32_t kBytes>
bool LoadWave(Wave& w, const Inst& i, Context& c, uint16_t dst, const uint64_t va[kWaveSize]) {
  constexpr uint32_t kDwords = kBytes < 4 ? 1 : kBytes / 4;
  const uint64_t mask = w.exec();
  unsigned char* host = nullptr;
  uint64_t lowest = 0;
  bool unit = false;
  if (!ResolveWave(c, mask, va, kBytes, &host, &lowest, &unit)) return false;
  uint32_t* d[kDwords];
  for (uint32_t k = 0; k < kDwords; ++k) d[k] = DataRegister(w, i, static_cast<uint16_t>(dst + k));
  if (kKind == LoadKind::kDwords && kDwords == 1 && unit) {
    std::memcpy(d[0], host + (va[0] - lowest), 4 * kWaveSize);  // a whole wave reading consecutive dwords
    return true;
  }
  ForEachLane(mask, [&](int l) {
    const unsigned char* p = host + (va[l] - lowest);
    if constexpr (kKind == LoadKind::kDwords) {
      uint32_t v[kDwords];
      std::memcpy(v, p, kBytes);
      for (uint32_t k = 0; k < kDwords; ++k) d[k][l] = v[k];
    } else {
      d[0][l] = LoadedDword(kKind, kBytes, p, d[0][l]);
    }
  });
  return true;
}

// Stores the low kBytes (1, 2) of the data register, or kBytes / 4 registers from `data` on; kHigh stores from the
// high half of the register instead (the *_d16_hi stores).
template <uint32_t kBytes, bool kHigh, typename AccessFn>
void StoreLanes(Wave& w, const Inst& i, Context& c, uint16_t data, AccessFn access) {
  constexpr uint32_t kDwords = kBytes < 4 ? 1 : kBytes / 4;
  const uint64_t mask = w.exec();
  LaneSpan spans[kWaveSize];
  if (!ResolveLanes(c, mask, [&](int lane) { return access(lane, kBytes); }, spans)) return;
  const uint32_t* s[kDwords];
  for (uint32_t k = 0; k < kDwords; ++k) s[k] = DataRegister(w, i, static_cast<uint16_t>(data + k));
  ForEachLane(mask, [&](int l) {
    unsigned char bytes[16];
    for (uint32_t k = 0; k < kDwords; ++k) {
      const uint32_t v = kHigh ? s[k][l] >> 16 : s[k][l];
      std::memcpy(bytes + 4 * k, &v, 4);
    }
    if (spans[l].host != nullptr && spans[l].bytes == kBytes) {  // the common case: one translation
      std::memcpy(spans[l].host, bytes, kBytes);
      return;
    }
    WriteSpan(c, spans[l], bytes);
  });
}

// StoreLanes for a global access whose lanes' VAs are known, as LoadWave. Lanes store in ascending order, so where
// two lanes' bytes overlap the higher lane's land last, as in StoreLanes.
template <uint32_t kBytes, bool kHigh>
bool StoreWave(Wave& w, const Inst& i, Context& c, uint16_t data, const uint64_t va[kWaveSize]) {
  constexpr uint32_t kDwords = kBytes < 4 ? 1 : kBytes / 4;
  const uint64_t mask = w.exec();
  unsigned char* host = nullptr;
  uint64_t lowest = 0;
  bool unit = false;
  if (!ResolveWave(c, mask, va, kBytes, &host, &lowest, &unit)) return false;
  const uint32_t* s[kDwords];
  for (uint32_t k = 0; k < kDwords; ++k) s[k] = DataRegister(w, i, static_cast<uint16_t>(data + k));
  if (kBytes == 4 && !kHigh && unit) {
    std::memcpy(host + (va[0] - lowest), s[0], 4 * kWaveSize);  // a whole wave writing consecutive dwords
    return true;
  }
  ForEachLane(mask, [&](int l) {
    unsigned char bytes[16];
    for (uint32_t k = 0; k < kDwords; ++k) {
      const uint32_t v = kHigh ? s[k][l] >> 16 : s[k][l];
      std::memcpy(bytes + 4 * k, &v, 4);
    }
    std::memcpy(host + (va[l] - lowest), bytes, kBytes);
  });
  return true;
}

// An atomic read-modify-write of a T per lane: F(old, data, compare) with the data from the registers at `data`
// (and `compare`, for the operations that take one); the old value goes to the registers at `dst` when the
// instruction returns it. The address is aligned down to the operand's size, as the memory pipeline ignores the low
// bits of an atomic's address.
template <typename T, T (*F)(T, T, T), typename AccessFn>
void AtomicLanes(Wave& w, const Inst& i, Context& c, uint16_t data, uint16_t compare, bool returns, uint16_t dst,
                 AccessFn access) {
  constexpr uint32_t kDwords = sizeof(T) / 4;
  const uint64_t mask = w.exec();
  LaneSpan spans[kWaveSize];
  auto aligned = [&](int lane) {
    LaneAccess a = access(lane, static_cast<uint32_t>(sizeof(T)));
    a.address.address &= ~uint64_t{sizeof(T) - 1};
    return a;
  };
  if (!ResolveLanes(c, mask, aligned, spans)) return;
  const uint32_t* d[kDwords];
  const uint32_t* k_compare[kDwords];
  uint32_t* out[kDwords];
  for (uint32_t k = 0; k < kDwords; ++k) {
    d[k] = DataRegister(w, i, static_cast<uint16_t>(data + k));
    k_compare[k] = DataRegister(w, i, static_cast<uint16_t>(compare + k));
    out[k] = DataRegister(w, i, static_cast<uint16_t>(dst + k));
  }
  uint64_t left = mask;
  while (left != 0) {
    const int l = __builtin_ctzll(left);
    left &= left - 1;
    if (spans[l].split) {  // only a word across two mappings: no host word to operate on
      c.Illegal("atomic on a word that straddles two mappings");
      return;
    }
    T v = 0, cmp = 0;
    for (uint32_t k = 0; k < kDwords; ++k) {
      v |= static_cast<T>(static_cast<uint64_t>(d[k][l]) << (32 * k));
      cmp |= static_cast<T>(static_cast<uint64_t>(k_compare[k][l]) << (32 * k));
    }
    T old;
    if (spans[l].swizzled) {  // a 64-bit atomic on scratch: two dwords 256 bytes apart, private to this wave
      ReadSpan(c, spans[l], &old, sizeof(T));
      const T updated = F(old, v, cmp);
      WriteSpan(c, spans[l], &updated);
    } else {
      old = AtomicAt<T>(spans[l], [&](T o) { return F(o, v, cmp); });
    }
    if (returns) {
      for (uint32_t k = 0; k < kDwords; ++k) out[k][l] = static_cast<uint32_t>(static_cast<uint64_t>(old) >> (32 * k));
    }
  }
}

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VECTOR_MEMORY_H_
