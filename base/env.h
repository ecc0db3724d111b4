// Numeric settings from the environment, read the way ROCr, libhsakmt and ROCclr read theirs
// (HSA_*, GPU_*, HIP_*): an unsigned decimal integer, or the default when unset or malformed.
#ifndef HIPMEM_BASE_ENV_H_
#define HIPMEM_BASE_ENV_H_

#include <cstdint>
#include <cstdlib>

#include "absl/strings/numbers.h"

namespace hipmem {

inline uint64_t EnvUint64(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  uint64_t out = 0;
  return value != nullptr && absl::SimpleAtoi(value, &out) ? out : fallback;
}

}  // namespace hipmem

#endif  // HIPMEM_BASE_ENV_H_
