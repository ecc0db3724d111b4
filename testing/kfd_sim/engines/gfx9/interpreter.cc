#include "testing/kfd_sim/engines/gfx9/interpreter.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"

namespace hipmem::kfd_sim::gfx9 {

CodeCache::Page* CodeCache::PageOf(uint64_t pc) {
  const uint64_t page = pc / kPageBytes;
  if (page == last_page_) return last_;
  std::unique_ptr<Page>& slot = pages_[page];
  if (slot == nullptr) slot = std::make_unique<Page>();
  last_page_ = page;
  last_ = slot.get();
  return last_;
}

const Inst* CodeCache::Fetch(uint64_t pc, Context& context) {
  if (pc % 4 != 0) {
    context.Illegal(absl::StrCat("program counter 0x", absl::Hex(pc), " is not dword-aligned"));
    return nullptr;
  }
  Page* page = PageOf(pc);
  const uint64_t index = (pc % kPageBytes) / 4;
  if (page->decoded[index]) return &page->slots[index];
  // The longest GFX9 instruction is two dwords plus a literal; read what is mapped of three.
  uint32_t words[3] = {};
  uint32_t available = 3;
  if (std::optional<uint64_t> fault = context.memory->Read(pc, words, sizeof(words))) {
    available = static_cast<uint32_t>((*fault - pc) / 4);
    if (available == 0) {
      context.Fault(pc);
      return nullptr;
    }
  }
  absl::StatusOr<Inst> inst = Decode(words, available, target_, limits_);
  if (!inst.ok()) {
    if (available < 3 && absl::IsOutOfRange(inst.status())) {  // the rest of it is not mapped
      context.Fault(pc + available * 4);
    } else {
      context.Illegal(absl::StrCat("at 0x", absl::Hex(pc), ": ", inst.status().message()));
    }
    return nullptr;
  }
  page->slots[index] = *inst;
  page->decoded[index] = true;
  return &page->slots[index];
}

WaveStop RunWave(Wave& wave, Context& context, CodeCache& code, uint32_t budget, uint64_t* executed) {
  uint32_t n = 0;
  WaveStop stop = WaveStop::kBudget;
  while (n < budget) {
    const Inst* inst = code.At(wave.pc, context);
    if (inst == nullptr) {
      stop = WaveStop::kStopped;
      break;
    }
    if ((wave.mode & kModeVskip) != 0 && IsVector(*inst)) {  // not issued: only the program counter moves
      wave.pc += uint64_t{inst->dwords} * 4;
      ++n;
      continue;
    }
    if (inst->info == nullptr || inst->info->handler == nullptr) {
      context.Illegal(absl::StrCat("at 0x", absl::Hex(wave.pc), ": ", Mnemonic(*inst), " is not implemented"));
      stop = WaveStop::kStopped;
      break;
    }
    wave.pc += uint64_t{inst->dwords} * 4;
    if ((wave.mode & kModeGprIdxEn) != 0 && IsValu(*inst)) {
      // VGPR indexing mode: the instruction runs with its operands offset (decoded instructions are shared, so
      // the offsets go on a copy).
      Inst indexed;
      std::string why;
      if (!IndexVgprs(wave, *inst, context.dispatch->target, &indexed, &why)) {
        context.Illegal(absl::StrCat("at 0x", absl::Hex(wave.pc - uint64_t{inst->dwords} * 4), ": ", why));
        stop = WaveStop::kStopped;
        break;
      }
      inst->info->handler(wave, indexed, context);
    } else {
      inst->info->handler(wave, *inst, context);
    }
    ++n;
    if (context.stopped()) {
      stop = WaveStop::kStopped;
      break;
    }
    if (wave.state != Wave::State::kRunning) {
      if (wave.state == Wave::State::kEnded) {
        stop = WaveStop::kEnded;
      } else if (wave.state == Wave::State::kBarrier) {
        stop = WaveStop::kBarrier;
      } else if (wave.state == Wave::State::kGwsWait) {  // it stays waiting; its unit asks the GWS block when to go on
        stop = WaveStop::kYield;
      } else {  // s_sleep: the wave is still running; it ends its slice early so that others get the unit
        wave.state = Wave::State::kRunning;
        stop = WaveStop::kYield;
      }
      break;
    }
  }
  *executed += n;
  return stop;
}

}  // namespace hipmem::kfd_sim::gfx9
