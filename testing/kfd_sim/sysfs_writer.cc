#include "testing/kfd_sim/sysfs_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

// HSA_HEAPTYPE values of mem_banks/M/properties heap_type.
constexpr uint64_t kHeapTypeSystem = 0;
constexpr uint64_t kHeapTypeFrameBufferPublic = 1;
constexpr uint64_t kHeapTypeFrameBufferPrivate = 2;
// Width and clock of the CPU node's SYSTEM bank (64-bit DDR5-4800 channels); libhsakmt and ROCr use only
// its size.
constexpr uint64_t kSystemMemWidth = 64;
constexpr uint64_t kSystemMemClkMax = 4800;
// KFD numbers SIMDs from 0x80001000 upwards, one block per node; caches name their first CU by it.
constexpr uint64_t kSimdIdBase = 0x80001000;
constexpr uint64_t kSimdIdStride = 0x1000;
// kfd_crat.c prints a sibling map of at least 32 processors (sibling_map_size 4 bytes).
constexpr uint32_t kMinSiblingMapBits = 32;
// The generation ROCr sees; a re-read must match for a consistent snapshot, and nothing hot-plugs here.
constexpr uint64_t kGenerationId = 1;
// HSA_CAPABILITY.ASICRevision: bits 22-25.
constexpr uint32_t kCapAsicRevisionShift = 22;

using Properties = std::vector<std::pair<absl::string_view, uint64_t>>;

absl::Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::ErrnoToStatus(errno, absl::StrCat("mkdir(", path, ")"));
  }
  return absl::OkStatus();
}

// Creates `path` and its missing parents.
absl::Status MakeDirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    if (absl::Status s = MakeDir(path.substr(0, slash)); !s.ok()) return s;
  }
  return MakeDir(path);
}

absl::Status WriteFile(const std::string& path, absl::string_view contents) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open(", path, ")"));
  bool closed = false;
  absl::Cleanup close_on_error = [&] {
    if (!closed) close(fd);
  };
  while (!contents.empty()) {
    const ssize_t n = write(fd, contents.data(), contents.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, absl::StrCat("write(", path, ")"));
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  closed = true;
  if (close(fd) != 0) return absl::ErrnoToStatus(errno, absl::StrCat("close(", path, ")"));
  return absl::OkStatus();
}

// Formats "name value\n" lines, the format kfd_topology.c emits and libhsakmt scans with "%s %llu".
std::string FormatProperties(const Properties& properties) {
  std::string out;
  for (const auto& [name, value] : properties) absl::StrAppend(&out, name, " ", value, "\n");
  return out;
}

uint64_t SimdIdBase(size_t node) { return kSimdIdBase + kSimdIdStride * node; }

// The links written under nodes/<node>/io_links, in Topology::io_links order.
std::vector<const IoLinkConfig*> LinksFrom(const Topology& topology, size_t node) {
  std::vector<const IoLinkConfig*> links;
  for (const IoLinkConfig& link : topology.io_links) {
    if (link.node_from == node) links.push_back(&link);
  }
  return links;
}

// Every key libhsakmt reads from a node's properties file, in kfd_topology.c's order.
Properties CpuNodeProperties(const Topology& topology, size_t io_links) {
  return {
      {"cpu_cores_count", topology.cpu_cores},
      {"simd_count", 0},
      {"mem_banks_count", 1},
      // The kernel has no CPU caches to report without a CRAT cache table; libhsakmt would read the host's.
      {"caches_count", 0},
      {"io_links_count", io_links},
      {"p2p_links_count", 0},
      {"cpu_core_id_base", 0},
      {"simd_id_base", 0},
      {"max_waves_per_simd", 0},
      {"lds_size_in_kb", 0},
      {"gds_size_in_kb", 0},
      {"num_gws", 0},
      {"wave_front_size", 0},
      {"array_count", 0},
      {"simd_arrays_per_engine", 0},
      {"cu_per_simd_array", 0},
      {"simd_per_cu", 0},
      {"max_slots_scratch_cu", 0},
      {"gfx_target_version", 0},
      {"vendor_id", 0},
      {"device_id", 0},
      {"location_id", 0},
      {"domain", 0},
      {"drm_render_minor", 0},
      {"hive_id", 0},
      {"num_sdma_engines", 0},
      {"num_sdma_xgmi_engines", 0},
      {"num_sdma_queues_per_engine", 0},
      {"num_cp_queues", 0},
      {"max_engine_clk_ccompute", topology.cpu_max_engine_clk_mhz},
      {"local_mem_size", 0},
      {"fw_version", 0},
      {"capability", 0},
      {"debug_prop", 0},
      {"sdma_fw_version", 0},
      {"unique_id", 0},
      {"num_xcc", 0},
      {"max_engine_clk_fcompute", 0},
  };
}

