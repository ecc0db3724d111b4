// hip* C entry points for extended allocation, pointer queries, peer copies, valid devices and limits: thin
// shells over memory_ext.h, pointer_info.h, Runtime and its DeviceLimits. Each records its result as the
// thread's last error.
#define HIP_ABI_IMPL 1  // define hipMallocHost / hipMemAllocHost / hipFreeHost without deprecation warnings

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hip/c_shell.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/memory_ext.h"
#include "hip/pointer_info.h"
#include "hip/runtime.h"
#include "hip/streams.h"

using hipmem::hip::Return;
using hipmem::hip::Runtime;
using hipmem::hip::StreamHandle;

namespace {

hipError_t HostAlloc(void** ptr, size_t size, unsigned int flags) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<void*> p = rt.HostMalloc(size, flags);
  if (!p.ok()) return Return(p.status());
  *ptr = *p;
  return Return(hipSuccess);
}

// Writes what CLR writes for one attribute into `data` (which the caller checked is not null).
void Write(const hipmem::hip::PointerAttributeValue& value, void* data) {
  std::visit(
      [data](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (!std::is_same_v<T, std::monostate>) *static_cast<T*>(data) = v;
      },
      value);
}

}  // namespace

extern "C" {

hipError_t hipExtMallocWithFlags(void** ptr, size_t sizeBytes, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, ptr, sizeBytes, flags);
  if (ptr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<void*> p = hipmem::hip::ExtMallocWithFlags(rt, sizeBytes, flags);
  if (!p.ok()) return Return(p.status());
  *ptr = *p;
  return Return(hipSuccess);
}

hipError_t hipMallocHost(void** ptr, size_t size) { return HostAlloc(ptr, size, hipHostMallocDefault); }

hipError_t hipMemAllocHost(void** ptr, size_t size) { return HostAlloc(ptr, size, hipHostMallocDefault); }

hipError_t hipHostAlloc(void** ptr, size_t size, unsigned int flags) { return HostAlloc(ptr, size, flags); }

// The deprecated name of hipHostFree: the same release, the same codes.
hipError_t hipFreeHost(void* ptr) { return hipHostFree(ptr); }

hipError_t hipPointerGetAttribute(void* data, hipPointer_attribute attribute, hipDeviceptr_t ptr) {
  HIPMEM_INIT_OR_RETURN(rt, data, attribute, ptr);
  if (data == nullptr || ptr == nullptr) return Return(hipErrorInvalidValue);
  const hipmem::hip::PointerAttributeAnswer answer =
      hipmem::hip::GetPointerAttribute(rt, static_cast<uint32_t>(attribute), ptr);
  Write(answer.value, data);
  return Return(answer.status);
}

hipError_t hipDrvPointerGetAttributes(unsigned int numAttributes, hipPointer_attribute* attributes, void** data,
                                      hipDeviceptr_t ptr) {
  HIPMEM_INIT_OR_RETURN(rt, numAttributes, attributes, data, ptr);
  if (numAttributes == 0 || attributes == nullptr || data == nullptr || ptr == nullptr) {
    return Return(hipErrorInvalidValue);
  }
  // CLR answers success whatever each attribute says: failed ones leave their default value.
  for (unsigned int i = 0; i < numAttributes; ++i) {
    if (data[i] == nullptr) continue;  // nowhere to write (CLR would crash)
    Write(hipmem::hip::GetPointerAttribute(rt, static_cast<uint32_t>(attributes[i]), ptr).value, data[i]);
  }
  return Return(hipSuccess);
}

hipError_t hipPointerSetAttribute(const void* value, hipPointer_attribute attribute, hipDeviceptr_t ptr) {
  HIPMEM_INIT_OR_RETURN(rt, value, attribute, ptr);
  if (value == nullptr || ptr == nullptr) return Return(hipErrorInvalidValue);
  return Return(hipmem::hip::SetPointerAttribute(rt, static_cast<uint32_t>(attribute),
                                                 *static_cast<const unsigned int*>(value), ptr));
}

hipError_t hipMemGetHandleForAddressRange(void* handle, hipDeviceptr_t dptr, size_t size,
                                          hipMemRangeHandleType handleType, unsigned long long flags) {
  HIPMEM_INIT_OR_RETURN(rt, handle, dptr, size, handleType, flags);
  return Return(hipmem::hip::GetHandleForAddressRange(rt, handle, dptr, size, static_cast<uint32_t>(handleType),
                                                      flags));
}

hipError_t hipMemGetAddressRange(hipDeviceptr_t* pbase, size_t* psize, hipDeviceptr_t dptr) {
  HIPMEM_INIT_OR_RETURN(rt, pbase, psize, dptr);
  if (pbase == nullptr || psize == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<hipmem::hip::AllocationExtent> extent = hipmem::hip::MemGetAddressRange(rt, dptr);
  if (!extent.ok()) return Return(extent.status());
  *pbase = extent->base;
  *psize = extent->size;
  return Return(hipSuccess);
}

hipError_t hipMemPtrGetInfo(void* ptr, size_t* size) {
  HIPMEM_INIT_OR_RETURN(rt, ptr, size);
  if (size == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<size_t> s = hipmem::hip::MemPtrGetInfo(rt, ptr);
  if (!s.ok()) return Return(s.status());
  *size = *s;
  return Return(hipSuccess);
}

hipError_t hipMemcpyPeer(void* dst, int dstDeviceId, const void* src, int srcDeviceId, size_t sizeBytes) {
  HIPMEM_INIT_OR_RETURN(rt, dst, dstDeviceId, src, srcDeviceId, sizeBytes);
  return Return(
      hipmem::hip::MemcpyPeer(rt, dst, dstDeviceId, src, srcDeviceId, sizeBytes, hipmem::hip::kNullStreamHandle));
}

hipError_t hipMemcpyPeerAsync(void* dst, int dstDeviceId, const void* src, int srcDevice, size_t sizeBytes,
                              hipStream_t stream) {
  HIPMEM_INIT_OR_RETURN(rt, dst, dstDeviceId, src, srcDevice, sizeBytes, stream);
  return Return(hipmem::hip::MemcpyPeer(rt, dst, dstDeviceId, src, srcDevice, sizeBytes,
                                        StreamHandle(reinterpret_cast<uint64_t>(stream))));
}

hipError_t hipSetValidDevices(int* device_arr, int len) {
  HIPMEM_INIT_OR_RETURN(rt, device_arr, len);
  return Return(rt.SetValidDevices(device_arr, len));
}

hipError_t hipDeviceGetLimit(size_t* pValue, enum hipLimit_t limit) {
  HIPMEM_INIT_OR_RETURN(rt, pValue, limit);
  if (pValue == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<size_t> value = rt.limits().Get(rt.current_device(), static_cast<uint32_t>(limit));
  if (!value.ok()) return Return(value.status());
  *pValue = *value;
  return Return(hipSuccess);
}

hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value) {
  HIPMEM_INIT_OR_RETURN(rt, limit, value);
  return Return(rt.limits().Set(rt.current_device(), static_cast<uint32_t>(limit), value));
}

}  // extern "C"
