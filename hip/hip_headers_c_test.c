/* Compiles <hip/hip_runtime_api.h> as C and pins the values and layouts that HIP host code depends
 * on (ROCm/rocm-systems projects/hip at 003a5d1). Everything is checked at compile time. */
#include <hip/driver_types.h> /* again: the include guards must hold */
#include <hip/hip_runtime_api.h>
#include <stddef.h>

#if !defined(__HIP_PLATFORM_AMD__)
#error "the header selects the AMD platform"
#endif

/* Errors, including the aliases. */
_Static_assert(hipSuccess == 0 && hipErrorInvalidValue == 1, "");
_Static_assert(hipErrorOutOfMemory == 2 && hipErrorMemoryAllocation == 2, "alias");
_Static_assert(hipErrorNotInitialized == 3 && hipErrorInitializationError == 3, "alias");
_Static_assert(hipErrorDeinitialized == 4, "");
_Static_assert(hipErrorProfilerAlreadyStopped == 8 && hipErrorInvalidConfiguration == 9, "");
_Static_assert(hipErrorInvalidPitchValue == 12 && hipErrorInvalidSymbol == 13, "");
_Static_assert(hipErrorInvalidDevicePointer == 17, "");
_Static_assert(hipErrorInvalidMemcpyDirection == 21, "");
_Static_assert(hipErrorInsufficientDriver == 35, "");
_Static_assert(hipErrorMissingConfiguration == 52 && hipErrorPriorLaunchFailure == 53, "");
_Static_assert(hipErrorInvalidDeviceFunction == 98, "");
_Static_assert(hipErrorNoDevice == 100 && hipErrorInvalidDevice == 101, "");
_Static_assert(hipErrorInvalidImage == 200 && hipErrorContextAlreadyCurrent == 202, "");
_Static_assert(hipErrorMapFailed == 205 && hipErrorMapBufferObjectFailed == 205, "alias");
_Static_assert(hipErrorNotMapped == 211 && hipErrorInvalidGraphicsContext == 219, "");
_Static_assert(hipErrorInvalidSource == 300 && hipErrorOperatingSystem == 304, "");
_Static_assert(hipErrorInvalidHandle == 400 && hipErrorInvalidResourceHandle == 400, "alias");
_Static_assert(hipErrorIllegalState == 401 && hipErrorNotFound == 500, "");
_Static_assert(hipErrorNotReady == 600 && hipErrorIllegalAddress == 700, "");
_Static_assert(hipErrorLaunchTimeOut == 702 && hipErrorPeerAccessAlreadyEnabled == 704, "");
_Static_assert(hipErrorSetOnActiveProcess == 708 && hipErrorContextIsDestroyed == 709, "");
_Static_assert(hipErrorHostMemoryAlreadyRegistered == 712, "");
_Static_assert(hipErrorHostMemoryNotRegistered == 713, "");
_Static_assert(hipErrorLaunchFailure == 719 && hipErrorCooperativeLaunchTooLarge == 720, "");
_Static_assert(hipErrorNotSupported == 801, "");
_Static_assert(hipErrorStreamCaptureUnsupported == 900, "");
_Static_assert(hipErrorStreamCaptureWrongThread == 908, "");
_Static_assert(hipErrorGraphExecUpdateFailure == 910 && hipErrorInvalidTexture == 912, "");
_Static_assert(hipErrorUnknown == 999, "");
_Static_assert(hipErrorRuntimeMemory == 1052 && hipErrorRuntimeOther == 1053, "");
_Static_assert(hipErrorInvalidClusterSize == 1054, "");
_Static_assert(hipErrorTbd == 1055, "marker follows the last code");
_Static_assert(sizeof(hipError_t) == sizeof(int), "");

/* Copy kinds and memory types. */
_Static_assert(hipMemcpyHostToHost == 0 && hipMemcpyHostToDevice == 1, "");
_Static_assert(hipMemcpyDeviceToHost == 2 && hipMemcpyDeviceToDevice == 3, "");
_Static_assert(hipMemcpyDefault == 4 && hipMemcpyDeviceToDeviceNoCU == 1024, "");
_Static_assert(hipMemoryTypeUnregistered == 0 && hipMemoryTypeHost == 1, "");
_Static_assert(hipMemoryTypeDevice == 2 && hipMemoryTypeManaged == 3, "");
_Static_assert(hipMemoryTypeArray == 10 && hipMemoryTypeUnified == 11, "");

