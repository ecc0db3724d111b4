// The KFD side of topology.h: an agent's description derived from its KFD node. For the runtime's own files
// only; clients read descriptions through topology.h and runtime.h, which name no thunk type.
#ifndef HIPMEM_HSA_TOPOLOGY_KFD_H_
#define HIPMEM_HSA_TOPOLOGY_KFD_H_

#include <string>

#include "hsa/topology.h"
#include "thunk/topology.h"

namespace hipmem::hsa {

// Describes the agent of `node`. `cpu_model_name` names CPU agents (ROCr shows /proc/cpuinfo's).
// `xnack_enabled` is HSA_XNACK's setting, which picks the ISA's xnack feature where the processor has one.
AgentDescription DescribeAgent(const thunk::NodeProperties& node, const std::string& cpu_model_name,
                               bool xnack_enabled);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_TOPOLOGY_KFD_H_
