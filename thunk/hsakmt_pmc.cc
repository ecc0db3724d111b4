// hsaKmtPmc* C entry points: thin shells over thunk/perf_counters.h on the shared thunk::Kfd.
//
// The shared instance's PerfCounters holds libhsakmt's counter_props cache and the registered traces; the last
// hsaKmtCloseKFD destroys it, as openclose.c's destroy_counter_props frees the cache, so a pointer
// hsaKmtPmcGetCounterProperties handed out lives until then. A trace id is looked up among the live ones and never
// dereferenced (upstream casts it back to a pointer and reads a magic number through it): 0 is INVALID_PARAMETER,
// anything this library did not hand out, or has unregistered, or handed out before the last close, is
// INVALID_HANDLE. As every hsaKmt* call here, a call before hsaKmtOpenKFD answers KERNEL_IO_CHANNEL_NOT_OPENED
// (current perfctr.c, which skips CHECK_KFD_OPEN, answers NO_MEMORY or INVALID_NODE_UNIT there instead).
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "base/units.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/perf_counters.h"
#include "thunk/shared_kfd.h"

namespace hipmem::thunk {
namespace {

ABSL_CONST_INIT absl::Mutex g_pmc_mu(absl::kConstInit);

// The shared instance's counter state and the instance it belongs to. Never destroyed, like the shared Kfd.
struct PmcState {
  Kfd* owner = nullptr;  // Not owned.
  std::unique_ptr<PerfCounters> counters;
};

PmcState& State() ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_pmc_mu) {
  static auto* const state = new PmcState();
  return *state;
}

// The last hsaKmtCloseKFD: the counter properties and traces go with the process.
void DestroyCounters(Kfd& kfd) {
  std::unique_ptr<PerfCounters> gone;
  ScopedLock lock(&g_pmc_mu);
  if (State().owner != &kfd) return;  // another instance's (see WithCounters)
  gone = std::move(State().counters);
  State().owner = nullptr;
}

// Runs `fn` on the counter state of the open shared instance, made on first use; KERNEL_IO_CHANNEL_NOT_OPENED while
// the KFD is closed. Calls are serialised with each other and with the close hook (a call racing the last close
// is the caller's error, as for every hsaKmt* call). State of another instance -- a forked child's copy of its
// parent's -- is left behind, never freed: the child may still hold the properties pointers it inherited.
HSAKMT_STATUS WithCounters(absl::FunctionRef<absl::Status(PerfCounters&)> fn) {
  absl::StatusOr<Kfd*> kfd = SharedKfd();
  if (!kfd.ok()) return ToHsakmtStatus(kfd.status());
  static const bool hooked = (AddSharedKfdCloseHook(&DestroyCounters), true);
  (void)hooked;
  ScopedLock lock(&g_pmc_mu);
  PmcState& state = State();
  if (state.owner != *kfd) {
    if (state.counters != nullptr) {
      static auto* const left_behind = new std::vector<PerfCounters*>();
      left_behind->push_back(state.counters.release());
    }
    state.owner = *kfd;
    state.counters = std::make_unique<PerfCounters>(**kfd);
  }
  return ToHsakmtStatus(fn(*state.counters));
}

// Runs `fn` on trace `id` of the open instance. perfctr.c refuses id 0 (INVALID_PARAMETER) before anything else.
HSAKMT_STATUS WithTrace(HSATraceId id, absl::FunctionRef<absl::Status(PerfCounters&, PmcTraceId)> fn) {
  return WithCounters([&](PerfCounters& counters) {
    if (id == 0) return absl::InvalidArgumentError("hsaKmtPmc*: trace id 0");
    return fn(counters, PmcTraceId(id));
  });
}

}  // namespace
}  // namespace hipmem::thunk

using hipmem::Bytes;
using hipmem::thunk::NodeId;
using hipmem::thunk::PerfCounters;
using hipmem::thunk::PmcTraceId;
using hipmem::thunk::WithCounters;
using hipmem::thunk::WithTrace;

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcGetCounterProperties(HSAuint32 NodeId, HsaCounterProperties** CounterProperties) {
  return WithCounters([&](PerfCounters& counters) -> absl::Status {
    if (CounterProperties == nullptr) return absl::InvalidArgumentError("hsaKmtPmcGetCounterProperties: null");
    absl::StatusOr<const HsaCounterProperties*> properties = counters.CounterProperties(::NodeId(NodeId));
    if (!properties.ok()) return properties.status();
    // The C API hands out a mutable pointer to the cache, as upstream; callers only read it.
    *CounterProperties = const_cast<HsaCounterProperties*>(*properties);
    return absl::OkStatus();
  });
}

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcRegisterTrace(HSAuint32 NodeId, HSAuint32 NumberOfCounters, HsaCounter* Counters,
                                               HsaPmcTraceRoot* TraceRoot) {
  return WithCounters([&](PerfCounters& counters) -> absl::Status {
    if (Counters == nullptr || TraceRoot == nullptr) return absl::InvalidArgumentError("hsaKmtPmcRegisterTrace: null");
    absl::StatusOr<hipmem::thunk::RegisteredTrace> trace =
        counters.RegisterTrace(::NodeId(NodeId), std::span<const HsaCounter>(Counters, NumberOfCounters));
    if (!trace.ok()) return trace.status();
    TraceRoot->TraceBufferMinSizeBytes = trace->min_buffer_size.raw();
    TraceRoot->NumberOfPasses = trace->passes;
    TraceRoot->TraceId = trace->id.raw();
    return absl::OkStatus();
  });
}

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcUnregisterTrace(HSAuint32 NodeId, HSATraceId TraceId) {
  return WithTrace(TraceId, [&](PerfCounters& c, PmcTraceId id) { return c.UnregisterTrace(::NodeId(NodeId), id); });
}

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcAcquireTraceAccess(HSAuint32 NodeId, HSATraceId TraceId) {
  return WithTrace(TraceId, [&](PerfCounters& c, PmcTraceId id) { return c.AcquireTraceAccess(::NodeId(NodeId), id); });
}

// As upstream, the node is not looked at (kfdtest passes 0).
HSAKMT_STATUS HSAKMTAPI hsaKmtPmcReleaseTraceAccess(HSAuint32, HSATraceId TraceId) {
  return WithTrace(TraceId, [](PerfCounters& c, PmcTraceId id) { return c.ReleaseTraceAccess(id); });
}

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcStartTrace(HSATraceId TraceId, void* TraceBuffer, HSAuint64 TraceBufferSizeBytes) {
  return WithTrace(TraceId, [&](PerfCounters& c, PmcTraceId id) {
    return c.StartTrace(id, TraceBuffer, Bytes(TraceBufferSizeBytes));
  });
}

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcQueryTrace(HSATraceId TraceId) {
  return WithTrace(TraceId, [](PerfCounters& c, PmcTraceId id) { return c.QueryTrace(id); });
}

HSAKMT_STATUS HSAKMTAPI hsaKmtPmcStopTrace(HSATraceId TraceId) {
  return WithTrace(TraceId, [](PerfCounters& c, PmcTraceId id) { return c.StopTrace(id); });
}

}  // extern "C"
