// hsa_signal_* and hsa_amd_signal_* C entry points: thin shells over the shared SignalRuntime (c_abi.h).
//
// The operations without a status to return (loads, stores, read-modify-writes, single waits) dereference
// an invalid handle upstream (undefined behaviour; ROCr aborts when its check catches it); here they log it
// and answer 0 without touching memory. The multi-signal waits answer as upstream for invalid signals: skipped
// (wait_any), or satisfied with value 0 (wait_all). Timeouts are in HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY
// ticks, converted as ROCr's timer::GetFastTimeout does (ticks / frequency seconds); UINT64_MAX is forever.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/signal.h"
#include "hsa/signal_runtime.h"

namespace hipmem::hsa {
namespace {

constexpr uint32_t kNoSignal = UINT32_MAX;  // wait_any / wait_all: none valid, or timed out

SignalHandle Handle(hsa_signal_t signal) { return SignalHandle(signal.handle); }

absl::Duration Timeout(uint64_t ticks) {
  if (ticks == UINT64_MAX) return absl::InfiniteDuration();
  return absl::Seconds(static_cast<double>(ticks) / static_cast<double>(kTimestampFrequencyHz));
}

// The signal behind `signal` for an operation without a status; nullopt, logged, when there is none.
std::optional<SignalRef> Lookup(const char* function, hsa_signal_t signal) {
  absl::StatusOr<SignalRuntime*> signals = SharedSignals();
  if (!signals.ok()) {
    HIPMEM_LOG(kError, function, ": ", signals.status().message());
    return std::nullopt;
  }
  absl::StatusOr<SignalRef> ref = (*signals)->Find(Handle(signal));
  if (!ref.ok()) {
    HIPMEM_LOG(kError, function, ": ", ref.status().message());
    return std::nullopt;
  }
  return *std::move(ref);
}

hsa_signal_value_t Load(const char* function, hsa_signal_t signal, MemoryOrder order) {
  const std::optional<SignalRef> ref = Lookup(function, signal);
  return ref ? ref->Load(order) : 0;
}

void Store(const char* function, hsa_signal_t signal, hsa_signal_value_t value, MemoryOrder order) {
  // A queue's doorbell signal: the store rings the KFD doorbell (ROCr's DoorbellSignal::StoreRelaxed).
  if (Queues::AnyQueues()) {
    if (absl::StatusOr<Queues*> queues = SharedQueues(); queues.ok() && (*queues)->RingDoorbell(signal.handle, value)) {
      return;
    }
  }
  if (const std::optional<SignalRef> ref = Lookup(function, signal)) ref->Store(value, order);
}

void Apply(const char* function, hsa_signal_t signal, SignalOp op, hsa_signal_value_t value, MemoryOrder order) {
  if (const std::optional<SignalRef> ref = Lookup(function, signal)) ref->Apply(op, value, order);
}

hsa_signal_value_t Exchange(const char* function, hsa_signal_t signal, hsa_signal_value_t value, MemoryOrder order) {
  const std::optional<SignalRef> ref = Lookup(function, signal);
  return ref ? ref->Exchange(value, order) : 0;
}

hsa_signal_value_t Cas(const char* function, hsa_signal_t signal, hsa_signal_value_t expected,
                       hsa_signal_value_t value, MemoryOrder order) {
  const std::optional<SignalRef> ref = Lookup(function, signal);
  return ref ? ref->CompareExchange(expected, value, order) : 0;
}

hsa_signal_value_t Wait(const char* function, hsa_signal_t signal, hsa_signal_condition_t condition,
                        hsa_signal_value_t compare, uint64_t timeout, hsa_wait_state_t hint) {
  const std::optional<SignalRef> ref = Lookup(function, signal);
  if (!ref) return 0;
  const auto cond = static_cast<SignalCondition>(condition);
  if (!IsValidCondition(cond)) {
    HIPMEM_LOG(kError, function, ": condition ", static_cast<uint32_t>(condition), " is not an hsa_signal_condition_t");
    return 0;
  }
  return ref->Wait(cond, compare, Timeout(timeout), static_cast<WaitHint>(hint));
}

// The triples of a multi-signal wait whose signals are live, with their positions in the caller's arrays.
struct Triples {
  std::vector<SignalWait> waits;
  std::vector<uint32_t> positions;
};

std::optional<Triples> Collect(const char* function, uint32_t count, const hsa_signal_t* signals,
                               const hsa_signal_condition_t* conds, const hsa_signal_value_t* values) {
  absl::StatusOr<SignalRuntime*> runtime = SharedSignals();
  if (!runtime.ok()) {
    HIPMEM_LOG(kError, function, ": ", runtime.status().message());
    return std::nullopt;
  }
  if (count != 0 && (signals == nullptr || conds == nullptr || values == nullptr)) {
    HIPMEM_LOG(kError, function, ": null signal, condition or value array");
    return std::nullopt;
  }
  Triples triples;
  for (uint32_t i = 0; i < count; ++i) {
    absl::StatusOr<SignalRef> ref = (*runtime)->Find(Handle(signals[i]));
    if (!ref.ok()) continue;  // upstream skips null and invalid signals
    triples.waits.push_back(SignalWait{*std::move(ref), static_cast<SignalCondition>(conds[i]), values[i]});
    triples.positions.push_back(i);
  }
  return triples;
}

uint32_t WaitAnyOf(const char* function, uint32_t count, const hsa_signal_t* signals,
                   const hsa_signal_condition_t* conds, const hsa_signal_value_t* values, absl::Duration timeout,
                   hsa_wait_state_t hint, hsa_signal_value_t* satisfying_value) {
  const std::optional<Triples> triples = Collect(function, count, signals, conds, values);
  if (!triples || triples->waits.empty()) return kNoSignal;
  absl::StatusOr<WaitAnyResult> hit = WaitAny(triples->waits, timeout, static_cast<WaitHint>(hint));
  if (!hit.ok()) {
    if (!absl::IsDeadlineExceeded(hit.status())) HIPMEM_LOG(kError, function, ": ", hit.status().message());
    return kNoSignal;
  }
  if (satisfying_value != nullptr) *satisfying_value = hit->value;
  return triples->positions[hit->index];
}

// hsa_signal_group_wait_any_*: the group's signals, waited on forever (ROCr passes uint64_t(-1)).
hsa_status_t GroupWaitAny(hsa_signal_group_t group, const hsa_signal_condition_t* conditions,
                          const hsa_signal_value_t* compare_values, hsa_wait_state_t hint, hsa_signal_t* signal,
                          hsa_signal_value_t* value) {
  absl::StatusOr<SignalRuntime*> runtime = SharedSignals();
  if (!runtime.ok()) return ToHsaStatus(runtime.status());
  absl::StatusOr<std::vector<SignalHandle>> members = (*runtime)->GroupSignals(SignalGroupId(group.handle));
  if (!members.ok()) return ToHsaStatus(members.status());
  if (conditions == nullptr || compare_values == nullptr || signal == nullptr || value == nullptr) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  std::vector<hsa_signal_t> handles;
  for (const SignalHandle h : *members) handles.push_back(hsa_signal_t{h.raw()});
  const uint32_t index = WaitAnyOf(__func__, static_cast<uint32_t>(handles.size()), handles.data(), conditions,
                                   compare_values, absl::InfiniteDuration(), hint, value);
  if (index >= handles.size()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;  // as ROCr: no valid signal left
  *signal = handles[index];
  return HSA_STATUS_SUCCESS;
}

std::vector<AgentId> Agents(uint32_t count, const hsa_agent_t* agents) {
  std::vector<AgentId> ids;
  for (uint32_t i = 0; i < count; ++i) ids.push_back(AgentId(agents[i].handle));
  return ids;
}

}  // namespace
}  // namespace hipmem::hsa

using hipmem::hsa::Apply;
using hipmem::hsa::Cas;
using hipmem::hsa::Exchange;
using hipmem::hsa::Load;
using hipmem::hsa::MemoryOrder;
using hipmem::hsa::SignalOp;
using hipmem::hsa::Store;
using hipmem::hsa::ToHsaStatus;
using hipmem::hsa::Wait;

constexpr MemoryOrder kRelaxed = MemoryOrder::kRelaxed;
constexpr MemoryOrder kAcquire = MemoryOrder::kAcquire;
constexpr MemoryOrder kRelease = MemoryOrder::kRelease;
constexpr MemoryOrder kAcqRel = MemoryOrder::kAcqRel;

#define HSA_SIGNALS_OR_RETURN(signals)                                                  \
  absl::StatusOr<hipmem::hsa::SignalRuntime*> signals##_or = hipmem::hsa::SharedSignals(); \
  if (!signals##_or.ok()) return ToHsaStatus(signals##_or.status());                     \
  hipmem::hsa::SignalRuntime& signals = **signals##_or

extern "C" {

// ---- lifetime ----

hsa_status_t HSA_API hsa_amd_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                           const hsa_agent_t* consumers, uint64_t attributes,
                                           hsa_signal_t* signal) {
  HSA_SIGNALS_OR_RETURN(rt);
  if (signal == nullptr || (num_consumers != 0 && consumers == nullptr)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const hipmem::hsa::SignalAttributes attrs{.gpu_only = (attributes & HSA_AMD_SIGNAL_AMD_GPU_ONLY) != 0,
                                            .ipc = (attributes & HSA_AMD_SIGNAL_IPC) != 0};
  absl::StatusOr<hipmem::hsa::SignalHandle> handle =
      rt.CreateSignal(initial_value, hipmem::hsa::Agents(num_consumers, consumers), attrs);
  if (!handle.ok()) return ToHsaStatus(handle.status());
  signal->handle = handle->raw();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                       const hsa_agent_t* consumers, hsa_signal_t* signal) {
  return hsa_amd_signal_create(initial_value, num_consumers, consumers, 0, signal);
}

hsa_status_t HSA_API hsa_signal_destroy(hsa_signal_t signal) {
  HSA_SIGNALS_OR_RETURN(rt);
  return ToHsaStatus(rt.DestroySignal(hipmem::hsa::Handle(signal)));
}

hsa_status_t hsa_amd_signal_value_pointer(hsa_signal_t signal, volatile hsa_signal_value_t** value_ptr) {
  HSA_SIGNALS_OR_RETURN(rt);
  if (value_ptr == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::SignalRef> ref = rt.Find(hipmem::hsa::Handle(signal));
  if (!ref.ok()) return ToHsaStatus(ref.status());
  // ROCr hands out the value word of busy-wait (default) signals only.
  if (ref->kind() != hipmem::hsa::SignalKind::kDefault) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *value_ptr = ref->value_pointer();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_signal_get_event_id(hsa_signal_t signal, uint32_t* event_id) {
  HSA_SIGNALS_OR_RETURN(rt);
  if (event_id == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::SignalRef> ref = rt.Find(hipmem::hsa::Handle(signal));
  if (!ref.ok()) return ToHsaStatus(ref.status());
  *event_id = ref->event_id().value_or(0);
  return HSA_STATUS_SUCCESS;
}

// ---- loads and stores ----

hsa_signal_value_t HSA_API hsa_signal_load_scacquire(hsa_signal_t s) { return Load(__func__, s, kAcquire); }
hsa_signal_value_t HSA_API hsa_signal_load_relaxed(hsa_signal_t s) { return Load(__func__, s, kRelaxed); }
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_load_acquire(hsa_signal_t s) {
  return Load(__func__, s, kAcquire);
}
void HSA_API hsa_signal_store_relaxed(hsa_signal_t s, hsa_signal_value_t v) { Store(__func__, s, v, kRelaxed); }
void HSA_API hsa_signal_store_screlease(hsa_signal_t s, hsa_signal_value_t v) { Store(__func__, s, v, kRelease); }
void HSA_API HSA_DEPRECATED hsa_signal_store_release(hsa_signal_t s, hsa_signal_value_t v) {
  Store(__func__, s, v, kRelease);
}
void HSA_API hsa_signal_silent_store_relaxed(hsa_signal_t s, hsa_signal_value_t v) { Store(__func__, s, v, kRelaxed); }
void HSA_API hsa_signal_silent_store_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  Store(__func__, s, v, kRelease);
}

// ---- exchange and compare-and-swap: the value before ----

hsa_signal_value_t HSA_API hsa_signal_exchange_scacq_screl(hsa_signal_t s, hsa_signal_value_t v) {
  return Exchange(__func__, s, v, kAcqRel);
}
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_exchange_acq_rel(hsa_signal_t s, hsa_signal_value_t v) {
  return Exchange(__func__, s, v, kAcqRel);
}
hsa_signal_value_t HSA_API hsa_signal_exchange_scacquire(hsa_signal_t s, hsa_signal_value_t v) {
  return Exchange(__func__, s, v, kAcquire);
}
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_exchange_acquire(hsa_signal_t s, hsa_signal_value_t v) {
  return Exchange(__func__, s, v, kAcquire);
}
hsa_signal_value_t HSA_API hsa_signal_exchange_relaxed(hsa_signal_t s, hsa_signal_value_t v) {
  return Exchange(__func__, s, v, kRelaxed);
}
hsa_signal_value_t HSA_API hsa_signal_exchange_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  return Exchange(__func__, s, v, kRelease);
}
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_exchange_release(hsa_signal_t s, hsa_signal_value_t v) {
  return Exchange(__func__, s, v, kRelease);
}
hsa_signal_value_t HSA_API hsa_signal_cas_scacq_screl(hsa_signal_t s, hsa_signal_value_t e, hsa_signal_value_t v) {
  return Cas(__func__, s, e, v, kAcqRel);
}
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_acq_rel(hsa_signal_t s, hsa_signal_value_t e,
                                                                 hsa_signal_value_t v) {
  return Cas(__func__, s, e, v, kAcqRel);
}
hsa_signal_value_t HSA_API hsa_signal_cas_scacquire(hsa_signal_t s, hsa_signal_value_t e, hsa_signal_value_t v) {
  return Cas(__func__, s, e, v, kAcquire);
}
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_acquire(hsa_signal_t s, hsa_signal_value_t e,
                                                                 hsa_signal_value_t v) {
  return Cas(__func__, s, e, v, kAcquire);
}
hsa_signal_value_t HSA_API hsa_signal_cas_relaxed(hsa_signal_t s, hsa_signal_value_t e, hsa_signal_value_t v) {
  return Cas(__func__, s, e, v, kRelaxed);
}
hsa_signal_value_t HSA_API hsa_signal_cas_screlease(hsa_signal_t s, hsa_signal_value_t e, hsa_signal_value_t v) {
  return Cas(__func__, s, e, v, kRelease);
}
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_release(hsa_signal_t s, hsa_signal_value_t e,
                                                                 hsa_signal_value_t v) {
  return Cas(__func__, s, e, v, kRelease);
}

// ---- read-modify-writes ----

void HSA_API hsa_signal_add_scacq_screl(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAdd, v, kAcqRel);
}
void HSA_API HSA_DEPRECATED hsa_signal_add_acq_rel(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAdd, v, kAcqRel);
}
void HSA_API hsa_signal_add_scacquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAdd, v, kAcquire);
}
void HSA_API HSA_DEPRECATED hsa_signal_add_acquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAdd, v, kAcquire);
}
void HSA_API hsa_signal_add_relaxed(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAdd, v, kRelaxed);
}
void HSA_API hsa_signal_add_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAdd, v, kRelease);
}
void HSA_API HSA_DEPRECATED hsa_signal_add_release(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAdd, v, kRelease);
}
void HSA_API hsa_signal_subtract_scacq_screl(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kSubtract, v, kAcqRel);
}
void HSA_API HSA_DEPRECATED hsa_signal_subtract_acq_rel(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kSubtract, v, kAcqRel);
}
void HSA_API hsa_signal_subtract_scacquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kSubtract, v, kAcquire);
}
void HSA_API HSA_DEPRECATED hsa_signal_subtract_acquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kSubtract, v, kAcquire);
}
void HSA_API hsa_signal_subtract_relaxed(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kSubtract, v, kRelaxed);
}
void HSA_API hsa_signal_subtract_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kSubtract, v, kRelease);
}
void HSA_API HSA_DEPRECATED hsa_signal_subtract_release(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kSubtract, v, kRelease);
}
void HSA_API hsa_signal_and_scacq_screl(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAnd, v, kAcqRel);
}
void HSA_API HSA_DEPRECATED hsa_signal_and_acq_rel(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAnd, v, kAcqRel);
}
void HSA_API hsa_signal_and_scacquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAnd, v, kAcquire);
}
void HSA_API HSA_DEPRECATED hsa_signal_and_acquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAnd, v, kAcquire);
}
void HSA_API hsa_signal_and_relaxed(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAnd, v, kRelaxed);
}
void HSA_API hsa_signal_and_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAnd, v, kRelease);
}
void HSA_API HSA_DEPRECATED hsa_signal_and_release(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kAnd, v, kRelease);
}
void HSA_API hsa_signal_or_scacq_screl(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kOr, v, kAcqRel);
}
void HSA_API HSA_DEPRECATED hsa_signal_or_acq_rel(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kOr, v, kAcqRel);
}
void HSA_API hsa_signal_or_scacquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kOr, v, kAcquire);
}
void HSA_API HSA_DEPRECATED hsa_signal_or_acquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kOr, v, kAcquire);
}
void HSA_API hsa_signal_or_relaxed(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kOr, v, kRelaxed);
}
void HSA_API hsa_signal_or_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kOr, v, kRelease);
}
void HSA_API HSA_DEPRECATED hsa_signal_or_release(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kOr, v, kRelease);
}
void HSA_API hsa_signal_xor_scacq_screl(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kXor, v, kAcqRel);
}
void HSA_API HSA_DEPRECATED hsa_signal_xor_acq_rel(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kXor, v, kAcqRel);
}
void HSA_API hsa_signal_xor_scacquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kXor, v, kAcquire);
}
void HSA_API HSA_DEPRECATED hsa_signal_xor_acquire(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kXor, v, kAcquire);
}
void HSA_API hsa_signal_xor_relaxed(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kXor, v, kRelaxed);
}
void HSA_API hsa_signal_xor_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kXor, v, kRelease);
}
void HSA_API HSA_DEPRECATED hsa_signal_xor_release(hsa_signal_t s, hsa_signal_value_t v) {
  Apply(__func__, s, SignalOp::kXor, v, kRelease);
}

