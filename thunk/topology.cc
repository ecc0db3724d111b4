#include "thunk/topology.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "thunk/amdgpu_ids.h"

namespace hipmem::thunk {
namespace {

namespace fs = std::filesystem;

// How much of a malformed line an error message quotes.
constexpr size_t kQuotedLineLength = 80;

// An open directory that files are opened relative to, so a node's few dozen files each cost one short
// path walk rather than one from the root.
class Dir {
 public:
  // Opens `path`; an unopenable directory gives a Dir whose files all fail to open, naming their full paths.
  explicit Dir(std::string path)
      : path_(std::move(path)), fd_(::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
  ~Dir() {
    if (fd_ >= 0) ::close(fd_);
  }
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_;
};

// Reads the whole of `dir`/`name` into `text` (reusing its capacity) with one open/read/close: init reads a
// few hundred of these on a large machine, and a stream's locale and buffer set-up cost more than the read.
absl::Status ReadFileInto(const Dir& dir, const std::string& name, std::string& text) {
  text.clear();
  const int fd = dir.fd() >= 0 ? ::openat(dir.fd(), name.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0) return absl::NotFoundError(absl::StrCat(dir.path(), "/", name, ": cannot open"));
  // A sysfs attribute is at most a page and comes whole from its first read, as does what is left of a
  // regular file: a read that does not fill the buffer ends the file, which saves the read that would
  // return 0 (a quarter of the system calls per file).
  char chunk[8192];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got > 0) text.append(chunk, static_cast<size_t>(got));
    if (got < static_cast<ssize_t>(sizeof(chunk))) {
      ::close(fd);
      if (got < 0) return absl::NotFoundError(absl::StrCat(dir.path(), "/", name, ": cannot read"));
      return absl::OkStatus();
    }
  }
}

absl::StatusOr<std::string> ReadFile(const Dir& dir, const std::string& name) {
  std::string text;
  RETURN_IF_ERROR(ReadFileInto(dir, name, text));
  return text;
}

// Which line shapes a properties file may hold.
enum class FileKind {
  kPlain,  // "name value" lines only
  kCache,  // also one "sibling_map 0,1,..." line (kfd_topology.c kfd_cache_show)
};

// One parsed KFD sysfs properties file. Names are views into `text`, so a PropertiesFile is filled in place
// (ParseProperties), reused from file to file, and never moved or copied.
struct PropertiesFile {
  struct Entry {
    absl::string_view name;
    uint64_t value = 0;
  };
  PropertiesFile() = default;
  PropertiesFile(const PropertiesFile&) = delete;
  PropertiesFile& operator=(const PropertiesFile&) = delete;

  // The value of `name`, or nullptr when the file has no such line. Looks from just after the last name
  // found, so reading the keys in the order the kernel prints them costs one comparison each.
  const uint64_t* Find(absl::string_view name) const {
    for (size_t n = 0; n < entries.size(); ++n) {
      const size_t i = (next_ + n) % entries.size();
      if (entries[i].name == name) {
        next_ = i + 1;
        return &entries[i].value;
      }
    }
    return nullptr;
  }
  uint64_t ValueOr0(absl::string_view name) const {
    const uint64_t* value = Find(name);
    return value != nullptr ? *value : 0;
  }

  std::string path;
  std::string text;
  std::vector<Entry> entries;  // in file order; names are unique
  std::vector<uint32_t> sibling_map;
  mutable size_t next_ = 0;  // where Find looks first
};

absl::Status BadLine(const std::string& path, size_t line_number, absl::string_view line, absl::string_view cause) {
  const std::string quoted =
      line.size() > kQuotedLineLength ? absl::StrCat(line.substr(0, kQuotedLineLength), "...") : std::string(line);
  return absl::InvalidArgumentError(
      absl::StrCat("ReadTopology(", path, ":", line_number, "): ", cause, ": \"", quoted, "\""));
}

bool IsWordChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Splits `line` into a word ([0-9A-Za-z_]+), blanks ([ \t]+) and the rest; false when the line does not start
// that way.
bool SplitNameAndRest(absl::string_view line, absl::string_view& name, absl::string_view& rest) {
  size_t i = 0;
  while (i < line.size() && IsWordChar(line[i])) ++i;
  if (i == 0) return false;
  size_t j = i;
  while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
  if (j == i) return false;
  name = line.substr(0, i);
  rest = line.substr(j);
  return true;
}

// Parses a decimal u64 made of digits only (no sign, no blanks); false when empty, not digits, or beyond 2^64 - 1.
bool ParseDecimalU64(absl::string_view digits, uint64_t& value) {
  if (digits.empty()) return false;
  uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  value = v;
  return true;
}

// Parses a sibling map's "0,1,1,..." into bits; false unless it is one or more 0/1 separated by single commas.
bool ParseSiblingBits(absl::string_view text, std::vector<uint32_t>& bits) {
  if (text.empty()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i % 2 == 0 ? (c != '0' && c != '1') : c != ',') return false;
  }
  if (text.size() % 2 == 0) return false;  // ends with a comma
  bits.clear();
  for (size_t i = 0; i < text.size(); i += 2) bits.push_back(text[i] == '1' ? 1 : 0);
  return true;
}

