// hip* entry points that need no device work: version and error-name queries and channel descriptors.
// (The kernel registration and launch-configuration ABI lives in hip_kernel_c_api.cc.)
#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "hip/channel_descriptor.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/last_error.h"
#include "hip/runtime.h"

using hipmem::hip::RecordLastError;

namespace hip_impl {

// Initialises the runtime as every hip* call does first (CLR's HIP_INIT_API); declared by
// <hip/hip_runtime_api.h> for C++ callers.
hipError_t hip_init() {
  absl::StatusOr<hipmem::hip::Runtime*> runtime = hipmem::hip::Runtime::Get();
  return runtime.ok() ? hipSuccess : hipmem::hip::ToHipError(runtime.status());
}

}  // namespace hip_impl

extern "C" {

// --- Versions and error names --------------------------------------------------------------------

hipError_t hipRuntimeGetVersion(int* runtimeVersion) {
  if (runtimeVersion == nullptr) return RecordLastError(hipErrorInvalidValue);
  *runtimeVersion = HIP_VERSION;
  return RecordLastError(hipSuccess);
}

hipError_t hipDriverGetVersion(int* driverVersion) {
  if (driverVersion == nullptr) return RecordLastError(hipErrorInvalidValue);
  *driverVersion = HIP_VERSION;
  return RecordLastError(hipSuccess);
}

// Same as hipGetLastError: returns the thread's last error and resets it.
hipError_t hipExtGetLastError(void) {
  const hipError_t last = hipmem::hip::ThreadLastError();
  hipmem::hip::ThreadLastError() = hipSuccess;
  return last;
}

hipError_t hipDrvGetErrorName(hipError_t hipError, const char** errorString) {
  if (errorString == nullptr) return RecordLastError(hipErrorInvalidValue);
  *errorString = hipmem::hip::HipErrorName(hipError);
  return RecordLastError(hipSuccess);
}

hipError_t hipDrvGetErrorString(hipError_t hipError, const char** errorString) {
  if (errorString == nullptr) return RecordLastError(hipErrorInvalidValue);
  *errorString = hipmem::hip::HipErrorString(hipError);
  return RecordLastError(hipSuccess);
}

// --- Per-thread default stream -------------------------------------------------------------------

// hipMemcpy returns when the copy is done and orders against nothing else, so the per-thread
// variant a -fgpu-default-stream=per-thread build calls behaves identically.
hipError_t hipMemcpy_spt(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind) {
  return hipMemcpy(dst, src, sizeBytes, kind);
}

// --- Channel descriptors -------------------------------------------------------------------------

hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, hipChannelFormatKind f) {
  hipChannelFormatDesc desc;
  desc.x = x;
  desc.y = y;
  desc.z = z;
  desc.w = w;
  desc.f = f;
  return desc;
}

// --- Tracing names -------------------------------------------------------------------------------

// hipmem has no API-ID table: every ID is unknown.
const char* hipApiName(uint32_t /*id*/) { return "unknown"; }

// The null stream belongs to the calling thread's current device; hipmem creates no other streams
// yet, so any other handle is unknown (-1, as upstream answers for an invalid stream).
int hipGetStreamDeviceId(hipStream_t stream) {
  if (stream != nullptr) return -1;
  absl::StatusOr<hipmem::hip::Runtime*> runtime = hipmem::hip::Runtime::Get();
  if (!runtime.ok()) return -1;
  return (*runtime)->current_device();
}

// No pre-compiled header for online compilation.
void __hipGetPCH(const char** pch, unsigned int* size) {
  if (pch != nullptr) *pch = nullptr;
  if (size != nullptr) *size = 0;
}

}  // extern "C"
