// The GPU nodes of the open KFD's topology, for tests of the hsaKmt C API. Plain return values, no gtest: a forked
// child (hsakmt_fork_child.h) calls these too, and reports only through its exit code.
#ifndef HIPMEM_THUNK_HSAKMT_TEST_NODES_H_
#define HIPMEM_THUNK_HSAKMT_TEST_NODES_H_

#include <vector>

#include "hsakmt/hsakmt.h"

namespace hipmem_testing {

// The nodes with a KFD GPU id, in node order (kfdtest's default GPU node first). Empty when the topology cannot be
// read (the KFD is not open, or a call failed), so a caller's "no GPU" check covers both.
inline std::vector<HSAuint32> GpuNodes() {
  std::vector<HSAuint32> gpus;
  HsaSystemProperties sys{};
  if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) return gpus;
  for (HSAuint32 n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties props{};
    if (hsaKmtGetNodeProperties(n, &props) != HSAKMT_STATUS_SUCCESS) return {};
    if (props.KFDGpuID != 0) gpus.push_back(n);
  }
  return gpus;
}

// The first GPU node; 0 when there is none. Node 0 is always a CPU node (libhsakmt numbers the CPUs first), so 0 never
// names a GPU and callers check against it.
inline HSAuint32 FirstGpuNode() {
  const std::vector<HSAuint32> gpus = GpuNodes();
  return gpus.empty() ? 0 : gpus.front();
}

}  // namespace hipmem_testing

#endif  // HIPMEM_THUNK_HSAKMT_TEST_NODES_H_
