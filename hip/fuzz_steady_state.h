// The op-sequence fuzzer's steady-state check (hip_ops_fuzzer.cc), in its own target so that a test can show it
// fails. What a run of an input leaves behind is measured at two levels: the simulated kernel's usage (KFD buffers,
// mappings, queues, SVM ranges, VRAM and system bytes) and the runtime's live memory objects. The kernel alone is
// blind to a leak inside a 2 MiB block the runtime already holds (small hipMallocs are carved from one KFD buffer,
// as ROCr's fragment allocator carves them), which the runtime's count sees.
#ifndef HIPMEM_HIP_FUZZ_STEADY_STATE_H_
#define HIPMEM_HIP_FUZZ_STEADY_STATE_H_

#include <cstddef>
#include <optional>
#include <string>

#include "testing/kfd_sim/simulator.h"

namespace hipmem::hip_fuzz {

struct SteadyState {
  kfd_sim::SimSnapshot kernel;   // the simulated machine (thunk::SimMachine::Default)
  size_t runtime_objects = 0;    // clr::Context::live_memory_objects of the started HIP runtime
};

// The state now. The HIP runtime must have started (hipInit).
SteadyState CaptureSteadyState();

// Why `second` (after a second run of an input) holds more than `first` (after the first run), or nullopt when it
// holds no more: kernel usage within kfd_sim::UsageAtMost (KFD events left out, see there), and no more live runtime
// memory objects.
std::optional<std::string> SteadyStateGrew(const SteadyState& first, const SteadyState& second);

}  // namespace hipmem::hip_fuzz

#endif  // HIPMEM_HIP_FUZZ_STEADY_STATE_H_
