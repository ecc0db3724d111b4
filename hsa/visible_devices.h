// ROCR_VISIBLE_DEVICES: which GPUs the runtime surfaces, and in what order.
//
// Plays ROCr's RvdFilter (core/util/rvd_filter.cpp, current rocm-systems). The variable is a comma-separated list
// of tokens, each a GPU's index among the KFD's GPU nodes (strtol base 0: "1", "0x1") or a prefix of its UUID
// ("GPU-" then 16 hex digits of the node's unique_id; 5 to 20 characters, case-insensitive, matching exactly one
// GPU). GPUs are surfaced in token order. Parsing stops, keeping what came before, at the first token that is
// malformed, out of range, ambiguous or a repeat, and after as many tokens as there are GPUs. Set but empty: no GPU.
#ifndef HIPMEM_HSA_VISIBLE_DEVICES_H_
#define HIPMEM_HSA_VISIBLE_DEVICES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace hipmem::hsa {

// The GPUs to surface, as positions in `gpu_unique_ids` (the KFD's GPU nodes in node order; 0 for a GPU without
// a UUID), in surface order. `env` is the variable's value; nullopt (unset) surfaces every GPU in node order.
std::vector<size_t> VisibleGpuOrder(std::optional<std::string_view> env, std::span<const uint64_t> gpu_unique_ids);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_VISIBLE_DEVICES_H_
