#include "hip/pointer_info.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "clr/context.h"
#include "clr/mem_obj_map.h"
#include "hip/hip_error.h"

namespace hipmem::hip {
namespace {

// hipMemoryType values.
constexpr uint32_t kMemoryTypeHost = 1;
constexpr uint32_t kMemoryTypeDevice = 2;
constexpr uint32_t kMemoryTypeManaged = 3;  // hipMemoryTypeManaged

PointerAttributeAnswer Fail(PointerAttributeValue written, uint32_t attribute, const void* ptr,
                            absl::string_view why) {
  return {written, absl::InvalidArgumentError(absl::StrCat("hipPointerGetAttribute(", attribute, ", ",
                                                           AddressText(ptr), "): ", why))};
}

PointerAttributeAnswer NotSupported(uint32_t attribute) {
  return {std::monostate(),
          absl::UnimplementedError(absl::StrCat("hipPointerGetAttribute(", attribute, "): not supported on AMD"))};
}

}  // namespace

void* DeviceContextHandle(const Runtime& runtime, int ordinal) {
  // The clr::Device lives as long as the runtime: its address is a stable, per-device opaque value.
  return const_cast<clr::Device*>(&runtime.context().devices()[ordinal]);
}

PointerAttributeAnswer GetPointerAttribute(const Runtime& runtime, uint32_t attribute, const void* ptr) {
  const std::optional<clr::MemObjRef> ref = runtime.context().Find(DeviceAddress::FromPointer(ptr));
  constexpr absl::string_view kUnknown = "no HIP allocation there";
  // CLR's memory type: host for fine-grained SVM (hipHostMalloc, signal memory) and USE_HOST_PTR (registered).
  const bool host = ref.has_value() && ref->desc.kind != clr::MemoryKind::kDevice;
  switch (static_cast<PointerAttribute>(attribute)) {
    case PointerAttribute::kContext:
      if (!ref.has_value()) return Fail(std::monostate(), attribute, ptr, kUnknown);
      if (host) return Fail(std::monostate(), attribute, ptr, "host memory belongs to no device's context");
      return {DeviceContextHandle(runtime, ref->desc.device), absl::OkStatus()};
    case PointerAttribute::kMemoryType:
      // Not an allocation: CLR then looks for a hipArray, which hipmem has none of.
      if (!ref.has_value()) return Fail(uint32_t{0}, attribute, ptr, kUnknown);
      if (ref->desc.kind == clr::MemoryKind::kManaged) return {kMemoryTypeManaged, absl::OkStatus()};
      return {host ? kMemoryTypeHost : kMemoryTypeDevice, absl::OkStatus()};
    case PointerAttribute::kDevicePointer:
      if (!ref.has_value()) return Fail(static_cast<void*>(nullptr), attribute, ptr, kUnknown);
      // As current CLR: another device's VRAM has no address for the current device until it enables peer access.
      if (const int current = runtime.current_device();
          ref->desc.kind == clr::MemoryKind::kDevice && ref->desc.device != current &&
          !runtime.context().PeerAccessEnabled(runtime.context().devices()[current],
                                               runtime.context().devices()[ref->desc.device])) {
        return Fail(static_cast<void*>(nullptr), attribute, ptr,
                    "another device's memory, and the current device has not enabled peer access to it");
      }
      return {(ref->desc.gpu_address + ref->offset).ToPointer(), absl::OkStatus()};
    case PointerAttribute::kHostPointer:
      if (!ref.has_value()) return Fail(static_cast<void*>(nullptr), attribute, ptr, kUnknown);
      if (!host) return Fail(static_cast<void*>(nullptr), attribute, ptr, "device memory has no host pointer");
      return {(ref->desc.range.base + ref->offset).ToPointer(), absl::OkStatus()};
    case PointerAttribute::kSyncMemops:
      if (!ref.has_value()) return Fail(false, attribute, ptr, kUnknown);
      return {ref->desc.sync_mem_ops, absl::OkStatus()};
    case PointerAttribute::kBufferId:
      if (!ref.has_value()) return Fail(uint32_t{0}, attribute, ptr, kUnknown);
      return {static_cast<uint32_t>(ref->desc.buffer_id), absl::OkStatus()};
    case PointerAttribute::kIsManaged:
      if (!ref.has_value()) return Fail(false, attribute, ptr, kUnknown);
      return {ref->desc.kind == clr::MemoryKind::kManaged, absl::OkStatus()};
    case PointerAttribute::kDeviceOrdinal:
      if (!ref.has_value()) return Fail(kInvalidDeviceId, attribute, ptr, kUnknown);
      return {static_cast<int32_t>(ref->desc.device), absl::OkStatus()};
    case PointerAttribute::kIsLegacyHipIpcCapable:
      // Only hipMalloc-style device memory can be shared through hipIpcGetMemHandle.
      if (!ref.has_value()) return Fail(int32_t{0}, attribute, ptr, kUnknown);
      return {int32_t{host ? 0 : 1}, absl::OkStatus()};
    case PointerAttribute::kRangeStartAddr:
      if (!ref.has_value()) return Fail(static_cast<void*>(nullptr), attribute, ptr, kUnknown);
      // Registered memory answers its host range; everything else its device address (the same value).
      return {(ref->desc.kind == clr::MemoryKind::kRegistered ? ref->desc.range.base : ref->desc.gpu_address)
                  .ToPointer(),
              absl::OkStatus()};
    case PointerAttribute::kRangeSize:
      if (!ref.has_value()) return Fail(uint32_t{0}, attribute, ptr, kUnknown);
      return {static_cast<uint32_t>(ref->desc.range.size.raw()), absl::OkStatus()};
    case PointerAttribute::kMapped:
      if (!ref.has_value()) return Fail(false, attribute, ptr, kUnknown);
      return {true, absl::OkStatus()};
    case PointerAttribute::kAccessFlags:
      // CLR answers 0 for unknown memory without failing.
      return {ref.has_value() ? ref->desc.user_flags : uint32_t{0}, absl::OkStatus()};
    case PointerAttribute::kP2pTokens:
    case PointerAttribute::kAllowedHandleTypes:
    case PointerAttribute::kIsGpuDirectRdmaCapable:
    case PointerAttribute::kMempoolHandle:
      return NotSupported(attribute);
  }
  return Fail(std::monostate(), attribute, ptr, "not a hipPointer_attribute");
}

absl::Status SetPointerAttribute(Runtime& runtime, uint32_t attribute, uint32_t value, const void* ptr) {
  const std::string context = absl::StrCat("hipPointerSetAttribute(", attribute, ", ", value, ", ", AddressText(ptr), ")");
  if (static_cast<PointerAttribute>(attribute) != PointerAttribute::kSyncMemops) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": only HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS can be set"));
  }
  if (value > 1) return absl::InvalidArgumentError(absl::StrCat(context, ": SYNC_MEMOPS is 0 or 1"));
  absl::Status set = runtime.context().SetSyncMemOps(DeviceAddress::FromPointer(ptr), value == 1);
  if (absl::IsNotFound(set)) return InvalidDevicePointerError(absl::StrCat(context, ": ", set.message()));
  return set;
}

absl::Status GetHandleForAddressRange(const Runtime& runtime, const void* handle, const void* dptr, size_t size,
                                      uint32_t handle_type, unsigned long long flags) {
  constexpr uint32_t kDmaBufFd = 1;  // hipMemRangeHandleTypeDmaBufFd
  const std::string context = absl::StrCat("hipMemGetHandleForAddressRange(", AddressText(dptr), ", size=", size,
                                           ", type=", handle_type, ", flags=", flags, ")");
  if (handle == nullptr || dptr == nullptr || size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": null handle or address, or size 0"));
  }
  if (handle_type != kDmaBufFd) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": only hipMemRangeHandleTypeDmaBufFd"));
  }
  if (flags != 0) return absl::InvalidArgumentError(absl::StrCat(context, ": no flags are defined"));
  if (!runtime.context().Find(DeviceAddress::FromPointer(dptr)).has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": no HIP allocation there"));
  }
  return absl::UnimplementedError(absl::StrCat(context, ": dma-buf export is not modelled (DMABUF_SUPPORTED is false)"));
}

}  // namespace hipmem::hip
