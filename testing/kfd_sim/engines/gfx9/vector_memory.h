// Per-lane memory access shared by the vector memory families (FLAT/GLOBAL/SCRATCH, MUBUF, DS): where a lane's
// address lands (GPU virtual memory through the page table, the workgroup's LDS, the wave's scratch) and the
// register a data operand names (a VGPR, or an AGPR under gfx90a's ACC bit).
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VECTOR_MEMORY_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VECTOR_MEMORY_H_

#include <cstdint>
#include <cstring>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

// Where one lane's access goes.
enum class Space : uint8_t { kGlobal, kLds, kScratch };

struct LaneAddress {
  Space space = Space::kGlobal;
  uint64_t address = 0;  // a VA (kGlobal), an LDS byte offset, or the lane's private-segment byte offset
};

// Register `n` of the data file an instruction's data or destination operand names.
inline uint32_t* DataRegister(Wave& wave, const Inst& inst, uint16_t code) {
  return inst.acc ? wave.agpr(code - op::kVgpr0) : wave.vgpr(code - op::kVgpr0);
}

// Reads `bytes` (1-16) at a lane's address into `out`. Out-of-range LDS and scratch read zeros (the hardware's
// range check); an unmapped VA is a VM fault reported through the context, and the read returns false.
bool LaneRead(Context& context, int lane, const LaneAddress& a, void* out, uint32_t bytes);
// Writes likewise; out-of-range LDS and scratch writes are dropped.
bool LaneWrite(Context& context, int lane, const LaneAddress& a, const void* in, uint32_t bytes);

// The host bytes of a lane's naturally aligned 4- or 8-byte word, for an atomic, or null: a VM fault (reported),
// or an out-of-range LDS/scratch word (*dropped set; the atomic does nothing and returns 0). `*shared` says
// whether other host threads may touch the word at once (global memory: use atomic operations).
void* LaneWord(Context& context, int lane, const LaneAddress& a, uint32_t bytes, bool* shared, bool* dropped);

// The flat address space: a 64-bit address in the shared (LDS) or private (scratch) aperture goes there, anything
// else is global.
LaneAddress Classify(const Context& context, uint64_t flat_address);

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VECTOR_MEMORY_H_