/* hipPointerAttribute_t on LP64. */
_Static_assert(offsetof(hipPointerAttribute_t, type) == 0, "");
_Static_assert(offsetof(hipPointerAttribute_t, device) == 4, "");
_Static_assert(offsetof(hipPointerAttribute_t, devicePointer) == 8, "");
_Static_assert(offsetof(hipPointerAttribute_t, hostPointer) == 16, "");
_Static_assert(offsetof(hipPointerAttribute_t, isManaged) == 24, "");
_Static_assert(offsetof(hipPointerAttribute_t, allocationFlags) == 28, "");
_Static_assert(sizeof(hipPointerAttribute_t) == 32, "");

/* Flags and special ids. */
_Static_assert(hipInvalidDeviceId == -2 && hipCpuDeviceId == -1, "");
_Static_assert(hipHostMallocDefault == 0 && hipHostMallocPortable == 1, "");
_Static_assert(hipHostMallocMapped == 2 && hipHostMallocWriteCombined == 4, "");
_Static_assert(hipHostMallocNumaUser == 0x20000000, "");
_Static_assert(hipHostMallocCoherent == 0x40000000, "");
_Static_assert(hipHostMallocNonCoherent == 0x80000000u, "");
_Static_assert(hipHostAllocMapped == hipHostMallocMapped, "");
_Static_assert(hipHostAllocUncached == hipHostMallocUncached && hipHostMallocUncached == 0x10000000, "");
_Static_assert(hipMemAttachGlobal == 1 && hipMemAttachHost == 2 && hipMemAttachSingle == 4, "");
_Static_assert(hipDeviceMallocUncached == 3 && hipDeviceMallocContiguous == 4, "");
_Static_assert(hipHostRegisterIoMemory == 4 && hipHostRegisterReadOnly == 8, "");
_Static_assert(hipExtHostRegisterCoarseGrained == 8, "");
_Static_assert(hipDeviceMapHost == 8 && hipDeviceLmemResizeToMax == 0x10, "");
_Static_assert(HIP_IPC_HANDLE_SIZE == 64 && hipIpcMemLazyEnablePeerAccess == 1, "");
_Static_assert(sizeof(hipStream_t) == sizeof(void*) && sizeof(hipDeviceptr_t) == sizeof(void*), "");

/* The declarations have upstream's types. _Generic does not evaluate its operand, so nothing here
 * needs the runtime at link time. */
#define HAS_TYPE(fn, type) _Generic(&(fn), type : 1, default : 0)
_Static_assert(HAS_TYPE(hipMalloc, hipError_t (*)(void**, size_t)), "hipMalloc");
_Static_assert(HAS_TYPE(hipFree, hipError_t (*)(void*)), "hipFree");
_Static_assert(HAS_TYPE(hipMemcpy, hipError_t (*)(void*, const void*, size_t, hipMemcpyKind)),
               "hipMemcpy");
_Static_assert(HAS_TYPE(hipMemGetInfo, hipError_t (*)(size_t*, size_t*)), "hipMemGetInfo");
_Static_assert(HAS_TYPE(hipHostMalloc, hipError_t (*)(void**, size_t, unsigned int)),
               "hipHostMalloc");
_Static_assert(HAS_TYPE(hipHostFree, hipError_t (*)(void*)), "hipHostFree");
_Static_assert(HAS_TYPE(hipPointerGetAttributes,
                        hipError_t (*)(hipPointerAttribute_t*, const void*)),
               "hipPointerGetAttributes");
_Static_assert(HAS_TYPE(hipGetDeviceCount, hipError_t (*)(int*)), "hipGetDeviceCount");
_Static_assert(HAS_TYPE(hipSetDevice, hipError_t (*)(int)), "hipSetDevice");
_Static_assert(HAS_TYPE(hipGetDevice, hipError_t (*)(int*)), "hipGetDevice");
_Static_assert(HAS_TYPE(hipGetLastError, hipError_t (*)(void)), "hipGetLastError");
_Static_assert(HAS_TYPE(hipPeekAtLastError, hipError_t (*)(void)), "hipPeekAtLastError");
_Static_assert(HAS_TYPE(hipGetErrorName, const char* (*)(hipError_t)), "hipGetErrorName");
_Static_assert(HAS_TYPE(hipGetErrorString, const char* (*)(hipError_t)), "hipGetErrorString");

int main(void) { return 0; }
