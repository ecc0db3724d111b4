// Copies::BatchCopy: hsa_amd_memory_async_batch_copy's LINEAR and LINEAR_BROADCAST operations (ROCr's
// GpuAgent::DmaCopyBatch, DmaCopyBroadcast and the SDMA-off DmaCopyBatchFallback). A broadcast is one COPY_LINEAR
// run per destination, as ROCr's linear back-to-back path for it. An operation's entries become one SDMA packet stream -- the dependency waits,
// a COPY_LINEAR run per entry, one decrement of the operation's signal -- so the signal says "done" only when
// every entry has landed.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "gpu_abi/sdma_packets.h"
#include "hsa/copy.h"
#include "hsa/runtime_kfd.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {
namespace {

namespace sdma = ::hipmem::gpu_abi::sdma;

const thunk::NodeProperties* FindNode(Runtime& runtime, thunk::NodeId node) {
  for (const thunk::NodeProperties& n : TopologyOf(runtime).nodes) {
    if (n.id == node) return &n;
  }
  return nullptr;
}

// Where one operation runs.
struct Plan {
  enum class Kind { kHost, kFallback, kSdma } kind;
  const Agent* gpu = nullptr;
  uint32_t engine = 0;           // kSdma: the engine offset
  uint64_t max_linear = 0;       // kSdma: the most bytes one COPY_LINEAR moves on the GPU
};

}  // namespace

