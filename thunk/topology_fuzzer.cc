// Fuzzes the sysfs topology parser (ReadTopology, topology.h): each input is a tree of files
// (topology_fuzz_input.h) written to a private directory and parsed. A parse must return a topology or an error,
// never crash, read past a buffer or run away (node counts, link and cache counts are the input's to choose).
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "thunk/topology.h"
#include "thunk/topology_fuzz_input.h"

namespace {

namespace fs = std::filesystem;
namespace fuzz = ::hipmem::thunk::fuzz;

// The tree goes on tmpfs where there is one: each input rewrites a few dozen files and directories, which costs
// tens of milliseconds on a disk and a few on /dev/shm.
const std::string& Root() {
  static const std::string* const root = [] {
    std::string templ = "/dev/shm/hipmem-topology-fuzz-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) {
      const char* base = std::getenv("TEST_TMPDIR");
      templ = std::string(base != nullptr ? base : "/tmp") + "/hipmem-topology-fuzz-XXXXXX";
      if (mkdtemp(templ.data()) == nullptr) {
        std::perror("topology_fuzzer: mkdtemp");
        std::abort();
      }
    }
    static std::string dir = templ;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(dir, ec);
    });
    return new std::string(templ + "/topology");
  }();
  return *root;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& root = Root();
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root, ec);
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::array<std::optional<std::string_view>, fuzz::kTopologyFuzzFiles.size()> files;
  for (size_t at = input.find(fuzz::kMarker); at != std::string_view::npos;) {
    const size_t k_at = at + fuzz::kMarker.size();
    if (k_at >= input.size()) break;
    const size_t k = static_cast<unsigned char>(input[k_at]) % files.size();
    const size_t next = input.find(fuzz::kMarker, k_at + 1);
    files[k] = input.substr(k_at + 1, next == std::string_view::npos ? std::string_view::npos : next - k_at - 1);
    at = next;
  }
  for (size_t k = 0; k < files.size(); ++k) {
    if (!files[k]) continue;
    const fs::path path = fs::path(root) / fuzz::kTopologyFuzzFiles[k];
    fs::create_directories(path.parent_path(), ec);
    std::ofstream(path, std::ios::binary).write(files[k]->data(), static_cast<std::streamsize>(files[k]->size()));
  }
  const absl::StatusOr<hipmem::thunk::SystemTopology> topology = hipmem::thunk::ReadTopology(root);
  // Whatever it says, it says it about what is there: a node list that is not empty on success.
  if (topology.ok() && topology->nodes.empty()) std::abort();
  return 0;
}
