// Writes the KFD topology sysfs tree (/sys/devices/virtual/kfd/kfd/topology) for a simulated Topology.
//
// Plays kfd_topology.c's sysfs files, in the "name value" line format libhsakmt's topology.c parses.
// Private to the simulator; reached through Simulator::WriteSysfs.
#ifndef HIPMEM_TESTING_KFD_SIM_SYSFS_WRITER_H_
#define HIPMEM_TESTING_KFD_SIM_SYSFS_WRITER_H_

#include <string>

#include "absl/status/status.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {

// Writes the tree under `root` (created if missing); see Simulator::WriteSysfs for the layout.
// Errors: the errno of a failing mkdir/open/write/close, through absl::ErrnoToStatus.
absl::Status WriteTopologySysfs(const Topology& topology, const std::string& root);

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_SYSFS_WRITER_H_
