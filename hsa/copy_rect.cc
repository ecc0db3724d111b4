// Copies::CopyRect / CopyRectResolved: hsa_amd_memory_async_copy_rect on the SDMA engines' COPY_LINEAR_SUB_WINDOW
// packet (ROCr's GpuAgent::DmaCopyRect and BlitSdma::SubmitCopyRectCommand / BuildCopyRectCommand). Both ways in
// share one path: ROCr's checks (CheckRect), then the packets (LaunchRect); the C API's bare pointers are bounded
// between the two, so that its errors come in ROCr's order.
//
// The packet moves a box of elements of 1, 2, 4, 8 or 16 bytes: its bases must be dword aligned, and its
// offsets, pitches, slices and width count elements, in fields of limited width (gpu_abi/sdma_packets.h). A box
// is cut into tiles the fields can describe: along z every 2^11 slices, along y every 2^14 rows, and along x
// wherever the element size has to change (an x offset that is not dword aligned, a width that is not a
// multiple of a larger element) or 2^14 elements are reached. Rows further apart than the pitch field reaches
// are walked as the slices of one-row boxes when the box is one slice deep.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "gpu_abi/sdma_packets.h"
#include "hsa/copy.h"
#include "hsa/runtime_kfd.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {
namespace {

namespace sdma = ::hipmem::gpu_abi::sdma;

constexpr uint64_t kMaxPitch = uint64_t{1} << sdma::kRectPitchBits;  // in elements
constexpr uint64_t kMaxSlice = uint64_t{1} << sdma::kRectSliceBits;
constexpr uint32_t kMaxXY = 1u << sdma::kRectXYBits;
constexpr uint32_t kMaxZ = 1u << sdma::kRectZBits;

// log2 of the largest element (16 bytes at most) that divides `v`; 4 for 0.
uint32_t ElementOf(uint64_t v) { return static_cast<uint32_t>(__builtin_ctzll(v | 16)); }

// One surface of a box, in bytes.
struct Surface {
  uint64_t base;
  uint64_t pitch;
  uint64_t slice;
};

struct Box {
  Surface dst;
  Dim3 dst_offset;
  Surface src;
  Dim3 src_offset;
  Dim3 range;
};

// The packets for `box` (already checked as CopyRect does). Errors: kInvalidArgument when a pitch or slice does
// not fit its field in the smallest element some tile needs.
absl::StatusOr<std::vector<uint32_t>> Tile(Box box) {
  if (box.range.z == 1 && (box.src.pitch > kMaxPitch || box.dst.pitch > kMaxPitch)) {
    // Even 1-byte rows are further apart than the pitch field reaches: each row becomes a slice of a box one row
    // high (the slice field is wider), starting at the box's first row.
    for (auto [s, o] : {std::pair{&box.src, &box.src_offset}, std::pair{&box.dst, &box.dst_offset}}) {
      s->base += uint64_t{o->z} * s->slice + uint64_t{o->y} * s->pitch;
      o->y = o->z = 0;
      s->slice = s->pitch;
      s->pitch = 0;
    }
    box.range.z = box.range.y;
    box.range.y = 1;
  }
  const Box& b = box;
  const bool slices = b.range.z != 1;
  // Every tile's element must divide the pitches (and the slices, when the engine steps along z).
  uint32_t max_element = std::min(ElementOf(b.src.pitch), ElementOf(b.dst.pitch));
  if (slices) max_element = std::min({max_element, ElementOf(b.src.slice), ElementOf(b.dst.slice)});
  // The smallest element a tile will use: one that covers the width and the x offsets within their dwords.
  const uint32_t min_element = std::min({max_element, ElementOf(b.range.x), ElementOf(b.src_offset.x % 4),
                                         ElementOf(b.dst_offset.x % 4)});
  if ((b.src.pitch >> min_element) > kMaxPitch || (b.dst.pitch >> min_element) > kMaxPitch) {
    return absl::InvalidArgumentError(absl::StrCat("a pitch of ", std::max(b.src.pitch, b.dst.pitch),
                                                   " bytes is beyond the SDMA packet's ", kMaxPitch, " elements of ",
                                                   1u << min_element, " bytes"));
  }
  if (slices && ((b.src.slice >> min_element) > kMaxSlice || (b.dst.slice >> min_element) > kMaxSlice)) {
    return absl::InvalidArgumentError(absl::StrCat("a slice of ", std::max(b.src.slice, b.dst.slice),
                                                   " bytes is beyond the SDMA packet's ", kMaxSlice, " elements of ",
                                                   1u << min_element, " bytes"));
  }
  std::vector<uint32_t> stream;
  auto surface = [&](const Surface& s, const Dim3& o, uint32_t x, uint32_t y, uint32_t z, uint32_t element) {
    const uint64_t first = s.base + o.x + x + (uint64_t{o.y} + y) * s.pitch + (uint64_t{o.z} + z) * s.slice;
    // The base is dword aligned; the rest of the x offset is counted in elements.
    return sdma::RectSurface{first & ~uint64_t{3}, static_cast<uint32_t>((first % 4) >> element), 0, 0,
                             static_cast<uint32_t>(s.pitch >> element),
                             slices ? static_cast<uint32_t>(s.slice >> element) : 0u};
  };
  for (uint32_t z = 0; z < b.range.z; z += std::min(kMaxZ, b.range.z - z)) {
    const uint32_t depth = std::min(kMaxZ, b.range.z - z);
    for (uint32_t y = 0; y < b.range.y; y += std::min(kMaxXY, b.range.y - y)) {
      const uint32_t height = std::min(kMaxXY, b.range.y - y);
      for (uint32_t x = 0; x < b.range.x;) {
        const uint32_t width = b.range.x - x;
        const uint32_t aligned = std::min({ElementOf((b.src_offset.x + uint64_t{x}) % 4),
                                           ElementOf((b.dst_offset.x + uint64_t{x}) % 4), max_element});
        uint32_t element = std::min(ElementOf(width), aligned);
        uint32_t count = width >> element;
        if (count > kMaxXY) {
          // Wider than one packet in any element that covers it exactly: a full packet of the largest element
          // the start allows, and the rest in later tiles.
          element = aligned;
          count = std::min(width >> element, kMaxXY);
        }
        const sdma::CopyLinearRect packet =
            sdma::MakeCopyRect(element, surface(b.dst, b.dst_offset, x, y, z, element),
                               surface(b.src, b.src_offset, x, y, z, element), count, height, depth);
        const auto* dwords = reinterpret_cast<const uint32_t*>(&packet);
        stream.insert(stream.end(), dwords, dwords + sizeof(packet) / 4);
        x += count << element;
      }
    }
  }
  return stream;
}

// The bytes from a surface's base to the first and past the last byte of the box on it.
struct Extent {
  uint64_t first;
  uint64_t end;
};
Extent ExtentOf(const ResolvedSurface& s, const Dim3& o, const Dim3& range) {
  const uint64_t first = uint64_t{o.z} * s.slice.raw() + uint64_t{o.y} * s.pitch.raw() + o.x;
  return Extent{first,
                first + uint64_t{range.z - 1} * s.slice.raw() + uint64_t{range.y - 1} * s.pitch.raw() + range.x};
}

// A C API surface: nothing is known about it, so LaunchSdma asks the thunk where the copy agent reaches it.
ResolvedSurface Unresolved(const PitchedPointer& p) {
  return ResolvedSurface{ResolvedSide{.host = p.base, .gpu = p.base}, Bytes(p.pitch), Bytes(p.slice)};
}

// The same memory as `side`, `offset` bytes on.
ResolvedSide At(const ResolvedSide& side, Bytes offset) {
  return ResolvedSide{.host = side.host + offset, .gpu = side.gpu + offset, .agent = side.agent, .reach = side.reach};
}

// Named as the C entry point: errors and traces read the same on both ways in.
std::string ContextOf(const ResolvedCopyRectRequest& r) {
  return absl::StrCat("hsa_amd_memory_async_copy_rect(dst=", AddressText(r.dst.base.gpu),
                      ", src=", AddressText(r.src.base.gpu), ", range=", r.range.x, "x", r.range.y, "x", r.range.z,
                      ")");
}

}  // namespace

