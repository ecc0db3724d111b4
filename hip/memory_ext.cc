#include "hip/memory_ext.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "clr/context.h"
#include "hip/hip_error.h"

namespace hipmem::hip {
namespace {

DeviceAddress Address(const void* p) { return DeviceAddress::FromPointer(p); }

}  // namespace

absl::StatusOr<void*> ExtMallocWithFlags(Runtime& runtime, size_t size, uint32_t flags) {
  const std::string context = absl::StrCat("hipExtMallocWithFlags(", size, ", flags=", flags, ")");
  if (flags > static_cast<uint32_t>(ExtMallocKind::kContiguous)) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": not a hipDeviceMalloc kind"));
  }
  const auto kind = static_cast<ExtMallocKind>(flags);
  // A signal is one 64-bit value: CLR checks the size before anything else, zero included.
  if (kind == ExtMallocKind::kSignalMemory && size != 8) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": signal memory is 8 bytes"));
  }
  if (size == 0) return nullptr;
  clr::Context& clr = runtime.context();
  const clr::Device& device = clr.devices()[runtime.current_device()];
  absl::StatusOr<clr::Allocation> memory;
  switch (kind) {
    case ExtMallocKind::kSignalMemory:
      // CLR makes it a fine-grained, coherent SVM buffer of the host context: system memory every GPU reaches.
      memory = clr.AllocHost(device, Bytes(size), clr::HostCoherence::kCoherent, flags);
      break;
    case ExtMallocKind::kDefault:
      memory = clr.AllocDevice(device, Bytes(size), flags);
      break;
    case ExtMallocKind::kFinegrained:
      memory = clr.AllocDevice(device, Bytes(size), flags, {clr::DeviceGrain::kFineGrained, /*contiguous=*/false});
      break;
    case ExtMallocKind::kUncached:
      memory = clr.AllocDevice(device, Bytes(size), flags, {clr::DeviceGrain::kUncached, /*contiguous=*/false});
      break;
    case ExtMallocKind::kContiguous:
      memory = clr.AllocDevice(device, Bytes(size), flags, {clr::DeviceGrain::kUncached, /*contiguous=*/true});
      break;
  }
  // The caller's, until hipFree.
  absl::StatusOr<DeviceAddress> base = clr::Released(std::move(memory));
  if (!base.ok()) return Recode(Annotate(base.status(), context), absl::StatusCode::kResourceExhausted);
  Trace(Layer::kHip, context, " -> ", AddressText(*base));
  return base->ToPointer();
}

absl::StatusOr<AllocationExtent> MemGetAddressRange(const Runtime& runtime, const void* ptr) {
  const std::optional<clr::MemObjRef> ref = runtime.context().Find(Address(ptr));
  if (!ref.has_value()) {
    return absl::NotFoundError(absl::StrCat("hipMemGetAddressRange(", AddressText(ptr), "): no allocation there"));
  }
  return AllocationExtent{ref->desc.range.base.ToPointer(), static_cast<size_t>(ref->desc.range.size.raw())};
}

absl::StatusOr<size_t> MemPtrGetInfo(const Runtime& runtime, const void* ptr) {
  if (ptr == nullptr) return 0;
  const std::optional<clr::MemObjRef> ref = runtime.context().Find(Address(ptr));
  if (!ref.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("hipMemPtrGetInfo(", AddressText(ptr), "): no allocation there"));
  }
  return static_cast<size_t>(ref->desc.range.size.raw());
}

absl::Status MemcpyPeer(Runtime& runtime, void* dst, int dst_device, const void* src, int src_device, size_t size,
                        StreamHandle stream) {
  const std::string context = absl::StrCat("hipMemcpyPeer(", AddressText(dst), " on ", dst_device, ", ",
                                           AddressText(src), " on ", src_device, ", ", size, ")");
  for (int ordinal : {dst_device, src_device}) {
    if (ordinal < 0 || ordinal >= runtime.device_count()) {
      return InvalidDeviceError(absl::StrCat(context, ": there are ", runtime.device_count(), " devices"));
    }
  }
  // MemcpyAsync resolves it again; checked here because CLR checks the stream before the copy's arguments.
  RETURN_IF_ERROR(runtime.streams().Resolve(stream, runtime.current_device()).status());
  if (size != 0 && dst != nullptr && src != nullptr && !runtime.context().Find(Address(dst)).has_value() &&
      !runtime.context().Find(Address(src)).has_value()) {
    // A device-to-device kind with two pointers HIP does not know (CLR's host-to-host check).
    return absl::InvalidArgumentError(absl::StrCat(context, ": neither pointer is memory HIP allocated"));
  }
  // Without a peer path MemcpyAsync stages it through host memory, as CLR does.
  return runtime.MemcpyAsync(dst, src, size, MemcpyKind::kDeviceToDevice, stream);
}

}  // namespace hipmem::hip
