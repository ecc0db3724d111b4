// One wavefront's architectural state, and what an instruction may reach beyond it while it runs.
//
// Plays a SIMD's wave slot: the scalar registers (in the operand numbering of isa.h, so SGPRs, VCC, M0 and EXEC
// live in one array), SCC, the program counter, the 64 lanes of every VGPR (and AGPR) the kernel descriptor
// allocates, and the MODE register. Thread-compatible: a wave runs on one host thread at a time.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_WAVE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_WAVE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "testing/kfd_sim/engines/gfx9/gws.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/memory_port.h"

namespace hipmem::kfd_sim::gfx9 {

// Every vector register file is allocated whole (256 registers, as an 8-bit field can name) plus slack for the
// widest multi-register operand starting at v255, so no encoding can reach outside it; the kernel descriptor's
// counts only bound what the decoder accepts as a VALU operand.
inline constexpr uint32_t kRegisterFile = 256 + 32;

// MODE.GPR_IDX_EN (bit 27): VGPR indexing mode is on (s_set_gpr_idx_on/off, s_setreg). While it is, M0 holds the
// index (bits 7:0) and which VALU operands it offsets (bits 15:12: src0, src1, src2, dst); operands.h applies it.
inline constexpr uint32_t kModeGprIdxEn = 1u << 27;
// MODE.VSKIP (bit 28; s_setvskip, s_setreg): while set, vector instructions (VALU, DS, FLAT/GLOBAL/SCRATCH, MUBUF,
// MTBUF) are not issued; scalar ones run as usual (Vega/CDNA ISA guides, MODE and S_SETVSKIP).
inline constexpr uint32_t kModeVskip = 1u << 28;
inline constexpr uint32_t kM0GprIndexMask = 0xffu;
inline constexpr uint32_t kM0GprModeShift = 12;
inline constexpr uint32_t kM0GprModeMask = 0xfu << kM0GprModeShift;

struct Wave {
  enum class State : uint8_t {
    kRunning,
    kBarrier,  // waiting in s_barrier for the rest of its workgroup
    kEnded,    // s_endpgm
    kSleeping,  // executed s_sleep: gives up the rest of its slice (RunWave makes it running again)
    kGwsWait,   // waiting in ds_gws_sema_p or ds_gws_barrier for `gws_wait` (its unit asks the GWS block when)
  };

  // Scalar operand space 0-127 (isa.h), with slack for a 64-bit access at 127 and for s_*_b512 reads.
  std::array<uint32_t, 128 + 16> s{};
  bool scc = false;
  uint64_t pc = 0;
  uint32_t mode = 0;  // the MODE register: round (3:0), denorm (7:4), dx10 clamp (8), IEEE (9), GPR_IDX_EN (27), VSKIP (28)
  uint32_t trapsts = 0;  // TRAPSTS, for s_getreg
  State state = State::kRunning;
  uint32_t id_in_group = 0;  // the wave's index in its workgroup
  GwsBlock::Wait gws_wait;   // what a kGwsWait wave waits for

  uint32_t vgpr_count = 0;  // architectural VGPRs the kernel has (v0..)
  uint32_t agpr_count = 0;  // accumulation VGPRs (a0..)
  std::vector<uint32_t> v;  // [register * 64 + lane]; kRegisterFile registers
  std::vector<uint32_t> a;  // AGPRs likewise

  // Sizes the files (once) and clears the registers the kernel owns, as a new wave's state.
  void Allocate(uint32_t vgprs, uint32_t agprs) {
    vgpr_count = vgprs;
    agpr_count = agprs;
    v.resize(static_cast<size_t>(kRegisterFile) * kWaveSize);
    a.resize(static_cast<size_t>(kRegisterFile) * kWaveSize);
    std::memset(v.data(), 0, static_cast<size_t>(std::min(vgprs, kRegisterFile)) * kWaveSize * 4);
    std::memset(a.data(), 0, static_cast<size_t>(std::min(agprs, kRegisterFile)) * kWaveSize * 4);
    s.fill(0);
    scc = false;
    mode = 0;
    trapsts = 0;
    state = State::kRunning;
  }

