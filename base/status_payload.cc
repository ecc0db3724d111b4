#include "base/status_payload.h"

#include <string>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hipmem {

absl::Status WithCodePayload(absl::Status status, absl::string_view url, int64_t code) {
  // An OK status takes no payload (SetPayload ignores it): skip formatting one, on every successful call's path.
  if (status.ok()) return status;
  status.SetPayload(url, absl::Cord(absl::StrCat(code)));
  return status;
}

std::optional<int64_t> CodePayload(const absl::Status& status, absl::string_view url) {
  const auto payload = status.GetPayload(url);  // absl::optional in Debian's Abseil
  int64_t code = 0;
  if (!payload.has_value() || !absl::SimpleAtoi(std::string(*payload), &code)) return std::nullopt;
  return code;
}

}  // namespace hipmem
