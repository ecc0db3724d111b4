// The host's CPU caches and model name for KFD CPU nodes (host_cpu.h).
#include "thunk/host_cpu.h"

#include <dirent.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/units.h"

namespace hipmem::thunk {
namespace {

constexpr uint32_t kCacheTypeData = 1;
constexpr uint32_t kCacheTypeInstruction = 2;
constexpr uint32_t kCacheTypeCpu = 4;
constexpr size_t kSiblings = 256;      // HSA_CPU_SIBLINGS
constexpr size_t kPublicNameSize = 64;  // HSA_PUBLIC_NAME_SIZE, the terminator included

// The first whitespace-separated word of a file; "" when it cannot be read.
std::string ReadWord(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

// The leading decimal number of a file (as "%u" reads it); 0 when there is none.
uint32_t ReadNumber(const std::string& path) {
  const std::string word = ReadWord(path);
  return static_cast<uint32_t>(std::strtoul(word.c_str(), nullptr, 10));
}

// A cache `size` file: a number with an optional K, M or G suffix, in bytes.
uint32_t ReadSize(const std::string& path) {
  const std::string word = ReadWord(path);
  char* end = nullptr;
  uint64_t bytes = std::strtoul(word.c_str(), &end, 10);
  if (end != nullptr && *end != '\0') {
    switch (*end) {
      case 'K':
        bytes <<= 10;
        break;
      case 'M':
        bytes <<= 20;
        break;
      case 'G':
        bytes <<= 30;
        break;
      default:
        break;
    }
  }
  return static_cast<uint32_t>(bytes);  // libhsakmt's field is 32 bits wide
}

// Names in `dir` that start with `prefix`, in directory order ("." and ".." left out).
std::vector<std::string> Entries(const std::string& dir, absl::string_view prefix) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* e = readdir(d)) {
    const absl::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    if (name.substr(0, prefix.size()) == prefix) names.emplace_back(name);
  }
  closedir(d);
  return names;
}

// shared_cpu_map ("...,X2,X1", 32 CPUs per hex word, the lowest last) as a sibling map indexed by APIC id.
std::vector<uint32_t> SiblingsOf(const std::string& map, const std::vector<HostProcessor>& processors) {
  std::vector<uint32_t> siblings(kSiblings, 0);
  std::vector<std::string> words;
  std::stringstream in(map);
  for (std::string word; std::getline(in, word, ',');) words.push_back(word);
  for (size_t w = 0; w < words.size(); ++w) {
    const uint64_t mask = std::strtoul(words[w].c_str(), nullptr, 16);
    const size_t base = (words.size() - 1 - w) * 32;
    for (uint32_t bit = 0; bit < 32; ++bit) {
      if ((mask >> bit & 1) == 0) continue;
      const size_t processor = base + bit;
      if (processor >= processors.size()) continue;
      const uint32_t apicid = processors[processor].apicid;
      if (apicid < kSiblings) siblings[apicid] = 1;
    }
  }
  return siblings;
}

}  // namespace

std::vector<HostProcessor> ParseCpuInfo(const std::string& text) {
  std::vector<HostProcessor> processors;
  size_t current = 0;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    // The value starts two characters after the colon (": "); libhsakmt keeps the newline in its length.
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (line.rfind("processor", 0) == 0) {
      current = std::strtoul(value.c_str(), nullptr, 10);
      if (processors.size() <= current) processors.resize(current + 1);
    } else if (line.rfind("model name", 0) == 0) {
      if (processors.size() <= current) processors.resize(current + 1);
      const size_t with_newline = std::min(value.size() + 1, kPublicNameSize);
      processors[current].model_name = value.substr(0, with_newline - 1);
    } else if (line.rfind("apicid", 0) == 0) {
      if (processors.size() <= current) processors.resize(current + 1);
      processors[current].apicid = static_cast<uint32_t>(std::strtoul(value.c_str(), nullptr, 10));
    }
  }
  return processors;
}

std::vector<Cache> HostCpuCaches(uint32_t node, const std::vector<HostProcessor>& processors,
                                 const HostCpuPaths& paths) {
  std::string dir = absl::StrCat(paths.node_dir_prefix, node);
  std::vector<std::string> cpus = Entries(dir, "cpu");
  if (cpus.empty() && node == 0) {  // no NUMA directories: the CPUs of the only node
    dir = paths.cpu_dir;
    cpus = Entries(dir, "cpu");
  }
  std::vector<Cache> caches;
  for (const std::string& cpu : cpus) {
    if (cpu.size() < 4 || !std::isdigit(static_cast<unsigned char>(cpu[3]))) continue;  // cpulist, cpufreq...
    const uint32_t processor = static_cast<uint32_t>(std::strtoul(cpu.c_str() + 3, nullptr, 10));
    const std::string cache_dir = absl::StrCat(dir, "/", cpu, "/cache");
    const size_t indices = Entries(cache_dir, "index").size();
    for (size_t i = 0; i < indices; ++i) {
      const std::string index = absl::StrCat(cache_dir, "/index", i, "/");
      // A shared cache is listed once, under the first CPU of its list.
      if (ReadNumber(index + "shared_cpu_list") != processor) continue;
      Cache cache;
      cache.processor_id_low = processor < processors.size() ? processors[processor].apicid : 0;
      cache.level = ReadNumber(index + "level");
      const std::string type = ReadWord(index + "type");
      if (type == "Data" || type == "Unified") cache.type |= kCacheTypeData;
      if (type == "Instruction" || type == "Unified") cache.type |= kCacheTypeInstruction;
      cache.type |= kCacheTypeCpu;
      cache.size = Bytes(ReadSize(index + "size"));
      cache.cache_line_size = ReadNumber(index + "coherency_line_size");
      cache.association = ReadNumber(index + "ways_of_associativity");
      cache.cache_lines_per_tag = ReadNumber(index + "physical_line_partition");
      cache.sibling_map = SiblingsOf(ReadWord(index + "shared_cpu_map"), processors);
      caches.push_back(std::move(cache));
    }
  }
  return caches;
}

void AddHostCpuDetails(SystemTopology& topology, const HostCpuPaths& paths) {
  std::ifstream in(paths.cpuinfo);
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<HostProcessor> processors = ParseCpuInfo(text.str());
  for (NodeProperties& node : topology.nodes) {
    if (node.Get("cpu_cores_count") == 0) continue;
    node.caches = HostCpuCaches(node.id.raw(), processors, paths);
    const uint64_t first_core = node.Get("cpu_core_id_base");
    for (const HostProcessor& p : processors) {
      if (p.apicid == first_core && !p.model_name.empty()) {
        node.name = p.model_name;
        break;
      }
    }
  }
}

}  // namespace hipmem::thunk
