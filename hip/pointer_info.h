// Pointer queries by attribute: hipPointerGetAttribute, hipDrvPointerGetAttributes, hipPointerSetAttribute.
//
// Plays hipamd's ihipPointerGetAttributes / ihipPointerSetAttribute (hip_memory.cpp): every answer comes from
// the clr::MemObjMap object containing the pointer (interior pointers included), and like CLR each attribute
// may write a default value *and* fail, which hipDrvPointerGetAttributes relies on. Thread-safe.
#ifndef HIPMEM_HIP_POINTER_INFO_H_
#define HIPMEM_HIP_POINTER_INFO_H_

#include <cstddef>
#include <cstdint>
#include <variant>

#include "absl/status/status.h"
#include "hip/runtime.h"

namespace hipmem::hip {

// hipPointer_attribute values.
enum class PointerAttribute : uint32_t {
  kContext = 1,
  kMemoryType = 2,
  kDevicePointer = 3,
  kHostPointer = 4,
  kP2pTokens = 5,
  kSyncMemops = 6,
  kBufferId = 7,
  kIsManaged = 8,
  kDeviceOrdinal = 9,
  kIsLegacyHipIpcCapable = 10,
  kRangeStartAddr = 11,
  kRangeSize = 12,
  kMapped = 13,
  kAllowedHandleTypes = 14,
  kIsGpuDirectRdmaCapable = 15,
  kAccessFlags = 16,
  kMempoolHandle = 17,
};

// What CLR writes into the caller's `data` for one attribute, in the C type it writes: nothing
// (std::monostate), a bool, an int, an unsigned 32-bit value (RANGE_SIZE and BUFFER_ID are 32-bit in CLR),
// or a pointer (hipCtx_t, hipDeviceptr_t, host pointers).
using PointerAttributeValue = std::variant<std::monostate, bool, int32_t, uint32_t, void*>;

struct PointerAttributeAnswer {
  PointerAttributeValue value;
  // OK, or: kInvalidArgument (hipErrorInvalidValue) for memory HIP does not know (most attributes), a host
  // pointer asked for on device memory, a context asked for on host memory, or an unknown attribute;
  // kUnimplemented (hipErrorNotSupported) for P2P_TOKENS, ALLOWED_HANDLE_TYPES, IS_GPU_DIRECT_RDMA_CAPABLE and
  // MEMPOOL_HANDLE.
  absl::Status status;
};

// hipPointerGetAttribute(attribute, ptr) for any `attribute` value (unknown ones fail as above). CONTEXT
// answers the device's opaque context handle (DeviceContextHandle) for device memory; host and registered
// memory belong to CLR's host context, which no device owns, so CONTEXT fails there as in CLR.
PointerAttributeAnswer GetPointerAttribute(const Runtime& runtime, uint32_t attribute, const void* ptr);

// The hipCtx_t value CONTEXT reports for device `ordinal`: stable and distinct per device.
void* DeviceContextHandle(const Runtime& runtime, int ordinal);

// hipPointerSetAttribute: only SYNC_MEMOPS, with 0 or 1, on any pointer into HIP memory. Errors:
// kInvalidArgument (hipErrorInvalidValue) for another attribute or value; InvalidDevicePointerError when HIP
// knows no allocation at `ptr`.
absl::Status SetPointerAttribute(Runtime& runtime, uint32_t attribute, uint32_t value, const void* ptr);

// hipMemGetHandleForAddressRange: a dma-buf fd for [dptr, dptr + size). Follows hipamd's checks
// (hip_memory.cpp, hipMemGetHandleForAddressRange, then amd::Device::GetHandleForAddressRange in device.cpp):
// kInvalidArgument (hipErrorInvalidValue) for a null `handle` or `dptr`, size 0, a handle type other than
// hipMemRangeHandleTypeDmaBufFd, nonzero flags, or a `dptr` inside no HIP allocation (freed or plain host memory),
// as hip-tests' Unit_hipMemGetHandleForAddressRange_Negative expects. A valid range fails kUnimplemented
// (hipErrorNotSupported): hipmem does not model dma-buf export and its system reports DMABUF_SUPPORTED false
// (upstream on such a system fails the export inside ROCr and answers hipErrorInvalidValue).
absl::Status GetHandleForAddressRange(const Runtime& runtime, const void* handle, const void* dptr, size_t size,
                                      uint32_t handle_type, unsigned long long flags);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_POINTER_INFO_H_
