// Rectangle copies and fills of the blit manager (hipMemcpy2D/3D, hipMemset2D/3D).
//
// CLR's copyBufferRect runs a rectangle as one blit-kernel dispatch over the whole region, or as SDMA
// sub-window packets. Our blit kernels are one-dimensional, and a dispatch a row costs ~70 us in the simulator,
// so a rectangle between GPU-reachable sides goes to SDMA as sub-window copies (ROCr's
// hsa_amd_memory_async_copy_rect) when its bases and pitches are 4-byte aligned, and a row at a time on the
// engine the linear policy picks otherwise. Pageable sides are packed through the staging ring, a chunk of
// whole rows being one box. A fill of separate rows stages rows of the value once and copies them the same way
// (CLR's fill kernel is two- and three-dimensional; ours is not). Contiguous rectangles are one linear copy or
// fill.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "clr/blit_manager.h"
#include "hsa/copy.h"

namespace hipmem::clr {
namespace {

// Where row `y` of slice `z` starts, from the side's base. Cannot overflow once RectSpan accepted the side.
Bytes RowOffset(const PitchedSide& side, uint64_t y, uint64_t z) {
  return Bytes(z * side.slice_pitch.raw() + y * side.row_pitch.raw());
}

// Calls `row(dst_offset, src_offset)` for every row of `extent`, slice by slice, stopping at the first error.
template <typename RowFn>
absl::Status ForEachRow(const RectExtent& extent, const PitchedSide& dst, const PitchedSide& src, RowFn row) {
  for (uint64_t z = 0; z < extent.depth; ++z) {
    for (uint64_t y = 0; y < extent.height; ++y) {
      RETURN_IF_ERROR(row(RowOffset(dst, y, z), RowOffset(src, y, z)));
    }
  }
  return absl::OkStatus();
}

// One row of `height` == 1 slices is the same rectangle as a column of rows `slice_pitch` apart; as rows, it
// can be one SDMA box.
void SlicesAsRows(PitchedSide& side, RectExtent& extent) {
  side.row_pitch = side.slice_pitch;
  extent.height = extent.depth;
  extent.depth = 1;
}

std::string RectText(const PitchedSide& side, const RectExtent& extent) {
  return absl::StrCat(extent.width.raw(), " B x ", extent.height, " x ", extent.depth, " at ", AddressText(side.base),
                      " (pitch ", side.row_pitch.raw(), ", slice pitch ", side.slice_pitch.raw(), ")");
}

// The span, also checked against the end of the address space: a pageable side has no object to bound it.
absl::StatusOr<Bytes> CheckedSpan(const PitchedSide& side, const RectExtent& extent) {
  ASSIGN_OR_RETURN(const Bytes span, RectSpan(side, extent));
  if (!CheckedAdd(side.base, span).has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("rectangle ", RectText(side, extent), ": wraps the address space"));
  }
  return span;
}

}  // namespace

absl::StatusOr<Bytes> RectSpan(const PitchedSide& side, const RectExtent& extent) {
  if (extent.empty()) return Bytes(0);
  auto error = [&](const char* cause) {
    return absl::InvalidArgumentError(absl::StrCat("rectangle ", RectText(side, extent), ": ", cause));
  };
  if (extent.height > 1 && extent.width > side.row_pitch) return error("a row is wider than the pitch");
  const std::optional<Bytes> rows_before = CheckedMultiply(side.row_pitch, extent.height - 1);
  const std::optional<Bytes> slice = rows_before.has_value() ? CheckedAdd(*rows_before, extent.width) : std::nullopt;
  if (!slice.has_value()) return error("its size overflows");
  if (extent.depth > 1 && *slice > side.slice_pitch) return error("a slice's rows run past the slice pitch");
  const std::optional<Bytes> slices_before = CheckedMultiply(side.slice_pitch, extent.depth - 1);
  const std::optional<Bytes> span = slices_before.has_value() ? CheckedAdd(*slices_before, *slice) : std::nullopt;
  if (!span.has_value()) return error("its size overflows");
  return *span;
}

