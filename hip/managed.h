// Managed memory at the HIP layer: hipMallocManaged, hipMemAdvise, hipMemPrefetchAsync, hipMemRangeGetAttribute(s)
// and hipStreamAttachMemAsync.
//
// Plays hipamd's hip_hmm.cpp over ROCclr's SVM buffers (clr/svm.h): the argument checks and error codes CLR
// makes, then the buffer's advice, prefetch and attributes. hipFree, copies, fills and pointer queries find
// managed memory through the context's object map like any other allocation. Thread-safe.
#ifndef HIPMEM_HIP_MANAGED_H_
#define HIPMEM_HIP_MANAGED_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "clr/svm.h"
#include "hip/runtime.h"
#include "hip/streams.h"

namespace hipmem::hip {

// The managed memory of `runtime`, made on first use and kept as long as the process (as the runtime is).
clr::ManagedMemory& ManagedOf(Runtime& runtime);

// hipMallocManaged: `size` bytes for the current device. Errors: kInvalidArgument (hipErrorInvalidValue) for
// size 0 or flags other than hipMemAttachGlobal / hipMemAttachHost; kResourceExhausted (hipErrorOutOfMemory)
// when the process cannot map that much.
absl::StatusOr<void*> MallocManaged(Runtime& runtime, size_t size, uint32_t flags);

// hipMemAdvise. `device` is an ordinal or hipCpuDeviceId. Errors: hipErrorInvalidValue for a null pointer, count
// 0, an unknown advice, or a range outside one managed buffer; hipErrorInvalidDevice for another device value.
absl::Status MemAdvise(Runtime& runtime, const void* ptr, size_t count, uint32_t advice, int device);

// hipMemPrefetchAsync: queues the migration on `stream` (a null stream: the target device's null stream, the
// current device's for the CPU). Errors: hipErrorInvalidValue for a null pointer, count 0, or a range past its
// managed buffer or in other HIP memory; hipErrorNotSupported for memory HIP did not allocate (pageable memory
// is not prefetched); hipErrorInvalidDevice; the stream's errors.
absl::Status MemPrefetchAsync(Runtime& runtime, const void* ptr, size_t count, int device, StreamHandle stream);

// hipMemRangeGetAttribute: writes one hipMemRangeAttribute of [ptr, ptr + count) into data (4 bytes; AccessedBy:
// any multiple of 4, one ordinal per slot, hipInvalidDeviceId in the unused ones). Errors: hipErrorInvalidValue
// for null or empty arguments, a size the attribute does not fit, an unknown attribute, or a range outside one
// managed buffer.
absl::Status MemRangeGetAttribute(Runtime& runtime, void* data, size_t data_size, uint32_t attribute,
                                  const void* ptr, size_t count);

// hipStreamAttachMemAsync: checks its arguments as CLR does and changes nothing (every managed buffer is
// reachable from every stream). Errors: hipErrorInvalidValue for a null pointer, unknown flags,
// hipMemAttachSingle without a stream, memory HIP does not know, or a length other than 0 or the buffer's size;
// the stream's errors.
absl::Status StreamAttachMemAsync(Runtime& runtime, StreamHandle stream, void* ptr, size_t length, uint32_t flags);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_MANAGED_H_