// ---- waits ----

hsa_signal_value_t HSA_API hsa_signal_wait_scacquire(hsa_signal_t s, hsa_signal_condition_t c, hsa_signal_value_t v,
                                                     uint64_t timeout, hsa_wait_state_t hint) {
  return Wait(__func__, s, c, v, timeout, hint);
}
hsa_signal_value_t HSA_API hsa_signal_wait_relaxed(hsa_signal_t s, hsa_signal_condition_t c, hsa_signal_value_t v,
                                                   uint64_t timeout, hsa_wait_state_t hint) {
  return Wait(__func__, s, c, v, timeout, hint);
}
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_wait_acquire(hsa_signal_t s, hsa_signal_condition_t c,
                                                                  hsa_signal_value_t v, uint64_t timeout,
                                                                  hsa_wait_state_t hint) {
  return Wait(__func__, s, c, v, timeout, hint);
}

uint32_t HSA_API hsa_amd_signal_wait_any(uint32_t signal_count, hsa_signal_t* signals, hsa_signal_condition_t* conds,
                                         hsa_signal_value_t* values, uint64_t timeout_hint, hsa_wait_state_t wait_hint,
                                         hsa_signal_value_t* satisfying_value) {
  return hipmem::hsa::WaitAnyOf(__func__, signal_count, signals, conds, values, hipmem::hsa::Timeout(timeout_hint),
                                wait_hint, satisfying_value);
}

