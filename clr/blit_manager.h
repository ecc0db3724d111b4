// The blit manager of one stream: runs a copy on the path current CLR would take (blit_policy.h), with its
// staging ring and pinned chunks.
//
// Plays ROCclr's KernelBlitManager / DmaBlitManager (rocblit.cpp) with VirtualGPU's staging buffer
// (ManagedBuffer, rocvirtual.cpp); the facts are in clr/UPSTREAM_BLIT.md. Where we differ, on purpose:
//   - the staging ring is fine-grained system memory (rocm-systems #11617 moves CLR's there too);
//   - a small peer copy runs the ordinary blit kernel (our kernel geometry has no workgroup limit to apply);
//   - pinned chunks are locked and unlocked per copy: current CLR keeps no pinned-memory cache either.
// Every copy is traced with the path it took. Thread-safe: commands from several threads take turns (CLR holds
// the queue lock around a command), so threads sharing a stream -- the null stream above all -- may all copy.
#ifndef HIPMEM_CLR_BLIT_MANAGER_H_
#define HIPMEM_CLR_BLIT_MANAGER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "clr/blit_policy.h"
#include "clr/context.h"
#include "clr/stream.h"

namespace hipmem::clr {

// One side of a rectangle copy or fill (hipMemcpy2D/3D, hipMemset2D/3D): its first byte and the distance from
// one row, and one slice, to the next.
struct PitchedSide {
  DeviceAddress base;
  Bytes row_pitch;
  Bytes slice_pitch;
};

// A PitchedSide whose first byte the caller resolved already (Context::Resolve): CopyRect and FillRect take it
// as it is, without looking the address up again.
struct ResolvedPitchedSide {
  ResolvedPointer base;
  Bytes row_pitch;
  Bytes slice_pitch;

  PitchedSide layout() const { return PitchedSide{base.address, row_pitch, slice_pitch}; }
};

// A rectangle of `depth` slices of `height` rows of `width` bytes.
struct RectExtent {
  Bytes width;
  uint64_t height = 1;
  uint64_t depth = 1;

  bool empty() const { return width.is_zero() || height == 0 || depth == 0; }
};

// The bytes from `side.base` to one past the last byte the rectangle touches there (0 for an empty one).
// kInvalidArgument when a row is wider than the row pitch (with more than one row), a slice's rows run past the
// slice pitch (with more than one slice), or the span overflows.
absl::StatusOr<Bytes> RectSpan(const PitchedSide& side, const RectExtent& extent);

class BlitManager {
 public:
  // The blit manager of `stream`, on `context`; both must outlive it. Allocates the staging ring
  // (4 x Settings::staged_xfer_size). Errors: the allocation's.
  static absl::StatusOr<std::unique_ptr<BlitManager>> Create(Context& context, Stream& stream);
  // Waits for the stream's use of the staging ring, then frees it.
  ~BlitManager();
  BlitManager(const BlitManager&) = delete;
  BlitManager& operator=(const BlitManager&) = delete;

  // Queues a copy of `size` bytes on the stream, classifying both sides through the context's object map, and
  // returns the path it took. What touches pageable memory is done with it when this returns (a staged D2H
  // waits for its chunks; pinned chunks are waited for and unlocked); the rest may still be running: Finish
  // the stream to wait. `prefer_sdma` is hipMemcpyDeviceToDeviceNoCU. Errors: kOutOfRange when a side runs
  // past its object; kInvalidArgument for a null side; the engines' errors.
  absl::StatusOr<CopyPath> Copy(DeviceAddress dst, DeviceAddress src, Bytes size, bool prefer_sdma = false);
  // As Copy, with both sides already resolved by the caller (Context::Resolve): the object map is not consulted.
  absl::StatusOr<CopyPath> Copy(const ResolvedPointer& dst, const ResolvedPointer& src, Bytes size,
                                bool prefer_sdma = false);

  // Queues a fill of `count` elements of `element_size` bytes (1, 2, 4) with `pattern` at `dst` on the fill
  // kernel, as CLR's fillBuffer does for every memset (there is no SDMA fill path in HIP). `dst` must be in
  // memory CLR knows (device, pinned or registered). Errors: kInvalidArgument for pageable memory, a null
  // pointer or a misaligned one (Stream::ShaderFill's); kOutOfRange when the fill runs past the object.
  absl::Status Fill(DeviceAddress dst, uint32_t pattern, uint32_t element_size, uint64_t count);
  // As Fill, with `dst` already resolved by the caller (Context::Resolve): the object map is not consulted.
  absl::Status Fill(const ResolvedPointer& dst, uint32_t pattern, uint32_t element_size, uint64_t count);

  // Rectangles (blit_rect.cc; CLR's copyBufferRect / fillBuffer with a 2D/3D size). Both sides are classified
  // and bounds-checked over their whole span (RectSpan) as Copy classifies a linear copy; an empty extent
  // queues nothing once the sides are checked. When both sides are contiguous (pitch == width, slice pitch ==
  // the rows) it is one Copy. Otherwise the path is chosen as Copy would for the rectangle's bytes: between
  // GPU-reachable sides, the box goes to SDMA as sub-window copies (ROCr's hsa_amd_memory_async_copy_rect,
  // reported kSdma) when aligned for it, else a row at a time on the engine the policy picks; the CPU copies
  // row by row where the policy says the host copies; pageable rows are packed through the staging ring
  // (never pinned: pinning a pitched range would lock the gaps between rows too) and each chunk is one box.
  // Returns the path taken. Completion as Copy's. Errors: Copy's, and RectSpan's.
  absl::StatusOr<CopyPath> CopyRect(const PitchedSide& dst, const PitchedSide& src, const RectExtent& extent);
  // As CopyRect, with both bases already resolved by the caller: the object map is not consulted.
  absl::StatusOr<CopyPath> CopyRect(const ResolvedPitchedSide& dst, const ResolvedPitchedSide& src,
                                    const RectExtent& extent);

