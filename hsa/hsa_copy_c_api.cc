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
#include "hsa/runtime.h"
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

hsa_status_t HSA_API hsa_amd_memory_async_batch_copy(const hsa_amd_memory_copy_op_t* copy_ops, uint32_t num_copy_ops,
                                                     uint32_t num_dep_signals, const hsa_signal_t* dep_signals) {
  absl::StatusOr<Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  absl::StatusOr<hipmem::hsa::SignalRuntime*> signals = hipmem::hsa::SharedSignals();
  if (!signals.ok()) return ToHsaStatus(signals.status());
  if (num_copy_ops > 0 && copy_ops == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if ((num_dep_signals == 0) != (dep_signals == nullptr)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<hipmem::hsa::SignalRef> deps;
  deps.reserve(num_dep_signals);
  for (uint32_t i = 0; i < num_dep_signals; ++i) {
    absl::StatusOr<hipmem::hsa::SignalRef> dep = (*signals)->Find(hipmem::hsa::SignalHandle(dep_signals[i].handle));
    if (!dep.ok()) return ToHsaStatus(dep.status());
    deps.push_back(*std::move(dep));
  }
  // Reserved up front: each operation points at its completion signal's entry.
  std::vector<hipmem::hsa::SignalRef> completions;
  completions.reserve(num_copy_ops);
  std::vector<hipmem::hsa::BatchCopyOp> ops;
  ops.reserve(num_copy_ops);
  for (uint32_t i = 0; i < num_copy_ops; ++i) {
    const hsa_amd_memory_copy_op_t& op = copy_ops[i];
    if (op.version != HSA_AMD_MEMORY_COPY_OP_VERSION) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (op.type) {
      case HSA_AMD_MEMORY_COPY_OP_LINEAR:
        break;
      case HSA_AMD_MEMORY_COPY_OP_LINEAR_BROADCAST:
        // One source (src, size) to the num_entries destinations of dst_list / dst_agent_list.
        if (op.num_entries == 0 || op.dst_list == nullptr || op.dst_agent_list == nullptr) {
          return HSA_STATUS_ERROR_INVALID_ARGUMENT;
        }
        break;
      case HSA_AMD_MEMORY_COPY_OP_LINEAR_SWAP:
      case HSA_AMD_MEMORY_COPY_OP_LINEAR_INDIRECT_SRC:
      case HSA_AMD_MEMORY_COPY_OP_LINEAR_INDIRECT_DST:
      case HSA_AMD_MEMORY_COPY_OP_LINEAR_INDIRECT_SRCDST:
        // Not modelled yet: the SDMA swap and indirect copies (TODO(#8) §4).
        return static_cast<hsa_status_t>(HSA_STATUS_ERROR_NOT_SUPPORTED);
      default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    // The engine-side wait before and signal operation after a copy: not modelled yet (TODO(#8) §4).
    if (op.wait.function != HSA_AMD_MEMORY_COPY_WAIT_ALWAYS || op.signal.operation != HSA_AMD_MEMORY_COPY_SIGNAL_NONE) {
      return static_cast<hsa_status_t>(HSA_STATUS_ERROR_NOT_SUPPORTED);
    }
    absl::StatusOr<hipmem::hsa::SignalRef> done =
        (*signals)->Find(hipmem::hsa::SignalHandle(op.completion_signal.handle));
    if (!done.ok()) return ToHsaStatus(done.status());
    completions.push_back(*std::move(done));
    hipmem::hsa::BatchCopyOp out{AgentId(op.src_agent.handle), {}, &completions.back()};
    if (op.type == HSA_AMD_MEMORY_COPY_OP_LINEAR_BROADCAST) {
      out.broadcast = true;
      for (uint16_t e = 0; e < op.num_entries; ++e) {
        out.entries.push_back(hipmem::hsa::BatchCopyEntry{DeviceAddress::FromPointer(op.dst_list[e]),
                                                          AgentId(op.dst_agent_list[e].handle),
                                                          DeviceAddress::FromPointer(op.src), Bytes(op.size)});
      }
    } else if (op.num_entries == 0) {
      out.entries.push_back(hipmem::hsa::BatchCopyEntry{DeviceAddress::FromPointer(op.dst), AgentId(op.dst_agent.handle),
                                                        DeviceAddress::FromPointer(op.src), Bytes(op.size)});
    } else {
      if (op.dst_list == nullptr || op.src_list == nullptr || op.size_list == nullptr ||
          op.dst_agent_list == nullptr) {
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
      }
      for (uint16_t e = 0; e < op.num_entries; ++e) {
        out.entries.push_back(hipmem::hsa::BatchCopyEntry{
            DeviceAddress::FromPointer(op.dst_list[e]), AgentId(op.dst_agent_list[e].handle),
            DeviceAddress::FromPointer(op.src_list[e]), Bytes(op.size_list[e])});
      }
    }
    ops.push_back(std::move(out));
  }
  return ToHsaStatus((*copies)->BatchCopy(ops, deps));
}

// Migration between pools. Current ROCr does not migrate: its AMD::MemoryRegion::CanMigrate answers false with
// HSA_STATUS_ERROR_OUT_OF_RESOURCES and Migrate answers HSA_STATUS_ERROR_OUT_OF_RESOURCES, both marked "not
// implemented yet" (ROCm/rocm-systems projects/rocr-runtime/runtime/hsa-runtime/core/runtime/amd_memory_region.cpp),
// after hsa_ext_amd.cpp's argument and pool checks. These answer the same, after the same checks.
hsa_status_t HSA_API hsa_amd_memory_pool_can_migrate(hsa_amd_memory_pool_t src_memory_pool,
                                                     hsa_amd_memory_pool_t dst_memory_pool, bool* result) {
  HSA_RUNTIME_OR_RETURN(runtime);
  if (result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const hsa_amd_memory_pool_t pool : {src_memory_pool, dst_memory_pool}) {
    if (absl::Status s = runtime.GetPool(hipmem::hsa::PoolId(pool.handle)).status(); !s.ok()) return ToHsaStatus(s);
  }
  *result = false;
  return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

hsa_status_t HSA_API hsa_amd_memory_migrate(const void* ptr, hsa_amd_memory_pool_t memory_pool, uint32_t flags) {
  HSA_RUNTIME_OR_RETURN(runtime);
  if (ptr == nullptr || flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (absl::Status s = runtime.GetPool(hipmem::hsa::PoolId(memory_pool.handle)).status(); !s.ok()) {
    return ToHsaStatus(s);
  }
  return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
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
