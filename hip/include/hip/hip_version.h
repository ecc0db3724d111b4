/* HIP version macros, rewritten for hipmem.
 *
 * hipmem's headers mirror the HIP API of ROCm/rocm-systems develop (projects/hip, hip_runtime_api.h at commit
 * 003a5d106dc36c137c76d6c8bb51f7fa5564bdfc), so the version is the line that tree carries:
 * projects/hip/VERSION at rocm-systems commit b723a5374c6a291caa63bc7366f891326ed57449 reads major 7, minor 15
 * (an earlier develop commit, 0e14abb04d19, read 7.12). That is the develop / TheRock numbering; the newest
 * packaged ROCm release at the time of writing is 7.2.0 (HIP 7.2), whose headers lack APIs hipmem declares, so
 * 7.2 would under-report what a program compiled against these headers may call. Upstream's patch number is a
 * build number (that VERSION file carries 60940; builds may take it from a "hip-version_X.Y.Z" git tag instead);
 * hipmem is no such build and reports 0, so HIP_VERSION is 71500000. hipRuntimeGetVersion and
 * hipDriverGetVersion both answer HIP_VERSION, as hipamd's do (hip_context.cpp, hip_device_runtime.cpp).
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
