#include "hsa/svm.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "base/units.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime_kfd.h"
#include "hsa/topology_kfd.h"
#include "thunk/device_controls.h"
#include "thunk/svm.h"

namespace hipmem::hsa {
namespace {

using thunk::SvmAttrType;
using thunk::SvmAttribute;

constexpr uint64_t kPage = 4096;
// The KFD's SVM flag bits (HSA_SVM_FLAG_*), which SET_FLAGS / CLR_FLAGS carry.
constexpr uint32_t kFlagHostAccess = 0x01;
constexpr uint32_t kFlagCoherent = 0x02;
constexpr uint32_t kFlagHiveLocal = 0x04;
constexpr uint32_t kFlagGpuRo = 0x08;
constexpr uint32_t kFlagGpuExec = 0x10;
constexpr uint32_t kFlagGpuReadMostly = 0x20;
// ROCr caps the migration granule at 2^18 pages (1 GiB).
constexpr uint64_t kMaxGranularity = 18;
// How long the worker sleeps on one dependency before looking at the other prefetches again: a prefetch whose
// dependencies are late must not hold back one that is ready (the two may be on different streams, and one
// stream's later work may be what the other waits for).
constexpr absl::Duration kDependencyPoll = absl::Milliseconds(1);

// [start, end) of the whole pages covering [ptr, ptr + size), as ROCr widens SVM ranges.
struct PageRange {
  uint64_t start;
  uint64_t end;
};

absl::StatusOr<PageRange> Widen(absl::string_view op, DeviceAddress ptr, Bytes size) {
  if (ptr.raw() == 0) return absl::InvalidArgumentError(absl::StrCat(op, "(ptr=0): null pointer"));
  if (size.is_zero()) {
    return absl::InvalidArgumentError(absl::StrCat(op, "(ptr=0x", absl::Hex(ptr.raw()), ", size=0): size is 0"));
  }
  const uint64_t last = ptr.raw() + size.raw();
  const std::optional<DeviceAddress> end = AlignUp(DeviceAddress(last), Bytes(kPage));
  if (last < ptr.raw() || last > UINT64_MAX - kPage || !end.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(op, "(ptr=0x", absl::Hex(ptr.raw()), ", size=", size.raw(),
                                                   "): the range wraps the address space"));
  }
  return PageRange{AlignDown(ptr, Bytes(kPage)).raw(), end->raw()};
}

// ROCr answers HSA_STATUS_ERROR for any refusal of hsaKmtSVMSetAttr / GetAttr; the thunk's code stays inside.
absl::Status KfdRefused(absl::Status status) {
  if (status.ok()) return status;
  return WithHsaStatus(std::move(status), HSA_STATUS_ERROR);
}

bool Satisfied(const SignalRef& dependency) {
  // A destroyed signal can never be signalled; treating it as done keeps the worker from waiting forever.
  return dependency.destroyed() || dependency.Load(MemoryOrder::kAcquire) == 0;
}

}  // namespace

std::unique_ptr<Svm> Svm::Create(Runtime& runtime) {
  std::unique_ptr<Svm> svm(new Svm(runtime));
  svm->worker_ = std::thread([raw = svm.get()] { raw->Loop(); });
  return svm;
}

Svm::Svm(Runtime& runtime) : runtime_(runtime) {}

Svm::~Svm() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (worker_.joinable()) worker_.join();
}

bool Svm::Supported() const {
  // SVMAPISupported is bit 27 of a node's capability word (ROCr: HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED).
  constexpr uint64_t kSvmApiSupported = uint64_t{1} << 27;
  for (const Agent& agent : runtime_.agents()) {
    if (agent.type != DeviceType::kGpu) continue;
    const thunk::NodeId node = KfdNodeOf(runtime_, agent);
    if ((TopologyOf(runtime_).nodes[node.raw()].Get("capability") & kSvmApiSupported) == 0) return false;
  }
  return true;
}

absl::StatusOr<bool> Svm::AccessibleByDefault() const {
  // ROCr: every GPU's ISA has xnack enabled. A processor without the feature (gfx908 without the mode, gfx10+)
  // never retries, and the others retry only while the process is in XNACK mode.
  bool any_gpu = false;
  for (const Agent& agent : runtime_.agents()) {
    if (agent.type != DeviceType::kGpu) continue;
    any_gpu = true;
    const thunk::NodeId node = KfdNodeOf(runtime_, agent);
    const AgentDescription d = DescribeAgent(TopologyOf(runtime_).nodes[node.raw()], agent.name, true);
    if (!d.isa.has_value() || d.isa->xnack != FeatureState::kOn) return false;
  }
  if (!any_gpu) return true;  // vacuously, as ROCr's loop over no GPU
  return thunk::GetXnackMode(KfdOf(runtime_));
}

