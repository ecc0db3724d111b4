#include "hip/managed.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "base/units.h"
#include "clr/cpu_device_id.h"
#include "hip/hip_error.h"

namespace hipmem::hip {
namespace {

// hip_runtime_api.h's values, kept here so this file needs no C header.
constexpr uint32_t kMemAttachGlobal = 0x01;
constexpr uint32_t kMemAttachHost = 0x02;
constexpr uint32_t kMemAttachSingle = 0x04;
// hipMemRangeAttribute.
constexpr uint32_t kRangeReadMostly = 1;
constexpr uint32_t kRangePreferredLocation = 2;
constexpr uint32_t kRangeAccessedBy = 3;
constexpr uint32_t kRangeLastPrefetchLocation = 4;
constexpr uint32_t kRangeCoherencyMode = 100;

ABSL_CONST_INIT absl::Mutex g_mu(absl::kConstInit);

DeviceAddress Address(const void* p) { return DeviceAddress::FromPointer(p); }

// A device value of hipMemAdvise / hipMemPrefetchAsync: an ordinal, or the CPU.
absl::Status CheckDevice(const Runtime& runtime, absl::string_view op, int device) {
  if (device == clr::kCpuDeviceId) return absl::OkStatus();
  if (device < 0 || static_cast<size_t>(device) >= runtime.context().devices().size()) {
    return InvalidDeviceError(absl::StrCat(op, ": device ", device, " does not exist"));
  }
  return absl::OkStatus();
}

int ToHipLocation(const std::optional<int>& location) { return location.value_or(kInvalidDeviceId); }

}  // namespace

clr::ManagedMemory& ManagedOf(Runtime& runtime) {
  // One per runtime, never destroyed: the runtime is not either (Runtime::Get), and prefetches may still run
  // during static destruction.
  static auto* const managed = new absl::flat_hash_map<Runtime*, clr::ManagedMemory*>();
  ScopedLock lock(&g_mu);
  clr::ManagedMemory*& slot = (*managed)[&runtime];
  if (slot == nullptr) slot = new clr::ManagedMemory(runtime.context());
  return *slot;
}

absl::StatusOr<void*> MallocManaged(Runtime& runtime, size_t size, uint32_t flags) {
  const std::string op = absl::StrCat("hipMallocManaged(", size, ", flags=0x", absl::Hex(flags), ")");
  if (size == 0) return absl::InvalidArgumentError(absl::StrCat(op, ": size 0"));
  if (flags != kMemAttachGlobal && flags != kMemAttachHost) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": flags must be hipMemAttachGlobal or hipMemAttachHost"));
  }
  const clr::Device& device = runtime.context().devices()[runtime.current_device()];
  ASSIGN_OR_RETURN(const DeviceAddress base, ManagedOf(runtime).Allocate(device, Bytes(size), flags));
  if (TraceEnabled()) Trace(Layer::kHip, op, " = ", AddressText(base));
  return base.ToPointer();
}

absl::Status MemAdvise(Runtime& runtime, const void* ptr, size_t count, uint32_t advice, int device) {
  const std::string op = absl::StrCat("hipMemAdvise(", AddressText(ptr), ", ", count, ", ", advice, ", ", device, ")");
  if (ptr == nullptr || count == 0) return absl::InvalidArgumentError(absl::StrCat(op, ": null pointer or count 0"));
  RETURN_IF_ERROR(CheckDevice(runtime, op, device));
  return ManagedOf(runtime).Advise(Address(ptr), Bytes(count), static_cast<clr::MemoryAdvice>(advice), device);
}

absl::Status MemPrefetchAsync(Runtime& runtime, const void* ptr, size_t count, int device, StreamHandle handle) {
  const std::string op = absl::StrCat("hipMemPrefetchAsync(", AddressText(ptr), ", ", count, ", ", device, ")");
  if (ptr == nullptr || count == 0) return absl::InvalidArgumentError(absl::StrCat(op, ": null pointer or count 0"));
  RETURN_IF_ERROR(CheckDevice(runtime, op, device));
  if (!runtime.context().Find(Address(ptr)).has_value()) {
    // CLR prefetches system memory only where the GPUs reach pageable memory (XNACK); hipmem does not prefetch
    // memory it did not allocate at all.
    return WithHipError(absl::UnimplementedError(absl::StrCat(op, ": not memory HIP allocated")), hipErrorNotSupported);
  }
  // CLR: the CPU's prefetch goes on the current device's null stream, a GPU's on that GPU's.
  const int stream_device = device == clr::kCpuDeviceId ? runtime.current_device() : device;
  ASSIGN_OR_RETURN(HipStream * stream, runtime.streams().Resolve(handle, stream_device));
  RETURN_IF_ERROR(runtime.streams().BeforeCommand(*stream));
  return ManagedOf(runtime).Prefetch(Address(ptr), Bytes(count), device, stream->queue());
}

