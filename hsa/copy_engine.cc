#include "hsa/copy_engine.h"

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "gpu_abi/sdma_packets.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime_kfd.h"

namespace hipmem::hsa {
namespace {

namespace sdma = ::hipmem::gpu_abi::sdma;

bool IsGpu(const Agent& a) { return a.type == DeviceType::kGpu; }

// ROCr's copy agent: the source if it is a GPU, else the destination; null between two CPUs.
const Agent* CopyAgent(const Agent& dst, const Agent& src) {
  if (IsGpu(src)) return &src;
  return IsGpu(dst) ? &dst : nullptr;
}

}  // namespace

CopyFlags CopyFlags::FromEnvironment() {
  CopyFlags flags;
  if (const char* v = std::getenv("HSA_ENABLE_SDMA"); v != nullptr && *v != '\0') flags.enable_sdma = EnvUint64("HSA_ENABLE_SDMA", 1) != 0;
  flags.enable_peer_sdma = EnvUint64("HSA_ENABLE_PEER_SDMA", 1) != 0;
  flags.force_sdma_size = Bytes(EnvUint64("HSA_FORCE_SDMA_SIZE", Bytes::MiB(1).raw()));
  return flags;
}

bool EngineRules::SdmaAllowed(const Agent& gpu) const {
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, gpu);
  if (node == nullptr || node->Get("num_sdma_engines") == 0) return false;
  const auto gfx = static_cast<uint32_t>(node->Get("gfx_target_version"));
  // No SDMA packet model for the GPU (gfx12 and later here): its copies run on the blit kernel.
  if (!sdma::GenerationOf(gfx).has_value()) return false;
  if (flags_.enable_sdma.has_value()) return *flags_.enable_sdma;
  return gfx != 100103;  // ROCr keeps SDMA off on gfx1013 by default
}

bool EngineRules::HivePeers(const Agent& a, const Agent& b) const {
  const thunk::NodeProperties* na = NodePropertiesOf(runtime_, a);
  const thunk::NodeProperties* nb = NodePropertiesOf(runtime_, b);
  if (na == nullptr || nb == nullptr) return false;
  const uint64_t hive = na->Get("hive_id");
  return hive != 0 && hive == nb->Get("hive_id") && na->Get("num_sdma_xgmi_engines") != 0;
}

absl::StatusOr<EngineChoice> EngineRules::Choose(AgentId dst_id, AgentId src_id, Bytes size, bool profiling) const {
  ASSIGN_OR_RETURN(const Agent* dst, runtime_.GetAgent(dst_id));
  ASSIGN_OR_RETURN(const Agent* src, runtime_.GetAgent(src_id));
  const Agent* gpu = CopyAgent(*dst, *src);
  if (gpu == nullptr) return EngineChoice{CopyEngineKind::kHost, std::nullopt, 0};
  const EngineChoice kernel{CopyEngineKind::kBlitKernel, gpu->id, 0};
  if (!SdmaAllowed(*gpu)) return kernel;
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *gpu);
  const uint64_t num_sdma = node->Get("num_sdma_engines");
  const uint32_t d2h = num_sdma > 1 ? 2 : 1;
  if (src == dst) {
    // Small same-GPU copies go to SDMA: a kernel's cache flushes cost more than the copy.
    if (size < flags_.force_sdma_size || profiling) return EngineChoice{CopyEngineKind::kSdma, gpu->id, d2h};
    return kernel;
  }
  if (IsGpu(*src) && IsGpu(*dst)) {
    if (!flags_.enable_peer_sdma && !profiling) return kernel;
    if (HivePeers(*src, *dst)) {
      // XGMI engines, spread over destinations (ROCr round-robins per peer).
      const uint64_t xgmi = node->Get("num_sdma_xgmi_engines");
      return EngineChoice{CopyEngineKind::kSdma, gpu->id, static_cast<uint32_t>(num_sdma + 1 + KfdNodeOf(runtime_, *dst).raw() % xgmi)};
    }
    return EngineChoice{CopyEngineKind::kSdma, gpu->id, d2h};
  }
  return EngineChoice{CopyEngineKind::kSdma, gpu->id, IsGpu(*dst) ? 1u : d2h};
}

