/* The AMD platform's <hip/hip_runtime.h> body, rewritten for hipmem.
 *
 * What a plain C or C++ compiler sees is the runtime API, the vector and channel types, the kernel-language
 * markers as no-ops, and the launch helper below; device builtins (threadIdx, __syncthreads, atomics) have no
 * meaning without a device compiler. HIP-Clang (clang -x hip, both sides of the TU) also gets the kernel
 * language (amd_device_functions.h, amd_hip_atomic.h, amd_warp_functions.h, device printf in amd_device_printf.h),
 * the device math library (amd_math_functions.h) and upstream's launch macro.
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_RUNTIME_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_RUNTIME_H

#include <hip/hip_common.h>
#include <hip/amd_detail/host_defines.h>
#include <hip/hip_runtime_api.h>
#include <hip/hip_vector_types.h>
#include <hip/channel_descriptor.h>
#include <hip/texture_types.h>
#include <hip/surface_types.h>

#if defined(__clang__) && defined(__HIP__)
/* HIP-Clang: clang defines __HIP_DEVICE_COMPILE__ on the device side of the TU only. */
#define __HIP_CLANG_ONLY__ 1
#else
/* A host compiler never compiles HIP device code. */
#define __HIP_CLANG_ONLY__ 0
#define __HIP_DEVICE_COMPILE__ 0
#endif

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#include <utility>
#endif

/* A kernel name with template arguments (commas) passed through the launch macro. */
#define HIP_KERNEL_NAME(...) __VA_ARGS__
/* A device symbol passed to hipMemcpyToSymbol and friends: its host shadow. */
#define HIP_SYMBOL(X) X

#if defined(__clang__) && defined(__HIP__)
/* The kernel language: coordinates, synchronisation, atomics and wave functions (device code). */
#include <hip/amd_detail/amd_device_functions.h>
#include <hip/amd_detail/amd_hip_atomic.h>
#include <hip/amd_detail/amd_warp_functions.h>
/* printf from kernels: its output answers after the kernel (see the header). */
#include <hip/amd_detail/amd_device_printf.h>
/* abort() and assert() in kernels: a trap, after the assertion's message (through printf's buffer). */
#include <hip/amd_detail/amd_device_assert.h>
#include <hip/amd_detail/amd_math_functions.h>
/* The device kernel library's functions (ockl) that HIP code calls by name. */
#include <hip/amd_detail/device_library_decls.h>

/* Upstream's launch macro: the triple-chevron launch, so a kernel template's name (with its template arguments in
 * HIP_KERNEL_NAME) works where a function pointer could not be deduced. Returns nothing; the result is the
 * thread's last error. */
#define hipLaunchKernelGGLInternal(kernel, numBlocks, numThreads, memPerBlock, streamId, ...) \
  do {                                                                                       \
    kernel<<<(numBlocks), (numThreads), (memPerBlock), (streamId)>>>(__VA_ARGS__);           \
  } while (0)
#define hipLaunchKernelGGL(kernel, ...) hipLaunchKernelGGLInternal((kernel), __VA_ARGS__)

/* Dynamic shared memory, sized by the launch's sharedMemBytes. */
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#elif defined(__cplusplus)
/* hipLaunchKernelGGL for host compilers: the arguments are converted to the kernel's parameter
 * types and passed by address to hipLaunchKernel, the launch path hipcc's <<<>>> also ends in.
 * (Upstream defines the macro only for hipcc; this is the host-compiler form of earlier HIP
 * releases.) Like upstream it returns nothing: the result is the thread's last error. */
template <typename... Params, typename... Args>
inline void hipLaunchKernelGGL(void (*kernel)(Params...), const dim3& numBlocks,
                               const dim3& dimBlocks, std::uint32_t sharedMemBytes,
                               hipStream_t stream, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "hipLaunchKernelGGL: the argument count must match the kernel's parameters");
  [&](Params... converted) {
    void* packed[sizeof...(Params) + 1] = {static_cast<void*>(&converted)...};
    static_cast<void>(hipLaunchKernel(reinterpret_cast<const void*>(kernel), numBlocks, dimBlocks,
                                      packed, sharedMemBytes, stream));
  }(std::forward<Args>(args)...);
}
#endif /* __cplusplus */

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_RUNTIME_H */