  uint32_t* vgpr(uint32_t index) { return &v[static_cast<size_t>(index) * kWaveSize]; }
  const uint32_t* vgpr(uint32_t index) const { return &v[static_cast<size_t>(index) * kWaveSize]; }
  uint32_t* agpr(uint32_t index) { return &a[static_cast<size_t>(index) * kWaveSize]; }

  uint64_t Read64(uint16_t code) const { return uint64_t{s[code]} | (uint64_t{s[code + 1]} << 32); }
  void Write64(uint16_t code, uint64_t value) {
    s[code] = static_cast<uint32_t>(value);
    s[code + 1] = static_cast<uint32_t>(value >> 32);
  }
  uint64_t exec() const { return Read64(op::kExecLo); }
  void set_exec(uint64_t value) { Write64(op::kExecLo, value); }
  uint64_t vcc() const { return Read64(op::kVccLo); }
  void set_vcc(uint64_t value) { Write64(op::kVccLo, value); }
};

// What the dispatch gives every wave of it, fixed for the dispatch's lifetime.
struct DispatchInfo {
  Target target = Target::kGfx90a;
  uint64_t shared_aperture_base = 0;   // the flat-address window onto LDS (SH_MEM_BASES.SHARED_BASE << 48)
  uint64_t private_aperture_base = 0;  // the flat-address window onto scratch (SH_MEM_BASES.PRIVATE_BASE << 48)
  uint32_t private_bytes_per_lane = 0;  // the kernel's private segment size, per work-item
};

// The rest of the machine as one instruction sees it: memory through the GPU page table, the workgroup's LDS,
// the wave's scratch, and the verdict when the instruction cannot complete. Thread-compatible (one per running
// wave).
struct Context {
  MemoryPort* memory = nullptr;  // Not owned; must outlive this.
  const DispatchInfo* dispatch = nullptr;  // Not owned.
  unsigned char* lds = nullptr;  // the workgroup's LDS
  uint32_t lds_bytes = 0;
  // This wave's private memory, in GPU virtual memory (the queue's scratch backing, dispatch.h): the `scratch_bytes`
  // (64 lanes of private_bytes_per_lane) from `scratch_va` on, swizzled as the hardware lays it out: lane l's private
  // byte A is at scratch_va + (A / 4) * 256 + l * 4 + A % 4 (ScratchLaneVa). Accesses outside it read 0 and write
  // nothing.
  uint64_t scratch_va = 0;
  uint64_t scratch_bytes = 0;
  // The queue's global wave sync, when the KFD gave it one (ALLOC_QUEUE_GWS); null: ds_gws_* are illegal. Not owned.
  GwsBlock* gws = nullptr;

  // Set by a handler that stops the wave: a VM fault (the faulting VA), an instruction the engine cannot run, or an
  // s_trap the trap handler answers by halting the wave and putting the queue into the error state. The first stop
  // wins; `halted` is their union, so the interpreter tests one flag per instruction.
  bool faulted = false;
  uint64_t fault_va = 0;
  std::string illegal;  // non-empty: why the instruction is illegal
  std::optional<uint32_t> trap_id;  // the s_trap's trap id (its immediate's low 8 bits)
  bool halted = false;

  void Fault(uint64_t va) {
    if (!halted) {
      halted = true;
      faulted = true;
      fault_va = va;
    }
  }
  void Illegal(std::string why) {
    if (!halted) {
      halted = true;
      illegal = std::move(why);
    }
  }
  void Trap(uint32_t id) {
    if (!halted) {
      halted = true;
      trap_id = id;
    }
  }
  bool stopped() const { return halted; }
};

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_WAVE_H_
