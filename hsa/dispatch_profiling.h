// Dispatch profiling: the times the compute CP stamped into a completion signal, in the system domain.
//
// Plays ROCr's hsa_amd_profiling_get_dispatch_time with GpuAgent::TranslateTime: a queue whose amd_queue_t has
// AMD_QUEUE_PROPERTIES_ENABLE_PROFILING (Queues::SetProfiling) gets each packet's start and end GPU clock
// counter written into its completion signal's amd_signal_t start_ts / end_ts by the CP; this reads them and
// converts each tick as hsa_amd_profiling_convert_tick_to_system_domain does (Copies::TickToSystem).
#ifndef HIPMEM_HSA_DISPATCH_PROFILING_H_
#define HIPMEM_HSA_DISPATCH_PROFILING_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "hsa/copy.h"
#include "hsa/runtime.h"
#include "hsa/signal.h"

namespace hipmem::hsa {

// hsa_amd_profiling_dispatch_time_t: system timestamps (HSA_SYSTEM_INFO_TIMESTAMP's nanoseconds).
struct DispatchTime {
  uint64_t start;
  uint64_t end;
};

// hsa_amd_profiling_get_dispatch_time: the start and end of the last profiled packet that completed `signal`
// on `agent`'s CP, end >= start. Errors: InvalidAgentError for an unknown agent or a CPU; InvalidSignalError
// when no profiled packet stamped the signal (both stamps still 0: its queue was not profiling, or the packet
// has not run); Copies::TickToSystem's.
absl::StatusOr<DispatchTime> GetDispatchTime(Runtime& runtime, Copies& copies, AgentId agent,
                                             const SignalRef& signal);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_DISPATCH_PROFILING_H_