absl::Status Copies::CopyRect(const CopyRectRequest& r) {
  const ResolvedCopyRectRequest request{.dst = Unresolved(r.dst),
                                        .dst_offset = r.dst_offset,
                                        .src = Unresolved(r.src),
                                        .src_offset = r.src_offset,
                                        .range = r.range,
                                        .copy_agent = r.copy_agent,
                                        .direction = r.direction,
                                        .dependencies = r.dependencies,
                                        .completion = r.completion};
  const std::string context = ContextOf(request);
  ASSIGN_OR_RETURN(const std::optional<CheckedRect> rect, CheckRect(request, context));
  if (!rect.has_value()) return absl::OkStatus();
  // Each side once: one lookup, one bounds check over the box's bytes. Memory the runtime did not allocate is the
  // caller's.
  for (const AddressRange box : {AddressRange{r.dst.base + rect->dst_first, rect->dst_size},
                                 AddressRange{r.src.base + rect->src_first, rect->src_size}}) {
    const std::optional<PointerInfo> info = runtime_.FindPointer(box.base);
    if (info.has_value() && box.end() > info->allocation.end()) {
      return absl::OutOfRangeError(
          absl::StrCat(context, ": runs past the allocation at ", AddressText(info->allocation.base)));
    }
  }
  return LaunchRect(request, *rect, context);
}

