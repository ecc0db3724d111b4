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

// HSA_CAPABILITY bits (kfd_topology.h HSA_CAP_*, hsakmttypes.h HSA_CAPABILITY).
constexpr uint32_t kCapWatchPointsSupported = 1u << 7;
constexpr uint32_t kCapWatchPointsTotalBitsShift = 8;  // 4-bit field: log2(number of watch points)
constexpr uint32_t kCapDoorbellTypeShift = 12;         // 2-bit field: 2 = GFX9 doorbells
constexpr uint32_t kCapAqlQueueDoubleMap = 1u << 14;
constexpr uint32_t kCapTrapDebugSupport = 1u << 15;
constexpr uint32_t kCapWaveLaunchTrapOverride = 1u << 16;
constexpr uint32_t kCapWaveLaunchMode = 1u << 17;
constexpr uint32_t kCapPreciseMemoryOperations = 1u << 18;
constexpr uint32_t kCapMemEdcSupported = 1u << 20;
constexpr uint32_t kCapRasEventNotify = 1u << 21;
constexpr uint32_t kCapSramEdcSupported = 1u << 26;
constexpr uint32_t kCapSvmApiSupported = 1u << 27;
constexpr uint32_t kCapTrapDebugFirmwareSupported = 1u << 29;

// What a gfx942 dGPU (MI300X) reports: 4 watch points, GFX9 doorbells, AQL double map, the debugger
// bits, EDC/RAS, and the SVM API.
constexpr uint32_t kMi300xCapability =
    kCapWatchPointsSupported | (2u << kCapWatchPointsTotalBitsShift) | (2u << kCapDoorbellTypeShift) |
    kCapAqlQueueDoubleMap | kCapTrapDebugSupport | kCapWaveLaunchTrapOverride | kCapWaveLaunchMode |
    kCapPreciseMemoryOperations | kCapMemEdcSupported | kCapRasEventNotify | kCapSramEdcSupported |
    kCapSvmApiSupported | kCapTrapDebugFirmwareSupported;

constexpr int kMaxMi300xGpus = 8;
// Stand-ins for the kernel's hashed gpu_ids: fixed, distinct, non-zero, 16-bit.
constexpr uint32_t kMi300xGpuIds[kMaxMi300xGpus] = {0x1e6a, 0x5b2d, 0x92c4, 0xc8ed, 0x3f17, 0x7a90, 0xa4d1, 0xe563};
// PCI buses of the eight OAM modules on a typical MI300X platform.
constexpr uint32_t kMi300xPciBuses[kMaxMi300xGpus] = {0x0c, 0x22, 0x38, 0x5c, 0x9f, 0xaf, 0xbf, 0xdf};
constexpr uint64_t kMi300xHiveId = 0x3c57a3e1d4b2f609;
constexpr uint32_t kFirstRenderMinor = 128;
constexpr uint32_t kLastRenderMinor = 255;

GpuConfig Mi300xGpu(int index) {
  return GpuConfig{
      .gpu_id = kMi300xGpuIds[index],
      .drm_render_minor = kFirstRenderMinor + static_cast<uint32_t>(index),
      .name = "gfx942",
      .marketing_name = "AMD Instinct MI300X",
      .gfx_target_version = 90402,
      .vram_bytes = Bytes::GiB(192).raw(),
      .simd_count = 1216,  // 304 CUs x 4 SIMDs
      .max_waves_per_simd = 8,
      .wave_front_size = 64,
      .lds_size_in_kb = 64,
      .cu_per_simd_array = 10,
      .simd_per_cu = 4,
      .array_count = 32,  // 8 XCDs x 4 shader arrays
      .simd_arrays_per_engine = 1,
      .vendor_id = 0x1002,
      .device_id = 0x74a1,
      .location_id = kMi300xPciBuses[index] << 8,
      .domain = 0,
      .max_engine_clk_fcompute = 2100,
      .num_sdma_engines = 2,
      .num_sdma_xgmi_engines = 14,
      .num_xcc = 8,
      .capability = kMi300xCapability,
      .hive_id = kMi300xHiveId,
      .unique_id = 0x5fa2c41d37e80000ull | static_cast<uint64_t>(index),
  };
}

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

Topology DefaultTopology() { return Mi300xTopology(1); }

Topology Mi300xTopology(int gpu_count) {
  HIPMEM_CHECK(gpu_count >= 1 && gpu_count <= kMaxMi300xGpus, "Mi300xTopology(", gpu_count,
               "): gpu_count must be in [1, 8]");
  Topology topology{
      .system_memory_bytes = Bytes::GiB(1536).raw(),
      .cpu_cores = 96,
      .gpus = {},
  };
  for (int i = 0; i < gpu_count; ++i) topology.gpus.push_back(Mi300xGpu(i));
  return topology;
}

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
