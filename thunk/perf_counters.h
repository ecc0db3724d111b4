// GPU performance counters: plays libhsakmt's perfctr.c and pmc_table.c (hsaKmtPmc*).
//
// What a GPU offers for profiling is a static table per GFX family that the thunk carries, as upstream: no sysfs
// key, capability bit or ioctl describes counter blocks, so nothing in the topology is tied to it. Every counter
// the tables list is non-privileged (HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE): a profiler programs and reads it itself
// through its own queue (aqlprofile's PM4 register writes), not through this API. Only privileged counters go
// through RegisterTrace / StartTrace / QueryTrace / StopTrace, which upstream backed with perf events; no table
// lists one and nothing here opens a perf event, so a trace can be registered (when a caller names privileged
// counters itself) but never started.
#ifndef HIPMEM_THUNK_PERF_COUNTERS_H_
#define HIPMEM_THUNK_PERF_COUNTERS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/strong_id.h"
#include "base/units.h"
#include "hsakmt/hsakmttypes.h"
#include "thunk/kfd.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// A counter block, numbered as pmc_table.h's perf_block_id: the value is HsaCounter::BlockIndex.
enum class PerfBlock : uint32_t {
  kCb = 0,
  kCpc,
  kCpf,
  kCpg,
  kDb,
  kGds,
  kGrbm,
  kGrbmSe,
  kIa,
  kMc,
  kPasc,
  kPasu,
  kSpi,
  kSrbm,
  kSq,
  kSx,
  kTa,
  kTca,
  kTcc,
  kTcp,
  kTcs,
  kTd,
  kVgt,
  kWd,
};
// PERFCOUNTER_BLOCKID__MAX: every BlockIndex a caller may name is below it.
inline constexpr uint32_t kPerfBlockCount = 24;

// The consecutive counter ids [first, last].
struct CounterIdRange {
  uint32_t first;
  uint32_t last;
};

// One block of a GPU's counter table.
struct PerfCounterBlock {
  PerfBlock block;
  uint32_t slots;                               // counters it can count at once (NumConcurrent)
  std::span<const CounterIdRange> counter_ids;  // ascending, disjoint
  uint32_t counter_size_in_bits;
  uint64_t counter_mask;

  // Returns how many counter ids the ranges hold.
  uint32_t NumCounters() const;
};

// Returns the counter table of `node`'s GPU, chosen by its GFX major version as pmc_table.c chooses it: gfx9 (Vega
// through MI300: one table for the whole family) and gfx10 (Navi), in BlockIndex order. Errors: kInvalidArgument
// (INVALID_PARAMETER, what upstream answers for a family it has no table for) for a CPU node and for every other
// family: gfx11 and gfx12, which upstream has no table for, and gfx7 and gfx8, whose tables (Kaveri, Hawaii,
// Carrizo, Fiji, Polaris) this thunk does not carry.
absl::StatusOr<std::span<const PerfCounterBlock>> PerfCounterTable(const NodeProperties& node);

// A registered trace's handle (HSATraceId). Never 0 (what the C API refuses as no trace), and never handed out
// twice in one OS process, so an id kept past its UnregisterTrace or its PerfCounters cannot name a later trace.
using PmcTraceId = StrongId<struct PmcTraceIdTag, uint64_t>;

// What RegisterTrace hands back (HsaPmcTraceRoot).
struct RegisteredTrace {
  PmcTraceId id;
  uint32_t passes;        // always 1
  Bytes min_buffer_size;  // the privileged counters' sizes, rounded up to a page
};

// One KFD process's counter state: libhsakmt's per-node counter_props cache and its registered traces.
// Thread-safe: two threads asking for one node's properties at once get the same table, built once.
class PerfCounters {
 public:
  // `kfd` must outlive this.
  explicit PerfCounters(const Kfd& kfd);
  ~PerfCounters();
  PerfCounters(const PerfCounters&) = delete;
  PerfCounters& operator=(const PerfCounters&) = delete;

