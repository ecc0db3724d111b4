// Shared virtual memory at the HSA layer: attributes of managed ranges and asynchronous prefetch.
//
// Plays ROCr's Runtime::SetSvmAttrib / GetSvmAttrib / SvmPrefetch / GetSVMPrefetchAgent (runtime.cpp) behind
// hsa_amd_svm_attributes_set/get and hsa_amd_svm_prefetch_async. An SVM range is a piece of the process's own
// address space every GPU sees at the same address; this layer names its locations and accessors by agent and
// translates them to the thunk's topology nodes (thunk/svm.h). Ranges are widened to whole pages, as ROCr does.
//
// A prefetch never blocks its caller: it is queued to this object's worker thread, which runs it once every
// dependency signal reads 0 (PREFETCH_LOC, which migrates the range in the kernel), then decrements the completion
// signal. Until it has run, the range's PREFETCH_LOCATION reads as its destination (ROCr's prefetch map).
// Thread-safe.
#ifndef HIPMEM_HSA_SVM_H_
#define HIPMEM_HSA_SVM_H_

#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "hsa/runtime.h"
#include "hsa/signal.h"

namespace hipmem::hsa {

// hsa_amd_svm_model_t: HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG's values.
enum class SvmGrain : uint32_t { kFineGrained = 0, kCoarseGrained = 1, kIndeterminate = 2 /* query only */ };

// How an agent may reach a range (the hsa_amd_svm_attribute_t of AGENT_ACCESSIBLE / _IN_PLACE / NO_ACCESS).
enum class SvmAccess : uint32_t { kAccessible = 0x200, kAccessibleInPlace = 0x201, kNoAccess = 0x202 };

struct SvmAgentAccess {
  AgentId agent;
  SvmAccess access;

  friend bool operator==(const SvmAgentAccess&, const SvmAgentAccess&) = default;
};

// What SetAttributes changes; an unset field is left as it is.
struct SvmAttributes {
  std::optional<SvmGrain> grain;          // kFineGrained or kCoarseGrained
  std::optional<bool> read_only;          // GPUs map it read-only
  std::optional<bool> hive_local;
  std::optional<uint64_t> migration_granularity;  // log2 of pages; above 18 (1 GiB) counts as 18, as ROCr
  // Outer: whether to change it; inner nullopt clears the preference (ROCr's null agent).
  std::optional<std::optional<AgentId>> preferred_location;
  std::optional<bool> read_mostly;
  std::optional<bool> gpu_exec;
  std::vector<SvmAgentAccess> access;  // at most one entry per agent; a CPU agent toggles host access
};

// What GetAttributes answers over a whole range.
struct SvmRangeAttributes {
  SvmGrain grain;     // kIndeterminate where the range mixes fine and coarse pages
  bool read_only;     // true where every page has it
  bool hive_local;
  bool read_mostly;
  uint32_t migration_granularity;             // the smallest in the range
  std::optional<AgentId> preferred_location;  // nullopt: none, or the pages disagree
  std::optional<AgentId> prefetch_location;   // nullopt: the pages disagree
  std::vector<SvmAgentAccess> access;         // one per queried agent, in query order
};

// Moves the pages covering [ptr, ptr + size) back to system memory, returning any VRAM they hold, before their
// owner unmaps them (the kernel drops an unmapped range itself; this keeps the accounting right without relying
// on that). Errors: as Svm::SetAttributes' range and KFD errors.
absl::Status ReleaseSvmRange(Runtime& runtime, DeviceAddress ptr, Bytes size);

class Svm {
 public:
  // Starts the prefetch worker for `runtime`, which must outlive this.
  static std::unique_ptr<Svm> Create(Runtime& runtime);
  // Stops the worker. Prefetches still queued are dropped; their completion signals keep their values (as copies
  // at hsa_shut_down).
  ~Svm();
  Svm(const Svm&) = delete;
  Svm& operator=(const Svm&) = delete;

  // HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED: every GPU node advertises AMDKFD_IOC_SVM (SVMAPISupported).
  bool Supported() const;
  // HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: every GPU runs with XNACK on (its processor retries faults and
  // the process is in XNACK mode), so a GPU reaches any range without an access attribute. False without GPUs'
  // XNACK; the KFD's errors when it cannot say.
  absl::StatusOr<bool> AccessibleByDefault() const;

  // Applies `attributes` to the pages covering [ptr, ptr + size). Errors: kInvalidArgument for a null ptr, size
  // 0 or an end past the address space; InvalidAgentError for an agent this runtime did not hand out (an access
  // entry's, or the preferred location's); kInvalidArgument (INCOMPATIBLE_ARGUMENTS in the C shell) for two
  // access entries naming one agent, or kIndeterminate as the grain; the thunk's errors when the KFD refuses
  // (memory not mapped in the process: HSAKMT_STATUS_ERROR).
  absl::Status SetAttributes(DeviceAddress ptr, Bytes size, const SvmAttributes& attributes);

  // Reads the attributes of the pages covering [ptr, ptr + size), with the access of each of `access_queries`
  // (a CPU agent: accessible when every page has host access). Errors: SetAttributes' range errors;
  // InvalidAgentError for an unknown queried agent; the thunk's errors.
  absl::StatusOr<SvmRangeAttributes> GetAttributes(DeviceAddress ptr, Bytes size,
                                                   std::span<const AgentId> access_queries = {});

  // Queues a migration of the pages covering [ptr, ptr + size) to `agent` (a CPU agent: system memory), run after
  // every dependency reads 0; `completion`, when given, is decremented by 1 afterwards. Returns at once.
  // Errors (nothing queued): SetAttributes' range errors; InvalidAgentError for an unknown agent. A migration the
  // KFD refuses later is logged and the completion signal still decremented (ROCr asserts instead).
  absl::Status PrefetchAsync(DeviceAddress ptr, Bytes size, AgentId agent, std::span<const SignalRef> dependencies,
                             std::optional<SignalRef> completion);

  // Migrates the pages covering [ptr, ptr + size) to `agent` on the calling thread (for a caller that orders the
  // migration itself, such as a stream's host function). Errors: PrefetchAsync's, and the KFD's refusal
  // (HSA_STATUS_ERROR).
  absl::Status Prefetch(DeviceAddress ptr, Bytes size, AgentId agent);

 private:
  struct QueuedPrefetch {
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t node = 0;  // thunk node, 0 for system memory
    std::vector<SignalRef> dependencies;
    std::optional<SignalRef> completion;
  };

  explicit Svm(Runtime& runtime);
  void Loop();
  // The node `agent` names: 0 for a CPU (system memory). InvalidAgentError for an unknown agent.
  absl::StatusOr<uint32_t> NodeOfAgent(AgentId agent) const;
  std::optional<AgentId> AgentOfNode(uint32_t node) const;
  // The prefetch destination of [start, end) from queued prefetches and the KFD: nullopt when they disagree.
  absl::StatusOr<std::optional<uint32_t>> PrefetchNode(uint64_t start, uint64_t end);

  Runtime& runtime_;  // Not owned; must outlive this.

  // std::mutex rather than absl::Mutex: ThreadSanitizer sees the standard library's locks and condition variable
  // (Debian's Abseil is not instrumented, base/scoped_lock.h).
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Queued and running prefetches, in submission order; a running one stays until the KFD has answered, so
  // PREFETCH_LOCATION never reads a stale location in between.
  std::list<QueuedPrefetch> queued_ ABSL_GUARDED_BY(mu_);
  std::thread worker_;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_SVM_H_
