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

// One node's `properties` file plus what sits beside it. Keys absent from the file read as 0.
struct NodeProperties {
  NodeId id{0};
  std::optional<GpuId> gpu_id;  // nullopt for a CPU-only node
  std::string name;             // nodes/N/name, e.g. "gfx942"
  std::vector<MemoryBank> mem_banks;
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

// Reads the tree under `root`. kNotFound when root or a required file is missing;
// kInvalidArgument for a malformed line.
absl::StatusOr<SystemTopology> ReadTopology(const std::string& root);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_TOPOLOGY_H_
