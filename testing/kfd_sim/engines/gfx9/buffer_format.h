// Typed buffer access: MTBUF (tbuffer_{load,store}_format_*, the format in the instruction) and MUBUF's
// buffer_{load,store}_format_* (the format in the V#), converting between the buffer's data format and 32-bit (or,
// for the d16 forms, 16-bit) register values. buffer_format.cc.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_BUFFER_FORMAT_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_BUFFER_FORMAT_H_

#include <cstdint>
#include <functional>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

// A MUBUF/MTBUF instruction's per-lane access (mubuf.cc): V# addressing, swizzled scratch and range checks, for an
// access of `bytes` bytes at a lane.
std::function<LaneAccess(int lane, uint32_t bytes)> BufferAccessor(const Wave& wave, const Inst& inst,
                                                                   const Context& context);

// The MUBUF format ops (opcodes 0x00-0x0f, 0x26, 0x27); null for any other opcode.
const OpInfo* MubufFormatOp(uint16_t op);

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_BUFFER_FORMAT_H_
