// Loads to LDS (MUBUF's lds bit on gfx908/gfx90a/gfx942, gfx942's global_load_lds_* and scratch_load_lds_*): each
// active lane reads its bytes from memory as the plain load would, and instead of a VGPR the value lands in the
// workgroup's LDS at M0 + the instruction offset + 4 * lane.
//
// The rule (LLVM's direct-to-LDS documentation): the LDS base is M0, which the compiler sets to the wave-uniform LDS
// pointer; the instruction's offset applies to both the memory and the LDS address; the per-lane stride is 4 bytes
// for every size up to a dword. A byte or short is written as a whole dword, zero- or sign-extended as the opcode's
// name says (inferred: the stride is a dword, and ubyte/sbyte would otherwise be the same instruction). LDS bytes
// outside the workgroup's allocation are dropped, as DS stores drop them.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_LDS_LOAD_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_LDS_LOAD_H_

#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

// `access(lane, bytes)` gives a lane's memory LaneAccess, as for LoadLanes. kKind is kZext, kSext or kDwords; kBytes
// 1, 2 or 4.
template <LoadKind kKind, uint32_t kBytes, typename AccessFn>
void LoadLanesToLds(Wave& w, const Inst& i, Context& c, AccessFn access) {
  static_assert(kBytes <= 4, "a load to LDS moves at most a dword per lane");
  const uint64_t mask = w.exec();
  LaneSpan spans[kWaveSize];
  if (!ResolveLanes(c, mask, [&](int lane) { return access(lane, kBytes); }, spans)) return;
  const uint64_t base = uint64_t{w.s[op::kM0]} + static_cast<uint64_t>(int64_t{i.imm});
  ForEachLane(mask, [&](int l) {
    unsigned char bytes[4] = {};
    ReadSpan(c, spans[l], bytes, kBytes);
    const uint32_t value = LoadedDword(kKind, kBytes, bytes, 0);
    LaneSpan lds;
    const LaneAddress at{Space::kLds, (base + 4 * static_cast<uint64_t>(l)) & 0xffffffffu};
    if (ResolveLane(c, LaneAccess{at, 4}, &lds)) WriteSpan(c, lds, &value);
  });
}

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_LDS_LOAD_H_
