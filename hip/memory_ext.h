// The HIP memory API beyond hipMalloc/hipHostMalloc: hipExtMallocWithFlags, allocation lookups
// (hipMemPtrGetInfo, hipMemGetAddressRange) and peer copies (hipMemcpyPeer/Async).
//
// Plays hipamd's hip_memory.cpp and hip_peer.cpp for these entry points, over hip::Runtime and the
// clr::Context underneath it. Argument checks and error codes follow CLR. Thread-safe as Runtime is.
#ifndef HIPMEM_HIP_MEMORY_EXT_H_
#define HIPMEM_HIP_MEMORY_EXT_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hip/runtime.h"
#include "hip/streams.h"

namespace hipmem::hip {

// hipExtMallocWithFlags kinds (whole values, not bits).
enum class ExtMallocKind : uint32_t {
  kDefault = 0,      // coarse-grained VRAM, as hipMalloc
  kFinegrained = 1,  // fine-grained VRAM where the device has it (a hive), else coarse-grained, as ROCclr
  kSignalMemory = 2, // 8 bytes of coherent fine-grained system memory (a hipMemoryTypeHost allocation)
  kUncached = 3,     // extended-scope fine-grained (uncached) VRAM
  kContiguous = 4,   // uncached VRAM, physically contiguous
};

// hipExtMallocWithFlags on the current device: nullptr for size 0 (except signal memory). The HIP flags are
// kept for hipPointerGetAttributes. Errors: kInvalidArgument (hipErrorInvalidValue) for a kind outside
// ExtMallocKind or signal memory of a size other than 8; kResourceExhausted (hipErrorOutOfMemory) when too
// large for the device or the pool is out of memory.
absl::StatusOr<void*> ExtMallocWithFlags(Runtime& runtime, size_t size, uint32_t flags);

// The allocation HIP made or registered that contains `ptr`.
struct AllocationExtent {
  void* base;
  size_t size;
};

// hipMemGetAddressRange: the allocation containing `ptr` (any interior pointer). NotFound (hipErrorNotFound)
// when HIP knows no allocation there.
absl::StatusOr<AllocationExtent> MemGetAddressRange(const Runtime& runtime, const void* ptr);

// hipMemPtrGetInfo: the size of the allocation containing `ptr`; 0 for a null `ptr`, as CLR answers.
// kInvalidArgument (hipErrorInvalidValue) when HIP knows no allocation there.
absl::StatusOr<size_t> MemPtrGetInfo(const Runtime& runtime, const void* ptr);

// hipMemcpyPeer (`stream` empty: the current device's null stream) and hipMemcpyPeerAsync: a device-to-device
// copy queued as CLR queues it (on the memory's device; the caller does not wait for it). The device ordinals
// are only range-checked, as in CLR; the pointers decide the path. Errors: InvalidDeviceError for an ordinal
// outside [0, device_count()); ContextIsDestroyedError for a stream that is not live; kInvalidArgument for a
// null pointer, a copy past the end of an allocation, or two pointers HIP does not know.
absl::Status MemcpyPeer(Runtime& runtime, void* dst, int dst_device, const void* src, int src_device, size_t size,
                        StreamHandle stream);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_MEMORY_EXT_H_