// Parses a KFD sysfs properties file: one "name value" per line, value a decimal u64, as kfd_topology.c
// prints them and libhsakmt scans them ("%s %llu"). Unlike sscanf, a line that does not match exactly is
// refused rather than ending the scan. Parsed by hand: init reads a few hundred of these files on a large
// machine, and a regular expression per line was most of its time.
absl::Status ParseProperties(const Dir& dir, const std::string& name, PropertiesFile& out,
                             FileKind kind = FileKind::kPlain) {
  out.path = absl::StrCat(dir.path(), "/", name);
  out.entries.clear();
  out.sibling_map.clear();
  out.next_ = 0;
  RETURN_IF_ERROR(ReadFileInto(dir, name, out.text));
  if (out.text.empty()) return absl::OkStatus();
  absl::string_view rest_of_file(out.text);
  if (rest_of_file.back() == '\n') rest_of_file.remove_suffix(1);  // ends the last line
  bool saw_sibling_map = false;
  size_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(rest_of_file, '\n')) {
    ++line_number;
    absl::string_view key;
    absl::string_view value_text;
    const bool split = SplitNameAndRest(line, key, value_text);
    if (kind == FileKind::kCache && split && key == "sibling_map") {
      std::vector<uint32_t> bits;
      if (ParseSiblingBits(value_text, bits)) {
        if (saw_sibling_map) return BadLine(out.path, line_number, line, "repeated sibling_map");
        saw_sibling_map = true;
        out.sibling_map = std::move(bits);
        continue;
      }
    }
    // A value beyond 2^64 - 1 does not parse and so fails the line.
    uint64_t value = 0;
    if (!split || !ParseDecimalU64(value_text, value)) {
      return BadLine(out.path, line_number, line, "expected \"<name> <decimal value>\"");
    }
    // A few dozen lines at most: a scan is cheaper than hashing each name.
    for (const PropertiesFile::Entry& e : out.entries) {
      if (e.name == key) return BadLine(out.path, line_number, line, "repeated key");
    }
    out.entries.push_back({key, value});
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ReadNumber(const Dir& dir, const std::string& name) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(dir, name));
  uint64_t value = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &value)) {
    return absl::InvalidArgumentError(absl::StrCat(dir.path(), "/", name, ": not a number"));
  }
  return value;
}

// Whether a typed field must be present in its file.
enum class Presence { kOptional, kRequired };

// Returns `key` of `file` as a u32 field: 0 when absent and optional.
absl::StatusOr<uint32_t> U32(const PropertiesFile& file, absl::string_view key,
                             Presence presence = Presence::kOptional) {
  const uint64_t* value = file.Find(key);
  if (value == nullptr) {
    if (presence == Presence::kRequired) {
      return absl::InvalidArgumentError(absl::StrCat("ReadTopology(", file.path, "): missing ", key));
    }
    return 0;
  }
  if (*value > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReadTopology(", file.path, "): ", key, " ", *value, " does not fit 32 bits"));
  }
  return static_cast<uint32_t>(*value);
}

// The names of `dir`'s subdirectories named 0, 1, 2 ... in numeric order.
std::vector<std::string> NumberedDirs(const std::string& dir) {
  std::vector<std::pair<uint64_t, std::string>> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    uint64_t index = 0;
    std::string name = e.path().filename().string();
    if (e.is_directory(ec) && absl::SimpleAtoi(name, &index)) found.emplace_back(index, std::move(name));
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [index, path] : found) out.push_back(std::move(path));
  return out;
}

