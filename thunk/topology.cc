#include "thunk/topology.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"

namespace hipmem::thunk {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path.string(), ": cannot open"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Parses "name value" lines, the format of every KFD sysfs properties file.
absl::StatusOr<absl::flat_hash_map<std::string, uint64_t>> ParseProperties(const fs::path& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  absl::flat_hash_map<std::string, uint64_t> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
    uint64_t value = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &value)) {
      return absl::InvalidArgumentError(absl::StrCat(path.string(), ": malformed line '", line, "'"));
    }
    out[std::string(parts[0])] = value;
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

// Subdirectories named 0, 1, 2 ... in numeric order.
std::vector<fs::path> NumberedDirs(const fs::path& dir) {
  std::vector<std::pair<uint64_t, fs::path>> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    uint64_t index = 0;
    if (e.is_directory(ec) && absl::SimpleAtoi(e.path().filename().string(), &index)) found.emplace_back(index, e.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [index, path] : found) out.push_back(std::move(path));
  return out;
}

absl::StatusOr<NodeProperties> ReadNode(uint32_t index, const fs::path& dir) {
  NodeProperties node;
  node.id = NodeId(index);
  ASSIGN_OR_RETURN(node.properties, ParseProperties(dir / "properties"));
  ASSIGN_OR_RETURN(uint64_t gpu_id, ReadNumber(dir / "gpu_id"));
  if (gpu_id != 0) node.gpu_id = GpuId(static_cast<uint32_t>(gpu_id));
  absl::StatusOr<std::string> name = ReadFile(dir / "name");
  if (name.ok()) node.name = std::string(absl::StripAsciiWhitespace(*name));
  for (const fs::path& bank_dir : NumberedDirs(dir / "mem_banks")) {
    ASSIGN_OR_RETURN(auto props, ParseProperties(bank_dir / "properties"));
    MemoryBank bank;
    bank.heap_type = static_cast<HeapType>(props["heap_type"]);
    bank.size = Bytes(props["size_in_bytes"]);
    bank.flags = static_cast<uint32_t>(props["flags"]);
    bank.width = static_cast<uint32_t>(props["width"]);
    bank.mem_clk_max = static_cast<uint32_t>(props["mem_clk_max"]);
    node.mem_banks.push_back(bank);
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
  ASSIGN_OR_RETURN(auto system, ParseProperties(base / "system_properties"));
  topology.platform_oem = system["platform_oem"];
  topology.platform_id = system["platform_id"];
  topology.platform_rev = system["platform_rev"];
  const std::vector<fs::path> node_dirs = NumberedDirs(base / "nodes");
  if (node_dirs.empty()) return absl::NotFoundError(absl::StrCat(root, "/nodes: no nodes"));
  for (size_t i = 0; i < node_dirs.size(); ++i) {
    ASSIGN_OR_RETURN(NodeProperties node, ReadNode(static_cast<uint32_t>(i), node_dirs[i]));
    topology.nodes.push_back(std::move(node));
  }
  return topology;
}

}  // namespace hipmem::thunk