  // Returns `node`'s counter properties laid out as hsaKmtPmcGetCounterProperties hands them out: NumBlocks and
  // NumConcurrent (every block's slots summed), then each block with its counters inline, the next block starting
  // at &block->Counters[block->NumCounters]. Each counter carries its BlockIndex, CounterId, CounterSizeInBits,
  // CounterMask, Flags.Global and Type NONPRIV_IMMEDIATE; every other byte is 0. Built on the first call for the
  // node and cached: later calls return the same pointer, valid until this object is destroyed.
  // Errors: INVALID_NODE_UNIT (kInvalidArgument) for an unknown node; PerfCounterTable's.
  absl::StatusOr<const HsaCounterProperties*> CounterProperties(NodeId node);

  // Registers the privileged counters (Type PRIVILEGED_IMMEDIATE or PRIVILEGED_STREAMING) among `counters` for
  // tracing on `node`, as perfctr.c does, reading each counter's Type, BlockIndex and CounterSizeInBits as the
  // caller wrote them. Errors, in upstream's order: INVALID_PARAMETER for no counters; INVALID_NODE_UNIT for an
  // unknown node; NO_MEMORY (kResourceExhausted) for more than 512 counters, none of which is read; then
  // INVALID_PARAMETER for a BlockIndex at or past kPerfBlockCount, for no privileged counter at all (nothing to
  // trace: what every counter of the tables gives), and for a block with privileged counters that the node's table
  // does not list or that gets more of them than it has slots.
  absl::StatusOr<RegisteredTrace> RegisterTrace(NodeId node, std::span<const HsaCounter> counters);

  // Forgets `trace`. Errors, in upstream's order: INVALID_NODE_UNIT for an unknown node; INVALID_HANDLE
  // (kNotFound) for an id this object did not hand out or has forgotten; INVALID_NODE_UNIT when `trace` was
  // registered on another node.
  absl::Status UnregisterTrace(NodeId node, PmcTraceId trace);

  // Checks that `trace` is live and `node` exists; there is nothing to acquire. Errors: INVALID_HANDLE for a
  // foreign id, then INVALID_NODE_UNIT for an unknown node (upstream checks the trace first here).
  absl::Status AcquireTraceAccess(NodeId node, PmcTraceId trace);

  // Checks that `trace` is live (upstream looks at no node here). Errors: INVALID_HANDLE for a foreign id.
  absl::Status ReleaseTraceAccess(PmcTraceId trace);

  // Would enable the trace's counters. Errors: INVALID_PARAMETER for a null buffer or a zero size; INVALID_HANDLE
  // for a foreign id; UNAVAILABLE (kUnavailable) for a live trace: no perf event backs its counters, which is what
  // perfctr.c answers for a counter without one.
  absl::Status StartTrace(PmcTraceId trace, const void* buffer, Bytes buffer_size);

  // Would read the trace's counters into its buffer. Errors: INVALID_HANDLE for a foreign id; NO_MEMORY for a live
  // trace, as upstream answers for a trace never started: it has no buffer to fill.
  absl::Status QueryTrace(PmcTraceId trace);

  // Would disable the trace's counters. Errors: INVALID_HANDLE for a foreign id; UNAVAILABLE for a live trace, as
  // StartTrace.
  absl::Status StopTrace(PmcTraceId trace);

 private:
  struct Trace {
    NodeId node;
    uint32_t num_counters;
  };
  absl::StatusOr<const Trace*> FindLocked(PmcTraceId trace, absl::string_view operation) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  const Kfd* const kfd_;  // Not owned; must outlive this.
  mutable absl::Mutex mu_;
  // Each node's counter properties: the storage behind the HsaCounterProperties pointer handed out.
  absl::flat_hash_map<NodeId, std::unique_ptr<std::byte[]>> properties_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<PmcTraceId, Trace> traces_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_PERF_COUNTERS_H_
