#include "hip/runtime.h"

#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"

namespace hipmem::hip {
namespace {

thread_local int t_current_device = 0;

// Every flag hipHostMalloc accepts (hip_runtime_api.h).
constexpr uint32_t kHostMallocKnownFlags = hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined |
                                           hipHostMallocNumaUser | hipHostMallocCoherent | hipHostMallocNonCoherent;

bool ValidKind(MemcpyKind kind) {
  const auto raw = static_cast<uint32_t>(kind);
  return raw <= static_cast<uint32_t>(MemcpyKind::kDefault) || kind == MemcpyKind::kDeviceToDeviceNoCu;
}

DeviceAddress Address(const void* p) { return DeviceAddress::FromPointer(p); }

}  // namespace

absl::StatusOr<Runtime*> Runtime::Get() {
  // Never destroyed: HIP programs call into the runtime from atexit handlers and static destructors.
  static const absl::StatusOr<Runtime*>* const runtime = []() -> absl::StatusOr<Runtime*>* {
    absl::StatusOr<std::unique_ptr<clr::Context>> context = clr::Context::Create();
    if (context.ok()) return new absl::StatusOr<Runtime*>(new Runtime(*std::move(context)));
    if (absl::IsNotFound(context.status())) {
      return new absl::StatusOr<Runtime*>(
          WithHipError(Recode(context.status(), absl::StatusCode::kFailedPrecondition), hipErrorNoDevice));
    }
    return new absl::StatusOr<Runtime*>(
        WithHipError(Recode(context.status(), absl::StatusCode::kInvalidArgument), hipErrorInvalidDevice));
  }();
  return *runtime;
}

Runtime::Runtime(std::unique_ptr<clr::Context> context) : context_(std::move(context)) {}

int Runtime::current_device() const { return t_current_device; }

const clr::Device& Runtime::CurrentDevice() const {
  // SetDevice only stores valid ordinals, and devices never go away.
  return context_->devices()[t_current_device];
}

absl::Status Runtime::SetDevice(int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) {
    return InvalidDeviceError(absl::StrCat("hipSetDevice(", ordinal, "): ", device_count(), " devices"));
  }
  t_current_device = ordinal;
  return absl::OkStatus();
}

absl::StatusOr<void*> Runtime::Malloc(size_t size) {
  if (size == 0) return nullptr;
  const clr::Device& device = CurrentDevice();
  absl::StatusOr<DeviceAddress> base = context_->AllocDevice(device, Bytes(size), 0);
  if (!base.ok()) {
    return Recode(Annotate(base.status(), absl::StrCat("hipMalloc(", size, ")")), absl::StatusCode::kResourceExhausted);
  }
  Trace(Layer::kHip, "hipMalloc(", size, ") -> ", AddressText(*base));
  return base->ToPointer();
}

absl::StatusOr<void*> Runtime::HostMalloc(size_t size, uint32_t flags) {
  const std::string context = absl::StrCat("hipHostMalloc(", size, ", flags=0x", absl::Hex(flags), ")");
  if ((flags & ~kHostMallocKnownFlags) != 0) return absl::InvalidArgumentError(absl::StrCat(context, ": unknown flags"));
  if ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent)) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": Coherent and NonCoherent together"));
  }
  if (size == 0) return nullptr;
  const clr::HostCoherence coherence =
      (flags & hipHostMallocNonCoherent) ? clr::HostCoherence::kNonCoherent : clr::HostCoherence::kCoherent;
  absl::StatusOr<DeviceAddress> base = context_->AllocHost(CurrentDevice(), Bytes(size), coherence, flags);
  if (!base.ok()) return Recode(Annotate(base.status(), context), absl::StatusCode::kResourceExhausted);
  Trace(Layer::kHip, context, " -> ", AddressText(*base));
  return base->ToPointer();
}

absl::Status Runtime::Free(void* ptr) {
  if (ptr == nullptr) return absl::OkStatus();
  // Upstream hipFree first synchronises the owning device's streams; this stack has no streams yet.
  absl::Status s = context_->Free(Address(ptr));
  if (absl::IsNotFound(s)) return Recode(Annotate(s, absl::StrCat("hipFree(", AddressText(ptr), ")")), absl::StatusCode::kInvalidArgument);
  RETURN_IF_ERROR(s);
  Trace(Layer::kHip, "hipFree(", AddressText(ptr), ")");
  return absl::OkStatus();
}

absl::Status Runtime::Memcpy(void* dst, const void* src, size_t size, MemcpyKind kind) {
  const std::string context = absl::StrCat("hipMemcpy(", AddressText(dst), ", ", AddressText(src), ", ", size, ", kind=", static_cast<uint32_t>(kind), ")");
  if (size == 0) return absl::OkStatus();
  if (dst == nullptr || src == nullptr) return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer"));
  if (!ValidKind(kind)) return InvalidMemcpyDirectionError(absl::StrCat(context, ": not a hipMemcpyKind"));
  if (dst == src && kind == MemcpyKind::kDefault) return absl::OkStatus();
  const bool dst_known = context_->Find(Address(dst)).has_value();
  const bool src_known = context_->Find(Address(src)).has_value();
  if (!dst_known && !src_known && kind != MemcpyKind::kHostToHost && kind != MemcpyKind::kDefault) {
    // Neither side is memory HIP knows, and the (simulated) device cannot reach pageable memory.
    return absl::InvalidArgumentError(absl::StrCat(context, ": neither pointer is device-accessible"));
  }
  absl::StatusOr<clr::CopyDirection> direction = context_->Copy(Address(dst), Address(src), Bytes(size));
  if (absl::IsOutOfRange(direction.status())) {
    return Recode(Annotate(direction.status(), context), absl::StatusCode::kInvalidArgument);
  }
  RETURN_IF_ERROR(Annotate(direction.status(), context));
  Trace(Layer::kHip, context);
  return absl::OkStatus();
}

absl::StatusOr<clr::MemInfo> Runtime::MemGetInfo() { return context_->GetMemInfo(CurrentDevice()); }

PointerAttributes Runtime::GetPointerAttributes(const void* ptr) const {
  PointerAttributes attributes;
  const std::optional<clr::MemObjRef> ref = context_->Find(Address(ptr));
  if (!ref.has_value()) return attributes;
  const bool host = ref->desc.kind == clr::MemoryKind::kHost;
  attributes.type = host ? MemoryType::kHost : MemoryType::kDevice;
  attributes.device = ref->desc.device;
  attributes.device_pointer = const_cast<void*>(ptr);  // GPU VA == CPU VA, offset included
  attributes.host_pointer = host ? const_cast<void*>(ptr) : nullptr;
  attributes.allocation_flags = ref->desc.user_flags;
  return attributes;
}

}  // namespace hipmem::hip
