#include "hsa/hsa_status.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_adapter.h"
#include "hsa/hsa_ext_amd.h"

namespace hipmem::hsa {
namespace {

using Code = absl::StatusCode;

struct Row {
  hsa_status_t c_code;
  Code code;
  absl::string_view name;
};

// The AMD and image codes are enumerators of unnamed enums (hsa_ext_amd.h, hsa_ext_image.h); C++
// needs the cast.
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

    {Amd(HSA_STATUS_ERROR_XNACK_DISABLED), Code::kFailedPrecondition,
     "HSA_STATUS_ERROR_XNACK_DISABLED"},

    {Amd(HSA_STATUS_ERROR_RESOURCE_BUSY), Code::kUnavailable, "HSA_STATUS_ERROR_RESOURCE_BUSY"},

    // A feature the system (here: hipmem) does not provide.
    {Amd(HSA_STATUS_ERROR_NOT_SUPPORTED), Code::kUnimplemented, "HSA_STATUS_ERROR_NOT_SUPPORTED"},

    // hsa_ext_image.h: an image or sampler the agent cannot handle.
    {Amd(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED), Code::kInvalidArgument,
     "HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED"},
    {Amd(HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED), Code::kInvalidArgument,
     "HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED"},
    {Amd(HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED), Code::kInvalidArgument,
     "HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED"},
    {Amd(HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED), Code::kInvalidArgument,
     "HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED"},

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

std::string NameInMessage(hsa_status_t code, const Row* row) {
  return row != nullptr ? std::string(row->name)
                        : absl::StrCat("hsa_status_t(", static_cast<uint32_t>(code), ")");
}

constexpr StatusAdapter<Row> kAdapter{
    .payload_url = kHsaStatusPayloadUrl,
    .success = HSA_STATUS_SUCCESS,
    // Canonical codes with no row above.
    .fallback = HSA_STATUS_ERROR,
    .rows = kRows,
    .name = &NameInMessage,
};
static_assert(kAdapter.Consistent());

}  // namespace

absl::Status FromHsaStatus(hsa_status_t code, absl::string_view context) {
  return kAdapter.From(code, context);
}

hsa_status_t ToHsaStatus(const absl::Status& status) { return kAdapter.To(status); }

absl::Status WithHsaStatus(absl::Status status, hsa_status_t code) {
  return kAdapter.Tag(std::move(status), code);
}

absl::string_view HsaStatusName(hsa_status_t code) {
  const Row* row = kAdapter.Find(code);
  return row != nullptr ? row->name : "HSA_STATUS_<unknown>";
}

absl::Status InfoBreak(absl::string_view message) {
  return kAdapter.Make(Code::kCancelled, message, HSA_STATUS_INFO_BREAK);
}

bool IsInfoBreak(const absl::Status& status) {
  return ToHsaStatus(status) == HSA_STATUS_INFO_BREAK;
}

absl::Status InvalidAgentError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, HSA_STATUS_ERROR_INVALID_AGENT);
}
absl::Status InvalidRegionError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, HSA_STATUS_ERROR_INVALID_REGION);
}
absl::Status InvalidSignalError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, HSA_STATUS_ERROR_INVALID_SIGNAL);
}
absl::Status InvalidMemoryPoolError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, Amd(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
}
absl::Status InvalidAllocationError(absl::string_view message) {
  return kAdapter.Make(Code::kNotFound, message, HSA_STATUS_ERROR_INVALID_ALLOCATION);
}
absl::Status NotInitializedError(absl::string_view message) {
  return kAdapter.Make(Code::kFailedPrecondition, message, HSA_STATUS_ERROR_NOT_INITIALIZED);
}
absl::Status RefcountOverflowError(absl::string_view message) {
  return kAdapter.Make(Code::kResourceExhausted, message, HSA_STATUS_ERROR_REFCOUNT_OVERFLOW);
}

}  // namespace hipmem::hsa
