// The thunk side of a Runtime: which KFD node backs each agent and pool, and the KFD itself.
//
// For the runtime's own parts only (memory, copies, queues, signals, agent info): ROCr's GpuAgent keeps its
// node id and its HsaNodeProperties the same way, behind the agent its clients see. Clients of the runtime
// (CLR) use runtime.h, which names no thunk type.
#ifndef HIPMEM_HSA_RUNTIME_KFD_H_
#define HIPMEM_HSA_RUNTIME_KFD_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "hsa/runtime.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {

struct KfdBinding {
  struct PoolBinding {
    thunk::NodeId node;
    thunk::MemFlags kmt_flags;  // what hsaKmtAllocMemory is asked for
  };

  std::unique_ptr<thunk::Kfd> kfd;
  std::vector<thunk::NodeId> agent_nodes;  // parallel to Runtime::agents()
  std::vector<PoolBinding> pools;          // parallel to the runtime's pools, in handle order

  // `agent` and `pool` come from the runtime this binding belongs to (GetAgent, GetPool, agents()).
  thunk::NodeId NodeOf(const Agent& agent) const;
  thunk::NodeId NodeOf(const MemoryPool& pool) const;
  thunk::MemFlags KmtFlagsOf(const MemoryPool& pool) const;

  static const KfdBinding& Of(const Runtime& runtime) { return *runtime.binding_; }
  // Discovers agents and pools on an opened KFD (Runtime::Create with a KFD of the caller's choosing).
  static absl::StatusOr<std::unique_ptr<Runtime>> CreateRuntime(std::unique_ptr<thunk::Kfd> kfd);
};

inline absl::StatusOr<std::unique_ptr<Runtime>> CreateRuntime(std::unique_ptr<thunk::Kfd> kfd) {
  return KfdBinding::CreateRuntime(std::move(kfd));
}
inline thunk::Kfd& KfdOf(const Runtime& runtime) { return *KfdBinding::Of(runtime).kfd; }
inline const thunk::SystemTopology& TopologyOf(const Runtime& runtime) { return KfdOf(runtime).topology(); }
inline thunk::NodeId KfdNodeOf(const Runtime& runtime, const Agent& agent) {
  return KfdBinding::Of(runtime).NodeOf(agent);
}
// The KFD node properties behind `agent`; null when the topology has no such node.
inline const thunk::NodeProperties* NodePropertiesOf(const Runtime& runtime, const Agent& agent) {
  const thunk::NodeId node = KfdNodeOf(runtime, agent);
  for (const thunk::NodeProperties& n : TopologyOf(runtime).nodes) {
    if (n.id == node) return &n;
  }
  return nullptr;
}
inline thunk::NodeId KfdNodeOf(const Runtime& runtime, const MemoryPool& pool) {
  return KfdBinding::Of(runtime).NodeOf(pool);
}
inline thunk::MemFlags KmtFlagsOf(const Runtime& runtime, const MemoryPool& pool) {
  return KfdBinding::Of(runtime).KmtFlagsOf(pool);
}

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_RUNTIME_KFD_H_
