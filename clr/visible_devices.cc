#include "clr/visible_devices.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace hipmem::clr {

std::vector<size_t> VisibleDeviceOrder(std::optional<std::string_view> ordinals, size_t gpu_count) {
  std::vector<size_t> order;
  if (!ordinals.has_value()) {
    for (size_t i = 0; i < gpu_count; ++i) order.push_back(i);
    return order;
  }
  std::vector<bool> taken(gpu_count, false);
  // Abseil here has its own string_view type.
  for (absl::string_view token : absl::StrSplit(absl::string_view(ordinals->data(), ordinals->size()), ',')) {
    uint64_t index = 0;
    const bool digits = !token.empty() && std::all_of(token.begin(), token.end(), absl::ascii_isdigit);
    // Anything right of an invalid entry is discarded, as ROCclr stops there.
    if (!digits || !absl::SimpleAtoi(token, &index) || index >= gpu_count) break;
    if (taken[index]) continue;
    taken[index] = true;
    order.push_back(static_cast<size_t>(index));
  }
  return order;
}

std::optional<std::string> VisibleDevicesFromEnvironment() {
  for (const char* name : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && value[0] != '\0') return std::string(value);
  }
  return std::nullopt;
}

}  // namespace hipmem::clr
