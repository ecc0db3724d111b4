// VALU integer compares (VOPC and their VOP3 forms): a mask bit per lane into VCC (e32, or the SDWA form's sdst)
// or the e64 form's SGPR pair; inactive lanes' bits are 0. On GFX9 the v_cmpx forms write that mask to EXEC as well
// as to their own destination (GFX10 dropped the second write). The float compares and v_cmp_class live with the
// float family.
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// The eight integer conditions in their opcode order within each block of eight.
enum Cond : int { kF, kLt, kEq, kLe, kGt, kNe, kGe, kT };
constexpr const char* kCondNames[] = {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"};

template <typename T, Cond kCond>
bool Compare(T a, T b) {
  switch (kCond) {
    case kF: return false;
    case kLt: return a < b;
    case kEq: return a == b;
    case kLe: return a <= b;
    case kGt: return a > b;
    case kNe: return a != b;
    case kGe: return a >= b;
    case kT: return true;
  }
  return false;
}

// All 64 lanes of source `index` at the compare's width (u16: the low half, or the op_sel half in VOP3). A 32-bit
// literal feeding a 64-bit compare is sign-extended for the signed types and zero-extended for the unsigned ones.
template <typename U, typename S>
void ReadLanes(const Wave& w, const Inst& i, const Context& c, int index, U out[kWaveSize]) {
  if constexpr (sizeof(U) == 2) {
    ReadU16(w, i, c, index, out);
  } else if constexpr (sizeof(U) == 4) {
    ReadU32(w, i, c, index, out);
  } else {
    ReadU64(w, i, c, index, out, std::is_signed_v<S> ? Width::kI64 : Width::kB64);
  }
}

// U is the operand's raw width, S how it compares (the signed type for the _i forms).
template <typename U, typename S, Cond kCond, bool kCmpx>
void VCmp(Wave& w, const Inst& i, Context& c) {
  U a[kWaveSize], b[kWaveSize];
  ReadLanes<U, S>(w, i, c, 0, a);
  ReadLanes<U, S>(w, i, c, 1, b);
  uint64_t result = 0;
  const uint64_t exec = w.exec();
  if (exec == ~uint64_t{0}) {  // every lane: compares the compiler vectorises, then packed
    uint8_t bits[kWaveSize];
    for (int l = 0; l < kWaveSize; ++l) bits[l] = Compare<S, kCond>(static_cast<S>(a[l]), static_cast<S>(b[l]));
    result = PackLaneBits(bits);
  } else {
    ForEachLane(exec, [&](int l) {
      result |= uint64_t{Compare<S, kCond>(static_cast<S>(a[l]), static_cast<S>(b[l]))} << l;
    });
  }
  WriteScalar64(w, i.sdst, result);
  if (kCmpx) w.set_exec(result);
}

template <typename U, typename S, bool kCmpx, size_t... kConds>
constexpr std::array<Handler, 8> Block(std::index_sequence<kConds...>) {
  return {&VCmp<U, S, static_cast<Cond>(kConds), kCmpx>...};
}

// Fills one opcode block of eight (v_cmp[x]_<cond>_<type>) starting at `first`.
template <typename U, typename S, bool kCmpx>
void AddBlock(ValuTable& t, uint16_t first, const char* type) {
  // The names live as long as the table (for the process).
  static std::array<std::string, 8> names;
  static constexpr std::array<Handler, 8> handlers = Block<U, S, kCmpx>(std::make_index_sequence<8>());
  for (int k = 0; k < 8; ++k) {
    names[k] = std::string(kCmpx ? "v_cmpx_" : "v_cmp_") + kCondNames[k] + "_" + type;
    t[first + k] = {names[k].c_str(), handlers[k]};
  }
}

template <typename U, typename S>
void AddFamily(ValuTable& t, uint16_t first, const char* type) {
  AddBlock<U, S, false>(t, first, type);
  AddBlock<U, S, true>(t, static_cast<uint16_t>(first + 0x10), type);
}

}  // namespace

void AddValuCompareOps(ValuTable& t) {
  // Each type's compares are a block of eight at `first`, its cmpx forms the block sixteen above; the unsigned
  // type's blocks follow the signed one's by eight.
  AddFamily<uint16_t, int16_t>(t, 0xa0, "i16");
  AddFamily<uint16_t, uint16_t>(t, 0xa8, "u16");
  AddFamily<uint32_t, int32_t>(t, 0xc0, "i32");
  AddFamily<uint32_t, uint32_t>(t, 0xc8, "u32");
  AddFamily<uint64_t, int64_t>(t, 0xe0, "i64");
  AddFamily<uint64_t, uint64_t>(t, 0xe8, "u64");
}

}  // namespace hipmem::kfd_sim::gfx9
