// Per-device limits behind hipDeviceGetLimit / hipDeviceSetLimit.
//
// Plays the limits ROCclr's amd::Device keeps (stack_size_, initial_heap_size_: StackSize, UpdateStackSize,
// InitialHeapSize, UpdateInitialHeapSize) and hip_device_runtime.cpp's answers for each hipLimit_t. hipmem runs
// no device code, so the values only round-trip; they are kept per device as CLR keeps them. Thread-safe.
#ifndef HIPMEM_HIP_DEVICE_LIMITS_H_
#define HIPMEM_HIP_DEVICE_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hipmem::hip {

// hipLimit_t values.
enum class Limit : uint32_t {
  kStackSize = 0x0,
  kPrintfFifoSize = 0x1,
  kMallocHeapSize = 0x2,
  kScratchMin = 0x1000,
  kScratchMax = 0x1001,
  kScratchCurrent = 0x1002,
  kRange = 0x1003,  // hipLimitRange: one past the last
};

class DeviceLimits {
 public:
  // ROCclr's defaults: a 1 KiB stack per lane and HIP_INITIAL_DM_SIZE (8 MiB) of device-malloc heap.
  static constexpr size_t kDefaultStackSize = 1024;
  static constexpr size_t kDefaultMallocHeapSize = 8u << 20;
  // The largest per-lane stack COMPUTE_TMPRING_SIZE.WAVE_SIZE can describe: 128 KiB - 4.
  static constexpr size_t kMaxStackSize = (128u << 10) - 4;

  explicit DeviceLimits(int device_count);
  ~DeviceLimits();
  DeviceLimits(const DeviceLimits&) = delete;
  DeviceLimits& operator=(const DeviceLimits&) = delete;

  // hipDeviceGetLimit on `device` (a valid ordinal). Errors: kInvalidArgument (hipErrorInvalidValue) for a value
  // at or past hipLimitRange; hipErrorUnsupportedLimit (kUnimplemented) for the printf FIFO, values between the
  // limits, and the scratch limits (hipmem models no scratch).
  absl::StatusOr<size_t> Get(int device, uint32_t limit) const;

  // hipDeviceSetLimit on `device`. The stack size must not exceed kMaxStackSize (kInvalidArgument); the heap
  // size is kept as given (ROCclr rounds it to 2 MiB only when it allocates the heap). Other errors as Get.
  absl::Status Set(int device, uint32_t limit, size_t value);

 private:
  struct Table;
  std::unique_ptr<Table> table_;
};

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_DEVICE_LIMITS_H_
