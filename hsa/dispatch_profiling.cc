#include "hsa/dispatch_profiling.h"

#include <atomic>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gpu_abi/aql_packets.h"
#include "hsa/hsa_status.h"

namespace hipmem::hsa {

namespace aql = ::hipmem::gpu_abi::aql;

absl::StatusOr<DispatchTime> GetDispatchTime(Runtime& runtime, Copies& copies, AgentId agent_id,
                                             const SignalRef& signal) {
  const std::string context = absl::StrCat("hsa_amd_profiling_get_dispatch_time(agent=", agent_id.raw(),
                                           ", signal=0x", absl::Hex(signal.handle().raw()), ")");
  ASSIGN_OR_RETURN(const Agent* agent, runtime.GetAgent(agent_id));
  if (agent->type != DeviceType::kGpu) return InvalidAgentError(absl::StrCat(context, ": not a GPU agent"));
  // The handle is the amd_signal_t's address (ROCr's layout); the CP's stamps precede its decrement of the
  // value, which the caller's wait acquired.
  const auto* abi = reinterpret_cast<const aql::AmdSignal*>(signal.handle().raw());
  const uint64_t start = std::atomic_ref<const uint64_t>(abi->start_ts).load(std::memory_order_acquire);
  const uint64_t end = std::atomic_ref<const uint64_t>(abi->end_ts).load(std::memory_order_acquire);
  // ROCr converts whatever is there (zeros included) and only logs a warning; a clear error serves the caller
  // better, since a zero stamp never comes from a profiled packet (the GPU counter counts from boot).
  if (start == 0 && end == 0) {
    return InvalidSignalError(absl::StrCat(context, ": no profiled packet completed it (is profiling enabled on "
                                                    "the queue?)"));
  }
  // End first, as ROCr: the conversion closest to the stamps' reading is the end's.
  ASSIGN_OR_RETURN(const uint64_t end_ns, copies.TickToSystem(agent_id, end));
  ASSIGN_OR_RETURN(const uint64_t start_ns, copies.TickToSystem(agent_id, start));
  // Each conversion reads the clocks afresh and is exact only to half its reading's bracket, which can exceed
  // a very short packet; the CP's order of the two stamps is kept.
  return DispatchTime{start_ns <= end_ns ? start_ns : end_ns, end_ns};
}

}  // namespace hipmem::hsa
