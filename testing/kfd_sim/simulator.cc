#include "testing/kfd_sim/simulator.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/memory/memory.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/units.h"
#include "base/scoped_lock.h"
#include "testing/kfd_sim/shared_resources.h"
#include "testing/kfd_sim/sysfs_writer.h"

namespace hipmem::kfd_sim {
namespace {

constexpr uint32_t kFirstRenderMinor = 128;
constexpr uint32_t kLastRenderMinor = 255;
// HSA_CPU_SIBLINGS is 256 per libhsakmt line; the kernel prints longer maps for big shared caches.
constexpr uint32_t kMaxCusShared = 1024;

absl::Status ValidateTopology(const Topology& topology) {
  if (topology.system_memory_bytes == 0) {
    return absl::InvalidArgumentError("Simulator::Create: system_memory_bytes is 0");
  }
  absl::flat_hash_set<uint32_t> gpu_ids;
  absl::flat_hash_set<uint32_t> minors;
  for (const GpuConfig& gpu : topology.gpus) {
    const std::string where = absl::StrCat("Simulator::Create(gpu_id=0x", absl::Hex(gpu.gpu_id), ")");
    if (gpu.gpu_id == 0) return absl::InvalidArgumentError(absl::StrCat(where, ": gpu_id 0 names the CPU"));
    if (!gpu_ids.insert(gpu.gpu_id).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": duplicate gpu_id"));
    }
    if (gpu.drm_render_minor < kFirstRenderMinor || gpu.drm_render_minor > kLastRenderMinor) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": drm_render_minor ", gpu.drm_render_minor, " outside [128, 255]"));
    }
    if (!minors.insert(gpu.drm_render_minor).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": duplicate drm_render_minor ", gpu.drm_render_minor));
    }
    if (gpu.vram_bytes == 0) return absl::InvalidArgumentError(absl::StrCat(where, ": vram_bytes is 0"));
    if (gpu.name.empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": empty name"));
    for (size_t c = 0; c < gpu.caches.size(); ++c) {
      const CacheConfig& cache = gpu.caches[c];
      if (cache.level == 0 || cache.size_kib == 0 || cache.cus_shared == 0 || cache.cus_shared > kMaxCusShared) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": cache ", c,
                                                       " needs a level, a size and cus_shared in [1, ", kMaxCusShared,
                                                       "]"));
      }
    }
  }
  const size_t node_count = topology.gpus.size() + 1;
  for (size_t l = 0; l < topology.io_links.size(); ++l) {
    const IoLinkConfig& link = topology.io_links[l];
    if (link.node_from >= node_count || link.node_to >= node_count || link.node_from == link.node_to) {
      return absl::InvalidArgumentError(absl::StrCat("Simulator::Create(io_links[", l, "]): link ", link.node_from,
                                                     " -> ", link.node_to, " in a topology of ", node_count,
                                                     " nodes"));
    }
  }
  return absl::OkStatus();
}

std::vector<Bytes> VramCapacities(const Topology& topology) {
  std::vector<Bytes> capacities;
  capacities.reserve(topology.gpus.size());
  for (const GpuConfig& gpu : topology.gpus) capacities.push_back(Bytes(gpu.vram_bytes));
  return capacities;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Simulator>> Simulator::Create(Topology topology) {
  if (const long page_size = sysconf(_SC_PAGESIZE); page_size != 4096) {
    return absl::FailedPreconditionError(
        absl::StrCat("Simulator::Create: host page size is ", page_size, ", the simulator needs 4096"));
  }
  if (absl::Status s = ValidateTopology(topology); !s.ok()) return s;
  return absl::WrapUnique(new Simulator(std::move(topology)));
}

Simulator::Simulator(Topology topology)
    : topology_(std::move(topology)),
      shared_(std::make_unique<SharedResources>(VramCapacities(topology_), Bytes(topology_.system_memory_bytes))) {}

Simulator::~Simulator() {
  ScopedLock lock(&world_mu_);
  HIPMEM_CHECK(processes_.empty(), "kfd_sim::Simulator destroyed while ", processes_.size(),
               " SimFile(s) are still open");
}

absl::Status Simulator::WriteSysfs(const std::string& root) const { return WriteTopologySysfs(topology_, root); }

std::unique_ptr<SimFile> Simulator::Open() {
  ScopedLock lock(&world_mu_);
  const uint64_t id = next_process_id_++;
  std::unique_ptr<SimFile> file = absl::WrapUnique(new SimFile(this, id));
  processes_.emplace(id, file.get());
  return file;
}

SimSnapshot Simulator::Snapshot() const {
  ScopedLock lock(&world_mu_);  // exclusive: no SimFile operation runs meanwhile
  SimSnapshot snapshot;
  snapshot.processes.reserve(processes_.size());
  for (const auto& [id, file] : processes_) snapshot.processes.push_back(file->TakeSnapshot());
  for (size_t i = 0; i < topology_.gpus.size(); ++i) {
    snapshot.gpus.push_back(SimGpuUsage{
        .gpu_id = topology_.gpus[i].gpu_id,
        .vram_total = shared_->VramCapacity(i),
        .vram_used = shared_->VramUsed(i),
    });
  }
  snapshot.system_total = shared_->SystemCapacity();
  snapshot.system_used = shared_->SystemUsed();
  return snapshot;
}

}  // namespace hipmem::kfd_sim
