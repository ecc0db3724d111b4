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

// A GPU without access to the other's VRAM: CLR sends the copy through its P2P staging buffer in host
// memory, the host waiting for each half. The same here, in GPU_STAGING_BUFFER_SIZE chunks, after the work
// already queued on every device involved (the caller's stream may be on a third one).
absl::Status StagedPeerCopy(Runtime& runtime, void* dst, const void* src, size_t size, absl::string_view context) {
  clr::Context& clr = runtime.context();
  const std::optional<clr::MemObjRef> d = clr.Find(Address(dst));
  const std::optional<clr::MemObjRef> s = clr.Find(Address(src));
  for (int device : {runtime.current_device(), d->desc.device, s->desc.device}) {
    RETURN_IF_ERROR(Annotate(runtime.streams().SynchronizeDevice(device), context));
  }
  const Bytes chunk = std::min(Bytes(size), clr.settings().staged_xfer_size);
  ASSIGN_OR_RETURN(DeviceAddress staging,
                   clr.AllocHost(clr.devices()[s->desc.device], chunk, clr::HostCoherence::kCoherent, 0));
  absl::Status result;
  for (size_t done = 0; done < size && result.ok(); done += chunk.raw()) {
    const size_t n = std::min<size_t>(chunk.raw(), size - done);
    result = runtime.Memcpy(staging.ToPointer(), static_cast<const char*>(src) + done, n, MemcpyKind::kDeviceToHost);
    if (result.ok()) {
      result = runtime.Memcpy(static_cast<char*>(dst) + done, staging.ToPointer(), n, MemcpyKind::kHostToDevice);
    }
  }
  absl::Status freed = clr.Free(staging);
  RETURN_IF_ERROR(Annotate(result, context));
  Trace(Layer::kHip, context, ": no peer path, staged through host memory in ", chunk.raw(), " B chunks");
  return freed;
}

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
  absl::StatusOr<DeviceAddress> base;
  switch (kind) {
    case ExtMallocKind::kSignalMemory:
      // CLR makes it a fine-grained, coherent SVM buffer of the host context: system memory every GPU reaches.
      base = clr.AllocHost(device, Bytes(size), clr::HostCoherence::kCoherent, flags);
      break;
    case ExtMallocKind::kDefault:
      base = clr.AllocDevice(device, Bytes(size), flags);
      break;
    case ExtMallocKind::kFinegrained:
      base = clr.AllocDevice(device, Bytes(size), flags, {clr::DeviceGrain::kFineGrained, /*contiguous=*/false});
      break;
    case ExtMallocKind::kUncached:
      base = clr.AllocDevice(device, Bytes(size), flags, {clr::DeviceGrain::kUncached, /*contiguous=*/false});
      break;
    case ExtMallocKind::kContiguous:
      base = clr.AllocDevice(device, Bytes(size), flags, {clr::DeviceGrain::kUncached, /*contiguous=*/true});
      break;
  }
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
  const std::optional<clr::MemObjRef> d = runtime.context().Find(Address(dst));
  const std::optional<clr::MemObjRef> s = runtime.context().Find(Address(src));
  if (size != 0 && d.has_value() && s.has_value() && d->desc.kind == clr::MemoryKind::kDevice &&
      s->desc.kind == clr::MemoryKind::kDevice && d->desc.device != s->desc.device) {
    const clr::Context& clr = runtime.context();
    const clr::Device& dst_owner = clr.devices()[d->desc.device];
    const clr::Device& src_owner = clr.devices()[s->desc.device];
    // The copy runs on the destination's device (MemcpyAsync), reading the source's VRAM: direct only when that
    // device enabled access to it, as CLR checks its P2P access list before the blit, else staged.
    if (!clr.PeerAccessEnabled(dst_owner, src_owner)) {
      return StagedPeerCopy(runtime, dst, src, size, context);
    }
  }
  return runtime.MemcpyAsync(dst, src, size, MemcpyKind::kDeviceToDevice, stream);
}

}  // namespace hipmem::hip
