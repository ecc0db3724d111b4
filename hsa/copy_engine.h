// Every byte the HSA runtime copies goes through a CopyEngine.
//
// Plays the seam in ROCr between Runtime::CopyMemory and the blit objects (BlitKernel, BlitSdma).
// Today's only engine copies with the CPU, which is correct only while every allocation is
// host-visible; issue #3 adds simulated SDMA and blit-kernel engines behind this interface so the
// CPU never touches private VRAM.
#ifndef HIPMEM_HSA_COPY_ENGINE_H_
#define HIPMEM_HSA_COPY_ENGINE_H_


#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/units.h"

namespace hipmem::hsa {

class CopyEngine {
 public:
  virtual ~CopyEngine() = default;

  virtual absl::string_view name() const = 0;

  // Copies `size` bytes from `src` to `dst` and returns when they have landed. The caller has
  // already checked both ranges.
  virtual absl::Status Copy(DeviceAddress dst, DeviceAddress src, Bytes size) = 0;
};

// Copies with memmove on the calling CPU thread.
class CpuCopyEngine final : public CopyEngine {
 public:
  absl::string_view name() const override { return "cpu"; }
  absl::Status Copy(DeviceAddress dst, DeviceAddress src, Bytes size) override;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_COPY_ENGINE_H_
