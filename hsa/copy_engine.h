// Which engine runs a copy: ROCr's GetBlitObject and the engine checks of hsa_amd_memory_async_copy_on_engine,
// hsa_amd_memory_copy_engine_status and hsa_amd_memory_get_preferred_copy_engine (amd_gpu_agent.cpp,
// hsa_ext_amd.cpp; rocm_facts.md §5.1), over the runtime's topology and ROCr's copy flags. Pure rules: nothing
// here creates a queue. Thread-safe (it holds nothing that changes).
#ifndef HIPMEM_HSA_COPY_ENGINE_H_
#define HIPMEM_HSA_COPY_ENGINE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "base/units.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {

// Which kind of engine runs a copy.
enum class CopyEngineKind {
  kHost,        // the calling CPU thread (both agents are CPUs)
  kBlitKernel,  // the copy agent's blit kernel on an AQL queue
  kSdma,        // one of the copy agent's SDMA engines
};

// Where a copy runs.
struct EngineChoice {
  CopyEngineKind kind;
  std::optional<AgentId> gpu;  // the copy agent; nullopt for kHost
  // kSdma: the engine's offset, 1-based as ROCr's engine_offset: bit (offset - 1) of hsa_amd_sdma_engine_id_t.
  // 1 is the host-to-device engine, 2 the device-to-host one (1 again with a single SDMA engine), from
  // num_sdma_engines + 1 on the XGMI engines.
  uint32_t sdma_engine = 0;

  friend bool operator==(const EngineChoice&, const EngineChoice&) = default;
};

// The environment flags ROCr reads for its copy path (util/flag.h), under their upstream names.
struct CopyFlags {
  std::optional<bool> enable_sdma = std::nullopt;  // HSA_ENABLE_SDMA: unset = the GPU's default (on where modelled)
  bool enable_peer_sdma = true;          // HSA_ENABLE_PEER_SDMA
  Bytes force_sdma_size = Bytes::MiB(1);  // HSA_FORCE_SDMA_SIZE: same-GPU copies below it run on SDMA

  static CopyFlags FromEnvironment();
};

// The SDMA engines, by offset, that may serve a copy between two agents (hsa_amd_memory_copy_engine_status).
struct EngineCandidates {
  AgentId gpu;     // the copy agent
  uint32_t first;  // offsets first..last, 1-based
  uint32_t last;
};

class EngineRules {
 public:
  // `runtime` must outlive it.
  EngineRules(const Runtime& runtime, CopyFlags flags) : runtime_(runtime), flags_(flags) {}

  const CopyFlags& flags() const { return flags_; }

  // The engine hsa_amd_memory_async_copy uses (ROCr's GetBlitObject); `profiling`: copy profiling is on, which
  // sends every GPU copy to SDMA. Errors: InvalidAgentError.
  absl::StatusOr<EngineChoice> Choose(AgentId dst, AgentId src, Bytes size, bool profiling) const;

  // The engine hsa_amd_memory_async_copy_on_engine uses for `engine_mask` (ROCr's rules: a same-GPU copy runs on
  // the blit kernel unless `force_sdma`; with HSA_ENABLE_SDMA=0, or a peer copy with HSA_ENABLE_PEER_SDMA=0, on the
  // blit kernel). Errors: InvalidAgentError; kInvalidArgument when the mask is not one bit, names an engine the GPU
  // does not have, or an XGMI engine for a copy that is not between hive peers (or a PCIe engine for one that is).
  absl::StatusOr<EngineChoice> ChooseOnEngine(AgentId dst, AgentId src, uint32_t engine_mask, bool force_sdma) const;

  // The engines hsa_amd_memory_copy_engine_status reports on. Errors: InvalidAgentError for an unknown agent, the
  // same agent twice or two CPUs.
  absl::StatusOr<EngineCandidates> StatusCandidates(AgentId dst, AgentId src) const;

  // hsa_amd_memory_get_preferred_copy_engine: the io link's recommended_sdma_engine_id_mask where the topology
  // gives one, else the engine Choose picks for a large copy (0 when that is not an SDMA engine).
  // Errors: InvalidAgentError.
  absl::StatusOr<uint32_t> Preferred(AgentId dst, AgentId src, bool profiling) const;

  // Whether `gpu`'s copies may run on SDMA: it has engines, a modelled packet format, and HSA_ENABLE_SDMA allows.
  bool SdmaAllowed(const Agent& gpu) const;
  // Whether two GPUs share an XGMI hive with XGMI SDMA engines.
  bool HivePeers(const Agent& a, const Agent& b) const;

 private:
  const Runtime& runtime_;  // Not owned; must outlive this.
  const CopyFlags flags_;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_COPY_ENGINE_H_