absl::StatusOr<EngineChoice> EngineRules::ChooseOnEngine(AgentId dst_id, AgentId src_id, uint32_t engine_mask,
                                                         bool force_sdma) const {
  const std::string context = absl::StrCat("hsa_amd_memory_async_copy_on_engine(engine=0x", absl::Hex(engine_mask), ")");
  if (engine_mask == 0 || (engine_mask & (engine_mask - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": the engine id must be exactly one bit"));
  }
  const auto offset = static_cast<uint32_t>(__builtin_ffs(static_cast<int>(engine_mask)));
  ASSIGN_OR_RETURN(const Agent* dst, runtime_.GetAgent(dst_id));
  ASSIGN_OR_RETURN(const Agent* src, runtime_.GetAgent(src_id));
  const Agent* gpu = CopyAgent(*dst, *src);
  if (gpu == nullptr) return EngineChoice{CopyEngineKind::kHost, std::nullopt, 0};
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *gpu);
  const uint64_t num_sdma = node->Get("num_sdma_engines");
  if (offset > num_sdma + node->Get("num_sdma_xgmi_engines")) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": node ", node->id.raw(), " has no such SDMA engine"));
  }
  const bool peers = IsGpu(*src) && IsGpu(*dst) && src != dst;
  const EngineChoice kernel{CopyEngineKind::kBlitKernel, gpu->id, 0};
  if (!SdmaAllowed(*gpu) || (peers && !flags_.enable_peer_sdma)) return kernel;
  if (src == dst && !force_sdma) return kernel;
  const bool xgmi_copy = peers && HivePeers(*src, *dst);
  if (xgmi_copy != (offset > num_sdma)) {
    return absl::InvalidArgumentError(absl::StrCat(context, xgmi_copy ? ": a copy between hive peers needs an XGMI engine"
                                                                      : ": XGMI engines serve only hive peers"));
  }
  return EngineChoice{CopyEngineKind::kSdma, gpu->id, offset};
}

absl::StatusOr<EngineCandidates> EngineRules::StatusCandidates(AgentId dst_id, AgentId src_id) const {
  ASSIGN_OR_RETURN(const Agent* dst, runtime_.GetAgent(dst_id));
  ASSIGN_OR_RETURN(const Agent* src, runtime_.GetAgent(src_id));
  if (dst == src) return InvalidAgentError("hsa_amd_memory_copy_engine_status: the same agent on both sides");
  const Agent* gpu = CopyAgent(*dst, *src);
  if (gpu == nullptr) return InvalidAgentError("hsa_amd_memory_copy_engine_status: no GPU agent");
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *gpu);
  const uint64_t num_sdma = node->Get("num_sdma_engines");
  uint64_t first = 1, last = std::min<uint64_t>(num_sdma, 2);
  if (IsGpu(*src) && IsGpu(*dst) && HivePeers(*src, *dst)) {
    first = num_sdma + 1;
    last = num_sdma + node->Get("num_sdma_xgmi_engines");
  }
  // The mask has 32 bits.
  return EngineCandidates{gpu->id, static_cast<uint32_t>(first), static_cast<uint32_t>(std::min<uint64_t>(last, 32))};
}

absl::StatusOr<uint32_t> EngineRules::Preferred(AgentId dst_id, AgentId src_id, bool profiling) const {
  ASSIGN_OR_RETURN(const Agent* dst, runtime_.GetAgent(dst_id));
  ASSIGN_OR_RETURN(const Agent* src, runtime_.GetAgent(src_id));
  if (IsGpu(*src) && IsGpu(*dst) && src != dst) {
    if (const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *src)) {
      for (const thunk::IoLink& link : node->io_links) {
        if (link.node_to == KfdNodeOf(runtime_, *dst) && link.recommended_sdma_engine_id_mask != 0) {
          return link.recommended_sdma_engine_id_mask;
        }
      }
    }
  }
  ASSIGN_OR_RETURN(const EngineChoice choice, Choose(dst_id, src_id, Bytes::GiB(1), profiling));
  return choice.kind == CopyEngineKind::kSdma ? 1u << (choice.sdma_engine - 1) : 0u;
}

}  // namespace hipmem::hsa
