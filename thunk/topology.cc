#include "thunk/topology.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "thunk/amdgpu_ids.h"
#include "re2/re2.h"

namespace hipmem::thunk {
namespace {

namespace fs = std::filesystem;

// How much of a malformed line an error message quotes.
constexpr size_t kQuotedLineLength = 80;

absl::StatusOr<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path.string(), ": cannot open"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Which line shapes a properties file may hold.
enum class FileKind {
  kPlain,  // "name value" lines only
  kCache,  // also one "sibling_map 0,1,..." line (kfd_topology.c kfd_cache_show)
};

// One parsed KFD sysfs properties file.
struct PropertiesFile {
  std::string path;
  absl::flat_hash_map<std::string, uint64_t> values;
  std::vector<uint32_t> sibling_map;
};

absl::Status BadLine(const fs::path& path, size_t line_number, absl::string_view line, absl::string_view cause) {
  const std::string quoted =
      line.size() > kQuotedLineLength ? absl::StrCat(line.substr(0, kQuotedLineLength), "...") : std::string(line);
  return absl::InvalidArgumentError(
      absl::StrCat("ReadTopology(", path.string(), ":", line_number, "): ", cause, ": \"", quoted, "\""));
}

// Parses a KFD sysfs properties file: one "name value" per line, value a decimal u64, as kfd_topology.c
// prints them and libhsakmt scans them ("%s %llu"). Unlike sscanf, a line that does not match exactly is
// refused rather than ending the scan.
absl::StatusOr<PropertiesFile> ParseProperties(const fs::path& path, FileKind kind = FileKind::kPlain) {
  // Compiled once; RE2 is thread-safe for matching. Never destroyed, so it outlives every caller.
  static const RE2* const kNameValue = new RE2(R"((\w+)[ \t]+(\d+))");
  static const RE2* const kSiblingMap = new RE2(R"(sibling_map[ \t]+([01](?:,[01])*))");
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  PropertiesFile out;
  out.path = path.string();
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the newline ending the last line
  bool saw_sibling_map = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const re2::StringPiece line(lines[i].data(), lines[i].size());
    std::string name;
    uint64_t value = 0;
    std::string bits;
    if (kind == FileKind::kCache && RE2::FullMatch(line, *kSiblingMap, &bits)) {
      if (saw_sibling_map) return BadLine(path, i + 1, lines[i], "repeated sibling_map");
      saw_sibling_map = true;
      for (absl::string_view bit : absl::StrSplit(bits, ',')) out.sibling_map.push_back(bit == "1" ? 1 : 0);
      continue;
    }
    // A value beyond 2^64 - 1 fails to convert and so fails the match.
    if (!RE2::FullMatch(line, *kNameValue, &name, &value)) {
      return BadLine(path, i + 1, lines[i], "expected \"<name> <decimal value>\"");
    }
    if (!out.values.emplace(std::move(name), value).second) return BadLine(path, i + 1, lines[i], "repeated key");
  }
  return out;
}

absl::StatusOr<uint64_t> ReadNumber(const fs::path& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  uint64_t value = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &value)) {
    return absl::InvalidArgumentError(absl::StrCat(path.string(), ": not a number"));
  }
  return value;
}

// Whether a typed field must be present in its file.
enum class Presence { kOptional, kRequired };

// Returns `key` of `file` as a u32 field: 0 when absent and optional.
absl::StatusOr<uint32_t> U32(const PropertiesFile& file, absl::string_view key,
                             Presence presence = Presence::kOptional) {
  const auto it = file.values.find(key);
  if (it == file.values.end()) {
    if (presence == Presence::kRequired) {
      return absl::InvalidArgumentError(absl::StrCat("ReadTopology(", file.path, "): missing ", key));
    }
    return 0;
  }
  if (it->second > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReadTopology(", file.path, "): ", key, " ", it->second, " does not fit 32 bits"));
  }
  return static_cast<uint32_t>(it->second);
}

