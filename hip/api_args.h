// A hip* call's arguments as text, for its `hip_api` trace slice and AMD_LOG_LEVEL's entry line, which CLR prints as
// "hipMalloc ( 0x7ffd5f2c3a48, 4096 )". Formatted only when the call is traced.
//
// Deliberate: every pointer prints as its address, char pointers included. CLR streams a `const char*` as the string
// it points to; an entry point's char pointers may be output buffers or a caller's bad pointer, and the log must not
// be what reads them. Structures passed by value print their fields; any other one prints as "{...}".
#ifndef HIPMEM_HIP_API_ARGS_H_
#define HIPMEM_HIP_API_ARGS_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "hip/hip_runtime_api.h"

namespace hipmem::hip {

template <typename T>
std::string ApiArgText(const T& value) {
  if constexpr (std::is_pointer_v<T> || std::is_null_pointer_v<T>) {
    return absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(value)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_enum_v<T>) {
    return absl::StrCat(static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (std::is_arithmetic_v<T>) {
    return absl::StrCat(value);
  } else if constexpr (std::is_same_v<T, dim3>) {
    return absl::StrCat("{", value.x, ",", value.y, ",", value.z, "}");
  } else if constexpr (std::is_same_v<T, hipExtent>) {
    return absl::StrCat("{", value.width, ",", value.height, ",", value.depth, "}");
  } else if constexpr (std::is_same_v<T, hipPitchedPtr>) {
    return absl::StrCat("{", ApiArgText(value.ptr), ",", value.pitch, ",", value.xsize, ",", value.ysize, "}");
  } else if constexpr (std::is_same_v<T, hipMemLocation>) {
    return absl::StrCat("{", ApiArgText(value.type), ",", value.id, "}");
  } else {
    return "{...}";
  }
}

// "a, b, c" (the log sink prints it as CLR's HIP_INIT_API does, "hipX ( a, b, c )"); empty without arguments.
template <typename... Args>
std::string ApiArgsText(const Args&... args) {
  std::string text;
  [[maybe_unused]] const char* separator = "";
  ((absl::StrAppend(&text, separator, ApiArgText(args)), separator = ", "), ...);
  return text;
}

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_API_ARGS_H_
