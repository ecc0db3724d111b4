// The raw C error code a Status carries across layers.
//
// Every error adapter (errno, HSAKMT_STATUS, hsa_status_t, hipError_t) stores the code it was
// built from under its own payload URL, so a status that crosses several layers still answers
// each layer's C API with the exact code, not only the canonical one.
#ifndef HIPMEM_BASE_STATUS_PAYLOAD_H_
#define HIPMEM_BASE_STATUS_PAYLOAD_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hipmem {

// Returns `status` with `code` stored under `url` (replacing any earlier one). An OK status is
// returned unchanged: OK carries no payloads.
absl::Status WithCodePayload(absl::Status status, absl::string_view url, int64_t code);

// Returns the code stored under `url`, if any.
std::optional<int64_t> CodePayload(const absl::Status& status, absl::string_view url);

}  // namespace hipmem

#endif  // HIPMEM_BASE_STATUS_PAYLOAD_H_