// Subdirectories named 0, 1, 2 ... in numeric order.
std::vector<fs::path> NumberedDirs(const fs::path& dir) {
  std::vector<std::pair<uint64_t, fs::path>> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    uint64_t index = 0;
    if (e.is_directory(ec) && absl::SimpleAtoi(e.path().filename().string(), &index))
      found.emplace_back(index, e.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [index, path] : found) out.push_back(std::move(path));
  return out;
}

absl::StatusOr<IoLink> ReadIoLink(NodeId node, size_t node_count, const fs::path& path) {
  ASSIGN_OR_RETURN(PropertiesFile file, ParseProperties(path));
  IoLink link;
  ASSIGN_OR_RETURN(uint32_t type, U32(file, "type", Presence::kRequired));
  link.type = static_cast<IoLinkType>(type);
  ASSIGN_OR_RETURN(link.version_major, U32(file, "version_major"));
  ASSIGN_OR_RETURN(link.version_minor, U32(file, "version_minor"));
  ASSIGN_OR_RETURN(uint32_t from, U32(file, "node_from", Presence::kRequired));
  ASSIGN_OR_RETURN(uint32_t to, U32(file, "node_to", Presence::kRequired));
  // libhsakmt refuses a link listed under another node (INVALID_NODE_UNIT); a self-link names no peer.
  if (from != node.raw() || to == from) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReadTopology(", file.path, "): link ", from, " -> ", to, " listed under node ", node.raw()));
  }
  if (to >= node_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReadTopology(", file.path, "): node ", from, " links to node ", to, " of ", node_count));
  }
  link.node_from = NodeId(from);
  link.node_to = NodeId(to);
  ASSIGN_OR_RETURN(link.weight, U32(file, "weight"));
  ASSIGN_OR_RETURN(link.min_latency, U32(file, "min_latency"));
  ASSIGN_OR_RETURN(link.max_latency, U32(file, "max_latency"));
  ASSIGN_OR_RETURN(link.min_bandwidth, U32(file, "min_bandwidth"));
  ASSIGN_OR_RETURN(link.max_bandwidth, U32(file, "max_bandwidth"));
  ASSIGN_OR_RETURN(link.recommended_transfer_size, U32(file, "recommended_transfer_size"));
  ASSIGN_OR_RETURN(link.recommended_sdma_engine_id_mask, U32(file, "recommended_sdma_engine_id_mask"));
  ASSIGN_OR_RETURN(link.flags, U32(file, "flags"));
  return link;
}

absl::StatusOr<Cache> ReadCache(const fs::path& path) {
  ASSIGN_OR_RETURN(PropertiesFile file, ParseProperties(path, FileKind::kCache));
  Cache cache;
  ASSIGN_OR_RETURN(cache.processor_id_low, U32(file, "processor_id_low"));
  ASSIGN_OR_RETURN(cache.level, U32(file, "level", Presence::kRequired));
  ASSIGN_OR_RETURN(uint32_t size_kib, U32(file, "size", Presence::kRequired));
  cache.size = Bytes::KiB(size_kib);  // a u32 count of KiB cannot overflow 64 bits
  ASSIGN_OR_RETURN(cache.cache_line_size, U32(file, "cache_line_size"));
  ASSIGN_OR_RETURN(cache.cache_lines_per_tag, U32(file, "cache_lines_per_tag"));
  ASSIGN_OR_RETURN(cache.association, U32(file, "association"));
  ASSIGN_OR_RETURN(cache.latency, U32(file, "latency"));
  ASSIGN_OR_RETURN(cache.type, U32(file, "type"));
  cache.sibling_map = std::move(file.sibling_map);
  return cache;
}

