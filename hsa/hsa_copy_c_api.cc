// hsa_amd_memory_async_copy and its family, hsa_amd_memory_fill and the async-copy profiling calls: thin
// shells over the shared Copies (c_abi.h). Signals are looked up in the shared SignalRuntime first, so a
// destroyed or foreign handle is an error (INVALID_ARGUMENT for handle 0, INVALID_SIGNAL otherwise) rather
// than the dereference ROCr does.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "hsa/c_abi.h"
#include "hsa/copy.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/signal.h"
#include "hsa/signal_runtime.h"

namespace hipmem::hsa {
namespace {

// The parts of an async copy call that the two entry points share, resolved.
struct ResolvedCopy {
  Copies* copies;
  std::vector<SignalRef> dependencies;
  SignalRef completion;
};

absl::StatusOr<ResolvedCopy> Resolve(uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                                     hsa_signal_t completion_signal) {
  ASSIGN_OR_RETURN(Copies * copies, SharedCopies());
  ASSIGN_OR_RETURN(SignalRuntime * signals, SharedSignals());
  if (num_dep_signals > 0 && dep_signals == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("hsa_amd_memory_async_copy: ", num_dep_signals, " dependency signals but no array"));
  }
  std::vector<SignalRef> deps;
  deps.reserve(num_dep_signals);
  for (uint32_t i = 0; i < num_dep_signals; ++i) {
    ASSIGN_OR_RETURN(SignalRef dep, signals->Find(SignalHandle(dep_signals[i].handle)));
    deps.push_back(std::move(dep));
  }
  ASSIGN_OR_RETURN(SignalRef completion, signals->Find(SignalHandle(completion_signal.handle)));
  return ResolvedCopy{copies, std::move(deps), std::move(completion)};
}

CopyRequest Request(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
                    const ResolvedCopy& resolved) {
  return CopyRequest{DeviceAddress::FromPointer(dst), AgentId(dst_agent.handle),
                     DeviceAddress::FromPointer(const_cast<void*>(src)), AgentId(src_agent.handle), Bytes(size),
                     resolved.dependencies, &resolved.completion};
}

}  // namespace
}  // namespace hipmem::hsa

using hipmem::Bytes;
using hipmem::DeviceAddress;
using hipmem::hsa::AgentId;
using hipmem::hsa::Copies;
using hipmem::hsa::ToHsaStatus;

extern "C" {

hsa_status_t HSA_API hsa_amd_memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                                               hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                                               const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  absl::StatusOr<hipmem::hsa::ResolvedCopy> resolved =
      hipmem::hsa::Resolve(num_dep_signals, dep_signals, completion_signal);
  if (!resolved.ok()) return ToHsaStatus(resolved.status());
  return ToHsaStatus(
      resolved->copies->Copy(hipmem::hsa::Request(dst, dst_agent, src, src_agent, size, *resolved)));
}

hsa_status_t HSA_API hsa_amd_memory_async_copy_on_engine(void* dst, hsa_agent_t dst_agent, const void* src,
                                                         hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                                                         const hsa_signal_t* dep_signals,
                                                         hsa_signal_t completion_signal,
                                                         hsa_amd_sdma_engine_id_t engine_id, bool force_copy_on_sdma) {
  absl::StatusOr<hipmem::hsa::ResolvedCopy> resolved =
      hipmem::hsa::Resolve(num_dep_signals, dep_signals, completion_signal);
  if (!resolved.ok()) return ToHsaStatus(resolved.status());
  return ToHsaStatus(resolved->copies->CopyOnEngine(
      hipmem::hsa::Request(dst, dst_agent, src, src_agent, size, *resolved), static_cast<uint32_t>(engine_id),
      force_copy_on_sdma));
}

