// Per-agent settings a client may change at run time: ROCr's GpuAgent coherency type
// (hsa_amd_coherency_get_type / _set_type).
//
// On the dGPUs ROCr supports the coherency type is recorded and reported back, nothing more (ROCr marks
// the setter deprecated; only Kaveri APUs reprogrammed the aperture). The simulated GPUs are dGPUs, so this
// records it the same way, per runtime: a new hsa_init starts every GPU at COHERENT again. Thread-safe.
#ifndef HIPMEM_HSA_AGENT_SETTINGS_H_
#define HIPMEM_HSA_AGENT_SETTINGS_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {

enum class Coherency : uint32_t { kCoherent = 0, kNonCoherent = 1 };  // hsa_amd_coherency_type_t

class AgentSettings {
 public:
  // `runtime`: not owned; must outlive this.
  explicit AgentSettings(const Runtime& runtime) : runtime_(runtime) {}
  AgentSettings(const AgentSettings&) = delete;
  AgentSettings& operator=(const AgentSettings&) = delete;

  // The GPU's coherency type: kCoherent until set. kInvalidArgument (INVALID_AGENT) for an unknown agent or
  // a CPU agent.
  absl::StatusOr<Coherency> GetCoherency(AgentId gpu) const;
  // Records the GPU's coherency type. Errors as GetCoherency.
  absl::Status SetCoherency(AgentId gpu, Coherency coherency);

 private:
  absl::Status CheckGpu(AgentId agent) const;

  const Runtime& runtime_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<AgentId, Coherency> coherency_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_AGENT_SETTINGS_H_
