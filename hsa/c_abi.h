// The HSA C ABI's state and struct writers, shared by the hsa_* entry points.
//
// Plays ROCr's Runtime::Acquire/Release (hsa_init is reference counted) and the GetInfo switch of
// its agent and region classes, which write C types into caller buffers. Kept out of the entry
// points so those stay thin shells. Thread-safe.
#ifndef HIPMEM_HSA_C_ABI_H_
#define HIPMEM_HSA_C_ABI_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/trace.h"
#include "hsa/agent_settings.h"
#include "hsa/copy.h"
#include "hsa/hsa_status.h"
#include "hsa/queue.h"
#include "hsa/runtime.h"
#include "hsa/signal_runtime.h"
#include "hsa/svm.h"
#include "hsa/system_events.h"

namespace hipmem::hsa {

// hsa_init: creates the shared runtime or takes another reference.
absl::Status AcquireSharedRuntime();
// hsa_shut_down: drops a reference; the last one destroys the runtime. NotInitializedError when
// there is none.
absl::Status ReleaseSharedRuntime();
// The shared runtime, borrowed until the matching release. NotInitializedError before hsa_init.
absl::StatusOr<Runtime*> SharedRuntime();
// The shared runtime's signals, made and destroyed with it (destroyed first). NotInitializedError before
// hsa_init.
absl::StatusOr<SignalRuntime*> SharedSignals();
// The shared runtime's asynchronous copies, made after its signals and destroyed before them.
// NotInitializedError before hsa_init.
absl::StatusOr<Copies*> SharedCopies();
// The shared runtime's AQL queues, destroyed before its copies and signals. NotInitializedError before hsa_init.
absl::StatusOr<Queues*> SharedQueues();
// The shared runtime's per-agent settings (coherency type), reset by each first hsa_init. NotInitializedError
// before hsa_init.
absl::StatusOr<AgentSettings*> SharedAgentSettings();
// The shared runtime's GPU memory fault listener, started on first use and stopped first at the last
// hsa_shut_down. NotInitializedError before hsa_init; SystemEvents::Create's errors.
absl::StatusOr<SystemEvents*> SharedSystemEvents();
// The shared runtime's SVM attributes and prefetch worker (svm.h), started on first use and stopped first at the
// last hsa_shut_down. NotInitializedError before hsa_init.
absl::StatusOr<Svm*> SharedSvm();

// HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: system timestamps, and the timeouts of signal waits, count
// nanoseconds (the KFD's GET_CLOCK_COUNTERS reports system_clock_freq = 1 GHz, which ROCr passes on).
inline constexpr uint64_t kTimestampFrequencyHz = 1'000'000'000;
// HSA_SYSTEM_INFO_VERSION_MINOR: the minor of the ROCr release this runtime follows (rocr-runtime 1.21).
inline constexpr uint16_t kRocrVersionMinor = 21;

// Write one hsa_agent_info_t / hsa_amd_agent_info_t attribute, one hsa_amd_memory_pool_info_t
// attribute, or one hsa_amd_agent_memory_pool_info_t attribute into `value`, in the C type the
// header documents for it. kInvalidArgument for an attribute this runtime does not answer.
absl::Status WriteSystemInfo(uint32_t attribute, void* value);
absl::Status WriteAgentInfo(Runtime& runtime, AgentId agent, uint32_t attribute, void* value);
absl::Status WritePoolInfo(const Runtime& runtime, PoolId pool, uint32_t attribute, void* value);
absl::Status WriteAgentPoolInfo(const Runtime& runtime, AgentId agent, PoolId pool, uint32_t attribute, void* value);

}  // namespace hipmem::hsa

// In an hsa_* entry point: binds `runtime` (hsa::Runtime&) to the shared runtime, or returns the
// hsa_status_t for why there is none (HSA_STATUS_ERROR_NOT_INITIALIZED before hsa_init). The entry point is also an
// `hsa_api` slice named after the function.
#define HSA_RUNTIME_OR_RETURN(runtime)                                                    \
  ::hipmem::TraceSlice hsa_api_slice_(::hipmem::TraceCategory::kHsaApi, __func__);        \
  absl::StatusOr<::hipmem::hsa::Runtime*> runtime##_or = ::hipmem::hsa::SharedRuntime(); \
  if (!runtime##_or.ok()) return ::hipmem::hsa::ToHsaStatus(runtime##_or.status());      \
  ::hipmem::hsa::Runtime& runtime = **runtime##_or

#endif  // HIPMEM_HSA_C_ABI_H_
