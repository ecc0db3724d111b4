// Writes the seed corpus of //thunk:topology_fuzzer into the directory given as argv[1]: the sysfs trees the
// simulator writes for each preset the tests run on (topology_fuzz_input.h packs each tree into one input, with
// the files the format has room for).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/topology_fuzz_input.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  namespace fuzz = ::hipmem::thunk::fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string out_dir = argv[1];
  const std::string tmp = out_dir + "/.trees";
  int written = 0;
  for (const std::string& preset : hipmem::kfd_sim::PresetNames()) {
    absl::StatusOr<hipmem::kfd_sim::Topology> topology = hipmem::kfd_sim::PresetTopology(preset);
    if (!topology.ok()) return 1;
    absl::StatusOr<std::unique_ptr<hipmem::kfd_sim::Simulator>> sim = hipmem::kfd_sim::Simulator::Create(*topology);
    const std::string root = tmp + "/" + preset;
    if (!sim.ok() || !(*sim)->WriteSysfs(root).ok()) {
      std::fprintf(stderr, "topology_fuzz_seeds: %s: cannot write its tree\n", preset.c_str());
      return 1;
    }
    std::string input;
    for (size_t k = 0; k < fuzz::kTopologyFuzzFiles.size(); ++k) {
      std::ifstream in(fs::path(root) / fuzz::kTopologyFuzzFiles[k], std::ios::binary);
      if (!in) continue;
      fuzz::AppendFile(input, k, std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
    }
    std::ofstream(out_dir + "/" + preset, std::ios::binary) << input;
    ++written;
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return written > 0 ? 0 : 1;
}
