// What libhsakmt adds to a KFD CPU node from the host itself, since the kernel's CPU nodes carry no caches and no name
// (topology.c topology_get_cpu_cache_props and topology_get_cpu_model_name):
// - the caches of the node's CPUs from /sys/devices/system/node/node<N>/cpu<P>/cache/index<I>/ (or
//   /sys/devices/system/cpu/cpu<P>/... where the kernel has no NUMA directories and N is 0), in directory order, each
//   shared cache listed once, under the first CPU of its shared_cpu_list: level, type (Data, Instruction or both for
//   Unified, plus the CPU bit), size in bytes (the file's K/M/G suffix applied; a GPU cache's size is in KiB),
//   coherency_line_size, ways_of_associativity, physical_line_partition, processor_id_low the CPU's APIC id, and a
//   sibling map indexed by APIC id from shared_cpu_map;
// - the node's name: the /proc/cpuinfo "model name" of the processor whose APIC id is the node's cpu_core_id_base,
//   cut to 63 characters as libhsakmt's 64-byte buffer does.
// A file it cannot read leaves its field 0, as libhsakmt's fscanf helpers do.
#ifndef HIPMEM_THUNK_HOST_CPU_H_
#define HIPMEM_THUNK_HOST_CPU_H_

#include <cstdint>
#include <string>
#include <vector>

#include "thunk/topology.h"

namespace hipmem::thunk {

// Where the host's CPU facts are read from; tests point these at a tree of their own.
struct HostCpuPaths {
  std::string node_dir_prefix = "/sys/devices/system/node/node";  // + node number
  std::string cpu_dir = "/sys/devices/system/cpu";
  std::string cpuinfo = "/proc/cpuinfo";
};

// One /proc/cpuinfo processor entry, indexed by its "processor" number.
struct HostProcessor {
  uint32_t apicid = 0;
  std::string model_name;  // at most 63 characters
};

// Parses /proc/cpuinfo text (x86 layout: "key<TAB>: value" lines).
std::vector<HostProcessor> ParseCpuInfo(const std::string& text);

// The caches libhsakmt lists for KFD CPU node `node`.
std::vector<Cache> HostCpuCaches(uint32_t node, const std::vector<HostProcessor>& processors,
                                 const HostCpuPaths& paths);

// Gives every CPU node of `topology` (cpu_cores_count non-zero) the host's caches and model name, as libhsakmt's
// snapshot does.
void AddHostCpuDetails(SystemTopology& topology, const HostCpuPaths& paths = {});

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_HOST_CPU_H_
