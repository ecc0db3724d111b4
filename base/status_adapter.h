// The engine behind every error adapter (STYLE §6): one C error type <-> absl::Status.
//
// Plays the part the four ROCm error conversions (errno, libhsakmt's HSAKMT_STATUS, ROCr's
// hsa_status_t, HIP's hipError_t) have in common. An adapter keeps its own constexpr table, one row
// per mapping, and describes itself once:
//
//   struct Row { hsa_status_t c_code; absl::StatusCode code; absl::string_view name; };
//   constexpr Row kRows[] = {...};
//   constexpr StatusAdapter<Row> kAdapter{.payload_url = kHsaStatusPayloadUrl,
//                                         .success = HSA_STATUS_SUCCESS,
//                                         .fallback = HSA_STATUS_ERROR,
//                                         .rows = kRows,
//                                         .name = &NameInMessage};
//   static_assert(kAdapter.Consistent());
//
// A row needs a `c_code` (the C code) and a `code` (its absl::StatusCode); anything else in it
// (names, descriptions) is the adapter's own. Table rules:
//  - From uses the first row of a C code; To uses the first row of a canonical code. A C code
//    listed again further down only adds a reverse mapping (EIO for kInternal, say).
//  - Only the success code may map to kOk, and the fallback must itself be a row.
//
// The engine does the rest the same way for every adapter:
//  - From(c, context) is OK for the success code; otherwise a Status of c's canonical code
//    (kUnknown for a code no row names), message "<context>: <name>" (just "<name>" for an empty
//    context), and the raw code under payload_url.
//  - To(status) is the success code for OK; else the payload code; else the first row of the
//    canonical code; else the fallback. So To(From(c)) == c for every c, even unknown ones, and a
//    Status born in another layer maps by its canonical code.
//  - A payload holding the success code is ignored both ways: a failed Status never reads as
//    success.
#ifndef HIPMEM_BASE_STATUS_ADAPTER_H_
#define HIPMEM_BASE_STATUS_ADAPTER_H_

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_payload.h"

namespace hipmem {

// A table row: a C code and the canonical code it maps to.
template <typename Row>
concept StatusAdapterRow = requires(const Row& row) {
  requires std::equality_comparable<decltype(Row::c_code)>;
  { row.code } -> std::convertible_to<absl::StatusCode>;
};

// One C error type's adapter: its table and the three facts the table does not state. A constexpr
// aggregate; every member function is const and thread-safe.
template <StatusAdapterRow Row>
struct StatusAdapter {
  using CCode = decltype(Row::c_code);
  // Names `c_code` in From's message; `row` is its first row, or nullptr for an unknown code.
  using NameFn = std::string (*)(CCode c_code, const Row* row);

  // Type URL of the payload holding the raw code, as a decimal integer.
  absl::string_view payload_url;
  // The C code for "no error" (0, HSA_STATUS_SUCCESS, ...).
  CCode success;
  // What To answers for a canonical code no row names.
  CCode fallback;
  std::span<const Row> rows;
  NameFn name;

  // Returns the first row of `c_code`, or nullptr.
  constexpr const Row* Find(CCode c_code) const {
    for (const Row& row : rows) {
      if (row.c_code == c_code) return &row;
    }
    return nullptr;
  }

  // Returns the C code a Status of canonical code `code` without a payload stands for: the first
  // row of `code`, else the fallback.
  constexpr CCode Preferred(absl::StatusCode code) const {
    for (const Row& row : rows) {
      if (row.code == code) return row.c_code;
    }
    return fallback;
  }

  // Returns the canonical code From gives `c_code`: its first row's, else kUnknown.
  constexpr absl::StatusCode CanonicalCode(CCode c_code) const {
    const Row* row = Find(c_code);
    return row != nullptr ? static_cast<absl::StatusCode>(row->code) : absl::StatusCode::kUnknown;
  }

  // Returns true if the table keeps the rules above; adapters static_assert it.
  constexpr bool Consistent() const {
    for (const Row& row : rows) {
      if ((row.c_code == success) != (row.code == absl::StatusCode::kOk)) return false;
    }
    return Find(fallback) != nullptr && !(fallback == success);
  }

  // Returns OK for the success code; else the Status described above.
  absl::Status From(CCode c_code, absl::string_view context) const {
    if (c_code == success) return absl::OkStatus();
    const std::string what = name(c_code, Find(c_code));
    return Make(CanonicalCode(c_code), context.empty() ? what : absl::StrCat(context, ": ", what),
                c_code);
  }

  // Returns the C code `status` stands for (see above).
  CCode To(const absl::Status& status) const {
    if (status.ok()) return success;
    if (std::optional<CCode> c_code = PayloadCode(status)) return *c_code;
    return Preferred(status.code());
  }

  // Returns the code stored in `status`'s payload, unless absent or the success code.
  std::optional<CCode> PayloadCode(const absl::Status& status) const {
    const std::optional<int64_t> raw = CodePayload(status, payload_url);
    if (!raw.has_value() || *raw == static_cast<int64_t>(success)) return std::nullopt;
    return static_cast<CCode>(*raw);
  }

  // Returns `status` tagged so that To gives `c_code` (replacing an earlier tag); its canonical
  // code, message and other payloads are kept. An OK status, or tagging with the success code,
  // returns `status` unchanged.
  absl::Status Tag(absl::Status status, CCode c_code) const {
    if (c_code == success) return status;
    return WithCodePayload(std::move(status), payload_url, static_cast<int64_t>(c_code));
  }

  // Returns a Status of `code` and `message` tagged with `c_code`: the named constructors of C
  // codes that share their canonical code with a more general one.
  absl::Status Make(absl::StatusCode code, absl::string_view message, CCode c_code) const {
    return Tag(absl::Status(code, message), c_code);
  }
};

}  // namespace hipmem

#endif  // HIPMEM_BASE_STATUS_ADAPTER_H_