absl::Status MemRangeGetAttribute(Runtime& runtime, void* data, size_t data_size, uint32_t attribute,
                                  const void* ptr, size_t count) {
  const std::string op = absl::StrCat("hipMemRangeGetAttribute(", attribute, ", ", AddressText(ptr), ", ", count, ")");
  if (data == nullptr || data_size == 0 || ptr == nullptr || count == 0) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": null or empty argument"));
  }
  const bool one_int = attribute == kRangeReadMostly || attribute == kRangePreferredLocation ||
                       attribute == kRangeLastPrefetchLocation || attribute == kRangeCoherencyMode;
  if (one_int && data_size != sizeof(int32_t)) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": data_size ", data_size, " is not 4"));
  }
  if (attribute == kRangeAccessedBy && data_size % sizeof(int32_t) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": data_size ", data_size, " is not a multiple of 4"));
  }
  if (!one_int && attribute != kRangeAccessedBy) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": not a hipMemRangeAttribute"));
  }
  ASSIGN_OR_RETURN(const clr::ManagedRangeAttributes got, ManagedOf(runtime).GetAttributes(Address(ptr), Bytes(count)));
  auto put = [data](int32_t value) { std::memcpy(data, &value, sizeof(value)); };
  switch (attribute) {
    case kRangeReadMostly: put(got.read_mostly ? 1 : 0); break;
    case kRangePreferredLocation: put(ToHipLocation(got.preferred_location)); break;
    case kRangeLastPrefetchLocation: put(ToHipLocation(got.last_prefetch)); break;
    case kRangeCoherencyMode: put(static_cast<int32_t>(got.grain)); break;
    case kRangeAccessedBy: {
      std::vector<int32_t> slots(data_size / sizeof(int32_t), kInvalidDeviceId);
      for (size_t i = 0; i < slots.size() && i < got.accessed_by.size(); ++i) slots[i] = got.accessed_by[i];
      std::memcpy(data, slots.data(), slots.size() * sizeof(int32_t));
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status StreamAttachMemAsync(Runtime& runtime, StreamHandle handle, void* ptr, size_t length, uint32_t flags) {
  const std::string op =
      absl::StrCat("hipStreamAttachMemAsync(", AddressText(ptr), ", ", length, ", flags=0x", absl::Hex(flags), ")");
  if (ptr == nullptr) return absl::InvalidArgumentError(absl::StrCat(op, ": null pointer"));
  if (flags != kMemAttachGlobal && flags != kMemAttachHost && flags != kMemAttachSingle) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": unknown flags"));
  }
  if (flags == kMemAttachSingle && handle.raw() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": hipMemAttachSingle needs a stream"));
  }
  RETURN_IF_ERROR(runtime.streams().Resolve(handle, runtime.current_device()).status());
  const std::optional<clr::MemObjRef> ref = runtime.context().Find(Address(ptr));
  if (!ref.has_value()) {
    // Pageable memory could be attached only where the GPUs reach it (XNACK); hipmem tracks none.
    return absl::InvalidArgumentError(absl::StrCat(op, ": not memory HIP allocated"));
  }
  if (ref->desc.kind == clr::MemoryKind::kManaged && length != 0 && length != ref->desc.range.size.raw()) {
    // CLR compares with the buffer's size as allocated; hipmem's buffers are whole pages, so both are accepted.
    const std::optional<Bytes> asked = AlignUp(Bytes(length), Bytes::KiB(4));
    if (!asked.has_value() || *asked != ref->desc.range.size) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": length is neither 0 nor the buffer's size"));
    }
  }
  return absl::OkStatus();
}

}  // namespace hipmem::hip