absl::StatusOr<CopyPath> BlitManager::CopyRectLocked(const ResolvedPitchedSide& dst_in,
                                                     const ResolvedPitchedSide& src_in, const RectExtent& extent_in) {
  const PitchedSide dst_layout_in = dst_in.layout();
  const PitchedSide src_layout_in = src_in.layout();
  ASSIGN_OR_RETURN(const Bytes dst_span, CheckedSpan(dst_layout_in, extent_in));
  ASSIGN_OR_RETURN(const Bytes src_span, CheckedSpan(src_layout_in, extent_in));
  const ResolvedPointer& dst_pointer = dst_in.base;
  const ResolvedPointer& src_pointer = src_in.base;
  ASSIGN_OR_RETURN(const Side dst, SideOf(dst_pointer, dst_span));
  ASSIGN_OR_RETURN(const Side src, SideOf(src_pointer, src_span));
  // At most either span (RectSpan's checks make every pitch at least the bytes before it), so it cannot overflow.
  const Bytes total =
      extent_in.empty() ? Bytes(0) : Bytes(extent_in.width.raw() * extent_in.height * extent_in.depth);
  if (dst_span == total && src_span == total) return CopyLocked(dst_pointer, src_pointer, total, /*prefer_sdma=*/false);

  PitchedSide dst_layout = dst_layout_in;
  PitchedSide src_layout = src_layout_in;
  RectExtent extent = extent_in;
  if (extent.height == 1 && extent.depth > 1) {
    SlicesAsRows(dst_layout, extent);
    RectExtent unused = extent_in;
    SlicesAsRows(src_layout, unused);
  }
  CopyPath path = ChooseCopyPath(dst.policy, src.policy, total, /*prefer_sdma=*/false, context_.settings());
  if (extent.empty()) return path;
  switch (path) {
    case CopyPath::kHostMemcpy:
      // The CPU copies once the stream's earlier work (which may write either side) is done.
      RETURN_IF_ERROR(stream_.Finish());
      RETURN_IF_ERROR(ForEachRow(extent, dst_layout, src_layout, [&](Bytes dst_offset, Bytes src_offset) {
        std::memmove((dst.host + dst_offset).ToPointer(), (src.host + src_offset).ToPointer(), extent.width.raw());
        return absl::OkStatus();
      }));
      break;
    case CopyPath::kShaderCopy:
    case CopyPath::kShaderCopyLimitedWg:
    case CopyPath::kSdma: {
      ASSIGN_OR_RETURN(const bool boxed,
                       CopyBox(dst, dst_layout, src, src_layout, extent, path == CopyPath::kSdma));
      if (boxed) path = CopyPath::kSdma;
      break;
    }
    case CopyPath::kStagedShaderCopy:
    case CopyPath::kStagedOrPinnedSdma:
      RETURN_IF_ERROR(
          CopyRectStaged(dst, dst_layout, src, src_layout, extent, path == CopyPath::kStagedOrPinnedSdma));
      break;
  }
  Trace(Layer::kClr, "blit rect ", RectText(src_layout_in, extent_in), " -> ", RectText(dst_layout_in, extent_in),
        ": ", CopyPathName(path));
  return path;
}

