#include "hsa/hsa_status.h"

#include <utility>

#include "base/status_payload.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hsa/hsa_ext_amd.h"

namespace hipmem::hsa {
namespace {

using Code = absl::StatusCode;

struct Row {
  hsa_status_t hsa;
  Code code;
  absl::string_view name;
};

// The AMD codes are enumerators of an unnamed enum (hsa_ext_amd.h); C++ needs the cast.
constexpr hsa_status_t Amd(int value) { return static_cast<hsa_status_t>(value); }

// FromHsaStatus uses the first row of an hsa_status_t; ToHsaStatus uses the first row of a
// canonical code. A code listed again further down only adds a reverse mapping.
constexpr Row kRows[] = {
    {HSA_STATUS_SUCCESS, Code::kOk, "HSA_STATUS_SUCCESS"},

    // Iteration stopped by the callback: the one non-error code besides SUCCESS.
    {HSA_STATUS_INFO_BREAK, Code::kCancelled, "HSA_STATUS_INFO_BREAK"},

    {HSA_STATUS_ERROR_INVALID_ARGUMENT, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_ARGUMENT"},
    {HSA_STATUS_ERROR_INVALID_AGENT, Code::kInvalidArgument, "HSA_STATUS_ERROR_INVALID_AGENT"},
    {HSA_STATUS_ERROR_INVALID_REGION, Code::kInvalidArgument, "HSA_STATUS_ERROR_INVALID_REGION"},
    {HSA_STATUS_ERROR_INVALID_SIGNAL, Code::kInvalidArgument, "HSA_STATUS_ERROR_INVALID_SIGNAL"},
    {Amd(HSA_STATUS_ERROR_INVALID_MEMORY_POOL), Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_MEMORY_POOL"},
    {HSA_STATUS_ERROR_INVALID_QUEUE, Code::kInvalidArgument, "HSA_STATUS_ERROR_INVALID_QUEUE"},
    {HSA_STATUS_ERROR_INVALID_QUEUE_CREATION, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION"},
    {HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT"},
    {HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS"},
    {HSA_STATUS_ERROR_INVALID_INDEX, Code::kInvalidArgument, "HSA_STATUS_ERROR_INVALID_INDEX"},
    {HSA_STATUS_ERROR_INVALID_ISA, Code::kInvalidArgument, "HSA_STATUS_ERROR_INVALID_ISA"},
    {HSA_STATUS_ERROR_INVALID_ISA_NAME, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_ISA_NAME"},
    {HSA_STATUS_ERROR_INVALID_CODE_OBJECT, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_CODE_OBJECT"},
    {HSA_STATUS_ERROR_INVALID_EXECUTABLE, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_EXECUTABLE"},
    {HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED"},
    {HSA_STATUS_ERROR_INVALID_CODE_SYMBOL, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL"},
    {HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL"},
    {HSA_STATUS_ERROR_INVALID_FILE, Code::kInvalidArgument, "HSA_STATUS_ERROR_INVALID_FILE"},
    {HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER"},
    {HSA_STATUS_ERROR_INVALID_CACHE, Code::kInvalidArgument, "HSA_STATUS_ERROR_INVALID_CACHE"},
    {HSA_STATUS_ERROR_INVALID_WAVEFRONT, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_WAVEFRONT"},
    {HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP, Code::kInvalidArgument,
     "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP"},

    // A pointer the runtime did not allocate (or a size above the pool maximum, named explicitly).
    {HSA_STATUS_ERROR_INVALID_ALLOCATION, Code::kNotFound, "HSA_STATUS_ERROR_INVALID_ALLOCATION"},
    {HSA_STATUS_ERROR_INVALID_SYMBOL_NAME, Code::kNotFound, "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME"},

    {HSA_STATUS_ERROR_OUT_OF_RESOURCES, Code::kResourceExhausted,
     "HSA_STATUS_ERROR_OUT_OF_RESOURCES"},
    {HSA_STATUS_ERROR_REFCOUNT_OVERFLOW, Code::kResourceExhausted,
     "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW"},
    {Amd(HSA_STATUS_ERROR_OUT_OF_REGISTERS), Code::kResourceExhausted,
     "HSA_STATUS_ERROR_OUT_OF_REGISTERS"},
    // Informational: the CU mask was applied less the CUs the process may not use.
    {Amd(HSA_STATUS_CU_MASK_REDUCED), Code::kResourceExhausted, "HSA_STATUS_CU_MASK_REDUCED"},

    {HSA_STATUS_ERROR_NOT_INITIALIZED, Code::kFailedPrecondition,
     "HSA_STATUS_ERROR_NOT_INITIALIZED"},
    {HSA_STATUS_ERROR_INVALID_RUNTIME_STATE, Code::kFailedPrecondition,
     "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE"},
    {HSA_STATUS_ERROR_FROZEN_EXECUTABLE, Code::kFailedPrecondition,
     "HSA_STATUS_ERROR_FROZEN_EXECUTABLE"},
    {HSA_STATUS_ERROR_VARIABLE_UNDEFINED, Code::kFailedPrecondition,
     "HSA_STATUS_ERROR_VARIABLE_UNDEFINED"},

    {Amd(HSA_STATUS_ERROR_RESOURCE_BUSY), Code::kUnavailable, "HSA_STATUS_ERROR_RESOURCE_BUSY"},

    // The device raised an exception or faulted; the work it was running is lost.
    {HSA_STATUS_ERROR_EXCEPTION, Code::kAborted, "HSA_STATUS_ERROR_EXCEPTION"},
    {HSA_STATUS_ERROR_FATAL, Code::kAborted, "HSA_STATUS_ERROR_FATAL"},
    {Amd(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION), Code::kAborted,
     "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"},
    {Amd(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION), Code::kAborted,
     "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION"},
    {Amd(HSA_STATUS_ERROR_MEMORY_FAULT), Code::kAborted, "HSA_STATUS_ERROR_MEMORY_FAULT"},

    {HSA_STATUS_ERROR, Code::kUnknown, "HSA_STATUS_ERROR"},
    {HSA_STATUS_ERROR_RESOURCE_FREE, Code::kUnknown, "HSA_STATUS_ERROR_RESOURCE_FREE"},

    // Reverse-only: ROCr rejects ranges past the end of an allocation as a bad argument.
    {HSA_STATUS_ERROR_INVALID_ARGUMENT, Code::kOutOfRange, "HSA_STATUS_ERROR_INVALID_ARGUMENT"},
};

// Canonical codes with no row above.
constexpr hsa_status_t kFallback = HSA_STATUS_ERROR;

const Row* RowFor(hsa_status_t hsa) {
  for (const Row& row : kRows) {
    if (row.hsa == hsa) return &row;
  }
  return nullptr;
}

std::optional<hsa_status_t> PayloadCode(const absl::Status& status) {
  const std::optional<int64_t> raw = CodePayload(status, kHsaStatusPayloadUrl);
  // A failed Status must never read as success, whatever its payload says.
  if (!raw.has_value() || *raw == HSA_STATUS_SUCCESS) return std::nullopt;
  return static_cast<hsa_status_t>(*raw);
}

absl::Status Tagged(Code code, absl::string_view message, hsa_status_t hsa) {
  return WithHsaStatus(absl::Status(code, message), hsa);
}

}  // namespace

absl::Status FromHsaStatus(hsa_status_t code, absl::string_view context) {
  if (code == HSA_STATUS_SUCCESS) return absl::OkStatus();
  const Row* row = RowFor(code);
  const Code canonical = row != nullptr ? row->code : Code::kUnknown;
  const std::string name = row != nullptr
                               ? std::string(row->name)
                               : absl::StrCat("hsa_status_t(", static_cast<uint32_t>(code), ")");
  return Tagged(canonical, context.empty() ? name : absl::StrCat(context, ": ", name), code);
}

hsa_status_t ToHsaStatus(const absl::Status& status) {
  if (status.ok()) return HSA_STATUS_SUCCESS;
  if (std::optional<hsa_status_t> code = PayloadCode(status)) return *code;
  for (const Row& row : kRows) {
    if (row.code == status.code()) return row.hsa;
  }
  return kFallback;
}

absl::Status WithHsaStatus(absl::Status status, hsa_status_t code) {
  if (code == HSA_STATUS_SUCCESS) return status;
  return WithCodePayload(std::move(status), kHsaStatusPayloadUrl, code);
}

absl::string_view HsaStatusName(hsa_status_t code) {
  const Row* row = RowFor(code);
  return row != nullptr ? row->name : "HSA_STATUS_<unknown>";
}

absl::Status InfoBreak(absl::string_view message) {
  return Tagged(Code::kCancelled, message, HSA_STATUS_INFO_BREAK);
}

bool IsInfoBreak(const absl::Status& status) {
  return ToHsaStatus(status) == HSA_STATUS_INFO_BREAK;
}

absl::Status InvalidAgentError(absl::string_view message) {
  return Tagged(Code::kInvalidArgument, message, HSA_STATUS_ERROR_INVALID_AGENT);
}
absl::Status InvalidRegionError(absl::string_view message) {
  return Tagged(Code::kInvalidArgument, message, HSA_STATUS_ERROR_INVALID_REGION);
}
absl::Status InvalidSignalError(absl::string_view message) {
  return Tagged(Code::kInvalidArgument, message, HSA_STATUS_ERROR_INVALID_SIGNAL);
}
absl::Status InvalidMemoryPoolError(absl::string_view message) {
  return Tagged(Code::kInvalidArgument, message, Amd(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
}
absl::Status InvalidAllocationError(absl::string_view message) {
  return Tagged(Code::kNotFound, message, HSA_STATUS_ERROR_INVALID_ALLOCATION);
}
absl::Status NotInitializedError(absl::string_view message) {
  return Tagged(Code::kFailedPrecondition, message, HSA_STATUS_ERROR_NOT_INITIALIZED);
}
absl::Status RefcountOverflowError(absl::string_view message) {
  return Tagged(Code::kResourceExhausted, message, HSA_STATUS_ERROR_REFCOUNT_OVERFLOW);
}

}  // namespace hipmem::hsa
