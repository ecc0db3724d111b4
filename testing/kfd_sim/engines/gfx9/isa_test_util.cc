#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/interpreter.h"
#include "testing/kfd_sim/engines/gfx9/memory_port.h"

namespace hipmem::kfd_sim::gfx9 {

IsaHarness::IsaHarness(Target target, uint32_t private_bytes) {
  info_.target = target;
  info_.shared_aperture_base = uint64_t{1} << 48;
  info_.private_aperture_base = uint64_t{2} << 48;
  info_.private_bytes_per_lane = private_bytes;
  wave_.Allocate(256, 256);
  wave_.set_exec(~uint64_t{0});
  lds_.assign(64 * 1024, 0);
  scratch_.assign(static_cast<size_t>(private_bytes) * kWaveSize, 0);
  if (!scratch_.empty()) memory_.Map(scratch_.data(), scratch_.size());
  wave_.Write64(op::kFlatScratchLo, scratch_base());
}

IsaHarness::~IsaHarness() {
  if (!scratch_.empty()) memory_.Unmap(scratch_.data());
  if (!code_.empty()) memory_.Unmap(code_.data());
}

uint32_t IsaHarness::scratch_word(int lane, uint32_t byte) {
  uint32_t v = 0;
  for (uint32_t k = 0; k < 4; ++k) v |= uint32_t{scratch_byte(lane, byte + k)} << (8 * k);
  return v;
}

void IsaHarness::set_scratch_word(int lane, uint32_t byte, uint32_t value) {
  for (uint32_t k = 0; k < 4; ++k) scratch_byte(lane, byte + k) = static_cast<unsigned char>(value >> (8 * k));
}

absl::Status IsaHarness::Run(std::span<const hipmem_testing::AsmEncoding> encodings,
                             std::initializer_list<const char*> lines) {
  std::vector<uint32_t> code;
  for (const char* line : lines) {
    const hipmem_testing::AsmEncoding* found = nullptr;
    for (const hipmem_testing::AsmEncoding& e : encodings) {
      if (std::strcmp(e.text, line) == 0) found = &e;
    }
    if (found == nullptr) return absl::InternalError(absl::StrCat("no encoding for \"", line, "\" in the table"));
    for (size_t k = 0; k < found->bytes.size(); k += 4) {
      uint32_t word = 0;
      std::memcpy(&word, found->bytes.data() + k, 4);
      code.push_back(word);
    }
  }
  code.push_back(0xbf810000u);  // s_endpgm
  if (!code_.empty()) memory_.Unmap(code_.data());
  code_ = std::move(code);
  memory_.Map(code_.data(), code_.size() * 4);

  wave_.pc = reinterpret_cast<uint64_t>(code_.data());
  wave_.state = Wave::State::kRunning;
  MemoryPort port(&memory_);
  port.Open();
  Context context;
  context.memory = &port;
  context.dispatch = &info_;
  context.lds = lds_.data();
  context.lds_bytes = static_cast<uint32_t>(lds_.size());
  context.scratch_va = scratch_base();
  context.scratch_bytes = scratch_.size();
  CodeCache cache(info_.target, RegisterLimits{256, 256});
  executed_ = 0;
  // s_barrier only marks the wave; a lone wave goes on past it.
  while (true) {
    const WaveStop stop = RunWave(wave_, context, cache, 100000, &executed_);
    if (stop == WaveStop::kBarrier) {
      wave_.state = Wave::State::kRunning;
      continue;
    }
    if (stop == WaveStop::kYield) continue;  // s_sleep: nothing else to run
    if (stop == WaveStop::kEnded) return absl::OkStatus();
    if (stop == WaveStop::kBudget) return absl::DeadlineExceededError("still running after 100000 instructions");
    if (context.faulted) return absl::AbortedError(absl::StrCat("VM fault at 0x", absl::Hex(context.fault_va)));
    if (context.trap_id.has_value()) return absl::CancelledError(absl::StrCat("s_trap ", *context.trap_id));
    return absl::FailedPreconditionError(context.illegal);
  }
}

}  // namespace hipmem::kfd_sim::gfx9
