#include "hsa/visible_devices.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace hipmem::hsa {
namespace {

// The GPU whose UUID string starts with `token`; nullopt when none or more than one does.
std::optional<size_t> MatchUuid(const std::string& token, std::span<const std::string> uuids) {
  if (token.size() < 5 || token.size() > 20) return std::nullopt;
  std::optional<size_t> found;
  for (size_t i = 0; i < uuids.size(); ++i) {
    if (uuids[i].compare(0, token.size(), token) != 0) continue;
    if (found.has_value()) return std::nullopt;  // ambiguous
    found = i;
  }
  return found;
}

std::optional<size_t> ParseIndex(const std::string& token) {
  if (token.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long index = std::strtol(token.c_str(), &end, 0);
  if (*end != '\0' || errno != 0 || index < 0) return std::nullopt;
  return static_cast<size_t>(index);
}

}  // namespace

std::vector<size_t> VisibleGpuOrder(std::optional<std::string_view> env, std::span<const uint64_t> gpu_unique_ids) {
  std::vector<size_t> order;
  if (!env.has_value()) {
    for (size_t i = 0; i < gpu_unique_ids.size(); ++i) order.push_back(i);
    return order;
  }
  if (env->empty()) return order;
  std::vector<std::string> uuids;
  for (uint64_t id : gpu_unique_ids) {
    // A GPU without a UUID gets a string no token can match (tokens are upper-cased, this is not).
    uuids.push_back(id == 0 ? std::string("Invalid-UUID") : absl::StrFormat("GPU-%016X", id));
  }
  std::vector<std::string> tokens = absl::StrSplit(absl::string_view(env->data(), env->size()), ',');
  tokens.resize(std::min(tokens.size(), gpu_unique_ids.size()));
  for (std::string& token : tokens) {
    token = absl::AsciiStrToUpper(std::string(absl::StripAsciiWhitespace(token)));
    const std::optional<size_t> gpu = !token.empty() && token[0] == 'G' ? MatchUuid(token, uuids) : ParseIndex(token);
    if (!gpu.has_value() || *gpu >= gpu_unique_ids.size()) break;
    if (std::find(order.begin(), order.end(), *gpu) != order.end()) break;  // a repeat ends the list
    order.push_back(*gpu);
  }
  return order;
}

}  // namespace hipmem::hsa
