/* <hip/hip_bf16.h>, written for hipmem: bfloat16 (__hip_bfloat16, __hip_bfloat162) for device and host code; see
 * amd_detail/amd_hip_bf16.h. */
#ifndef HIP_INCLUDE_HIP_HIP_BF16_H
#define HIP_INCLUDE_HIP_HIP_BF16_H

#include <hip/hip_common.h>
#include <hip/amd_detail/amd_hip_bf16.h>

#endif /* HIP_INCLUDE_HIP_HIP_BF16_H */
