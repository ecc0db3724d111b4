#include "clr/visible_devices.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/ascii.h"

namespace hipmem::clr {
namespace {

// The index `entry` spells, if it spells one the way ROCclr accepts: atoi's value printed back must give the entry
// itself, so only "0" or a digit string without a leading zero passes. Longer than 9 digits cannot be below any
// agent count (and would overflow atoi's int upstream).
std::optional<size_t> CanonicalIndex(std::string_view entry) {
  if (entry.empty() || entry.size() > 9) return std::nullopt;
  if (!std::all_of(entry.begin(), entry.end(), [](char c) { return absl::ascii_isdigit(c); })) return std::nullopt;
  if (entry.size() > 1 && entry.front() == '0') return std::nullopt;
  size_t value = 0;
  for (char c : entry) value = value * 10 + static_cast<size_t>(c - '0');
  return value;
}

}  // namespace

std::vector<size_t> VisibleDeviceOrder(std::optional<std::string_view> ordinals,
                                       const std::vector<std::string>& gpu_uuids) {
  const size_t gpu_count = gpu_uuids.size();
  std::vector<size_t> order;
  if (!ordinals.has_value() || ordinals->empty()) {
    for (size_t i = 0; i < gpu_count; ++i) order.push_back(i);
    return order;
  }
  std::vector<bool> taken(gpu_count, false);
  size_t pos = 0;
  // ROCclr walks entries while the cursor is inside the string, so a trailing comma adds no empty entry.
  while (pos < ordinals->size()) {
    size_t end = ordinals->find(',', pos);
    if (end == std::string_view::npos) end = ordinals->size();
    const std::string_view entry = ordinals->substr(pos, end - pos);
    std::optional<size_t> index;
    if (entry.find("GPU-") != std::string_view::npos) {
      for (size_t i = 0; i < gpu_count; ++i) {
        if (gpu_uuids[i].find(entry) != std::string::npos) {
          index = i;
          break;
        }
      }
    } else {
      index = CanonicalIndex(entry);
    }
    // Anything right of an invalid entry is discarded, as ROCclr stops there.
    if (!index.has_value() || *index >= gpu_count) break;
    if (!taken[*index]) {
      taken[*index] = true;
      order.push_back(*index);
    }
    pos = end + 1;
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