absl::Status Copies::CopyRectResolved(const ResolvedCopyRectRequest& request) {
  const std::string context = ContextOf(request);
  ASSIGN_OR_RETURN(const std::optional<CheckedRect> rect, CheckRect(request, context));
  if (!rect.has_value()) return absl::OkStatus();
  return LaunchRect(request, *rect, context);
}

absl::StatusOr<std::optional<Copies::CheckedRect>> Copies::CheckRect(const ResolvedCopyRectRequest& r,
                                                                     absl::string_view context) {
  auto invalid = [&](absl::string_view why) { return absl::InvalidArgumentError(absl::StrCat(context, ": ", why)); };
  // ROCr's order: the direction, the agent, the signals, then a box with a zero dimension succeeds untouched.
  if (r.direction == CopyDirection::kHostToHost) return invalid("host to host is not a direction an SDMA engine serves");
  if (static_cast<uint32_t>(r.direction) > static_cast<uint32_t>(CopyDirection::kDeviceToDevice)) {
    return invalid(absl::StrCat("unknown direction ", static_cast<uint32_t>(r.direction)));
  }
  ASSIGN_OR_RETURN(const Agent* gpu, runtime_.GetAgent(r.copy_agent));
  if (gpu->type != DeviceType::kGpu) return InvalidAgentError(absl::StrCat(context, ": the copy agent is not a GPU"));
  if (r.completion == nullptr) return invalid("no completion signal");
  if (r.range.x == 0 || r.range.y == 0 || r.range.z == 0) return std::nullopt;
  if (!engines_.SdmaAllowed(*gpu)) {
    return absl::ResourceExhaustedError(absl::StrCat(context, ": the copy agent has no SDMA engine for copies"));
  }
  // ROCr's SubmitCopyRectCommand checks: what the packet cannot express, and a box that wraps a row or a slice. The
  // engine sees the GPU addresses.
  for (const ResolvedSurface* s : {&r.dst, &r.src}) {
    if (!IsAligned(s->base.gpu, Bytes(4))) return invalid("a base address is not 4-byte aligned");
    if (!IsAligned(s->pitch, Bytes(4))) return invalid("a pitch is not a multiple of 4 bytes");
    if (!IsAligned(s->slice, Bytes(4))) return invalid("a slice is not a multiple of 4 bytes");
  }
  if (uint64_t{r.src_offset.x} + r.range.x > r.src.pitch.raw() ||
      uint64_t{r.dst_offset.x} + r.range.x > r.dst.pitch.raw()) {
    return invalid("offset x + width runs past a pitch");
  }
  // The pitches are not 0 here: each is at least the (non-zero) width.
  if ((!r.src.slice.is_zero() && uint64_t{r.src_offset.y} + r.range.y > r.src.slice.raw() / r.src.pitch.raw()) ||
      (!r.dst.slice.is_zero() && uint64_t{r.dst_offset.y} + r.range.y > r.dst.slice.raw() / r.dst.pitch.raw())) {
    return invalid("offset y + height runs past a slice");
  }
  if (r.range.z > 1 && (r.src.slice.is_zero() || r.dst.slice.is_zero())) {
    return invalid("a box deeper than 1 needs both slices");
  }
  Extent extents[2] = {};
  const ResolvedSurface* surfaces[2] = {&r.dst, &r.src};
  const Dim3* offsets[2] = {&r.dst_offset, &r.src_offset};
  for (int i = 0; i < 2; ++i) {
    // Offsets are 32-bit and pitch and slice are checked against them above, so only the slice products can be
    // large; 128-bit sums keep a wrap from passing the checks. Both addresses: the CPU's is where a side the GPU
    // does not reach yet is pinned from.
    const unsigned __int128 past_base =
        static_cast<unsigned __int128>(offsets[i]->z + uint64_t{r.range.z} - 1) * surfaces[i]->slice.raw() +
        static_cast<unsigned __int128>(offsets[i]->y + uint64_t{r.range.y} - 1) * surfaces[i]->pitch.raw() +
        offsets[i]->x + r.range.x;
    const uint64_t base = std::max(surfaces[i]->base.gpu.raw(), surfaces[i]->base.host.raw());
    if (past_base + base > UINT64_MAX) return invalid("the box runs past the end of the address space");
    extents[i] = ExtentOf(*surfaces[i], *offsets[i], r.range);
  }
  return CheckedRect{.gpu = gpu,
                     .dst_first = Bytes(extents[0].first),
                     .dst_size = Bytes(extents[0].end - extents[0].first),
                     .src_first = Bytes(extents[1].first),
                     .src_size = Bytes(extents[1].end - extents[1].first)};
}

