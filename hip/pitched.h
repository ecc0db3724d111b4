// Pitched memory and the 2D/3D copies and memsets: hipMallocPitch, hipMalloc3D, hipMemAllocPitch,
// hipMemcpy2D/Param2D/3D/DrvMemcpy3D (+Async), hipMemset2D/3D (+Async), over hip::Runtime and the blit
// manager's rectangles (clr::BlitManager::CopyRect / FillRect).
//
// Plays hipamd's hip_memory.cpp (ihipMallocPitch, ihipMemcpy2D/3D, ihipMemset3D). Error codes follow CLR and
// hip-tests' negative cases: a null pointer, a rectangle past its allocation or pageable memory to fill is
// hipErrorInvalidValue; a pitch narrower than the width of a copy is hipErrorInvalidPitchValue (of a memset,
// hipErrorInvalidValue); an empty extent is success with nothing queued; arrays are hipErrorNotSupported (no
// image support). Thread-safe as Runtime is.
#ifndef HIPMEM_HIP_PITCHED_H_
#define HIPMEM_HIP_PITCHED_H_

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hip/hip_runtime_api.h"
#include "hip/runtime.h"
#include "hip/streams.h"

namespace hipmem::hip {

// hipMallocPitch / hipMalloc3D: `depth` slices of `height` rows, each row `width` bytes rounded up to the
// device's pitch alignment (CLR's imagePitchAlignment_, 256 B).
struct PitchedAllocation {
  void* ptr = nullptr;  // nullptr for an empty extent
  size_t pitch = 0;     // 0 for an empty extent
};

// CLR's imagePitchAlignment_: rows of a pitched allocation start 256 B apart at least.
inline constexpr size_t kPitchAlignment = 256;

// Allocates on the current device. An empty extent allocates nothing (nullptr, success). Errors:
// kResourceExhausted (hipErrorOutOfMemory) when pitch x height x depth overflows or exceeds the device's
// largest allocation, or VRAM runs out.
absl::StatusOr<PitchedAllocation> MallocPitch(Runtime& runtime, size_t width, size_t height, size_t depth);

// One side of a rectangle copy, its pointer already at the rectangle's first byte.
struct RectSide {
  const void* ptr;
  size_t pitch;        // bytes from one row to the next
  size_t slice_pitch;  // bytes from one slice to the next (used when depth > 1)
};

struct RectCopy {
  RectSide dst;
  RectSide src;
  size_t width;  // bytes
  size_t height;
  size_t depth;
  MemcpyKind kind;
};

// Queues the copy on `stream` (a copy touching another device's memory goes through that device's null stream,
// ordered with `stream`, as MemcpyAsync does). With `async` false, returns once it is done. Errors:
// InvalidMemcpyDirectionError for a kind outside hipMemcpyKind; kInvalidArgument for a null pointer, a pitch
// above the device's hipDeviceAttributeMaxPitch, a slice pitch smaller than the slice, a rectangle past either
// allocation, or two unknown pointers with a device kind; hipErrorInvalidPitchValue for a pitch below the
// width; ContextIsDestroyedError for a dead stream; the engines' errors.
absl::Status MemcpyRect(Runtime& runtime, const RectCopy& copy, StreamHandle stream, bool async);

// hipMemcpyParam2D's and hipDrvMemcpy3D's / hipMemcpy3D's parameter blocks as a RectCopy: the offsets applied,
// slice pitches from the pitch and the slice height. Errors: kInvalidArgument for a null block, an unknown
// memory type, both or neither of an array and a pointer, or offsets that overflow; hipErrorNotSupported for
// an array side.
absl::StatusOr<RectCopy> FromParam2D(const hip_Memcpy2D* copy);
absl::StatusOr<RectCopy> FromDrvMemcpy3D(const HIP_MEMCPY3D* copy);
absl::StatusOr<RectCopy> FromMemcpy3DParms(const hipMemcpy3DParms* copy);

// hipMemset2D/3D: the low byte of `value` into every byte of `extent` at `dst`, queued on `stream` (another
// device's memory through that device's null stream, ordered with `stream`); with `async` false, returns once
// done. An empty extent is success, whatever the pointer. Errors:
// kInvalidArgument for a null pointer, a width above the pitch, rows past the slice (ysize) in 3D, sizes
// that overflow, memory HIP did not allocate or register, or a rectangle past its allocation;
// ContextIsDestroyedError for a dead stream.
absl::Status MemsetRect(Runtime& runtime, hipPitchedPtr dst, int value, hipExtent extent, StreamHandle stream,
                        bool async);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_PITCHED_H_
