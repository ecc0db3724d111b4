#include "hip/device_limits.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"

namespace hipmem::hip {
namespace {

struct Values {
  DeviceLimits::Bounds bounds;
  size_t stack_size = DeviceLimits::kDefaultStackSize;
  size_t malloc_heap_size = DeviceLimits::kDefaultMallocHeapSize;
};

absl::Status Unsupported(absl::string_view op, uint32_t limit) {
  return WithHipError(absl::UnimplementedError(absl::StrCat(op, "(limit=0x", absl::Hex(limit), "): unsupported limit")),
                      hipErrorUnsupportedLimit);
}

// hipamd compares the hipLimit_t it was given with hipLimitRange as a signed int: a value past the range is
// InvalidValue, but one that reads as negative (static_cast<hipLimit_t>(-1)) falls through to the switch's
// default and is UnsupportedLimit. hip-tests' Unit_hipDeviceSetLimit_Negative_Parameters and
// Unit_hipDeviceGetLimit_Negative_Parameters expect exactly that on AMD.
bool PastRange(uint32_t limit) {
  return static_cast<int32_t>(limit) >= static_cast<int32_t>(Limit::kRange);
}

// The scratch limits (hipExtLimitScratchMin/Max/Current) are answered by ROCclr from the HSA agent
// (HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX/CURRENT, hsa_amd_agent_set_async_scratch_limit). hipmem's queues have no
// scratch memory (hsa/queue.h), so there is nothing to report or bound and these stay UnsupportedLimit.
// TODO(#9): model the scratch limits once queues own scratch.

}  // namespace

struct DeviceLimits::Table {
  mutable absl::Mutex mu;
  std::vector<Values> values ABSL_GUARDED_BY(mu);
};

size_t DeviceLimits::MaxStackSizeFor(uint32_t gfx_major) {
  constexpr size_t kCompilerReserved = 64;
  constexpr size_t kWave15 = (size_t{1} << 15) - 1;  // COMPUTE_TMPRING_SIZE.WAVESIZE on gfx8 .. gfx11
  constexpr size_t kWave18 = (size_t{1} << 18) - 1;  // and on gfx12+
  if (gfx_major <= 9) return kWave15 * 256 / 64 - kCompilerReserved;
  if (gfx_major <= 11) return kWave15 * 256 / 32 - kCompilerReserved;
  return kWave18 * 256 / 32 - kCompilerReserved;
}

DeviceLimits::DeviceLimits(std::vector<Bounds> devices) : table_(std::make_unique<Table>()) {
  ScopedLock lock(&table_->mu);
  table_->values.reserve(devices.size());
  for (const Bounds& b : devices) table_->values.push_back(Values{b});
}

DeviceLimits::~DeviceLimits() = default;

absl::StatusOr<size_t> DeviceLimits::Get(int device, uint32_t limit) const {
  if (PastRange(limit)) {
    return absl::InvalidArgumentError(absl::StrCat("hipDeviceGetLimit(0x", absl::Hex(limit), "): not a hipLimit_t"));
  }
  ScopedLock lock(&table_->mu);
  const Values& v = table_->values[device];
  switch (static_cast<Limit>(limit)) {
    case Limit::kStackSize:
      return v.stack_size;
    case Limit::kMallocHeapSize:
      return v.malloc_heap_size;
    default:
      return Unsupported("hipDeviceGetLimit", limit);
  }
}

absl::Status DeviceLimits::Set(int device, uint32_t limit, size_t value) {
  if (PastRange(limit)) {
    return absl::InvalidArgumentError(absl::StrCat("hipDeviceSetLimit(0x", absl::Hex(limit), "): not a hipLimit_t"));
  }
  ScopedLock lock(&table_->mu);
  Values& v = table_->values[device];
  switch (static_cast<Limit>(limit)) {
    case Limit::kStackSize:
      if (value > v.bounds.max_stack_size) {
        return absl::InvalidArgumentError(absl::StrCat("hipDeviceSetLimit(hipLimitStackSize, ", value,
                                                       "): more than ", v.bounds.max_stack_size, " B per lane"));
      }
      // No overflow: value is at most max_stack_size, far below SIZE_MAX.
      v.stack_size = (value + kStackSizeAlignment - 1) / kStackSizeAlignment * kStackSizeAlignment;
      return absl::OkStatus();
    case Limit::kMallocHeapSize:
      if (value >= v.bounds.global_mem_size) {
        return absl::InvalidArgumentError(absl::StrCat("hipDeviceSetLimit(hipLimitMallocHeapSize, ", value,
                                                       "): not below the device's ", v.bounds.global_mem_size,
                                                       " B of global memory"));
      }
      v.malloc_heap_size = value;
      return absl::OkStatus();
    default:
      return Unsupported("hipDeviceSetLimit", limit);
  }
}

}  // namespace hipmem::hip
