#include "hip/fuzz_steady_state.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "hip/runtime.h"
#include "testing/kfd_sim/fault_injection.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::hip_fuzz {

SteadyState CaptureSteadyState() {
  absl::StatusOr<std::shared_ptr<thunk::SimMachine>> machine = thunk::SimMachine::Default();
  absl::StatusOr<hip::Runtime*> runtime = hip::Runtime::Get();
  if (!machine.ok() || !runtime.ok()) {
    // A harness without its machine or runtime checks nothing: stop loudly instead.
    std::fprintf(stderr, "fuzz_steady_state: no simulated machine or HIP runtime\n");
    std::abort();
  }
  return SteadyState{.kernel = (*machine)->simulator().Snapshot(),
                     .runtime_objects = (*runtime)->context().live_memory_objects()};
}

std::optional<std::string> SteadyStateGrew(const SteadyState& first, const SteadyState& second) {
  const kfd_sim::SimUsage after_first = kfd_sim::UsageOf(first.kernel);
  const kfd_sim::SimUsage after_second = kfd_sim::UsageOf(second.kernel);
  std::ostringstream message;
  if (!kfd_sim::UsageAtMost(after_second, after_first)) {
    message << "the simulated kernel holds more: " << after_second << " after the second run, " << after_first
            << " after the first\nafter the first run:\n"
            << kfd_sim::FormatSnapshot(first.kernel) << "after the second run:\n"
            << kfd_sim::FormatSnapshot(second.kernel);
    return message.str();
  }
  if (second.runtime_objects > first.runtime_objects) {
    message << "the runtime holds more memory objects: " << second.runtime_objects << " after the second run, "
            << first.runtime_objects << " after the first";
    return message.str();
  }
  return std::nullopt;
}

}  // namespace hipmem::hip_fuzz