absl::StatusOr<bool> BlitManager::CopyBox(const Side& dst, const PitchedSide& dst_layout, const Side& src,
                                          const PitchedSide& src_layout, const RectExtent& extent, bool sdma) {
  // Another device's VRAM is reached through peer access by the row copies' engines; the box stays on ours.
  auto foreign = [&](const Side& side) {
    return side.policy.kind == CopySide::Kind::kDevice && side.policy.device != stream_.device().ordinal;
  };
  constexpr uint64_t kDimMax = UINT32_MAX;  // hsa_dim3_t's fields
  const bool one_row = extent.height == 1 && extent.depth == 1;
  if (!one_row && !foreign(dst) && !foreign(src) && extent.width.raw() <= kDimMax && extent.height <= kDimMax &&
      extent.depth <= kDimMax && dst_layout.row_pitch >= extent.width && src_layout.row_pitch >= extent.width) {
    const bool dst_device = dst.policy.kind == CopySide::Kind::kDevice;
    const bool src_device = src.policy.kind == CopySide::Kind::kDevice;
    // The direction only picks the engine: the host-to-device one for uploads, the device-to-host one otherwise.
    const hsa::CopyDirection direction = dst_device ? (src_device ? hsa::CopyDirection::kDeviceToDevice
                                                                  : hsa::CopyDirection::kHostToDevice)
                                                    : hsa::CopyDirection::kDeviceToHost;
    const bool slices = extent.depth > 1;
    // The sides as resolved once at the top (SideOf: their owners, where the GPUs reach them, bounds checked over
    // the whole rectangle; the staging ring's are ours): ROCr neither looks them up nor bounds them again.
    const absl::Status queued = stream_.SdmaCopyRect(
        hsa::ResolvedSurface{dst.ForCopy(), dst_layout.row_pitch, slices ? dst_layout.slice_pitch : Bytes(0)},
        hsa::ResolvedSurface{src.ForCopy(), src_layout.row_pitch, slices ? src_layout.slice_pitch : Bytes(0)},
        hsa::Dim3{static_cast<uint32_t>(extent.width.raw()), static_cast<uint32_t>(extent.height),
                  static_cast<uint32_t>(extent.depth)},
        direction);
    if (queued.ok()) return true;
    // ROCr refuses what the sub-window packet cannot express (alignment, field widths) or an agent without SDMA;
    // nothing was queued, so the rows go one by one.
    if (!absl::IsInvalidArgument(queued) && !absl::IsResourceExhausted(queued) && !absl::IsOutOfRange(queued)) {
      return queued;
    }
    Trace(Layer::kClr, "SDMA sub-window refused (", queued.message(), "): a row at a time");
  }
  RETURN_IF_ERROR(ForEachRow(extent, dst_layout, src_layout, [&](Bytes dst_offset, Bytes src_offset) {
    return CopyOnGpu(dst.At(dst_offset), src.At(src_offset), extent.width, sdma);
  }));
  return false;
}

