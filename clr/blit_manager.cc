#include "clr/blit_manager.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/scoped_lock.h"
#include "base/trace.h"
#include "hsa/memory.h"
#include "hsa/runtime.h"

namespace hipmem::clr {
namespace {

// CLR pins whole pages (PinnedMemoryAlignment).
constexpr Bytes kPinAlignment = Bytes::KiB(4);

}  // namespace

absl::StatusOr<std::unique_ptr<BlitManager>> BlitManager::Create(Context& context, Stream& stream) {
  const Bytes chunk = context.settings().staged_xfer_size;
  if (chunk.is_zero()) return absl::InvalidArgumentError("GPU_STAGING_BUFFER_SIZE=0 leaves no staging buffer");
  ASSIGN_OR_RETURN(hsa::PoolAllocation staging,
                   context.runtime().Allocate(stream.device().host_pool, Bytes(chunk.raw() * kStagingChunks)));
  return std::unique_ptr<BlitManager>(new BlitManager(context, stream, std::move(staging)));
}

BlitManager::BlitManager(Context& context, Stream& stream, hsa::PoolAllocation staging)
    : context_(context), stream_(stream), staging_(std::move(staging)), chunk_(context.settings().staged_xfer_size) {}

BlitManager::~BlitManager() {
  for (std::optional<Marker>& use : chunk_use_) {
    if (use.has_value()) (void)use->Wait();  // a failed command has stopped touching the ring too
  }
  // staging_ goes with the members.
}

absl::StatusOr<BlitManager::Side> BlitManager::SideOf(const ResolvedPointer& pointer, Bytes size) const {
  const DeviceAddress address = pointer.address;
  if (address.raw() == 0) return absl::InvalidArgumentError("copy with a null pointer");
  const std::optional<MemObjRef>& ref = pointer.object;
  if (!ref.has_value()) {
    return Side{.policy = {CopySide::Kind::kPageable}, .host = address, .gpu = address, .agent = context_.host_agent()};
  }
  if (size > ref->desc.range.size - ref->offset) {
    return absl::OutOfRangeError(absl::StrCat("copy of ", size.raw(), " B at ", AddressText(address),
                                              " runs past the ", ref->desc.range.size.raw(), " B object at ",
                                              AddressText(ref->desc.range.base)));
  }
  const DeviceAddress gpu = ref->desc.gpu_address + ref->offset;
  // Where the CPU reaches it: not `address` when that is registered memory's GPU address (the object map
  // resolves both).
  const DeviceAddress host = ref->desc.range.base + ref->offset;
  if (ref->desc.kind == MemoryKind::kDevice) {
    ASSIGN_OR_RETURN(const Device* device, context_.GetDevice(ref->desc.device));
    return Side{.policy = {CopySide::Kind::kDevice, ref->desc.device},
                .host = host,
                .gpu = gpu,
                .agent = device->agent,
                .reach = hsa::ResolvedSide::Reach::kOwner};
  }
  // Pinned and registered memory are mapped for every GPU (system memory the runtime allocates, a lock for every
  // GPU); managed memory is never pinned by ROCr (Copy keeps it off SDMA), and its pages move.
  const bool managed = ref->desc.kind == MemoryKind::kManaged;
  return Side{.policy = {CopySide::Kind::kHostDirect},
              .host = host,
              .gpu = gpu,
              .agent = context_.host_agent(),
              .managed = managed,
              .reach = managed ? hsa::ResolvedSide::Reach::kUnknown : hsa::ResolvedSide::Reach::kEveryGpu};
}

absl::StatusOr<DeviceAddress> BlitManager::Staging(int index) {
  if (std::optional<Marker>& use = chunk_use_[index]; use.has_value()) {
    RETURN_IF_ERROR(use->Wait());
    use.reset();
  }
  return staging_.address() + Bytes(chunk_.raw() * index);
}

absl::Status BlitManager::CopyOnGpu(const Side& dst, const Side& src, Bytes size, bool sdma) {
  if (sdma) {
    // A peer copy names this stream's device as its source agent, as CLR's rocrCopyBuffer does for SdmaInter:
    // ROCr then runs it on this device's engine, which reaches the peer's VRAM through peer access.
    const bool peer = dst.policy.kind == CopySide::Kind::kDevice && src.policy.kind == CopySide::Kind::kDevice &&
                      dst.policy.device != src.policy.device;
    hsa::ResolvedSide from = src.ForCopy();
    if (peer && from.agent != stream_.device().agent) {
      // Named after this device, the source is no longer its owner's: ROCr finds where this device reaches it
      // (its one lookup; a side on another GPU than the copying one, as `dst` may be, is looked up the same way).
      from.agent = stream_.device().agent;
      from.reach = hsa::ResolvedSide::Reach::kUnknown;
    }
    return stream_.SdmaCopy(dst.ForCopy(), from, size);
  }
  return stream_.ShaderCopy(dst.gpu, src.gpu, size);
}

absl::Status BlitManager::CopyPageable(const Side& dst, const Side& src, Bytes size, bool sdma,
                                       std::optional<Bytes> pin_above) {
  TraceSlice trace_slice(TraceCategory::kClr, "BlitManager::CopyPageable");
  const bool to_device = src.policy.kind == CopySide::Kind::kPageable;
  const Side& user = to_device ? src : dst;
  const Side& device = to_device ? dst : src;
  hsa::MemoryManager& memory = context_.runtime().memory();
  // Declared before the cleanup below, so that on every path they are unlocked after it waited.
  std::vector<hsa::HostLock> pins;
  absl::Status result;
  {
    // Pins go once the copies reading or writing them are done (CLR waits, then releases the pinned memory).
    absl::Cleanup unpin = [&] {
      if (pins.empty()) return;
      if (absl::Status s = stream_.Finish(); !s.ok() && result.ok()) result = s;
      for (hsa::HostLock& pin : pins) {
        if (absl::Status s = std::move(pin).Unlock(); !s.ok()) {
          HIPMEM_LOG(kError, "unpinning a copy chunk: ", s.message());
        }
      }
    };
    for (Bytes done; done < size;) {
      const Bytes remaining = size - done;
      if (pin_above.has_value() && remaining > *pin_above) {
        const Bytes n = std::min(remaining, context_.settings().pinned_xfer_size);
        const DeviceAddress start = user.host + done;
        const DeviceAddress aligned = AlignDown(start, kPinAlignment);
        const Bytes lead = start - aligned;
        // Cannot overflow: lead + n is at most a pinned chunk plus a page.
        const Bytes pinned_size = AlignDown(lead + n + kPinAlignment - Bytes(1), kPinAlignment);
        absl::StatusOr<hsa::HostLock> lock =
            memory.Lock(aligned.ToPointer(), pinned_size, std::span<const hsa::AgentId>(), std::nullopt);
        if (lock.ok()) {
          const Side pinned = MappedHost(start, lock->gpu_address() + lead);  // locked for every GPU
          pins.push_back(*std::move(lock));
          result = to_device ? CopyOnGpu(device.At(done), pinned, n, sdma) : CopyOnGpu(pinned, device.At(done), n, sdma);
          if (!result.ok()) return result;
          done += n;
          continue;
        }
        // CLR logs the failed pin and stages the chunk instead.
        Trace(Layer::kClr, "pinning ", n.raw(), " B at ", AddressText(start), " failed (", lock.status().message(),
              "): staging it");
      }
      const Bytes n = std::min(remaining, chunk_);
      const int index = next_chunk_;
      next_chunk_ = (next_chunk_ + 1) % kStagingChunks;
      absl::StatusOr<DeviceAddress> buffer = Staging(index);
      if (!buffer.ok()) return result = buffer.status();
      const Side staged = MappedHost(*buffer, *buffer);
      if (to_device) {
        std::memcpy(buffer->ToPointer(), (user.host + done).ToPointer(), n.raw());
        result = CopyOnGpu(device.At(done), staged, n, sdma);
        if (!result.ok()) return result;
        absl::StatusOr<Marker> use = stream_.MarkNewestCommand();
        if (!use.ok()) return result = use.status();
        chunk_use_[index] = *std::move(use);
      } else {
        result = CopyOnGpu(staged, device.At(done), n, sdma);
        if (!result.ok()) return result;
        absl::StatusOr<Marker> use = stream_.MarkNewestCommand();
        if (!use.ok()) return result = use.status();
        result = use->Wait();
        if (!result.ok()) return result;
        std::memcpy((user.host + done).ToPointer(), buffer->ToPointer(), n.raw());
      }
      done += n;
    }
  }
  return result;
}

absl::StatusOr<CopyPath> BlitManager::Copy(DeviceAddress dst, DeviceAddress src, Bytes size, bool prefer_sdma) {
  TraceSlice trace_slice(TraceCategory::kClr, "BlitManager::Copy");
  return Copy(context_.Resolve(dst), context_.Resolve(src), size, prefer_sdma);
}

absl::StatusOr<CopyPath> BlitManager::Copy(const ResolvedPointer& dst, const ResolvedPointer& src, Bytes size,
                                           bool prefer_sdma) {
  TraceSlice trace_slice(TraceCategory::kClr, "BlitManager::Copy");
  ScopedLock lock(&mu_);
  return CopyLocked(dst, src, size, prefer_sdma);
}

absl::Status BlitManager::Fill(DeviceAddress dst, uint32_t pattern, uint32_t element_size, uint64_t count) {
  return Fill(context_.Resolve(dst), pattern, element_size, count);
}

absl::Status BlitManager::Fill(const ResolvedPointer& dst, uint32_t pattern, uint32_t element_size, uint64_t count) {
  TraceSlice trace_slice(TraceCategory::kClr, "BlitManager::Fill");
  ScopedLock lock(&mu_);
  return FillLocked(dst, pattern, element_size, count);
}

absl::StatusOr<CopyPath> BlitManager::CopyRect(const PitchedSide& dst, const PitchedSide& src,
                                               const RectExtent& extent) {
  return CopyRect(ResolvedPitchedSide{context_.Resolve(dst.base), dst.row_pitch, dst.slice_pitch},
                  ResolvedPitchedSide{context_.Resolve(src.base), src.row_pitch, src.slice_pitch}, extent);
}

absl::StatusOr<CopyPath> BlitManager::CopyRect(const ResolvedPitchedSide& dst, const ResolvedPitchedSide& src,
                                               const RectExtent& extent) {
  TraceSlice trace_slice(TraceCategory::kClr, "BlitManager::CopyRect");
  ScopedLock lock(&mu_);
  return CopyRectLocked(dst, src, extent);
}

absl::Status BlitManager::FillRect(const PitchedSide& dst, uint8_t value, const RectExtent& extent) {
  return FillRect(ResolvedPitchedSide{context_.Resolve(dst.base), dst.row_pitch, dst.slice_pitch}, value, extent);
}

absl::Status BlitManager::FillRect(const ResolvedPitchedSide& dst, uint8_t value, const RectExtent& extent) {
  ScopedLock lock(&mu_);
  return FillRectLocked(dst, value, extent);
}

absl::Status BlitManager::FillLocked(const ResolvedPointer& dst, uint32_t pattern, uint32_t element_size,
                                     uint64_t count) {
  if (element_size == 0 || count > UINT64_MAX / element_size) {
    return absl::InvalidArgumentError(absl::StrCat("fill of ", count, " x ", element_size, " B: bad size"));
  }
  ASSIGN_OR_RETURN(const Side side, SideOf(dst, Bytes(count * element_size)));
  if (side.policy.kind == CopySide::Kind::kPageable) {
    return absl::InvalidArgumentError(
        absl::StrCat("fill at ", AddressText(dst.address), ": not memory the runtime allocated or registered"));
  }
  if (count == 0) return absl::OkStatus();
  return stream_.ShaderFill(side.gpu, pattern, element_size, count);
}

absl::StatusOr<CopyPath> BlitManager::CopyLocked(const ResolvedPointer& dst_pointer, const ResolvedPointer& src_pointer,
                                                 Bytes size, bool prefer_sdma) {
  const DeviceAddress dst_address = dst_pointer.address;
  const DeviceAddress src_address = src_pointer.address;
  ASSIGN_OR_RETURN(const Side dst, SideOf(dst_pointer, size));
  ASSIGN_OR_RETURN(const Side src, SideOf(src_pointer, size));
  CopyPath path = ChooseCopyPath(dst.policy, src.policy, size, prefer_sdma, context_.settings());
  // ROCr's SDMA path pins host memory it does not know (USERPTR), which the KFD refuses over an SVM range; every
  // GPU maps managed memory already, so the blit kernel reaches it where it lives.
  if (path == CopyPath::kSdma && (dst.managed || src.managed)) path = CopyPath::kShaderCopy;
  if (TraceEnabled()) {
    Trace(Layer::kClr, "blit ", size.raw(), " B ", AddressText(src_address), " -> ", AddressText(dst_address), ": ",
          CopyPathName(path));
  }
  if (size.is_zero()) return path;
  switch (path) {
    case CopyPath::kHostMemcpy:
      // The CPU copies once the stream's earlier work (which may write either side) is done.
      RETURN_IF_ERROR(stream_.Finish());
      std::memmove(dst.host.ToPointer(), src.host.ToPointer(), size.raw());
      break;
    case CopyPath::kShaderCopy:
    case CopyPath::kShaderCopyLimitedWg:
      RETURN_IF_ERROR(CopyOnGpu(dst, src, size, /*sdma=*/false));
      break;
    case CopyPath::kSdma:
      RETURN_IF_ERROR(CopyOnGpu(dst, src, size, /*sdma=*/true));
      break;
    case CopyPath::kStagedShaderCopy:
      RETURN_IF_ERROR(CopyPageable(dst, src, size, /*sdma=*/false, std::nullopt));
      break;
    case CopyPath::kStagedOrPinnedSdma:
      RETURN_IF_ERROR(CopyPageable(dst, src, size, /*sdma=*/true, context_.settings().pinned_min_xfer_size));
      break;
  }
  return path;
}

}  // namespace hipmem::clr
