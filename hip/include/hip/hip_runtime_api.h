/* HIP runtime host API, rewritten for hipmem.
 *
 * The memory and device subset of ROCm HIP's <hip/hip_runtime_api.h> (ROCm/HIP, October 2024)
 * that hipmem implements on the AMD platform. Error codes, enumerators, flag values, struct layouts
 * and signatures are upstream's, so host code written for HIP compiles unchanged with a plain C or
 * C++ compiler.
 */
#ifndef HIPMEM_HIP_HIP_RUNTIME_API_H_
#define HIPMEM_HIP_HIP_RUNTIME_API_H_

#include <hip/driver_types.h>
#include <stddef.h>
#include <stdint.h>

/* Platform selection. Upstream requires exactly one of __HIP_PLATFORM_AMD__ and
 * __HIP_PLATFORM_NVIDIA__; hipcc defines the former. hipmem is an AMD stack, so a plain host
 * compiler gets the AMD platform by default. */
#if defined(__HIP_PLATFORM_NVIDIA__)
#error "hipmem implements the AMD HIP platform only; do not define __HIP_PLATFORM_NVIDIA__"
#endif
#if !defined(__HIP_PLATFORM_AMD__)
#define __HIP_PLATFORM_AMD__ 1
#endif

/* Marks an exported runtime entry point. */
#ifndef HIP_PUBLIC_API
#if defined(__GNUC__)
#define HIP_PUBLIC_API __attribute__((visibility("default")))
#else
#define HIP_PUBLIC_API
#endif
#endif

/* As upstream: from C++17 on, dropping a hipError_t is diagnosed. */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define __HIP_NODISCARD [[nodiscard]]
#else
#define __HIP_NODISCARD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* --- Errors ----------------------------------------------------------------------------------- */

/* Result of every HIP call. Several names are kept aliases of the same value. */
typedef enum __HIP_NODISCARD hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorMemoryAllocation = 2, /* deprecated alias */
  hipErrorNotInitialized = 3,
  hipErrorInitializationError = 3, /* deprecated alias */
  hipErrorDeinitialized = 4,
  hipErrorProfilerDisabled = 5,
  hipErrorProfilerNotInitialized = 6,
  hipErrorProfilerAlreadyStarted = 7,
  hipErrorProfilerAlreadyStopped = 8,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidPitchValue = 12,
  hipErrorInvalidSymbol = 13,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInsufficientDriver = 35,
  hipErrorMissingConfiguration = 52,
  hipErrorPriorLaunchFailure = 53,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorInvalidContext = 201,
  hipErrorContextAlreadyCurrent = 202,
  hipErrorMapFailed = 205,
  hipErrorMapBufferObjectFailed = 205, /* deprecated alias */
  hipErrorUnmapFailed = 206,
  hipErrorArrayIsMapped = 207,
  hipErrorAlreadyMapped = 208,
  hipErrorNoBinaryForGpu = 209,
  hipErrorAlreadyAcquired = 210,
  hipErrorNotMapped = 211,
  hipErrorNotMappedAsArray = 212,
  hipErrorNotMappedAsPointer = 213,
  hipErrorECCNotCorrectable = 214,
  hipErrorUnsupportedLimit = 215,
  hipErrorContextAlreadyInUse = 216,
  hipErrorPeerAccessUnsupported = 217,
  hipErrorInvalidKernelFile = 218,
  hipErrorInvalidGraphicsContext = 219,
  hipErrorInvalidSource = 300,
  hipErrorFileNotFound = 301,
  hipErrorSharedObjectSymbolNotFound = 302,
  hipErrorSharedObjectInitFailed = 303,
  hipErrorOperatingSystem = 304,
  hipErrorInvalidHandle = 400,
  hipErrorInvalidResourceHandle = 400, /* deprecated alias */
  hipErrorIllegalState = 401,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600, /* queued work has not finished; not a failure */
  hipErrorIllegalAddress = 700,
  hipErrorLaunchOutOfResources = 701,
  hipErrorLaunchTimeOut = 702,
  hipErrorPeerAccessAlreadyEnabled = 704,
  hipErrorPeerAccessNotEnabled = 705,
  hipErrorSetOnActiveProcess = 708,
  hipErrorContextIsDestroyed = 709,
  hipErrorAssert = 710,
  hipErrorHostMemoryAlreadyRegistered = 712,
  hipErrorHostMemoryNotRegistered = 713,
  hipErrorLaunchFailure = 719,
  hipErrorCooperativeLaunchTooLarge = 720,
  hipErrorNotSupported = 801,
  hipErrorStreamCaptureUnsupported = 900,
  hipErrorStreamCaptureInvalidated = 901,
  hipErrorStreamCaptureMerge = 902,
  hipErrorStreamCaptureUnmatched = 903,
  hipErrorStreamCaptureUnjoined = 904,
  hipErrorStreamCaptureIsolation = 905,
  hipErrorStreamCaptureImplicit = 906,
  hipErrorCapturedEvent = 907,
  hipErrorStreamCaptureWrongThread = 908,
  hipErrorGraphExecUpdateFailure = 910,
  hipErrorInvalidChannelDescriptor = 911,
  hipErrorInvalidTexture = 912,
  hipErrorUnknown = 999,
  hipErrorRuntimeMemory = 1052, /* an HSA memory call failed */
  hipErrorRuntimeOther = 1053,  /* any other HSA call failed */
  hipErrorTbd                   /* 1054: end marker, never returned */
} hipError_t;