absl::Status BlitManager::CopyRectStaged(const Side& dst, const PitchedSide& dst_layout, const Side& src,
                                         const PitchedSide& src_layout, const RectExtent& extent, bool sdma) {
  // Rows sit in the chunk 4 bytes apart at least, so a chunk of rows is a box SDMA takes.
  const std::optional<Bytes> stride = AlignUp(extent.width, Bytes(4));
  if (!stride.has_value() || *stride > chunk_) return CopyRectStagedPieces(dst, dst_layout, src, src_layout, extent, sdma);
  const bool to_device = src.policy.kind == CopySide::Kind::kPageable;
  const Side& user = to_device ? src : dst;
  const Side& device = to_device ? dst : src;
  const PitchedSide& user_layout = to_device ? src_layout : dst_layout;
  const PitchedSide& device_layout = to_device ? dst_layout : src_layout;
  // Consecutive rows of one slice, back to back in the chunk from `at`.
  struct Run {
    uint64_t z, y, rows;
    Bytes at;
  };
  std::vector<Run> runs;
  int index = -1;
  DeviceAddress buffer(0);
  Bytes used = chunk_;  // no chunk yet: the first row takes one

  // Copies the chunk's runs, then marks its readers (H2D) or waits for it and empties it (D2H).
  auto flush = [&]() -> absl::Status {
    if (index < 0) return absl::OkStatus();
    absl::Status copies;
    for (const Run& run : runs) {
      const Bytes device_offset = RowOffset(device_layout, run.y, run.z);
      const Side device_side = device.At(device_offset);
      const Side staged = MappedHost(buffer + run.at, buffer + run.at);
      const PitchedSide staged_layout{buffer + run.at, *stride, Bytes(0)};
      const PitchedSide device_rows{device.gpu + device_offset, device_layout.row_pitch, Bytes(0)};
      const RectExtent box{extent.width, run.rows, 1};
      copies = (to_device ? CopyBox(device_side, device_rows, staged, staged_layout, box, sdma)
                          : CopyBox(staged, staged_layout, device_side, device_rows, box, sdma))
                   .status();
      if (!copies.ok()) break;
    }
    // Even after a failure: queued reads of the chunk must be marked before the ring hands it out again.
    ASSIGN_OR_RETURN(Marker use, stream_.Record());
    if (to_device) {
      chunk_use_[index] = std::move(use);
      runs.clear();
      return copies;
    }
    RETURN_IF_ERROR(copies);
    RETURN_IF_ERROR(use.Wait());
    for (const Run& run : runs) {
      for (uint64_t i = 0; i < run.rows; ++i) {
        std::memcpy((user.host + RowOffset(user_layout, run.y + i, run.z)).ToPointer(),
                    (buffer + run.at + Bytes(i * stride->raw())).ToPointer(), extent.width.raw());
      }
    }
    runs.clear();
    return absl::OkStatus();
  };
  for (uint64_t z = 0; z < extent.depth; ++z) {
    for (uint64_t y = 0; y < extent.height; ++y) {
      if (used + *stride > chunk_) {
        RETURN_IF_ERROR(flush());
        index = next_chunk_;
        next_chunk_ = (next_chunk_ + 1) % kStagingChunks;
        ASSIGN_OR_RETURN(buffer, Staging(index));
        used = Bytes(0);
      }
      if (to_device) {
        std::memcpy((buffer + used).ToPointer(), (user.host + RowOffset(user_layout, y, z)).ToPointer(),
                    extent.width.raw());
      }
      if (!runs.empty() && runs.back().z == z && runs.back().y + runs.back().rows == y) {
        ++runs.back().rows;
      } else {
        runs.push_back(Run{z, y, 1, used});
      }
      used += *stride;
    }
  }
  return flush();
}