uint32_t HSA_API hsa_amd_signal_wait_all(uint32_t signal_count, hsa_signal_t* signals, hsa_signal_condition_t* conds,
                                         hsa_signal_value_t* values, uint64_t timeout_hint, hsa_wait_state_t wait_hint,
                                         hsa_signal_value_t* satisfying_values) {
  const std::optional<hipmem::hsa::Triples> triples =
      hipmem::hsa::Collect(__func__, signal_count, signals, conds, values);
  if (!triples) return hipmem::hsa::kNoSignal;
  std::vector<hsa_signal_value_t> seen(signal_count, 0);  // upstream: invalid signals are met with value 0
  if (!triples->waits.empty()) {
    absl::StatusOr<std::vector<hipmem::hsa::SignalValue>> met = hipmem::hsa::WaitAll(
        triples->waits, hipmem::hsa::Timeout(timeout_hint), static_cast<hipmem::hsa::WaitHint>(wait_hint));
    if (!met.ok()) {
      if (!absl::IsDeadlineExceeded(met.status())) HIPMEM_LOG(kError, __func__, ": ", met.status().message());
      return hipmem::hsa::kNoSignal;
    }
    for (size_t i = 0; i < met->size(); ++i) seen[triples->positions[i]] = (*met)[i];
  }
  if (satisfying_values != nullptr) std::copy(seen.begin(), seen.end(), satisfying_values);
  return 0;
}