#undef __HIP_NODISCARD

/* --- Memory types and flags ------------------------------------------------------------------- */

/* Result of hipPointerGetAttributes. */
typedef struct hipPointerAttribute_t {
  enum hipMemoryType type;
  int device; /* hipInvalidDeviceId for unregistered memory */
  void* devicePointer;
  void* hostPointer;
  int isManaged;
  unsigned allocationFlags; /* the flags the memory was allocated with */
} hipPointerAttribute_t;

/* Special device ordinals. */
#define hipCpuDeviceId ((int)-1)
#define hipInvalidDeviceId ((int)-2)

/* hipHostMalloc flags (bits). */
#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipHostMallocNumaUser 0x20000000
#define hipHostMallocCoherent 0x40000000
#define hipHostMallocNonCoherent 0x80000000
/* The same bits under their hipHostAlloc / hipExtHostAlloc names. */
#define hipHostAllocDefault 0x0
#define hipHostAllocPortable 0x1
#define hipHostAllocMapped 0x2
#define hipHostAllocWriteCombined 0x4
#define hipExtHostAllocNumaUser 0x20000000
#define hipExtHostAllocCoherent 0x40000000
#define hipExtHostAllocNonCoherent 0x80000000

/* hipMallocManaged attachment flags. */
#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipMemAttachSingle 0x04

/* hipExtMallocWithFlags kinds: whole values, not bits. */
#define hipDeviceMallocDefault 0x0
#define hipDeviceMallocFinegrained 0x1
#define hipMallocSignalMemory 0x2
#define hipDeviceMallocUncached 0x3
#define hipDeviceMallocContiguous 0x4

/* hipHostRegister flags (bits). */
#define hipHostRegisterDefault 0x0
#define hipHostRegisterPortable 0x1
#define hipHostRegisterMapped 0x2
#define hipHostRegisterIoMemory 0x4
#define hipHostRegisterReadOnly 0x08
#define hipExtHostRegisterCoarseGrained 0x8

/* hipSetDeviceFlags bits that concern memory. */
#define hipDeviceMapHost 0x8
#define hipDeviceLmemResizeToMax 0x10

/* IPC. */
#define hipIpcMemLazyEnablePeerAccess 0x01
#define HIP_IPC_HANDLE_SIZE 64

/* Opaque stream handle; 0 is the default stream. */
typedef struct ihipStream_t* hipStream_t;

/* --- Devices ---------------------------------------------------------------------------------- */

/* Stores the number of usable GPUs in *count. */
HIP_PUBLIC_API hipError_t hipGetDeviceCount(int* count);

/* Makes deviceId the calling thread's current device. */
HIP_PUBLIC_API hipError_t hipSetDevice(int deviceId);

/* Stores the calling thread's current device in *deviceId. */
HIP_PUBLIC_API hipError_t hipGetDevice(int* deviceId);

/* --- Memory ----------------------------------------------------------------------------------- */

/* Allocates size bytes of device memory on the current device and stores the address in *ptr;
 * size 0 succeeds with *ptr = NULL. */
HIP_PUBLIC_API hipError_t hipMalloc(void** ptr, size_t size);

/* Frees memory from hipMalloc after synchronising its device; NULL is accepted. */
HIP_PUBLIC_API hipError_t hipFree(void* ptr);

/* Allocates size bytes of pinned host memory that devices can access. */
HIP_PUBLIC_API hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags);

/* Frees memory from hipHostMalloc; NULL is accepted. */
HIP_PUBLIC_API hipError_t hipHostFree(void* ptr);

/* Copies sizeBytes from src to dst and returns when the copy is done. */
HIP_PUBLIC_API hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes,
                                    hipMemcpyKind kind);

/* Stores the free and total device memory of the current device, in bytes. */
HIP_PUBLIC_API hipError_t hipMemGetInfo(size_t* free, size_t* total);

/* Describes the allocation that contains ptr; unknown host memory is reported as
 * hipMemoryTypeUnregistered, not as an error. */
HIP_PUBLIC_API hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes,
                                                  const void* ptr);

/* --- Error reporting -------------------------------------------------------------------------- */

/* Returns the calling thread's last error and resets it to hipSuccess. */
HIP_PUBLIC_API hipError_t hipGetLastError(void);

/* Returns the calling thread's last error without resetting it. */
HIP_PUBLIC_API hipError_t hipPeekAtLastError(void);

/* Returns the enumerator spelling of hip_error, e.g. "hipErrorInvalidValue". */
HIP_PUBLIC_API const char* hipGetErrorName(hipError_t hip_error);

/* Returns a short human-readable description of hipError. */
HIP_PUBLIC_API const char* hipGetErrorString(hipError_t hipError);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPMEM_HIP_HIP_RUNTIME_API_H_ */
