#include "testing/kfd_sim/simulator.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/memory/memory.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/units.h"
#include "base/scoped_lock.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "kfd_uapi/kfd_svm.h"
#include "testing/kfd_sim/shared_resources.h"
#include "testing/kfd_sim/sim_log.h"
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
    if (gpu.gpu_clock_counter_hz == 0) return absl::InvalidArgumentError(absl::StrCat(where, ": gpu_clock_counter_hz is 0"));
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

// What amdgpu and amdkfd print while probing a GPU, in one line: which node it became and what it has.
std::string GpuProbeLine(const GpuConfig& gpu, size_t node) {
  const uint32_t cus = gpu.simd_per_cu == 0 ? 0 : gpu.simd_count / gpu.simd_per_cu;
  return absl::StrCat("kfd_sim: gpu_id 0x", absl::Hex(gpu.gpu_id), ": node ", node, ", ", gpu.name, " (",
                      gpu.marketing_name, "), ", cus, " CUs, ", SizeText(Bytes(gpu.vram_bytes)), " VRAM (",
                      gpu.large_bar ? "large BAR" : "small BAR", "), ", gpu.num_sdma_engines, "+",
                      gpu.num_sdma_xgmi_engines, " SDMA engines, renderD", gpu.drm_render_minor);
}

// The KFD_IOC_ALLOC_MEM_FLAGS_* names of `flags`, domain first, joined by '|'; unnamed bits in hex.
std::string AllocFlagsText(kfd_uapi::AllocMemFlags flags) {
  using F = kfd_uapi::AllocMemFlags;
  static constexpr struct {
    F flag;
    const char* name;
  } kNames[] = {
      {F::kVram, "VRAM"},
      {F::kGtt, "GTT"},
      {F::kUserptr, "USERPTR"},
      {F::kDoorbell, "DOORBELL"},
      {F::kMmioRemap, "MMIO_REMAP"},
      {F::kWritable, "WRITABLE"},
      {F::kExecutable, "EXECUTABLE"},
      {F::kPublic, "PUBLIC"},
      {F::kNoSubstitute, "NO_SUBSTITUTE"},
      {F::kAqlQueueMem, "AQL_QUEUE_MEM"},
      {F::kCoherent, "COHERENT"},
      {F::kUncached, "UNCACHED"},
      {F::kExtCoherent, "EXT_COHERENT"},
      {F::kContiguousBestEffort, "CONTIGUOUS_BEST_EFFORT"},
  };
  std::vector<std::string> names;
  uint32_t rest = kfd_uapi::ToRaw(flags);
  for (const auto& n : kNames) {
    if (kfd_uapi::HasFlag(flags, n.flag)) {
      names.emplace_back(n.name);
      rest &= ~kfd_uapi::ToRaw(n.flag);
    }
  }
  if (rest != 0) names.push_back(absl::StrCat("0x", absl::Hex(rest)));
  return names.empty() ? "none" : absl::StrJoin(names, "|");
}

// The KFD_IOC_EVENT_* name of an event type, or its number.
std::string EventTypeText(uint32_t type) {
  static constexpr const char* kNames[] = {"SIGNAL",       "NODECHANGE",    "DEVICESTATECHANGE",
                                           "HW_EXCEPTION", "SYSTEM_EVENT",  "DEBUG_EVENT",
                                           "PROFILE_EVENT", "QUEUE_EVENT", "MEMORY"};
  if (type < std::size(kNames)) return kNames[type];
  return absl::StrCat("type ", type);
}

std::string GpuIdText(uint32_t gpu_id) { return absl::StrCat("0x", absl::Hex(gpu_id)); }

bool IsSdmaQueue(kfd_uapi::QueueType type) {
  return type == kfd_uapi::QueueType::kSdma || type == kfd_uapi::QueueType::kSdmaXgmi ||
         type == kfd_uapi::QueueType::kSdmaByEngineId;
}

