#include "testing/kfd_sim/sysfs_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

// HSA_HEAPTYPE values of mem_banks/M/properties heap_type.
constexpr uint64_t kHeapTypeSystem = 0;
constexpr uint64_t kHeapTypeFrameBufferPublic = 1;
// HSA_IOLINKTYPE_PCIEXPRESS: the CPU<->GPU link type.
constexpr uint64_t kIoLinkTypePcie = 2;
// KFD_CRAT_IOLINK_WEIGHT-style relative cost of a PCIe hop (libhsakmt compares weights only).
constexpr uint64_t kPcieLinkWeight = 20;
// A PCIe Gen5 x16 link, in MB/s, for min/max_bandwidth.
constexpr uint64_t kPcieBandwidthMBps = 64000;
// The generation ROCr sees; a re-read must match for a consistent snapshot, and nothing hot-plugs here.
constexpr uint64_t kGenerationId = 1;

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

// Every key libhsakmt reads from a node's properties file, in kfd_topology.c's order.
Properties CpuNodeProperties(const Topology& topology) {
  return {
      {"cpu_cores_count", topology.cpu_cores},
      {"simd_count", 0},
      {"mem_banks_count", 1},
      {"caches_count", 0},
      {"io_links_count", topology.gpus.size()},
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
      {"max_engine_clk_ccompute", 3700},
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

Properties GpuNodeProperties(const GpuConfig& gpu, size_t node) {
  return {
      {"cpu_cores_count", 0},
      {"simd_count", gpu.simd_count},
      {"mem_banks_count", 1},
      {"caches_count", 0},
      {"io_links_count", 1},
      {"p2p_links_count", 0},
      {"cpu_core_id_base", 0},
      // KFD numbers SIMDs from 0x80001000 upwards, one block per node.
      {"simd_id_base", 0x80001000u + 0x1000u * node},
      {"max_waves_per_simd", gpu.max_waves_per_simd},
      {"lds_size_in_kb", gpu.lds_size_in_kb},
      {"gds_size_in_kb", 0},
      {"num_gws", 64},
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
      {"fw_version", 177},
      {"capability", gpu.capability},
      {"debug_prop", 0},
      {"sdma_fw_version", 19},
      {"unique_id", gpu.unique_id},
      {"num_xcc", gpu.num_xcc},
      {"max_engine_clk_ccompute", 3700},
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

Properties IoLinkProperties(uint64_t from, uint64_t to) {
  return {
      {"type", kIoLinkTypePcie},
      {"version_major", 0},
      {"version_minor", 0},
      {"node_from", from},
      {"node_to", to},
      {"weight", kPcieLinkWeight},
      {"min_latency", 0},
      {"max_latency", 0},
      {"min_bandwidth", kPcieBandwidthMBps},
      {"max_bandwidth", kPcieBandwidthMBps},
      {"recommended_transfer_size", 0},
      {"recommended_sdma_engine_id_mask", 0},
      {"flags", 1},  // CRAT_IOLINK_FLAGS_ENABLED
  };
}

struct NodeFiles {
  uint64_t gpu_id;
  std::string name;
  Properties properties;
  Properties mem_bank;
  std::vector<Properties> io_links;
};

absl::Status WriteNode(const std::string& nodes_dir, size_t node, const NodeFiles& files) {
  const std::string dir = absl::StrCat(nodes_dir, "/", node);
  for (absl::string_view sub : {"mem_banks/0", "caches", "io_links", "p2p_links"}) {
    if (absl::Status s = MakeDirs(absl::StrCat(dir, "/", sub)); !s.ok()) return s;
  }
  if (absl::Status s = WriteFile(dir + "/gpu_id", absl::StrCat(files.gpu_id, "\n")); !s.ok()) return s;
  if (absl::Status s = WriteFile(dir + "/name", absl::StrCat(files.name, "\n")); !s.ok()) return s;
  if (absl::Status s = WriteFile(dir + "/properties", FormatProperties(files.properties)); !s.ok()) return s;
  if (absl::Status s = WriteFile(dir + "/mem_banks/0/properties", FormatProperties(files.mem_bank)); !s.ok()) {
    return s;
  }
  for (size_t link = 0; link < files.io_links.size(); ++link) {
    const std::string link_dir = absl::StrCat(dir, "/io_links/", link);
    if (absl::Status s = MakeDir(link_dir); !s.ok()) return s;
    if (absl::Status s = WriteFile(link_dir + "/properties", FormatProperties(files.io_links[link])); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteTopologySysfs(const Topology& topology, const std::string& root) {
  if (absl::Status s = MakeDirs(root + "/nodes"); !s.ok()) return s;
  if (absl::Status s = WriteFile(root + "/generation_id", absl::StrCat(kGenerationId, "\n")); !s.ok()) return s;
  // platform_oem carries an ACPI-style OEM id, "AMD" packed little-endian.
  const Properties system = {{"platform_oem", 0x444d41}, {"platform_id", 0}, {"platform_rev", 0}};
  if (absl::Status s = WriteFile(root + "/system_properties", FormatProperties(system)); !s.ok()) return s;

  const std::string nodes_dir = root + "/nodes";
  NodeFiles cpu{
      .gpu_id = 0,
      .name = "",  // kfd_topology.c leaves a CPU node's name empty
      .properties = CpuNodeProperties(topology),
      .mem_bank = MemBankProperties(kHeapTypeSystem, topology.system_memory_bytes, 64, 4800),
      .io_links = {},
  };
  for (size_t i = 0; i < topology.gpus.size(); ++i) cpu.io_links.push_back(IoLinkProperties(0, i + 1));
  if (absl::Status s = WriteNode(nodes_dir, 0, cpu); !s.ok()) return s;

  for (size_t i = 0; i < topology.gpus.size(); ++i) {
    const GpuConfig& gpu = topology.gpus[i];
    const size_t node = i + 1;
    const NodeFiles files{
        .gpu_id = gpu.gpu_id,
        .name = gpu.name,
        .properties = GpuNodeProperties(gpu, node),
        .mem_bank = MemBankProperties(kHeapTypeFrameBufferPublic, gpu.vram_bytes, 8192, 1300),
        .io_links = {IoLinkProperties(node, 0)},
    };
    if (absl::Status s = WriteNode(nodes_dir, node, files); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace hipmem::kfd_sim
