/* <hip/hip_runtime.h> for host compilers, rewritten for hipmem.
 *
 * What HIP sources include first. On the AMD platform upstream pulls in amd_hip_runtime.h, the
 * runtime API and the library data types; so does this header, for the host side only.
 */
#ifndef HIP_INCLUDE_HIP_HIP_RUNTIME_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_H

#include <hip/hip_version.h>
#include <hip/hip_common.h>

#ifdef __cplusplus
#include <cstdint>
#include <cstring>
#else
#include <stdint.h>
#include <string.h>
#endif

#include <hip/amd_detail/amd_hip_runtime.h>
#include <hip/hip_runtime_api.h>
#include <hip/library_types.h>

#endif /* HIP_INCLUDE_HIP_HIP_RUNTIME_H */