absl::StatusOr<uint32_t> Svm::NodeOfAgent(AgentId id) const {
  ASSIGN_OR_RETURN(const Agent* agent, runtime_.GetAgent(id));
  // Every CPU's memory is the process's system memory: node 0 to the KFD.
  if (agent->type == DeviceType::kCpu) return 0u;
  return KfdNodeOf(runtime_, *agent).raw();
}

std::optional<AgentId> Svm::AgentOfNode(uint32_t node) const {
  if (node == thunk::kSvmNoNode) return std::nullopt;
  for (const Agent& agent : runtime_.agents()) {
    if (KfdNodeOf(runtime_, agent).raw() == node) return agent.id;
  }
  return std::nullopt;
}

absl::Status Svm::SetAttributes(DeviceAddress ptr, Bytes size, const SvmAttributes& a) {
  ASSIGN_OR_RETURN(const PageRange range, Widen("hsa_amd_svm_attributes_set", ptr, size));
  std::vector<SvmAttribute> attrs;
  uint32_t set_flags = 0;
  uint32_t clear_flags = 0;
  auto flag = [&](std::optional<bool> value, uint32_t bit) {
    if (!value.has_value()) return;
    (*value ? set_flags : clear_flags) |= bit;
  };
  if (a.grain.has_value()) {
    switch (*a.grain) {
      case SvmGrain::kFineGrained: set_flags |= kFlagCoherent; break;
      case SvmGrain::kCoarseGrained: clear_flags |= kFlagCoherent; break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("hsa_amd_svm_attributes_set: GLOBAL_FLAG ",
                                                       static_cast<uint32_t>(*a.grain), " is not a grain to set"));
    }
  }
  flag(a.read_only, kFlagGpuRo);
  flag(a.hive_local, kFlagHiveLocal);
  flag(a.read_mostly, kFlagGpuReadMostly);
  flag(a.gpu_exec, kFlagGpuExec);
  if (a.migration_granularity.has_value()) {
    attrs.push_back({SvmAttrType::kGranularity, static_cast<uint32_t>(std::min(*a.migration_granularity,
                                                                              kMaxGranularity))});
  }
  if (a.preferred_location.has_value()) {
    uint32_t node = thunk::kSvmNoNode;
    if (a.preferred_location->has_value()) {
      ASSIGN_OR_RETURN(node, NodeOfAgent(**a.preferred_location));
    }
    attrs.push_back({SvmAttrType::kPreferredLoc, node});
  }
  absl::flat_hash_set<uint64_t> seen;
  bool host_access_granted = false;
  for (const SvmAgentAccess& entry : a.access) {
    ASSIGN_OR_RETURN(const Agent* agent, runtime_.GetAgent(entry.agent));
    if (!seen.insert(entry.agent.raw()).second) {
      return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat("hsa_amd_svm_attributes_set: agent 0x",
                                                                   absl::Hex(entry.agent.raw()),
                                                                   " has two access attributes")),
                           HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    }
    if (agent->type == DeviceType::kCpu) {
      // The CPU's access is the range's HOST_ACCESS flag, not a node attribute.
      if (entry.access == SvmAccess::kNoAccess) {
        clear_flags |= kFlagHostAccess;
      } else {
        host_access_granted = true;
      }
      continue;
    }
    const uint32_t node = KfdNodeOf(runtime_, *agent).raw();
    switch (entry.access) {
      case SvmAccess::kAccessible: attrs.push_back({SvmAttrType::kAccess, node}); break;
      case SvmAccess::kAccessibleInPlace: attrs.push_back({SvmAttrType::kAccessInPlace, node}); break;
      case SvmAccess::kNoAccess: attrs.push_back({SvmAttrType::kNoAccess, node}); break;
    }
  }
  // One CPU granting access wins over another refusing it (ROCr merges them so).
  if (host_access_granted) {
    set_flags |= kFlagHostAccess;
    clear_flags &= ~kFlagHostAccess;
  }
  if (clear_flags != 0) attrs.push_back({SvmAttrType::kClrFlags, clear_flags});
  if (set_flags != 0) attrs.push_back({SvmAttrType::kSetFlags, set_flags});
  if (attrs.empty()) return absl::OkStatus();  // nothing to change
  Trace(Layer::kHsa, "hsa_amd_svm_attributes_set(0x", absl::Hex(range.start), ", ", range.end - range.start,
        "): ", attrs.size(), " attributes");
  return KfdRefused(
      thunk::SvmSetAttr(KfdOf(runtime_), DeviceAddress(range.start), Bytes(range.end - range.start), attrs));
}

