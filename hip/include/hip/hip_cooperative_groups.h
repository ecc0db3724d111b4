/* Cooperative groups for HIP: named groups of threads (the block, a tile of a wave, the active lanes, the whole grid)
 * that can synchronise and exchange values. Upstream's header name; hipmem's implementation is in
 * amd_detail/amd_hip_cooperative_groups.h and is device code for HIP-Clang only: a host compiler sees nothing here.
 */
#ifndef HIP_INCLUDE_HIP_HIP_COOPERATIVE_GROUPS_H
#define HIP_INCLUDE_HIP_HIP_COOPERATIVE_GROUPS_H

#include <hip/hip_common.h>

#if defined(__cplusplus) && defined(__clang__) && defined(__HIP__)
#include <hip/amd_detail/amd_hip_cooperative_groups.h>
#endif

#endif /* HIP_INCLUDE_HIP_HIP_COOPERATIVE_GROUPS_H */