// An SVM location attribute: a gpu_id, "system" or "none" (never set, or the ranges disagree).
std::string SvmLocationText(uint32_t location) {
  if (location == kfd_uapi::kSvmLocationSysmem) return "system";
  if (location == kfd_uapi::kSvmLocationUndefined) return "none";
  return GpuIdText(location);
}

void AppendProcess(const SimProcess& process, std::string& out) {
  absl::StrAppend(&out, "Process ", process.id, "\n");
  absl::StrAppend(&out, absl::StrFormat("  %-25s%s\n", "XNACK:", process.xnack_enabled ? "on" : "off"));
  absl::StrAppend(&out, absl::StrFormat("  %-25s%d\n", "Buffers:", process.bos.size()));
  for (const SimBo& bo : process.bos) {
    std::vector<std::string> mapped;
    for (uint32_t gpu : bo.mapped_gpu_ids) mapped.push_back(GpuIdText(gpu));
    absl::StrAppend(
        &out, absl::StrFormat("    bo 0x%-14x gpu %-8s va %-16s size %-9s mapped on %-8s %s\n", bo.handle,
                              GpuIdText(bo.gpu_id), bo.va.raw() == 0 ? "none" : AddressText(bo.va),
                              SizeText(bo.size), mapped.empty() ? "none" : absl::StrJoin(mapped, ","),
                              AllocFlagsText(bo.flags)));
  }
  absl::StrAppend(&out, absl::StrFormat("  %-25s%d\n", "SVM ranges:", process.svm_ranges.size()));
  for (const SimSvmRange& r : process.svm_ranges) {
    std::vector<std::string> mapped;
    for (uint32_t gpu : r.mapped_gpu_ids) mapped.push_back(GpuIdText(gpu));
    absl::StrAppend(&out, absl::StrFormat("    svm %-16s size %-9s in %-13s mapped on %-8s preferred %s prefetch %s\n",
                                          AddressText(r.start), SizeText(r.size),
                                          r.location == 0 ? "system" : absl::StrCat("VRAM ", GpuIdText(r.location)),
                                          mapped.empty() ? "none" : absl::StrJoin(mapped, ","),
                                          SvmLocationText(r.preferred_loc), SvmLocationText(r.prefetch_loc)));
  }
  absl::StrAppend(&out, absl::StrFormat("  %-25s%d\n", "Queues:", process.queues.size()));
  for (const SimQueue& q : process.queues) {
    absl::StrAppend(&out, absl::StrFormat("    queue %-4d gpu %-8s %-14s ring %-16s %-9s %-8s read pointer %d %s\n",
                                          q.id, GpuIdText(q.gpu_id), QueueTypeName(q.type),
                                          AddressText(q.ring_base), SizeText(q.ring_size),
                                          q.halted ? "halted" : q.active ? "active" : "inactive", q.read_pointer,
                                          IsSdmaQueue(q.type) ? "(bytes)" : "(packets)"));
  }
  absl::StrAppend(&out, absl::StrFormat("  %-25s%d\n", "Events:", process.events.size()));
  for (const SimEvent& e : process.events) {
    absl::StrAppend(&out, absl::StrFormat("    event %-4d %-17s %-12s %-13s %d waiter(s)\n", e.id,
                                          EventTypeText(e.type), e.auto_reset ? "auto-reset" : "manual-reset",
                                          e.signaled ? "signaled" : "not signaled", e.waiters));
  }
}

}  // namespace

std::vector<SimBo> BosButMmioPages(const SimProcess& process) {
  std::vector<SimBo> bos;
  for (const SimBo& bo : process.bos) {
    if (!kfd_uapi::HasFlag(bo.flags, kfd_uapi::AllocMemFlags::kMmioRemap)) bos.push_back(bo);
  }
  return bos;
}

