// Status propagation (Rust's `?`) and context annotation.
//
// RETURN_IF_ERROR(expr) and ASSIGN_OR_RETURN(lhs, expr) evaluate expr exactly once. Annotate()
// prefixes a message and Recode() changes the canonical code, each keeping everything else
// (including every payload), so adapters further up can still recover the original C error code.
#ifndef HIPMEM_BASE_STATUS_MACROS_H_
#define HIPMEM_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hipmem {

// Returns `status` with "<context>: " prefixed to its message; code and payloads are kept.
absl::Status Annotate(const absl::Status& status, absl::string_view context);

// Returns `status` with its canonical code replaced by `code`; message and payloads are kept. For a
// layer that reclassifies an error from below (an unknown pointer becomes a bad argument), instead
// of rebuilding the Status from its message and losing the C codes recorded in its payloads. An OK
// status is returned unchanged, and recoding to kOk gives OK (which carries neither).
absl::Status Recode(const absl::Status& status, absl::StatusCode code);

namespace status_internal {
inline const absl::Status& AsStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& AsStatus(const absl::StatusOr<T>& s) { return s.status(); }
}  // namespace status_internal

}  // namespace hipmem

#define HIPMEM_STATUS_CONCAT_INNER_(a, b) a##b
#define HIPMEM_STATUS_CONCAT_(a, b) HIPMEM_STATUS_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                                                           \
  do {                                                                                  \
    if (auto hipmem_status_ = (expr); !hipmem_status_.ok()) {                           \
      return ::hipmem::status_internal::AsStatus(hipmem_status_);                       \
    }                                                                                   \
  } while (false)

#define ASSIGN_OR_RETURN(lhs, expr) \
  HIPMEM_ASSIGN_OR_RETURN_IMPL_(HIPMEM_STATUS_CONCAT_(hipmem_statusor_, __LINE__), lhs, expr)

#define HIPMEM_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)

#endif  // HIPMEM_BASE_STATUS_MACROS_H_
