#include "hsa/visible_devices.h"

#include <algorithm>
#include <cctype>
#include <charconv>
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

// strtol(token, &end, 0) that must consume the whole token and not be negative: an optional sign, then "0x"/"0X"
// hexadecimal, a leading 0 octal, else decimal.
std::optional<size_t> ParseIndex(std::string token) {
  bool negative = false;
  if (!token.empty() && (token[0] == '+' || token[0] == '-')) {
    negative = token[0] == '-';
    token.erase(0, 1);
  }
  if (token.empty()) return std::nullopt;
  int base = 10;
  size_t skip = 0;
  if (token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X')) {
    base = 16;
    skip = 2;
  } else if (token.size() > 1 && token[0] == '0') {
    base = 8;
    skip = 1;
  }
  uint64_t index = 0;
  const char* first = token.data() + skip;
  const char* last = token.data() + token.size();
  if (first != last) {  // else the token is "0"
    const auto [end, error] = std::from_chars(first, last, index, base);
    if (error != std::errc() || end != last) return std::nullopt;
  }
  if (negative && index != 0) return std::nullopt;
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
