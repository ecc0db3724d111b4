// hip* C entry points: thin shells over hip::Runtime. Each one initialises the runtime on first
// use, converts arguments, calls the C++ API, and records its result as the thread's last error
// (CLR's HIP_RETURN stores every result, success included).
#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hip/c_shell.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/runtime.h"

using hipmem::hip::MemcpyKind;
using hipmem::hip::PointerAttributes;
using hipmem::hip::Return;
using hipmem::hip::Runtime;

extern "C" {

hipError_t hipMalloc(void** ptr, size_t size) {
  HIPMEM_INIT_OR_RETURN(rt, ptr, size);
  if (ptr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<void*> p = rt.Malloc(size);
  if (!p.ok()) return Return(p.status());
  *ptr = *p;
  return Return(hipSuccess);
}

hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, ptr, size, flags);
  if (ptr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<void*> p = rt.HostMalloc(size, flags);
  if (!p.ok()) return Return(p.status());
  *ptr = *p;
  return Return(hipSuccess);
}

hipError_t hipFree(void* ptr) {
  HIPMEM_INIT_OR_RETURN(rt, ptr);
  return Return(rt.Free(ptr));
}

hipError_t hipHostFree(void* ptr) {
  HIPMEM_INIT_OR_RETURN(rt, ptr);
  return Return(rt.Free(ptr));
}

hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind) {
  HIPMEM_INIT_OR_RETURN(rt, dst, src, sizeBytes, kind);
  return Return(rt.Memcpy(dst, src, sizeBytes, static_cast<MemcpyKind>(kind)));
}

hipError_t hipMemGetInfo(size_t* free, size_t* total) {
  HIPMEM_INIT_OR_RETURN(rt, free, total);
  absl::StatusOr<hipmem::clr::MemInfo> info = rt.MemGetInfo();
  if (!info.ok()) return Return(info.status());
  if (free != nullptr) *free = info->free.raw();
  if (total != nullptr) *total = info->total.raw();
  return Return(hipSuccess);
}

hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr) {
  HIPMEM_INIT_OR_RETURN(rt, attributes, ptr);
  // hip_memory.cpp hipPointerGetAttributes refuses a null `attributes` or a null `ptr` with hipErrorInvalidValue;
  // any other pointer HIP never returned succeeds as hipMemoryTypeUnregistered.
  if (attributes == nullptr || ptr == nullptr) return Return(hipErrorInvalidValue);
  const PointerAttributes a = rt.GetPointerAttributes(ptr);
  attributes->type = static_cast<hipMemoryType>(a.type);
  attributes->device = a.device;
  attributes->devicePointer = a.device_pointer;
  attributes->hostPointer = a.host_pointer;
  attributes->isManaged = a.is_managed ? 1 : 0;
  attributes->allocationFlags = a.allocation_flags;
  return Return(hipSuccess);
}

hipError_t hipGetDeviceCount(int* count) {
  // HIP_INIT_API_NO_RETURN in CLR: a runtime that did not start is a count of zero (ihipDeviceGetCount), not an
  // error of its own.
  HIPMEM_API_SLICE(count);
  if (count == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<hipmem::hip::Runtime*> rt = hipmem::hip::Runtime::Get();
  *count = rt.ok() ? (*rt)->device_count() : 0;
  return Return(*count > 0 ? hipSuccess : hipErrorNoDevice);
}

hipError_t hipSetDevice(int deviceId) {
  HIPMEM_INIT_OR_RETURN(rt, deviceId);
  return Return(rt.SetDevice(deviceId));
}

hipError_t hipGetDevice(int* deviceId) {
  HIPMEM_INIT_OR_RETURN(rt, deviceId);
  if (deviceId == nullptr) return Return(hipErrorInvalidValue);
  *deviceId = rt.current_device();
  return Return(hipSuccess);
}

// The two error queries report the previous call's result rather than their own.
hipError_t hipGetLastError(void) {
  HIPMEM_API_SLICE();
  const hipError_t last = hipmem::hip::ThreadLastError();
  hipmem::hip::ThreadLastError() = hipSuccess;
  return last;
}

hipError_t hipPeekAtLastError(void) { return hipmem::hip::ThreadLastError(); }

const char* hipGetErrorName(hipError_t hip_error) { return hipmem::hip::HipErrorName(hip_error); }

const char* hipGetErrorString(hipError_t hipError) { return hipmem::hip::HipErrorString(hipError); }

}  // extern "C"