const char* QueueTypeName(kfd_uapi::QueueType type) {
  switch (type) {
    case kfd_uapi::QueueType::kCompute: return "COMPUTE";
    case kfd_uapi::QueueType::kSdma: return "SDMA";
    case kfd_uapi::QueueType::kComputeAql: return "COMPUTE_AQL";
    case kfd_uapi::QueueType::kSdmaXgmi: return "SDMA_XGMI";
    case kfd_uapi::QueueType::kSdmaByEngineId: return "SDMA_BY_ENG_ID";
  }
  return "UNKNOWN";
}

std::string FormatSnapshot(const SimSnapshot& snapshot) {
  std::string out = absl::StrFormat("%-27s%d\n", "Processes:", snapshot.processes.size());
  for (const SimProcess& process : snapshot.processes) AppendProcess(process, out);
  for (const SimGpuUsage& gpu : snapshot.gpus) {
    absl::StrAppend(&out, absl::StrFormat("%-27s%s used of %s\n", absl::StrCat("VRAM gpu ", GpuIdText(gpu.gpu_id), ":"),
                                          SizeText(gpu.vram_used), SizeText(gpu.vram_total)));
  }
  absl::StrAppend(&out, absl::StrFormat("%-27s%s used of %s\n", "System memory:", SizeText(snapshot.system_used),
                                        SizeText(snapshot.system_total)));
  return out;
}

absl::StatusOr<std::unique_ptr<Simulator>> Simulator::Create(Topology topology) {
  if (const long page_size = sysconf(_SC_PAGESIZE); page_size != 4096) {
    return absl::FailedPreconditionError(
        absl::StrCat("Simulator::Create: host page size is ", page_size, ", the simulator needs 4096"));
  }
  if (absl::Status s = ValidateTopology(topology); !s.ok()) return s;
  return absl::WrapUnique(new Simulator(std::move(topology)));
}

Bytes KfdSystemMemoryLimit(Bytes ram) {
  constexpr uint64_t kReserve = uint64_t{3} << 29;  // AMDGPU_RESERVE_MEM_LIMIT
  uint64_t limit = ram.raw() - (ram.raw() >> 6);
  limit = limit < 2 * kReserve ? limit >> 1 : limit - kReserve;
  return Bytes(limit);
}

Simulator::Simulator(Topology topology)
    : topology_(std::move(topology)),
      shared_(std::make_unique<SharedResources>(
          VramCapacities(topology_),
          topology_.system_memory_limit_bytes.has_value()
              ? Bytes(*topology_.system_memory_limit_bytes)
              : KfdSystemMemoryLimit(Bytes(topology_.system_memory_bytes)))) {
  // The boot messages: each GPU as the driver found it, then the machine as a whole.
  for (size_t i = 0; i < topology_.gpus.size(); ++i) {
    log_.Write(SimLogLevel::kInfo, GpuProbeLine(topology_.gpus[i], i + 1));
  }
  log_.Write(SimLogLevel::kInfo, absl::StrCat("kfd_sim: ", topology_.gpus.size(), " GPU(s), ",
                                              SizeText(Bytes(topology_.system_memory_bytes)), " system memory, ",
                                              topology_.cpu_cores, " CPU cores; KFD ioctl interface ",
                                              kfd_uapi::kIoctlMajorVersion, ".", kfd_uapi::kIoctlMinorVersion));
}

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
  log_.Write(SimLogLevel::kInfo, absl::StrCat("kfd_sim: process ", id, " (pid ", getpid(), ") opened /dev/kfd"));
  return file;
}

std::vector<SimLogLine> Simulator::Log() const { return log_.Lines(); }

std::string Simulator::Dmesg() const { return log_.Format(); }

SimSnapshot Simulator::Snapshot() const {
  ScopedLock lock(&world_mu_);  // exclusive: no SimFile operation runs meanwhile
  // A dma-buf whose descriptors are all closed is gone on Linux the moment the last one closes; the table notices
  // lazily (dmabuf_table.h), so it looks now, before the memory its exports held is counted.
  shared_->dmabufs().Sweep();
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
