// hip* entry points that need no device work: version and error-name queries, channel descriptors,
// and the kernel registration / launch-configuration ABI that hipcc-compiled host code calls
// before main. hipmem runs no user ISA, so registration records nothing and launches fail in
// hipLaunchKernel (hip_unsupported.cc) with hipErrorNotSupported; the configuration stack behind
// the triple-chevron syntax works, so a launch reports that error rather than a bogus
// hipErrorMissingConfiguration.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hip/channel_descriptor.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/last_error.h"
#include "hip/runtime.h"

namespace hipmem::hip {
namespace {

using hipmem::hip::RecordLastError;

// One pushed kernel-launch configuration (hipcc emits push before and pop inside each kernel stub).
struct CallConfiguration {
  dim3 grid;
  dim3 block;
  size_t shared_memory;
  hipStream_t stream;
};

std::vector<CallConfiguration>& ThreadCallConfigurations() {
  thread_local std::vector<CallConfiguration> stack;
  return stack;
}

// What __hipRegisterFatBinary hands back: a non-null handle the compiler-generated code stores and
// passes to the other registration calls. No module is ever loaded behind it.
void* g_no_modules[1] = {nullptr};

}  // namespace
}  // namespace hipmem::hip

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
// No kernel is ever registered, so no name is known.
const char* hipKernelNameRef(const hipFunction_t /*f*/) { return nullptr; }
const char* hipKernelNameRefByPtr(const void* /*hostFunction*/, hipStream_t /*stream*/) {
  return nullptr;
}

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

// --- Launch configuration (triple-chevron syntax) ------------------------------------------------

hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                      hipStream_t stream) {
  hipmem::hip::ThreadCallConfigurations().push_back({gridDim, blockDim, sharedMem, stream});
  return RecordLastError(hipSuccess);
}

hipError_t __hipPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                     hipStream_t* stream) {
  std::vector<hipmem::hip::CallConfiguration>& stack = hipmem::hip::ThreadCallConfigurations();
  if (stack.empty()) return RecordLastError(hipErrorMissingConfiguration);
  const hipmem::hip::CallConfiguration top = stack.back();
  stack.pop_back();
  if (gridDim != nullptr) *gridDim = top.grid;
  if (blockDim != nullptr) *blockDim = top.block;
  if (sharedMem != nullptr) *sharedMem = top.shared_memory;
  if (stream != nullptr) *stream = top.stream;
  return RecordLastError(hipSuccess);
}

// --- Code-object registration (called from hipcc-generated constructors) -------------------------
// The parameter types are CLR's; only the symbol names matter to the C ABI. Nothing is recorded:
// there is no ISA to load, and hipLaunchKernel refuses every launch.

void** __hipRegisterFatBinary(const void* /*data*/) { return hipmem::hip::g_no_modules; }

void __hipUnregisterFatBinary(void** /*modules*/) {}

void __hipRegisterFunction(void** /*modules*/, const void* /*hostFunction*/,
                           char* /*deviceFunction*/, const char* /*deviceName*/,
                           unsigned int /*threadLimit*/, void* /*tid*/, void* /*bid*/,
                           dim3* /*blockDim*/, dim3* /*gridDim*/, int* /*wSize*/) {}

void __hipRegisterVar(void** /*modules*/, void* /*var*/, char* /*hostVar*/, char* /*deviceVar*/,
                      int /*ext*/, size_t /*size*/, int /*constant*/, int /*global*/) {}

void __hipRegisterManagedVar(void* /*hipModule*/, void** /*pointer*/, void* /*init_value*/,
                             const char* /*name*/, size_t /*size*/, unsigned /*align*/) {}

void __hipRegisterSurface(void** /*modules*/, void* /*var*/, char* /*hostVar*/, char* /*deviceVar*/,
                          int /*type*/, int /*ext*/) {}

void __hipRegisterTexture(void** /*modules*/, void* /*var*/, char* /*hostVar*/, char* /*deviceVar*/,
                          int /*type*/, int /*norm*/, int /*ext*/) {}

}  // extern "C"