Properties GpuNodeProperties(const Topology& topology, const GpuConfig& gpu, size_t node, size_t io_links) {
  return {
      {"cpu_cores_count", 0},
      {"simd_count", gpu.simd_count},
      {"mem_banks_count", 1},
      {"caches_count", gpu.caches.size()},
      {"io_links_count", io_links},
      {"p2p_links_count", 0},
      {"cpu_core_id_base", 0},
      {"simd_id_base", SimdIdBase(node)},
      {"max_waves_per_simd", gpu.max_waves_per_simd},
      {"lds_size_in_kb", gpu.lds_size_in_kb},
      {"gds_size_in_kb", 0},
      {"num_gws", gpu.num_gws},
      {"wave_front_size", gpu.wave_front_size},
      {"array_count", gpu.array_count},
      {"simd_arrays_per_engine", gpu.simd_arrays_per_engine},
      {"cu_per_simd_array", gpu.cu_per_simd_array},
      {"simd_per_cu", gpu.simd_per_cu},
      {"max_slots_scratch_cu", 32},
      {"gfx_target_version", gpu.gfx_target_version},
      {"vendor_id", gpu.vendor_id},
      {"device_id", gpu.device_id},
      {"location_id", gpu.location_id},
      {"domain", gpu.domain},
      {"drm_render_minor", gpu.drm_render_minor},
      {"hive_id", gpu.hive_id},
      {"num_sdma_engines", gpu.num_sdma_engines},
      {"num_sdma_xgmi_engines", gpu.num_sdma_xgmi_engines},
      {"num_sdma_queues_per_engine", 8},
      {"num_cp_queues", 24},
      {"max_engine_clk_fcompute", gpu.max_engine_clk_fcompute},
      // Current kernels report 0 here; the size lives in mem_banks.
      {"local_mem_size", 0},
      {"fw_version", gpu.fw_version},
      {"capability", gpu.capability | (gpu.asic_revision & 0xf) << kCapAsicRevisionShift},
      {"debug_prop", 0},
      {"sdma_fw_version", gpu.sdma_fw_version},
      {"unique_id", gpu.unique_id},
      {"num_xcc", gpu.num_xcc},
      // kfd_topology.c reports the host CPU's clock here on every node.
      {"max_engine_clk_ccompute", topology.cpu_max_engine_clk_mhz},
      {"family_id", gpu.family_id},
  };
}

Properties MemBankProperties(uint64_t heap_type, uint64_t size, uint64_t width, uint64_t mem_clk_max) {
  return {
      {"heap_type", heap_type},
      {"size_in_bytes", size},
      {"flags", 0},
      {"width", width},
      {"mem_clk_max", mem_clk_max},
  };
}

// The keys of kfd_topology.c iolink_show, in its order.
std::string IoLinkFile(const IoLinkConfig& link) {
  return FormatProperties({
      {"type", static_cast<uint32_t>(link.type)},
      {"version_major", 0},
      {"version_minor", 0},
      {"node_from", link.node_from},
      {"node_to", link.node_to},
      {"weight", link.weight},
      {"min_latency", link.min_latency},
      {"max_latency", link.max_latency},
      {"min_bandwidth", link.min_bandwidth},
      {"max_bandwidth", link.max_bandwidth},
      {"recommended_transfer_size", 0},
      {"recommended_sdma_engine_id_mask", 0},
      {"flags", link.flags},
  });
}

// The keys of kfd_topology.c kfd_cache_show, in its order: eight "name value" lines, then the sibling map
// as one 0/1 per processor from processor_id_low, comma-separated.
std::string CacheFile(const CacheConfig& cache, size_t node) {
  std::string out = FormatProperties({
      {"processor_id_low", SimdIdBase(node)},
      {"level", cache.level},
      {"size", cache.size_kib},
      {"cache_line_size", cache.cache_line_size},
      {"cache_lines_per_tag", cache.cache_lines_per_tag},
      {"association", cache.association},
      {"latency", cache.latency},
      {"type", cache.type},
  });
  const uint32_t bits = std::max(kMinSiblingMapBits, (cache.cus_shared + 31) / 32 * 32);
  absl::StrAppend(&out, "sibling_map ");
  for (uint32_t bit = 0; bit < bits; ++bit) {
    absl::StrAppend(&out, bit < cache.cus_shared ? "1" : "0", bit + 1 < bits ? "," : "\n");
  }
  return out;
}