absl::Status Copies::BatchCopy(std::span<const BatchCopyOp> ops, std::span<const SignalRef> dependencies) {
  // Every operation is checked, and its engine chosen, before any is queued.
  std::vector<Plan> plans;
  plans.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const BatchCopyOp& op = ops[i];
    const std::string context = absl::StrCat("hsa_amd_memory_async_batch_copy(operation ", i, ")");
    if (op.completion == nullptr) return absl::InvalidArgumentError(absl::StrCat(context, ": no completion signal"));
    if (op.entries.empty()) return absl::InvalidArgumentError(absl::StrCat(context, ": no copies"));
    ASSIGN_OR_RETURN(const Agent* src_agent, runtime_.GetAgent(op.src_agent));
    const Agent* first_dst = nullptr;
    for (size_t e = 0; e < op.entries.size(); ++e) {
      const BatchCopyEntry& entry = op.entries[e];
      if (entry.dst.raw() == 0 || entry.src.raw() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(context, ": entry ", e, " has a null pointer"));
      }
      ASSIGN_OR_RETURN(const Agent* dst_agent, runtime_.GetAgent(entry.dst_agent));
      if (first_dst == nullptr) first_dst = dst_agent;
      // Each side once: one lookup, one bounds check.
      for (const DeviceAddress side : {entry.src, entry.dst}) {
        const std::optional<PointerInfo> info = runtime_.FindPointer(side);
        if (!info.has_value()) continue;
        const std::optional<DeviceAddress> end = CheckedAdd(side, entry.size);
        if (!end.has_value() || *end > info->allocation.end()) {
          return absl::OutOfRangeError(absl::StrCat(context, ": entry ", e, " runs past the allocation at ",
                                                    AddressText(info->allocation.base)));
        }
      }
    }
    // ROCr's copy agent: the source if it is a GPU, else the destination.
    const Agent* gpu = src_agent->type == DeviceType::kGpu ? src_agent
                       : first_dst->type == DeviceType::kGpu ? first_dst
                                                             : nullptr;
    if (gpu == nullptr) {
      plans.push_back(Plan{Plan::Kind::kHost});
      continue;
    }
    if (!engines_.SdmaAllowed(*gpu)) {
      // ROCr's DmaCopyBatchFallback has no blit-kernel broadcast.
      if (op.broadcast) return absl::InvalidArgumentError(absl::StrCat(context, ": a broadcast needs SDMA"));
      plans.push_back(Plan{Plan::Kind::kFallback, gpu});
      continue;
    }
    const thunk::NodeProperties* node = FindNode(runtime_, KfdNodeOf(runtime_, *gpu));
    if (node == nullptr) return InvalidAgentError(absl::StrCat(context, ": the copy agent has no node"));
    ASSIGN_OR_RETURN(const uint32_t preferred, PreferredEngine(first_dst->id, src_agent->id));
    uint32_t engine = static_cast<uint32_t>(__builtin_ffs(static_cast<int>(preferred)));
    if (engine == 0) {
      const bool h2d = src_agent->type != DeviceType::kGpu;
      engine = h2d || node->Get("num_sdma_engines") < 2 ? 1 : 2;
    }
    const std::optional<sdma::Generation> generation =
        sdma::GenerationOf(static_cast<uint32_t>(node->Get("gfx_target_version")));
    plans.push_back(Plan{Plan::Kind::kSdma, gpu, engine, sdma::MaxLinearBytes(*generation)});
  }

  for (size_t i = 0; i < ops.size(); ++i) {
    const BatchCopyOp& op = ops[i];
    const Plan& plan = plans[i];
    const std::string context = absl::StrCat("hsa_amd_memory_async_batch_copy(operation ", i, ")");
    if (plan.kind != Plan::Kind::kSdma) {
      // On the calling thread, after the dependencies: between system memory (ROCr's CpuAgent), or through
      // CopySync where SDMA is off (ROCr's DmaCopyBatchFallback). A failed entry leaves the signal alone.
      for (const SignalRef& dep : dependencies) {
        dep.Wait(SignalCondition::kEq, 0, absl::InfiniteDuration(), WaitHint::kBlocked);
      }
      for (const BatchCopyEntry& entry : op.entries) {
        if (plan.kind == Plan::Kind::kFallback) {
          RETURN_IF_ERROR(Annotate(CopySync(entry.dst, entry.src, entry.size), context));
        } else if (!entry.size.is_zero()) {
          std::memmove(entry.dst.ToPointer(), entry.src.ToPointer(), entry.size.raw());
        }
      }
      op.completion->Apply(SignalOp::kSubtract, 1, MemoryOrder::kRelease);
      continue;
    }
    // One stream: each entry's source and destination ranges, in order, and a COPY_LINEAR run per entry.
    // Nothing known about the sides: LaunchSdma asks the thunk where the GPU reaches each.
    std::vector<SdmaRange> ranges;
    std::vector<uint64_t> sizes;
    for (const BatchCopyEntry& entry : op.entries) {
      if (entry.size.is_zero()) continue;
      const ResolvedSide src{.host = entry.src, .gpu = entry.src, .agent = op.src_agent};
      const ResolvedSide dst{.host = entry.dst, .gpu = entry.dst, .agent = entry.dst_agent};
      ranges.push_back(SdmaRange{src, entry.size});
      ranges.push_back(SdmaRange{dst, entry.size});
      sizes.push_back(entry.size.raw());
    }
    const uint64_t max_linear = plan.max_linear;
    auto build = [&](std::span<const uint64_t> at) -> absl::StatusOr<std::vector<uint32_t>> {
      std::vector<uint32_t> stream;
      for (size_t k = 0; k < sizes.size(); ++k) {
        for (uint64_t offset = 0; offset < sizes[k]; offset += max_linear) {
          const auto n = static_cast<uint32_t>(std::min(max_linear, sizes[k] - offset));
          const sdma::CopyLinear packet = sdma::MakeCopy(at[2 * k + 1] + offset, at[2 * k] + offset, n);
          const auto* dwords = reinterpret_cast<const uint32_t*>(&packet);
          stream.insert(stream.end(), dwords, dwords + sizeof(packet) / 4);
        }
      }
      return stream;
    };
    RETURN_IF_ERROR(LaunchSdma(*plan.gpu, plan.engine, ranges, build, dependencies, *op.completion, context));
  }
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
