#include "hsa/agent_settings.h"

#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "hsa/hsa_status.h"

namespace hipmem::hsa {

absl::Status AgentSettings::CheckGpu(AgentId agent) const {
  ASSIGN_OR_RETURN(const Agent* a, runtime_.GetAgent(agent));
  if (a->type != DeviceType::kGpu) {
    return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(agent.raw()), " is a CPU; coherency is a GPU setting"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Coherency> AgentSettings::GetCoherency(AgentId gpu) const {
  RETURN_IF_ERROR(CheckGpu(gpu));
  ScopedLock lock(&mu_);
  const auto it = coherency_.find(gpu);
  return it == coherency_.end() ? Coherency::kCoherent : it->second;
}

absl::Status AgentSettings::SetCoherency(AgentId gpu, Coherency coherency) {
  RETURN_IF_ERROR(CheckGpu(gpu));
  ScopedLock lock(&mu_);
  coherency_[gpu] = coherency;
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
