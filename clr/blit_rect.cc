// Rectangle copies and fills of the blit manager (hipMemcpy2D/3D, hipMemset2D/3D).
//
// CLR's copyBufferRect runs a rectangle as one blit-kernel dispatch (or one SDMA sub-window packet) over the
// whole region. Our simulated blit kernels and ROCr's linear async copy are one-dimensional, so a rectangle runs
// a row at a time on the engine the linear policy picks: the same engines, the same ordering on the stream,
// more packets. Contiguous rectangles (every pitch equal to the bytes before it) are one linear copy or fill.
#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "clr/blit_manager.h"

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

absl::StatusOr<CopyPath> BlitManager::CopyRect(const PitchedSide& dst_layout, const PitchedSide& src_layout,
                                               const RectExtent& extent) {
  ASSIGN_OR_RETURN(const Bytes dst_span, CheckedSpan(dst_layout, extent));
  ASSIGN_OR_RETURN(const Bytes src_span, CheckedSpan(src_layout, extent));
  ASSIGN_OR_RETURN(const Side dst, Resolve(dst_layout.base, dst_span));
  ASSIGN_OR_RETURN(const Side src, Resolve(src_layout.base, src_span));
  // At most either span (RectSpan's checks make every pitch at least the bytes before it), so it cannot overflow.
  const Bytes total = extent.empty() ? Bytes(0) : Bytes(extent.width.raw() * extent.height * extent.depth);
  if (dst_span == total && src_span == total) return Copy(dst_layout.base, src_layout.base, total);

  const CopyPath path = ChooseCopyPath(dst.policy, src.policy, total, /*prefer_sdma=*/false, context_.settings());
  Trace(Layer::kClr, "blit rect ", RectText(src_layout, extent), " -> ", RectText(dst_layout, extent), ": ",
        CopyPathName(path), ", a row at a time");
  if (extent.empty()) return path;
  auto at = [](const Side& side, Bytes offset) {
    return Side{side.policy, side.host + offset, side.gpu + offset, side.agent};
  };
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
    case CopyPath::kSdma:
      RETURN_IF_ERROR(ForEachRow(extent, dst_layout, src_layout, [&](Bytes dst_offset, Bytes src_offset) {
        return CopyOnGpu(at(dst, dst_offset), at(src, src_offset), extent.width, path == CopyPath::kSdma);
      }));
      break;
    case CopyPath::kStagedShaderCopy:
    case CopyPath::kStagedOrPinnedSdma:
      RETURN_IF_ERROR(
          CopyRectStaged(dst, dst_layout, src, src_layout, extent, path == CopyPath::kStagedOrPinnedSdma));
      break;
  }
  return path;
}

absl::Status BlitManager::CopyRectStaged(const Side& dst, const PitchedSide& dst_layout, const Side& src,
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
      const Side staged{{CopySide::Kind::kHostDirect}, buffer + used, buffer + used, context_.host_agent()};
      if (to_device) {
        std::memcpy(staged.host.ToPointer(), (src.host + src_offset + done).ToPointer(), n.raw());
        const Side row{dst.policy, dst.host + dst_offset + done, dst.gpu + dst_offset + done, dst.agent};
        RETURN_IF_ERROR(CopyOnGpu(row, staged, n, sdma));
      } else {
        const Side row{src.policy, src.host + src_offset + done, src.gpu + src_offset + done, src.agent};
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

absl::Status BlitManager::FillRect(const PitchedSide& dst, uint8_t value, const RectExtent& extent) {
  ASSIGN_OR_RETURN(const Bytes span, CheckedSpan(dst, extent));
  ASSIGN_OR_RETURN(const Side side, Resolve(dst.base, span));
  if (side.policy.kind == CopySide::Kind::kPageable) {
    return absl::InvalidArgumentError(
        absl::StrCat("fill of ", RectText(dst, extent), ": not memory the runtime allocated or registered"));
  }
  if (extent.empty()) return absl::OkStatus();
  Trace(Layer::kClr, "fill rect ", RectText(dst, extent), " with 0x", absl::Hex(value));
  // Dword stores where the row allows: a quarter of the elements.
  auto fill = [&](DeviceAddress gpu, Bytes size) {
    if (IsAligned(gpu, Bytes(4)) && IsAligned(size, Bytes(4))) {
      return stream_.ShaderFill(gpu, value * 0x01010101u, 4, size.raw() / 4);
    }
    return stream_.ShaderFill(gpu, value, 1, size.raw());
  };
  const Bytes total(extent.width.raw() * extent.height * extent.depth);  // at most `span`
  if (span == total) return fill(side.gpu, total);
  return ForEachRow(extent, dst, dst, [&](Bytes offset, Bytes) { return fill(side.gpu + offset, extent.width); });
}

}  // namespace hipmem::clr
