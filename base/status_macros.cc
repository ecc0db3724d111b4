#include "base/status_macros.h"

#include <optional>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace hipmem {

namespace {

// Returns a Status of `code` and `message` carrying every payload of `from`.
absl::Status Rebuilt(const absl::Status& from, absl::StatusCode code, absl::string_view message) {
  absl::Status rebuilt(code, message);
  from.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    rebuilt.SetPayload(url, payload);
  });
  return rebuilt;
}

}  // namespace

absl::Status Annotate(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return status;
  return Rebuilt(status, status.code(), absl::StrCat(context, ": ", status.message()));
}

absl::Status Recode(const absl::Status& status, absl::StatusCode code) {
  if (status.ok() || code == status.code()) return status;
  return Rebuilt(status, code, status.message());
}

}  // namespace hipmem