absl::Status BlitManager::CopyRectStagedPieces(const Side& dst, const PitchedSide& dst_layout, const Side& src,
                                               const PitchedSide& src_layout, const RectExtent& extent, bool sdma) {
  const bool to_device = src.policy.kind == CopySide::Kind::kPageable;
  // Bytes of a device-to-host chunk waiting to be copied out to the user's row once the chunk is done.
  struct Piece {
    DeviceAddress user;
    Bytes offset;  // in the chunk
    Bytes size;
  };
  std::vector<Piece> pieces;
  int index = -1;
  DeviceAddress buffer(0);
  Bytes used = chunk_;  // no chunk yet: the first row takes one

  // Ends the chunk being filled: its readers are marked (H2D), or it is waited for and emptied (D2H).
  auto close_chunk = [&]() -> absl::Status {
    if (index < 0) return absl::OkStatus();
    ASSIGN_OR_RETURN(Marker use, stream_.Record());
    if (to_device) {
      chunk_use_[index] = std::move(use);
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(use.Wait());
    for (const Piece& piece : pieces) {
      std::memcpy(piece.user.ToPointer(), (buffer + piece.offset).ToPointer(), piece.size.raw());
    }
    pieces.clear();
    return absl::OkStatus();
  };
  // Rows are packed back to back in the ring, a row split across chunks when it does not fit.
  auto copy_row = [&](Bytes dst_offset, Bytes src_offset) -> absl::Status {
    for (Bytes done; done < extent.width;) {
      if (used == chunk_) {
        RETURN_IF_ERROR(close_chunk());
        index = next_chunk_;
        next_chunk_ = (next_chunk_ + 1) % kStagingChunks;
        ASSIGN_OR_RETURN(buffer, Staging(index));
        used = Bytes(0);
      }
      const Bytes n = std::min(extent.width - done, chunk_ - used);
      const Side staged = MappedHost(buffer + used, buffer + used);
      if (to_device) {
        std::memcpy(staged.host.ToPointer(), (src.host + src_offset + done).ToPointer(), n.raw());
        const Side row = dst.At(dst_offset + done);
        RETURN_IF_ERROR(CopyOnGpu(row, staged, n, sdma));
      } else {
        const Side row = src.At(src_offset + done);
        RETURN_IF_ERROR(CopyOnGpu(staged, row, n, sdma));
        pieces.push_back(Piece{dst.host + dst_offset + done, used, n});
      }
      used += n;
      done += n;
    }
    return absl::OkStatus();
  };
  absl::Status rows = ForEachRow(extent, dst_layout, src_layout, copy_row);
  // Even after a failure: queued reads of the chunk must be marked before the ring hands it out again.
  absl::Status closed = close_chunk();
  return rows.ok() ? closed : rows;
}

absl::Status BlitManager::FillRectLocked(const ResolvedPitchedSide& resolved, uint8_t value,
                                         const RectExtent& extent_in) {
  const PitchedSide dst_in = resolved.layout();
  ASSIGN_OR_RETURN(const Bytes span, CheckedSpan(dst_in, extent_in));
  ASSIGN_OR_RETURN(const Side side, SideOf(resolved.base, span));
  if (side.policy.kind == CopySide::Kind::kPageable) {
    return absl::InvalidArgumentError(
        absl::StrCat("fill of ", RectText(dst_in, extent_in), ": not memory the runtime allocated or registered"));
  }
  if (extent_in.empty()) return absl::OkStatus();
  Trace(Layer::kClr, "fill rect ", RectText(dst_in, extent_in), " with 0x", absl::Hex(value));
  // Dword stores where the range allows: a quarter of the elements.
  auto fill = [&](DeviceAddress gpu, Bytes size) {
    if (IsAligned(gpu, Bytes(4)) && IsAligned(size, Bytes(4))) {
      return stream_.ShaderFill(gpu, value * 0x01010101u, 4, size.raw() / 4);
    }
    return stream_.ShaderFill(gpu, value, 1, size.raw());
  };
  const Bytes total(extent_in.width.raw() * extent_in.height * extent_in.depth);  // at most `span`
  if (span == total) return fill(side.gpu, total);

  PitchedSide dst = dst_in;
  RectExtent extent = extent_in;
  if (extent.height == 1 && extent.depth > 1) SlicesAsRows(dst, extent);
  const std::optional<Bytes> stride = AlignUp(extent.width, Bytes(4));
  if (!stride.has_value() || *stride > chunk_) {
    return ForEachRow(extent, dst, dst, [&](Bytes offset, Bytes) { return fill(side.gpu + offset, extent.width); });
  }
  // Rows of `value` in one chunk, copied into as many rows of the rectangle as it holds at a time.
  const uint64_t rows_per_chunk = chunk_.raw() / stride->raw();
  const int index = next_chunk_;
  next_chunk_ = (next_chunk_ + 1) % kStagingChunks;
  ASSIGN_OR_RETURN(const DeviceAddress buffer, Staging(index));
  std::memset(buffer.ToPointer(), value, std::min(rows_per_chunk, extent.height) * stride->raw());
  const Side staged = MappedHost(buffer, buffer);  // every GPU reaches the ring: ROCr need not look it up
  const PitchedSide staged_layout{buffer, *stride, Bytes(0)};
  absl::Status copies;
  for (uint64_t z = 0; z < extent.depth && copies.ok(); ++z) {
    for (uint64_t y = 0; y < extent.height && copies.ok(); y += rows_per_chunk) {
      const Bytes offset = RowOffset(dst, y, z);
      const Side rows = side.At(offset);
      const PitchedSide rows_layout{side.gpu + offset, dst.row_pitch, Bytes(0)};
      copies = CopyBox(rows, rows_layout, staged, staged_layout,
                       RectExtent{extent.width, std::min(rows_per_chunk, extent.height - y), 1}, /*sdma=*/false)
                   .status();
    }
  }
  // Marked even after a failure: copies already queued read the chunk.
  ASSIGN_OR_RETURN(Marker use, stream_.Record());
  chunk_use_[index] = std::move(use);
  return copies;
}

}  // namespace hipmem::clr