// ---- groups ----

hsa_status_t HSA_API hsa_signal_group_create(uint32_t num_signals, const hsa_signal_t* signals, uint32_t num_consumers,
                                             const hsa_agent_t* consumers, hsa_signal_group_t* signal_group) {
  HSA_SIGNALS_OR_RETURN(rt);
  if (signal_group == nullptr || (num_signals != 0 && signals == nullptr) ||
      (num_consumers != 0 && consumers == nullptr)) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  std::vector<hipmem::hsa::SignalHandle> handles;
  for (uint32_t i = 0; i < num_signals; ++i) handles.push_back(hipmem::hsa::Handle(signals[i]));
  absl::StatusOr<hipmem::hsa::SignalGroupId> group =
      rt.CreateGroup(handles, hipmem::hsa::Agents(num_consumers, consumers));
  if (!group.ok()) return ToHsaStatus(group.status());
  signal_group->handle = group->raw();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_signal_group_destroy(hsa_signal_group_t signal_group) {
  HSA_SIGNALS_OR_RETURN(rt);
  return ToHsaStatus(rt.DestroyGroup(hipmem::hsa::SignalGroupId(signal_group.handle)));
}

hsa_status_t HSA_API hsa_signal_group_wait_any_scacquire(hsa_signal_group_t signal_group,
                                                         const hsa_signal_condition_t* conditions,
                                                         const hsa_signal_value_t* compare_values,
                                                         hsa_wait_state_t wait_state_hint, hsa_signal_t* signal,
                                                         hsa_signal_value_t* value) {
  return hipmem::hsa::GroupWaitAny(signal_group, conditions, compare_values, wait_state_hint, signal, value);
}

hsa_status_t HSA_API hsa_signal_group_wait_any_relaxed(hsa_signal_group_t signal_group,
                                                       const hsa_signal_condition_t* conditions,
                                                       const hsa_signal_value_t* compare_values,
                                                       hsa_wait_state_t wait_state_hint, hsa_signal_t* signal,
                                                       hsa_signal_value_t* value) {
  return hipmem::hsa::GroupWaitAny(signal_group, conditions, compare_values, wait_state_hint, signal, value);
}

// ---- the asynchronous handler thread ----

hsa_status_t HSA_API hsa_amd_signal_async_handler(hsa_signal_t signal, hsa_signal_condition_t cond,
                                                  hsa_signal_value_t value, hsa_amd_signal_handler handler, void* arg) {
  HSA_SIGNALS_OR_RETURN(rt);
  if (handler == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(rt.SetAsyncHandler(hipmem::hsa::Handle(signal), static_cast<hipmem::hsa::SignalCondition>(cond),
                                        value, [handler, arg](hsa_signal_value_t v) { return handler(v, arg); }));
}

hsa_status_t HSA_API hsa_amd_async_function(void (*callback)(void* arg), void* arg) {
  HSA_SIGNALS_OR_RETURN(rt);
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(rt.RunAsync([callback, arg] { callback(arg); }));
}

}  // extern "C"