  // Sets every byte of the rectangle at `dst` to `value`: one fill-kernel dispatch when the rows are contiguous;
  // otherwise rows of `value` staged once in the ring and copied as SDMA sub-windows (CopyBox), or a
  // fill-kernel dispatch a row where that cannot run. Errors: Fill's, and RectSpan's.
  absl::Status FillRect(const PitchedSide& dst, uint8_t value, const RectExtent& extent);
  // As FillRect, with the base already resolved by the caller: the object map is not consulted.
  absl::Status FillRect(const ResolvedPitchedSide& dst, uint8_t value, const RectExtent& extent);

 private:
  static constexpr int kStagingChunks = 4;  // CLR's kStagingPoolNumSignals

  // The public entry points, under mu_.
  absl::StatusOr<CopyPath> CopyLocked(const ResolvedPointer& dst, const ResolvedPointer& src, Bytes size,
                                      bool prefer_sdma) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status FillLocked(const ResolvedPointer& dst, uint32_t pattern, uint32_t element_size, uint64_t count)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<CopyPath> CopyRectLocked(const ResolvedPitchedSide& dst, const ResolvedPitchedSide& src,
                                          const RectExtent& extent) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status FillRectLocked(const ResolvedPitchedSide& dst, uint8_t value, const RectExtent& extent)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // A side of a copy as the engines see it.
  struct Side {
    CopySide policy;
    DeviceAddress host;   // the caller's address
    DeviceAddress gpu;    // where the GPUs reach it (registered memory differs)
    hsa::AgentId agent;   // its owner (the CPU agent for host memory)
    bool managed = false;  // a managed (SVM) buffer: GPUs reach it through their page tables, not ROCr's pins
    // Where the GPUs reach it already (ROCr then neither looks it up nor maps it): VRAM on its owner; pinned and
    // registered memory, the staging ring and pinned chunks on every GPU (all are mapped for every GPU).
    hsa::ResolvedSide::Reach reach = hsa::ResolvedSide::Reach::kUnknown;

    hsa::ResolvedSide ForCopy() const { return hsa::ResolvedSide{.host = host, .gpu = gpu, .agent = agent, .reach = reach}; }
    // The same memory `offset` bytes on.
    Side At(Bytes offset) const {
      return Side{.policy = policy, .host = host + offset, .gpu = gpu + offset, .agent = agent, .managed = managed,
                  .reach = reach};
    }
  };
  // Host memory every GPU maps (the staging ring, a pinned chunk): host-direct for the policy.
  Side MappedHost(DeviceAddress host, DeviceAddress gpu) const {
    return Side{.policy = {CopySide::Kind::kHostDirect},
                .host = host,
                .gpu = gpu,
                .agent = context_.host_agent(),
                .reach = hsa::ResolvedSide::Reach::kEveryGpu};
  }

  BlitManager(Context& context, Stream& stream, hsa::PoolAllocation staging);

  // A side of `size` bytes at `pointer`: its bounds checked against its object, nothing looked up.
  absl::StatusOr<Side> SideOf(const ResolvedPointer& pointer, Bytes size) const;
  // Chunk `index` of the staging ring, after the stream's last use of it is done.
  absl::StatusOr<DeviceAddress> Staging(int index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CopyOnGpu(const Side& dst, const Side& src, Bytes size, bool sdma);
  // Pageable memory through the ring: every chunk staged (`pin_above` nullopt), or pinned where more than
  // `*pin_above` bytes remain.
  absl::Status CopyPageable(const Side& dst, const Side& src, Bytes size, bool sdma, std::optional<Bytes> pin_above)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The rows of a rectangle with one pageable side, packed through the staging ring: whole rows a chunk at a
  // time, each chunk's rows one box (CopyBox); rows longer than a chunk in pieces, one copy a piece.
  absl::Status CopyRectStaged(const Side& dst, const PitchedSide& dst_layout, const Side& src,
                              const PitchedSide& src_layout, const RectExtent& extent, bool sdma)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CopyRectStagedPieces(const Side& dst, const PitchedSide& dst_layout, const Side& src,
                                    const PitchedSide& src_layout, const RectExtent& extent, bool sdma)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A box between two sides this device reaches: one SDMA sub-window copy when the engine takes it (4-byte
  // aligned bases and pitches, no other device's VRAM), else a row at a time on SDMA (`sdma`) or the blit
  // kernel. Returns whether it went as one box.
  absl::StatusOr<bool> CopyBox(const Side& dst, const PitchedSide& dst_layout, const Side& src,
                               const PitchedSide& src_layout, const RectExtent& extent, bool sdma);

  Context& context_;
  Stream& stream_;
  // The staging ring, freed after ~BlitManager has waited for the chunks in use.
  const hsa::PoolAllocation staging_;
  const Bytes chunk_;
  // One command at a time (CLR holds the queue lock around a command): threads sharing a stream, the null
  // stream above all, take turns here, which keeps the staging ring's chunk bookkeeping below consistent.
  absl::Mutex mu_;
  std::array<std::optional<Marker>, kStagingChunks> chunk_use_ ABSL_GUARDED_BY(mu_);
  int next_chunk_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_BLIT_MANAGER_H_