// `file` is scratch space the caller reuses from link to link.
absl::StatusOr<IoLink> ReadIoLink(NodeId node, size_t node_count, const Dir& dir, const std::string& name,
                                  PropertiesFile& file) {
  RETURN_IF_ERROR(ParseProperties(dir, name, file));
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

// `file` is scratch space the caller reuses from cache to cache.
absl::StatusOr<Cache> ReadCache(const Dir& dir, const std::string& name, PropertiesFile& file) {
  RETURN_IF_ERROR(ParseProperties(dir, name, file, FileKind::kCache));
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

absl::StatusOr<NodeProperties> ReadNode(uint32_t index, size_t node_count, const std::string& path) {
  NodeProperties node;
  node.id = NodeId(index);
  const Dir dir(path);
  PropertiesFile file;  // reused for every properties file of the node
  RETURN_IF_ERROR(ParseProperties(dir, "properties", file));
  node.properties.reserve(file.entries.size());
  for (const PropertiesFile::Entry& e : file.entries) node.properties.emplace(std::string(e.name), e.value);
  ASSIGN_OR_RETURN(uint64_t gpu_id, ReadNumber(dir, "gpu_id"));
  if (gpu_id != 0) node.gpu_id = GpuId(static_cast<uint32_t>(gpu_id));
  absl::StatusOr<std::string> name = ReadFile(dir, "name");
  if (name.ok()) node.name = std::string(absl::StripAsciiWhitespace(*name));
  absl::StatusOr<std::string> revision_text = ReadFile(dir, "revision");
  absl::StatusOr<uint32_t> revision =
      revision_text.ok() ? ParsePciRevision(*revision_text, absl::StrCat(path, "/revision")) : revision_text.status();
  if (revision.ok()) {
    node.pci_revision = *revision;
  } else if (node.gpu_id.has_value()) {
    // A real KFD tree has no revision file: read the GPU's PCI function, as libdrm does. Bits 28-31 of
    // location_id carry a partition number, not part of the address.
    const uint64_t location = node.Get("location_id") & 0xffff;
    const std::string pci = absl::StrFormat("/sys/bus/pci/devices/%04x:%02x:%02x.%x/revision", node.Get("domain") & 0xffff,
                                            location >> 8, location >> 3 & 0x1f, location & 0x7);
    if (absl::StatusOr<uint32_t> real = ReadPciRevision(pci); real.ok()) node.pci_revision = *real;
  }
  for (const std::string& bank_dir : NumberedDirs(absl::StrCat(path, "/mem_banks"))) {
    RETURN_IF_ERROR(ParseProperties(dir, absl::StrCat("mem_banks/", bank_dir, "/properties"), file));
    MemoryBank bank;
    ASSIGN_OR_RETURN(uint32_t heap_type, U32(file, "heap_type"));
    bank.heap_type = static_cast<HeapType>(heap_type);
    bank.size = Bytes(file.ValueOr0("size_in_bytes"));
    ASSIGN_OR_RETURN(bank.flags, U32(file, "flags"));
    ASSIGN_OR_RETURN(bank.width, U32(file, "width"));
    ASSIGN_OR_RETURN(bank.mem_clk_max, U32(file, "mem_clk_max"));
    node.mem_banks.push_back(bank);
  }
  // Like libhsakmt, the node's counts say how many entries to read; a missing one is an error.
  const uint64_t io_links_count = node.Get("io_links_count");
  for (uint64_t l = 0; l < io_links_count; ++l) {
    ASSIGN_OR_RETURN(IoLink link,
                     ReadIoLink(node.id, node_count, dir, absl::StrCat("io_links/", l, "/properties"), file));
    node.io_links.push_back(link);
  }
  const uint64_t caches_count = node.Get("caches_count");
  for (uint64_t c = 0; c < caches_count; ++c) {
    ASSIGN_OR_RETURN(Cache cache, ReadCache(dir, absl::StrCat("caches/", c, "/properties"), file));
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
  SystemTopology topology;
  const Dir dir(root);
  ASSIGN_OR_RETURN(topology.generation_id, ReadNumber(dir, "generation_id"));
  PropertiesFile system;
  RETURN_IF_ERROR(ParseProperties(dir, "system_properties", system));
  topology.platform_oem = system.ValueOr0("platform_oem");
  topology.platform_id = system.ValueOr0("platform_id");
  topology.platform_rev = system.ValueOr0("platform_rev");
  std::vector<std::string> node_dirs = NumberedDirs(absl::StrCat(root, "/nodes"));
  for (std::string& node_dir : node_dirs) node_dir = absl::StrCat(root, "/nodes/", node_dir);
  if (node_dirs.empty()) return absl::NotFoundError(absl::StrCat(root, "/nodes: no nodes"));
  topology.nodes.reserve(node_dirs.size());
  for (size_t i = 0; i < node_dirs.size(); ++i) {
    ASSIGN_OR_RETURN(NodeProperties node, ReadNode(static_cast<uint32_t>(i), node_dirs.size(), node_dirs[i]));
    topology.nodes.push_back(std::move(node));
  }
  return topology;
}

SystemTopology WithoutNodes(SystemTopology topology, const std::vector<NodeId>& dropped) {
  // The new number of each old node; nullopt for a dropped one.
  std::vector<std::optional<NodeId>> renumbered(topology.nodes.size());
  uint32_t next = 0;
  for (size_t i = 0; i < topology.nodes.size(); ++i) {
    if (std::find(dropped.begin(), dropped.end(), topology.nodes[i].id) == dropped.end()) renumbered[i] = NodeId(next++);
  }
  std::vector<NodeProperties> kept;
  kept.reserve(next);
  for (size_t i = 0; i < topology.nodes.size(); ++i) {
    if (!renumbered[i]) continue;
    NodeProperties node = std::move(topology.nodes[i]);
    node.id = *renumbered[i];
    std::vector<IoLink> links;
    for (IoLink& link : node.io_links) {
      // ReadTopology checked that both ends name existing nodes.
      const std::optional<NodeId> to = renumbered[link.node_to.raw()];
      if (!to) continue;
      link.node_from = node.id;
      link.node_to = *to;
      links.push_back(link);
    }
    node.io_links = std::move(links);
    kept.push_back(std::move(node));
  }
  topology.nodes = std::move(kept);
  return topology;
}

}  // namespace hipmem::thunk