absl::StatusOr<SvmRangeAttributes> Svm::GetAttributes(DeviceAddress ptr, Bytes size,
                                                      std::span<const AgentId> access_queries) {
  ASSIGN_OR_RETURN(const PageRange range, Widen("hsa_amd_svm_attributes_get", ptr, size));
  // Queries: CLR_FLAGS, SET_FLAGS, GRANULARITY, PREFERRED_LOC, then one ACCESS per queried GPU.
  std::vector<SvmAttribute> queries = {{SvmAttrType::kClrFlags, 0},
                                       {SvmAttrType::kSetFlags, 0},
                                       {SvmAttrType::kGranularity, 0},
                                       {SvmAttrType::kPreferredLoc, 0}};
  std::vector<std::optional<size_t>> access_index;  // nullopt: a CPU, answered from the flags
  for (AgentId id : access_queries) {
    ASSIGN_OR_RETURN(const Agent* agent, runtime_.GetAgent(id));
    if (agent->type == DeviceType::kCpu) {
      access_index.push_back(std::nullopt);
    } else {
      access_index.push_back(queries.size());
      queries.push_back({SvmAttrType::kAccess, KfdNodeOf(runtime_, *agent).raw()});
    }
  }
  const DeviceAddress start(range.start);
  const Bytes length(range.end - range.start);
  absl::StatusOr<std::vector<SvmAttribute>> kfd_answers = thunk::SvmGetAttr(KfdOf(runtime_), start, length, queries);
  if (!kfd_answers.ok()) return KfdRefused(kfd_answers.status());
  const std::vector<SvmAttribute>& answers = *kfd_answers;
  const uint32_t clear = answers[0].value;  // flags no page has
  const uint32_t set = answers[1].value;    // flags every page has
  SvmRangeAttributes out;
  if ((set & kFlagCoherent) != 0) {
    out.grain = SvmGrain::kFineGrained;
  } else if ((clear & kFlagCoherent) != 0) {
    out.grain = SvmGrain::kCoarseGrained;
  } else {
    out.grain = SvmGrain::kIndeterminate;
  }
  out.read_only = (set & kFlagGpuRo) != 0;
  out.hive_local = (set & kFlagHiveLocal) != 0;
  out.read_mostly = (set & kFlagGpuReadMostly) != 0;
  out.migration_granularity = answers[2].value;
  out.preferred_location = AgentOfNode(answers[3].value);
  ASSIGN_OR_RETURN(const std::optional<uint32_t> prefetch_node, PrefetchNode(range.start, range.end));
  out.prefetch_location = prefetch_node.has_value() ? AgentOfNode(*prefetch_node) : std::nullopt;
  for (size_t i = 0; i < access_queries.size(); ++i) {
    SvmAccess access = SvmAccess::kNoAccess;
    if (!access_index[i].has_value()) {
      if ((set & kFlagHostAccess) != 0) access = SvmAccess::kAccessible;
    } else {
      switch (answers[*access_index[i]].type) {
        case SvmAttrType::kAccess: access = SvmAccess::kAccessible; break;
        case SvmAttrType::kAccessInPlace: access = SvmAccess::kAccessibleInPlace; break;
        case SvmAttrType::kNoAccess: access = SvmAccess::kNoAccess; break;
        default:
          return absl::InternalError(absl::StrCat("hsa_amd_svm_attributes_get: the KFD answered an ACCESS query with "
                                                  "attribute type ",
                                                  static_cast<uint32_t>(answers[*access_index[i]].type)));
      }
    }
    out.access.push_back({access_queries[i], access});
  }
  return out;
}

absl::StatusOr<std::optional<uint32_t>> Svm::PrefetchNode(uint64_t start, uint64_t end) {
  // Queued prefetches answer first, the latest over the earlier ones; the KFD answers the pages none covers.
  std::vector<PageRange> uncovered = {{start, end}};
  std::optional<uint32_t> node;
  auto agree = [&](uint32_t n) {
    if (node.has_value() && *node != n) return false;
    node = n;
    return true;
  };
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = queued_.rbegin(); it != queued_.rend() && !uncovered.empty(); ++it) {
      std::vector<PageRange> rest;
      for (const PageRange& hole : uncovered) {
        const uint64_t lo = std::max(hole.start, it->start);
        const uint64_t hi = std::min(hole.end, it->end);
        if (lo >= hi) {
          rest.push_back(hole);
          continue;
        }
        if (!agree(it->node)) return std::optional<uint32_t>();
        if (hole.start < lo) rest.push_back({hole.start, lo});
        if (hi < hole.end) rest.push_back({hi, hole.end});
      }
      uncovered = std::move(rest);
    }
  }
  for (const PageRange& hole : uncovered) {
    const SvmAttribute query[] = {{SvmAttrType::kPrefetchLoc, 0}};
    absl::StatusOr<std::vector<SvmAttribute>> answer =
        thunk::SvmGetAttr(KfdOf(runtime_), DeviceAddress(hole.start), Bytes(hole.end - hole.start), query);
    if (!answer.ok()) return KfdRefused(answer.status());
    if ((*answer)[0].value == thunk::kSvmNoNode || !agree((*answer)[0].value)) return std::optional<uint32_t>();
  }
  return node;
}

