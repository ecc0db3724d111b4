/* HIP version macros, rewritten for hipmem.
 *
 * hipmem's headers mirror the HIP API of ROCm/rocm-systems (projects/hip, develop, hip_runtime_api.h
 * at commit 003a5d106dc36c137c76d6c8bb51f7fa5564bdfc), whose projects/hip/VERSION reads 7.15. The
 * patch number upstream is a build counter; hipmem has no such build and reports 0.
 */
#ifndef HIP_VERSION_MAJOR

#define HIP_VERSION_MAJOR 7
#define HIP_VERSION_MINOR 15
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH "hipmem"
#define HIP_VERSION_BUILD_ID 0
#define HIP_VERSION_BUILD_NAME "hipmem"
/* The encoding hipRuntimeGetVersion reports: major * 10^7 + minor * 10^5 + patch. */
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

#define __HIP_HAS_GET_PCH 0

#endif /* HIP_VERSION_MAJOR */