struct NodeFiles {
  uint64_t gpu_id;
  std::string name;
  // The GPU's PCI revision as the PCI sysfs prints it ("0xc8"), written as nodes/N/revision; empty for a CPU.
  // The real KFD tree has no such file (libhsakmt asks libdrm); the thunk reads it when present.
  std::string revision;
  Properties properties;
  Properties mem_bank;
  std::vector<std::string> io_links;  // file contents
  std::vector<std::string> caches;    // file contents
};

// Writes dir/<sub>/<i>/properties for each of `files`.
absl::Status WriteNumbered(const std::string& dir, absl::string_view sub, const std::vector<std::string>& files) {
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string entry = absl::StrCat(dir, "/", sub, "/", i);
    if (absl::Status s = MakeDir(entry); !s.ok()) return s;
    if (absl::Status s = WriteFile(entry + "/properties", files[i]); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status WriteNode(const std::string& nodes_dir, size_t node, const NodeFiles& files) {
  const std::string dir = absl::StrCat(nodes_dir, "/", node);
  for (absl::string_view sub : {"mem_banks/0", "caches", "io_links", "p2p_links"}) {
    if (absl::Status s = MakeDirs(absl::StrCat(dir, "/", sub)); !s.ok()) return s;
  }
  if (absl::Status s = WriteFile(dir + "/gpu_id", absl::StrCat(files.gpu_id, "\n")); !s.ok()) return s;
  if (absl::Status s = WriteFile(dir + "/name", absl::StrCat(files.name, "\n")); !s.ok()) return s;
  if (!files.revision.empty()) {
    if (absl::Status s = WriteFile(dir + "/revision", absl::StrCat(files.revision, "\n")); !s.ok()) return s;
  }
  if (absl::Status s = WriteFile(dir + "/properties", FormatProperties(files.properties)); !s.ok()) return s;
  if (absl::Status s = WriteFile(dir + "/mem_banks/0/properties", FormatProperties(files.mem_bank)); !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteNumbered(dir, "io_links", files.io_links); !s.ok()) return s;
  return WriteNumbered(dir, "caches", files.caches);
}

std::vector<std::string> IoLinkFiles(const Topology& topology, size_t node) {
  std::vector<std::string> files;
  for (const IoLinkConfig* link : LinksFrom(topology, node)) files.push_back(IoLinkFile(*link));
  return files;
}

}  // namespace

absl::Status WriteTopologySysfs(const Topology& topology, const std::string& root) {
  if (absl::Status s = MakeDirs(root + "/nodes"); !s.ok()) return s;
  if (absl::Status s = WriteFile(root + "/generation_id", absl::StrCat(kGenerationId, "\n")); !s.ok()) return s;
  // platform_oem carries an ACPI-style OEM id, "AMD" packed little-endian.
  const Properties system = {{"platform_oem", 0x444d41}, {"platform_id", 0}, {"platform_rev", 0}};
  if (absl::Status s = WriteFile(root + "/system_properties", FormatProperties(system)); !s.ok()) return s;

  const std::string nodes_dir = root + "/nodes";
  std::vector<std::string> cpu_links = IoLinkFiles(topology, 0);
  const NodeFiles cpu{
      .gpu_id = 0,
      .name = "",  // kfd_topology.c leaves a CPU node's name empty
      .revision = "",
      .properties = CpuNodeProperties(topology, cpu_links.size()),
      .mem_bank = MemBankProperties(kHeapTypeSystem, topology.system_memory_bytes, kSystemMemWidth, kSystemMemClkMax),
      .io_links = std::move(cpu_links),
      .caches = {},
  };
  if (absl::Status s = WriteNode(nodes_dir, 0, cpu); !s.ok()) return s;

  for (size_t i = 0; i < topology.gpus.size(); ++i) {
    const GpuConfig& gpu = topology.gpus[i];
    const size_t node = i + 1;
    std::vector<std::string> links = IoLinkFiles(topology, node);
    NodeFiles files{
        .gpu_id = gpu.gpu_id,
        .name = gpu.name,
        .revision = absl::StrFormat("0x%02x", gpu.pci_revision),
        .properties = GpuNodeProperties(topology, gpu, node, links.size()),
        .mem_bank = MemBankProperties(gpu.large_bar ? kHeapTypeFrameBufferPublic : kHeapTypeFrameBufferPrivate,
                                      gpu.vram_bytes, gpu.mem_width, gpu.mem_clk_max),
        .io_links = std::move(links),
        .caches = {},
    };
    for (const CacheConfig& cache : gpu.caches) files.caches.push_back(CacheFile(cache, node));
    if (absl::Status s = WriteNode(nodes_dir, node, files); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace hipmem::kfd_sim
