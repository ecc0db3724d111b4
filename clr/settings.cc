#include "clr/settings.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "absl/strings/numbers.h"

namespace hipmem::clr {
namespace {

// CLR's flagIsDefault(): a flag the environment did not set keeps a default that may differ from what a
// set value means (GPU_STAGING_BUFFER_SIZE's flag default is 4 MiB, but unset means 1 MiB).
std::optional<uint64_t> EnvIfSet(const char* name) {
  const char* value = std::getenv(name);
  uint64_t out = 0;
  if (value == nullptr || !absl::SimpleAtoi(value, &out)) return std::nullopt;
  return out;
}

}  // namespace

Settings Settings::FromEnvironment() {
  Settings s;
  if (auto v = EnvIfSet("GPU_STAGING_BUFFER_SIZE")) s.staged_xfer_size = Bytes::MiB(*v);
  if (auto v = EnvIfSet("GPU_PINNED_XFER_SIZE")) s.pinned_xfer_size = Bytes::MiB(*v);
  if (auto v = EnvIfSet("GPU_PINNED_MIN_XFER_SIZE")) s.pinned_min_xfer_size = Bytes::MiB(*v);
  // Settings::create: a pinned chunk is never smaller than the pinning threshold.
  s.pinned_xfer_size = std::max(s.pinned_xfer_size, s.pinned_min_xfer_size);
  if (auto v = EnvIfSet("GPU_FORCE_BLIT_COPY_SIZE")) s.sdma_copy_threshold = Bytes::KiB(*v);
  if (auto v = EnvIfSet("ROC_P2P_SDMA_SIZE")) s.sdma_p2p_threshold = Bytes::KiB(*v);
  if (auto v = EnvIfSet("GPU_MAX_HEAP_SIZE")) s.max_heap_percent = static_cast<uint32_t>(std::min<uint64_t>(*v, 100));
  if (auto v = EnvIfSet("GPU_SINGLE_ALLOC_PERCENT")) {
    s.single_alloc_percent = static_cast<uint32_t>(std::min<uint64_t>(*v, 100));
  }
  if (auto v = EnvIfSet("HIP_HIDDEN_FREE_MEM")) s.hidden_free_mem = Bytes::MiB(*v);
  if (auto v = EnvIfSet("GPU_ENABLE_WGP_MODE")) s.enable_wgp_mode = *v != 0;
  return s;
}

}  // namespace hipmem::clr
