/* <hip/hip_fp16.h>, written for hipmem: IEEE half precision (__half, __half2) for device and host code; see
 * amd_detail/amd_hip_fp16.h. */
#ifndef HIP_INCLUDE_HIP_HIP_FP16_H
#define HIP_INCLUDE_HIP_HIP_FP16_H

#include <hip/hip_common.h>
#include <hip/amd_detail/amd_hip_fp16.h>

#endif /* HIP_INCLUDE_HIP_HIP_FP16_H */
