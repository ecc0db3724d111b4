#include "hip/device_limits.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"

namespace hipmem::hip {
namespace {

struct Values {
  size_t stack_size = DeviceLimits::kDefaultStackSize;
  size_t malloc_heap_size = DeviceLimits::kDefaultMallocHeapSize;
};

absl::Status Unsupported(absl::string_view op, uint32_t limit) {
  return WithHipError(absl::UnimplementedError(absl::StrCat(op, "(limit=0x", absl::Hex(limit), "): unsupported limit")),
                      hipErrorUnsupportedLimit);
}

}  // namespace

struct DeviceLimits::Table {
  mutable absl::Mutex mu;
  std::vector<Values> values ABSL_GUARDED_BY(mu);
};

DeviceLimits::DeviceLimits(int device_count) : table_(std::make_unique<Table>()) {
  ScopedLock lock(&table_->mu);
  table_->values.resize(static_cast<size_t>(device_count));
}

DeviceLimits::~DeviceLimits() = default;

absl::StatusOr<size_t> DeviceLimits::Get(int device, uint32_t limit) const {
  if (limit >= static_cast<uint32_t>(Limit::kRange)) {
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
  if (limit >= static_cast<uint32_t>(Limit::kRange)) {
    return absl::InvalidArgumentError(absl::StrCat("hipDeviceSetLimit(0x", absl::Hex(limit), "): not a hipLimit_t"));
  }
  ScopedLock lock(&table_->mu);
  Values& v = table_->values[device];
  switch (static_cast<Limit>(limit)) {
    case Limit::kStackSize:
      if (value > kMaxStackSize) {
        return absl::InvalidArgumentError(
            absl::StrCat("hipDeviceSetLimit(hipLimitStackSize, ", value, "): more than ", kMaxStackSize, " B"));
      }
      v.stack_size = value;
      return absl::OkStatus();
    case Limit::kMallocHeapSize:
      v.malloc_heap_size = value;
      return absl::OkStatus();
    default:
      return Unsupported("hipDeviceSetLimit", limit);
  }
}

}  // namespace hipmem::hip
