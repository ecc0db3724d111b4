// Runs waves: fetches, decodes (once per code address and dispatch) and executes instructions.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_INTERPRETER_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_INTERPRETER_H_

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "testing/kfd_sim/engines/gfx9/decoder.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

// Decoded instructions by code address, for one dispatch on one host thread (code does not change while a
// dispatch runs; a later dispatch decodes afresh). Thread-compatible.
class CodeCache {
 public:
  CodeCache(Target target, RegisterLimits limits) : target_(target), limits_(limits) {}

  // The instruction at `pc`, fetched through `context.memory` when first seen. Null when the fetch faulted or the
  // words are no instruction the kernel may run (the context then says which).
  // Inline for the common case, the next instruction of the page the last one was on, already decoded.
  const Inst* At(uint64_t pc, Context& context) {
    if (pc / kPageBytes == last_page_ && pc % 4 == 0) {
      const uint64_t index = (pc % kPageBytes) / 4;
      if (last_->decoded[index]) return &last_->slots[index];
    }
    return Fetch(pc, context);
  }

 private:
  static constexpr uint64_t kPageBytes = 4096;
  struct Page {
    Inst slots[kPageBytes / 4];
    bool decoded[kPageBytes / 4] = {};
  };
  Page* PageOf(uint64_t pc);
  // At() for an instruction on another page or not yet decoded.
  const Inst* Fetch(uint64_t pc, Context& context);

  const Target target_;
  const RegisterLimits limits_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
  uint64_t last_page_ = ~uint64_t{0};
  Page* last_ = nullptr;
};

enum class WaveStop : uint8_t {
  kEnded,    // s_endpgm
  kBarrier,  // s_barrier: waiting for the rest of the workgroup
  kBudget,   // ran `budget` instructions and is still running
  kYield,    // s_sleep or a GWS wait: waiting on something another wave or workgroup does
  kStopped,  // a fault or an illegal instruction (the context says which)
};

// Runs `wave` for at most `budget` instructions. The context's memory port must be open.
WaveStop RunWave(Wave& wave, Context& context, CodeCache& code, uint32_t budget, uint64_t* executed);

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_INTERPRETER_H_
