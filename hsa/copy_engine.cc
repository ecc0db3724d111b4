#include "hsa/copy_engine.h"

#include <cstring>

namespace hipmem::hsa {

absl::Status CpuCopyEngine::Copy(DeviceAddress dst, DeviceAddress src, Bytes size) {
  // memmove: hsa_memory_copy does not forbid overlap, and a D2D copy inside one buffer may overlap.
  std::memmove(dst.ToPointer(), src.ToPointer(), size.raw());
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
