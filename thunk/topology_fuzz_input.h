// The input format of //thunk:topology_fuzzer, shared with its seed tool: a sysfs topology tree packed into one
// input. The input is split at each "\n@@" + a byte k: the text after it (to the next marker) becomes the file
// kTopologyFuzzFiles[k % size]; a file given twice keeps the last text; files never given do not exist. The
// marker's byte (not the order) names the file, so mutations that move or drop a section keep the others.
#ifndef HIPMEM_THUNK_TOPOLOGY_FUZZ_INPUT_H_
#define HIPMEM_THUNK_TOPOLOGY_FUZZ_INPUT_H_

#include <array>
#include <string>
#include <string_view>

namespace hipmem::thunk::fuzz {

inline constexpr std::string_view kMarker = "\n@@";

// What ReadTopology reads of two nodes (a CPU and a GPU, or two GPUs) with a bank, a link and a cache each.
inline constexpr std::array<std::string_view, 21> kTopologyFuzzFiles = {
    "generation_id",
    "system_properties",
    "nodes/0/properties",
    "nodes/0/gpu_id",
    "nodes/0/name",
    "nodes/0/mem_banks/0/properties",
    "nodes/0/io_links/0/properties",
    "nodes/0/caches/0/properties",
    "nodes/1/properties",
    "nodes/1/gpu_id",
    "nodes/1/name",
    "nodes/1/revision",
    "nodes/1/mem_banks/0/properties",
    "nodes/1/mem_banks/1/properties",
    "nodes/1/io_links/0/properties",
    "nodes/1/io_links/1/properties",
    "nodes/1/caches/0/properties",
    "nodes/1/caches/1/properties",
    "nodes/2/properties",
    "nodes/2/gpu_id",
    "nodes/2/io_links/0/properties",
};

// Appends `text` as file index `k` to `input` (the seed tool).
inline void AppendFile(std::string& input, size_t k, std::string_view text) {
  input.append(kMarker);
  input.push_back(static_cast<char>(k));
  input.append(text);
}

}  // namespace hipmem::thunk::fuzz

#endif  // HIPMEM_THUNK_TOPOLOGY_FUZZ_INPUT_H_