absl::Status Copies::LaunchRect(const ResolvedCopyRectRequest& r, const CheckedRect& rect, absl::string_view context) {
  auto box = [&](uint64_t dst_base, uint64_t src_base) {
    return Box{Surface{dst_base, r.dst.pitch.raw(), r.dst.slice.raw()}, r.dst_offset,
               Surface{src_base, r.src.pitch.raw(), r.src.slice.raw()}, r.src_offset, r.range};
  };
  // The field limits fail before anything is pinned or queued; the stream itself is built on the GPU addresses.
  if (absl::StatusOr<std::vector<uint32_t>> dry = Tile(box(r.dst.base.gpu.raw(), r.src.base.gpu.raw())); !dry.ok()) {
    return Annotate(dry.status(), context);
  }
  // ROCr's engines: the host-to-device one for kHostToDevice, the device-to-host one (the second SDMA engine
  // where there are two) for the rest.
  uint64_t num_sdma = 0;
  for (const thunk::NodeProperties& n : TopologyOf(runtime_).nodes) {
    if (n.id == KfdNodeOf(runtime_, *rect.gpu)) num_sdma = n.Get("num_sdma_engines");
  }
  const uint32_t engine = r.direction == CopyDirection::kHostToDevice || num_sdma < 2 ? 1 : 2;
  const SdmaRange ranges[2] = {SdmaRange{At(r.dst.base, rect.dst_first), rect.dst_size},
                               SdmaRange{At(r.src.base, rect.src_first), rect.src_size}};
  return LaunchSdma(
      *rect.gpu, engine, ranges,
      [&](std::span<const uint64_t> at) {
        return Tile(box(at[0] - rect.dst_first.raw(), at[1] - rect.src_first.raw()));
      },
      r.dependencies, *r.completion, context);
}

}  // namespace hipmem::hsa