absl::Status Svm::PrefetchAsync(DeviceAddress ptr, Bytes size, AgentId agent,
                                std::span<const SignalRef> dependencies, std::optional<SignalRef> completion) {
  ASSIGN_OR_RETURN(const PageRange range, Widen("hsa_amd_svm_prefetch_async", ptr, size));
  ASSIGN_OR_RETURN(const uint32_t node, NodeOfAgent(agent));
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return absl::FailedPreconditionError("hsa_amd_svm_prefetch_async: the runtime is shutting down");
  // Built in place: moving a whole QueuedPrefetch trips GCC 12's -Wmaybe-uninitialized on the optional signal at -O1.
  QueuedPrefetch& prefetch = queued_.emplace_back();
  prefetch.start = range.start;
  prefetch.end = range.end;
  prefetch.node = node;
  prefetch.dependencies.assign(dependencies.begin(), dependencies.end());
  prefetch.completion = std::move(completion);
  cv_.notify_one();
  return absl::OkStatus();
}

absl::Status Svm::Prefetch(DeviceAddress ptr, Bytes size, AgentId agent) {
  ASSIGN_OR_RETURN(const PageRange range, Widen("hsa_amd_svm_prefetch", ptr, size));
  ASSIGN_OR_RETURN(const uint32_t node, NodeOfAgent(agent));
  const SvmAttribute migrate[] = {{SvmAttrType::kPrefetchLoc, node}};
  return KfdRefused(
      thunk::SvmSetAttr(KfdOf(runtime_), DeviceAddress(range.start), Bytes(range.end - range.start), migrate));
}

absl::Status ReleaseSvmRange(Runtime& runtime, DeviceAddress ptr, Bytes size) {
  ASSIGN_OR_RETURN(const PageRange range, Widen("ReleaseSvmRange", ptr, size));
  const SvmAttribute to_system[] = {{SvmAttrType::kPrefetchLoc, 0}};
  return KfdRefused(
      thunk::SvmSetAttr(KfdOf(runtime), DeviceAddress(range.start), Bytes(range.end - range.start), to_system));
}

void Svm::Loop() {
  for (;;) {
    std::list<QueuedPrefetch>::iterator ready;
    std::optional<SignalRef> late;  // a dependency to sleep on when nothing is ready
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
      if (stopping_) return;
      ready = queued_.end();
      for (auto it = queued_.begin(); it != queued_.end(); ++it) {
        auto pending = std::find_if_not(it->dependencies.begin(), it->dependencies.end(), Satisfied);
        if (pending == it->dependencies.end()) {
          ready = it;
          break;
        }
        if (!late.has_value()) late = *pending;
      }
    }
    if (ready == queued_.end()) {
      // Sleeps on the dependency's KFD event, but only briefly: another prefetch may become ready meanwhile,
      // and Stop must not wait for a signal nobody will set.
      late->Wait(SignalCondition::kEq, 0, kDependencyPoll, WaitHint::kBlocked);
      continue;
    }
    // The list node stays put while the worker runs it: only the worker erases, and only after this.
    const uint64_t start = ready->start;
    const SvmAttribute migrate[] = {{SvmAttrType::kPrefetchLoc, ready->node}};
    const absl::Status status = thunk::SvmSetAttr(KfdOf(runtime_), DeviceAddress(ready->start),
                                                  Bytes(ready->end - ready->start), migrate);
    std::optional<SignalRef> completion;
    {
      std::lock_guard<std::mutex> lock(mu_);
      completion = std::move(ready->completion);
      queued_.erase(ready);
    }
    if (!status.ok()) {
      HIPMEM_LOG(kError, "hsa_amd_svm_prefetch_async(0x", absl::Hex(start), "): ", status.message());
    }
    if (completion.has_value() && !completion->destroyed()) {
      // hsa_ext_amd.h: a failed migration sets the completion signal negative.
      if (status.ok()) {
        completion->Apply(SignalOp::kSubtract, 1, MemoryOrder::kRelease);
      } else {
        completion->Store(-1, MemoryOrder::kRelease);
      }
    }
  }
}

}  // namespace hipmem::hsa
