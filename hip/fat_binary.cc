#include "hip/fat_binary.h"

#include <cstring>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hipmem::hip {
namespace {

constexpr size_t kMagicBytes = sizeof(kOffloadBundleMagic) - 1;
constexpr uint64_t kMaxEntries = 4096;
constexpr uint64_t kMaxTriple = 4096;

}  // namespace

bool IsOffloadBundle(const void* image) {
  return image != nullptr && std::memcmp(image, kOffloadBundleMagic, kMagicBytes) == 0;
}

absl::StatusOr<std::vector<BundleEntry>> ParseOffloadBundle(const void* image, std::optional<size_t> size) {
  if (image == nullptr) return absl::InvalidArgumentError("offload bundle: null image");
  const auto* base = static_cast<const uint8_t*>(image);
  size_t at = 0;
  auto fits = [&](uint64_t offset, uint64_t length) {
    return !size.has_value() || (offset <= *size && length <= *size - offset);
  };
  auto u64 = [&](uint64_t* out) {
    if (!fits(at, 8)) return false;
    std::memcpy(out, base + at, 8);
    at += 8;
    return true;
  };
  if (!fits(0, kMagicBytes) || !IsOffloadBundle(image)) {
    return absl::InvalidArgumentError("offload bundle: no __CLANG_OFFLOAD_BUNDLE__ magic");
  }
  at = kMagicBytes;
  uint64_t count = 0;
  if (!u64(&count) || count > kMaxEntries) {
    return absl::InvalidArgumentError(absl::StrCat("offload bundle: bad entry count ", count));
  }
  std::vector<BundleEntry> entries;
  entries.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t offset = 0, length = 0, triple_length = 0;
    if (!u64(&offset) || !u64(&length) || !u64(&triple_length) || triple_length > kMaxTriple ||
        !fits(at, triple_length)) {
      return absl::InvalidArgumentError(absl::StrCat("offload bundle: entry ", i, " header truncated"));
    }
    std::string triple(reinterpret_cast<const char*>(base + at), triple_length);
    at += triple_length;
    if (!fits(offset, length)) {
      return absl::InvalidArgumentError(
          absl::StrCat("offload bundle: entry ", triple, " [", offset, ", +", length, ") lies outside the image"));
    }
    entries.push_back(BundleEntry{std::move(triple), std::span<const uint8_t>(base + offset, length)});
  }
  return entries;
}

std::vector<std::span<const uint8_t>> HipCodeObjects(const std::vector<BundleEntry>& entries) {
  std::vector<std::span<const uint8_t>> objects;
  for (const BundleEntry& entry : entries) {
    if (entry.bytes.empty()) continue;
    const bool hip = absl::StartsWith(entry.triple, "hipv4-amdgcn-amd-amdhsa-") ||
                     absl::StartsWith(entry.triple, "hip-amdgcn-amd-amdhsa-");
    if (hip) objects.push_back(entry.bytes);
  }
  return objects;
}

}  // namespace hipmem::hip
