// Per-device limits behind hipDeviceGetLimit / hipDeviceSetLimit.
//
// Plays the limits ROCclr's amd::Device keeps (stack_size_, initial_heap_size_: StackSize, UpdateStackSize,
// InitialHeapSize, UpdateInitialHeapSize in rocclr/device/device.{hpp,cpp}) and the answers hipamd's
// hipDeviceGetLimit / hipDeviceSetLimit (hip_device_runtime.cpp) give for each hipLimit_t, as of
// ROCm/rocm-systems projects/clr (2025-26). hipmem runs no device code, so the values only round-trip; they are
// kept per device as CLR keeps them. Thread-safe.
#ifndef HIPMEM_HIP_DEVICE_LIMITS_H_
#define HIPMEM_HIP_DEVICE_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

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
  // ROCclr's defaults for HIP: a 1 KiB stack per lane (amd::Device::stack_size_) and HIP_INITIAL_DM_SIZE (8 MiB)
  // of device-malloc heap (initial_heap_size_).
  static constexpr size_t kDefaultStackSize = 1024;
  static constexpr size_t kDefaultMallocHeapSize = 8u << 20;
  // ROCclr rounds a new stack size up to this many bytes (UpdateStackSize).
  static constexpr size_t kStackSizeAlignment = 16;

  // What one device allows, fixed when the runtime starts.
  struct Bounds {
    size_t max_stack_size;   // the largest per-lane stack hipDeviceSetLimit accepts (MaxStackSizeFor)
    size_t global_mem_size;  // the device's globalMemSize_: heap sizes must stay below it
  };

  // The per-lane stack ceiling ROCclr's GetMaxStackSize (device.cpp) picks from the processor's major version: the
  // scratch wave-size field holds (2^15 - 1) x 256 bytes per wave on gfx8/gfx9 (wave64) and gfx10/gfx11 (wave32)
  // and (2^18 - 1) x 256 on gfx12 and later (wave32), less 64 bytes the compiler keeps: 131004, 262072 and 2097080.
  static size_t MaxStackSizeFor(uint32_t gfx_major);

  explicit DeviceLimits(std::vector<Bounds> devices);
  ~DeviceLimits();
  DeviceLimits(const DeviceLimits&) = delete;
  DeviceLimits& operator=(const DeviceLimits&) = delete;

  // hipDeviceGetLimit on `device` (a valid ordinal). `limit` is read as hipamd reads the enum, a signed int: at or
  // past hipLimitRange is kInvalidArgument (hipErrorInvalidValue); a negative value, the printf FIFO, the values
  // between the limits and the scratch limits are hipErrorUnsupportedLimit (kUnimplemented).
  absl::StatusOr<size_t> Get(int device, uint32_t limit) const;

  // hipDeviceSetLimit on `device`. The stack size must not exceed the device's max_stack_size and is kept rounded
  // up to 16 bytes; the heap size must be below global_mem_size and is kept as given (ROCclr rounds it only when
  // it allocates the heap). Either refusal is kInvalidArgument and changes nothing. Other errors as Get; the
  // scratch limits cannot be set either (see device_limits.cc).
  absl::Status Set(int device, uint32_t limit, size_t value);

 private:
  struct Table;
  std::unique_ptr<Table> table_;
};

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_DEVICE_LIMITS_H_
