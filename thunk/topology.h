// The KFD topology as the kernel exposes it in sysfs (/sys/devices/virtual/kfd/kfd/topology).
//
// Plays libhsakmt's topology.c snapshot. The same parser reads a real machine's sysfs, a captured
// tree, or the simulator's, from a configurable root.
#ifndef HIPMEM_THUNK_TOPOLOGY_H_
#define HIPMEM_THUNK_TOPOLOGY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/strong_id.h"
#include "base/units.h"

namespace hipmem::thunk {

// Index of a node in the topology (libhsakmt's NodeId). Node 0 is usually the CPU.
using NodeId = StrongId<struct NodeIdTag, uint32_t>;
// Node 0, the first CPU node: where a caller that means no GPU names system memory and events. libhsakmt's callers
// pass it as the preferred node of a system-memory allocation (with HostAccess) and ROCr creates its signal events
// on it; the KFD ties neither to that node's memory.
inline constexpr NodeId kSystemMemoryNode{0};
// The kernel's gpu_id of a GPU node (non-zero); CPU nodes have none.
using GpuId = StrongId<struct GpuIdTag, uint32_t>;

// HSA_HEAPTYPE values.
enum class HeapType : uint32_t {
  kSystem = 0,
  kFrameBufferPublic = 1,
  kFrameBufferPrivate = 2,
  kGpuGds = 3,
  kGpuLds = 4,
  kGpuScratch = 5,
  kDeviceSvm = 6,
  kMmioRemap = 7,
};

struct MemoryBank {
  HeapType heap_type = HeapType::kSystem;
  Bytes size;
  uint32_t flags = 0;
  uint32_t width = 0;
  uint32_t mem_clk_max = 0;
};

// HSA_IOLINKTYPE values (hsakmttypes.h); other values the kernel may report pass through unnamed.
enum class IoLinkType : uint32_t {
  kUndefined = 0,
  kHyperTransport = 1,
  kPcieExpress = 2,
  kAmba = 3,
  kMipi = 4,
  kQpi11 = 5,
  kInfiniband = 9,
  kXgmi = 11,
  kXgop = 12,
  kGz = 13,
  kEthernetRdma = 14,
  kRdmaOther = 15,
  kOther = 16,
};

// One directed link from a node (nodes/N/io_links/L/properties). Optional keys absent from the file read
// as 0.
struct IoLink {
  IoLinkType type = IoLinkType::kUndefined;
  uint32_t version_major = 0;
  uint32_t version_minor = 0;
  NodeId node_from{0};  // always the node the link is listed under
  NodeId node_to{0};    // an existing node, never node_from
  uint32_t weight = 0;  // relative cost: 20 per PCIe hop, 15 per XGMI hop
  uint32_t min_latency = 0;  // ns
  uint32_t max_latency = 0;  // ns
  uint32_t min_bandwidth = 0;  // MB/s
  uint32_t max_bandwidth = 0;  // MB/s
  uint32_t recommended_transfer_size = 0;  // bytes
  uint32_t recommended_sdma_engine_id_mask = 0;
  uint32_t flags = 0;  // HSA_LINKPROPERTY bits: Override(enabled) 1, NonCoherent 2, NoAtomics32/64 4/8, NoP2P 16
};

// One cache of a node (nodes/N/caches/C/properties). Optional keys absent from the file read as 0.
struct Cache {
  uint32_t processor_id_low = 0;  // the first CU (simd_id_base + n) or CPU core it serves
  uint32_t level = 0;
  Bytes size;                     // sysfs `size` is in KiB
  uint32_t cache_line_size = 0;   // bytes
  uint32_t cache_lines_per_tag = 0;
  uint32_t association = 0;  // ways
  uint32_t latency = 0;      // ns
  uint32_t type = 0;         // HsaCacheType bits: Data 1, Instruction 2, CPU 4, HSACU 8
  // One 0/1 per processor from processor_id_low: 1 where that processor shares this cache. As long as
  // the kernel printed it (libhsakmt keeps the first HSA_CPU_SIBLINGS).
  std::vector<uint32_t> sibling_map;
};

// One node's `properties` file plus what sits beside it. Keys absent from the file read as 0.
struct NodeProperties {
  NodeId id{0};
  std::optional<GpuId> gpu_id;  // nullopt for a CPU-only node
  std::string name;             // nodes/N/name, e.g. "gfx942"
  // The GPU's PCI revision id, which libhsakmt gets from libdrm (amdgpu_query_gpu_info's pci_rev) and
  // amdgpu.ids keys product names by. Read from nodes/N/revision in the kernel's PCI sysfs format ("0xc8"),
  // which only the simulator's tree carries; otherwise from the GPU's /sys/bus/pci/devices/<address>/revision.
  std::optional<uint32_t> pci_revision;
  std::vector<MemoryBank> mem_banks;
  std::vector<IoLink> io_links;  // io_links/0 .. io_links_count-1
  std::vector<Cache> caches;     // caches/0 .. caches_count-1
  absl::flat_hash_map<std::string, uint64_t> properties;  // every "name value" line

  // Returns the value of a `properties` key, 0 when absent (as libhsakmt treats missing keys).
  uint64_t Get(const std::string& key) const;
  bool is_gpu() const { return gpu_id.has_value(); }
  // gfx_target_version decoded: major*10000 + minor*100 + stepping.
  uint32_t gfx_major() const { return static_cast<uint32_t>(Get("gfx_target_version") / 10000); }
  uint32_t gfx_minor() const { return static_cast<uint32_t>(Get("gfx_target_version") / 100 % 100); }
  uint32_t gfx_stepping() const { return static_cast<uint32_t>(Get("gfx_target_version") % 100); }
};

struct SystemTopology {
  uint64_t generation_id = 0;
  uint64_t platform_oem = 0;
  uint64_t platform_id = 0;
  uint64_t platform_rev = 0;
  std::vector<NodeProperties> nodes;  // index == NodeId
};

// Reads the tree under `root`. Every properties file is "name value" lines (a decimal value), except a
// cache's last line, "sibling_map" and comma-separated 0/1s; a node's io_links/L and caches/C are read
// for L below its io_links_count and C below its caches_count.
// Errors: kNotFound when root or a required file is missing; kInvalidArgument, naming the file and line,
// for a malformed or repeated line, a value too large for its field, an io link or cache without its
// identifying keys (type/node_from/node_to, level/size), or an io link that does not start at its own
// node or ends at a node that does not exist.
absl::StatusOr<SystemTopology> ReadTopology(const std::string& root);

// `topology` without the nodes in `dropped`, as libhsakmt leaves out a GPU node whose render node does not open with
// ENOENT or EPERM (topology.c topology_sysfs_check_node_supported): the remaining nodes keep their order and are
// numbered from 0 again (its map_user_to_sysfs_node_id), an io link to a dropped node is gone
// (topology_sysfs_get_iolink_props answers NOT_SUPPORTED for it, and the snapshot skips it), and every other link's
// node_from and node_to follow the new numbers. Ids in `dropped` that name no node are ignored.
SystemTopology WithoutNodes(SystemTopology topology, const std::vector<NodeId>& dropped);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_TOPOLOGY_H_
