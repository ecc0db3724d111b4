/* Macros every HIP header starts from, rewritten for hipmem.
 *
 * Selects the platform and says which device features exist. hipmem is an AMD stack compiled by
 * ordinary host compilers, so unlike upstream (which leaves a plain g++ without a platform) a host
 * compiler gets __HIP_PLATFORM_AMD__ here; the NVIDIA platform is refused.
 */
#ifndef HIP_INCLUDE_HIP_HIP_COMMON_H
#define HIP_INCLUDE_HIP_HIP_COMMON_H

#if defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP_PLATFORM_NVCC__)
#error "hipmem implements the AMD HIP platform only; do not define __HIP_PLATFORM_NVIDIA__"
#endif
#if !defined(__HIP_PLATFORM_AMD__)
#define __HIP_PLATFORM_AMD__ 1
#endif

/* API level of these headers: major * 100 + minor of the mirrored HIP release. Callers may pin an
 * older level with HIP_FORCE_API_VERSION (hip_runtime_api.h accepts 600 and later). */
#include <hip/hip_version.h>
#define HIP_API_VERSION (HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR)
#ifndef HIP_FORCE_API_VERSION
#define HIP_FORCE_API_VERSION HIP_API_VERSION
#endif

#if defined(__GNUC__)
#define HIP_PUBLIC_API __attribute__((visibility("default")))
#define HIP_INTERNAL_EXPORTED_API __attribute__((visibility("default")))
#else
#define HIP_PUBLIC_API
#define HIP_INTERNAL_EXPORTED_API
#endif

/* Host compilation: no device features are available, as upstream reports for the host pass. */
#if !defined(__HIP_DEVICE_COMPILE__) || (__HIP_DEVICE_COMPILE__ == 0)
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ (0)
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ (0)
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ (0)
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ (0)
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ (0)
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ (0)
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ (0)
#define __HIP_ARCH_HAS_DOUBLES__ (0)
#define __HIP_ARCH_HAS_WARP_VOTE__ (0)
#define __HIP_ARCH_HAS_WARP_BALLOT__ (0)
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ (0)
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ (0)
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ (0)
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ (0)
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ (0)
#define __HIP_ARCH_HAS_3DGRID__ (0)
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ (0)
#endif

#endif /* HIP_INCLUDE_HIP_HIP_COMMON_H */