hsa_status_t HSA_API hsa_amd_memory_async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset,
                                                    const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset,
                                                    const hsa_dim3_t* range, hsa_agent_t copy_agent,
                                                    hsa_amd_copy_direction_t dir, uint32_t num_dep_signals,
                                                    const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  absl::StatusOr<Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  if (dst == nullptr || src == nullptr || dst_offset == nullptr || src_offset == nullptr || range == nullptr) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  // ROCr refuses a dependency array without a count here, as well as a count without an array.
  if (num_dep_signals == 0 && dep_signals != nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::ResolvedCopy> resolved =
      hipmem::hsa::Resolve(num_dep_signals, dep_signals, completion_signal);
  if (!resolved.ok()) return ToHsaStatus(resolved.status());
  auto pitched = [](const hsa_pitched_ptr_t& p) {
    return hipmem::hsa::PitchedPointer{DeviceAddress::FromPointer(p.base), p.pitch, p.slice};
  };
  auto dim3 = [](const hsa_dim3_t& d) { return hipmem::hsa::Dim3{d.x, d.y, d.z}; };
  return ToHsaStatus(resolved->copies->CopyRect(hipmem::hsa::CopyRectRequest{
      pitched(*dst), dim3(*dst_offset), pitched(*src), dim3(*src_offset), dim3(*range), AgentId(copy_agent.handle),
      static_cast<hipmem::hsa::CopyDirection>(dir), resolved->dependencies, &resolved->completion}));
}

hsa_status_t HSA_API hsa_amd_memory_copy_engine_status(hsa_agent_t dst_agent, hsa_agent_t src_agent,
                                                       uint32_t* engine_ids_mask) {
  absl::StatusOr<Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  if (engine_ids_mask == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<uint32_t> mask = (*copies)->EngineStatus(AgentId(dst_agent.handle), AgentId(src_agent.handle));
  if (!mask.ok()) return ToHsaStatus(mask.status());
  *engine_ids_mask = *mask;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_memory_get_preferred_copy_engine(hsa_agent_t dst_agent, hsa_agent_t src_agent,
                                                              uint32_t* recommended_ids_mask) {
  absl::StatusOr<Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  if (recommended_ids_mask == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<uint32_t> mask = (*copies)->PreferredEngine(AgentId(dst_agent.handle), AgentId(src_agent.handle));
  if (!mask.ok()) return ToHsaStatus(mask.status());
  *recommended_ids_mask = *mask;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_memory_fill(void* ptr, uint32_t value, size_t count) {
  absl::StatusOr<Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  return ToHsaStatus((*copies)->Fill(DeviceAddress::FromPointer(ptr), value, count));
}

hsa_status_t HSA_API hsa_amd_profiling_async_copy_enable(bool enable) {
  absl::StatusOr<Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  (*copies)->EnableProfiling(enable);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_profiling_get_async_copy_time(hsa_signal_t signal,
                                                           hsa_amd_profiling_async_copy_time_t* time) {
  absl::StatusOr<Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  absl::StatusOr<hipmem::hsa::SignalRuntime*> signals = hipmem::hsa::SharedSignals();
  if (!signals.ok()) return ToHsaStatus(signals.status());
  if (time == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::SignalRef> ref = (*signals)->Find(hipmem::hsa::SignalHandle(signal.handle));
  if (!ref.ok()) return ToHsaStatus(ref.status());
  absl::StatusOr<hipmem::hsa::CopyTime> t = (*copies)->GetCopyTime(*ref);
  if (!t.ok()) return ToHsaStatus(t.status());
  time->start = t->start;
  time->end = t->end;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_profiling_convert_tick_to_system_domain(hsa_agent_t agent, uint64_t agent_tick,
                                                                     uint64_t* system_tick) {
  absl::StatusOr<Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  if (system_tick == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<uint64_t> ns = (*copies)->TickToSystem(AgentId(agent.handle), agent_tick);
  if (!ns.ok()) return ToHsaStatus(ns.status());
  *system_tick = *ns;
  return HSA_STATUS_SUCCESS;
}

}  // extern "C"