absl::StatusOr<NodeProperties> ReadNode(uint32_t index, size_t node_count, const fs::path& dir) {
  NodeProperties node;
  node.id = NodeId(index);
  ASSIGN_OR_RETURN(PropertiesFile properties, ParseProperties(dir / "properties"));
  node.properties = std::move(properties.values);
  ASSIGN_OR_RETURN(uint64_t gpu_id, ReadNumber(dir / "gpu_id"));
  if (gpu_id != 0) node.gpu_id = GpuId(static_cast<uint32_t>(gpu_id));
  absl::StatusOr<std::string> name = ReadFile(dir / "name");
  if (name.ok()) node.name = std::string(absl::StripAsciiWhitespace(*name));
  if (absl::StatusOr<uint32_t> revision = ReadPciRevision((dir / "revision").string()); revision.ok()) {
    node.pci_revision = *revision;
  } else if (node.gpu_id.has_value()) {
    // A real KFD tree has no revision file: read the GPU's PCI function, as libdrm does. Bits 28-31 of
    // location_id carry a partition number, not part of the address.
    const uint64_t location = node.Get("location_id") & 0xffff;
    const std::string pci = absl::StrFormat("/sys/bus/pci/devices/%04x:%02x:%02x.%x/revision", node.Get("domain") & 0xffff,
                                            location >> 8, location >> 3 & 0x1f, location & 0x7);
    if (absl::StatusOr<uint32_t> real = ReadPciRevision(pci); real.ok()) node.pci_revision = *real;
  }
  for (const fs::path& bank_dir : NumberedDirs(dir / "mem_banks")) {
    ASSIGN_OR_RETURN(PropertiesFile file, ParseProperties(bank_dir / "properties"));
    MemoryBank bank;
    ASSIGN_OR_RETURN(uint32_t heap_type, U32(file, "heap_type"));
    bank.heap_type = static_cast<HeapType>(heap_type);
    bank.size = Bytes(file.values["size_in_bytes"]);
    ASSIGN_OR_RETURN(bank.flags, U32(file, "flags"));
    ASSIGN_OR_RETURN(bank.width, U32(file, "width"));
    ASSIGN_OR_RETURN(bank.mem_clk_max, U32(file, "mem_clk_max"));
    node.mem_banks.push_back(bank);
  }
  // Like libhsakmt, the node's counts say how many entries to read; a missing one is an error.
  for (uint64_t l = 0; l < node.Get("io_links_count"); ++l) {
    ASSIGN_OR_RETURN(IoLink link, ReadIoLink(node.id, node_count, dir / "io_links" / std::to_string(l) / "properties"));
    node.io_links.push_back(link);
  }
  for (uint64_t c = 0; c < node.Get("caches_count"); ++c) {
    ASSIGN_OR_RETURN(Cache cache, ReadCache(dir / "caches" / std::to_string(c) / "properties"));
    node.caches.push_back(std::move(cache));
  }
  return node;
}

}  // namespace

uint64_t NodeProperties::Get(const std::string& key) const {
  auto it = properties.find(key);
  return it == properties.end() ? 0 : it->second;
}

absl::StatusOr<SystemTopology> ReadTopology(const std::string& root) {
  const fs::path base(root);
  SystemTopology topology;
  ASSIGN_OR_RETURN(topology.generation_id, ReadNumber(base / "generation_id"));
  ASSIGN_OR_RETURN(PropertiesFile system, ParseProperties(base / "system_properties"));
  topology.platform_oem = system.values["platform_oem"];
  topology.platform_id = system.values["platform_id"];
  topology.platform_rev = system.values["platform_rev"];
  const std::vector<fs::path> node_dirs = NumberedDirs(base / "nodes");
  if (node_dirs.empty()) return absl::NotFoundError(absl::StrCat(root, "/nodes: no nodes"));
  for (size_t i = 0; i < node_dirs.size(); ++i) {
    ASSIGN_OR_RETURN(NodeProperties node, ReadNode(static_cast<uint32_t>(i), node_dirs.size(), node_dirs[i]));
    topology.nodes.push_back(std::move(node));
  }
  return topology;
}

}  // namespace hipmem::thunk
