/* Declarations of the ROCm device library functions (ockl, the kernel library) that HIP device code calls by name,
 * written for hipmem (HIP-Clang only; included by amd_hip_runtime.h, as upstream's header of this name is).
 *
 * The definitions are Debian's rocm-device-libs ockl.bc, which hip/defs.bzl links into the device side (only the
 * functions a kernel calls). Types follow ockl's own: its `size_t` results are 64-bit, its `bool` results and
 * arguments are i1. ockl's printf entry points are not declared here: amd_device_printf.h defines them.
 *
 * Behaviour worth knowing before calling them on hipmem:
 *  - The work-item queries read code object v5's hidden kernel arguments (hidden_block_count_*, hidden_group_size_*,
 *    hidden_remainder_*, hidden_grid_dims), which the runtime fills at every launch.
 *  - __ockl_gws_init / __ockl_gws_barrier / __ockl_grid_sync are ds_gws_* instructions: they need the GWS that only a
 *    cooperative launch (hipLaunchCooperativeKernel) gives the queue; elsewhere they are an illegal instruction.
 *    __ockl_grid_sync waits for every workgroup of the grid on GWS resource 0.
 *  - The wave reductions and scans (__ockl_wfred_*, __ockl_wfscan_*, and __ockl_wfany/wfall/wfsame) are OpenCL's
 *    sub-group functions: every work-item of the wave must call them together, its lanes contiguous from lane 0 (a
 *    full wave, or a block's partial last wave). Called in divergent code (say, odd lanes only) they answer garbage,
 *    on hardware as here: ockl 5.2.3 lowers them on gfx8 and later to DPP row shifts whose result it reads from lanes
 *    0 and 32. __ockl_activelane_u32 (the lane's index among the active ones) is the one meant for divergent code.
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_LIBRARY_DECLS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_LIBRARY_DECLS_H

#if !defined(__clang__) || !defined(__HIP__)
#error "device_library_decls.h is for HIP-Clang (clang -x hip)"
#endif

#include <hip/amd_detail/host_defines.h>

#define __HIPMEM_OCKL extern "C" __device__
#define __HIPMEM_OCKL_CONST extern "C" __device__ __attribute__((const))

/* Work-item and grid queries (dimension 0, 1 or 2). */
__HIPMEM_OCKL_CONST unsigned long __ockl_get_global_offset(unsigned int dim);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_global_id(unsigned int dim);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_local_id(unsigned int dim);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_group_id(unsigned int dim);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_global_size(unsigned int dim);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_local_size(unsigned int dim);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_enqueued_local_size(unsigned int dim);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_num_groups(unsigned int dim);
__HIPMEM_OCKL_CONST unsigned int __ockl_get_work_dim(void);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_global_linear_id(void);
__HIPMEM_OCKL_CONST unsigned long __ockl_get_local_linear_id(void);

/* Lanes of the wave. */
__HIPMEM_OCKL unsigned int __ockl_activelane_u32(void);
__HIPMEM_OCKL_CONST unsigned int __ockl_lane_u32(void);
__HIPMEM_OCKL unsigned int __ockl_wfbcast_u32(unsigned int value, unsigned int lane);
__HIPMEM_OCKL bool __ockl_wfany_i32(int value);
__HIPMEM_OCKL bool __ockl_wfall_i32(int value);
__HIPMEM_OCKL bool __ockl_wfsame_i32(int value);

/* Reductions over the wave, and scans: `inclusive` true counts the lane's own value, false only the lanes below. */
__HIPMEM_OCKL int __ockl_wfred_add_i32(int value);
__HIPMEM_OCKL unsigned int __ockl_wfred_add_u32(unsigned int value);
__HIPMEM_OCKL float __ockl_wfred_add_f32(float value);
__HIPMEM_OCKL int __ockl_wfred_min_i32(int value);
__HIPMEM_OCKL unsigned int __ockl_wfred_min_u32(unsigned int value);
__HIPMEM_OCKL float __ockl_wfred_min_f32(float value);
__HIPMEM_OCKL int __ockl_wfred_max_i32(int value);
__HIPMEM_OCKL unsigned int __ockl_wfred_max_u32(unsigned int value);
__HIPMEM_OCKL float __ockl_wfred_max_f32(float value);
__HIPMEM_OCKL int __ockl_wfred_and_i32(int value);
__HIPMEM_OCKL unsigned int __ockl_wfred_and_u32(unsigned int value);
__HIPMEM_OCKL int __ockl_wfred_or_i32(int value);
__HIPMEM_OCKL unsigned int __ockl_wfred_or_u32(unsigned int value);
__HIPMEM_OCKL int __ockl_wfred_xor_i32(int value);
__HIPMEM_OCKL unsigned int __ockl_wfred_xor_u32(unsigned int value);
__HIPMEM_OCKL int __ockl_wfscan_add_i32(int value, bool inclusive);
__HIPMEM_OCKL float __ockl_wfscan_add_f32(float value, bool inclusive);
/* Over the workgroup's work-items (every one of them must call it, as at a barrier). */
__HIPMEM_OCKL int __ockl_wgred_add_i32(int value);

/* Integer helpers. */
__HIPMEM_OCKL_CONST unsigned int __ockl_clz_u32(unsigned int value);
__HIPMEM_OCKL_CONST unsigned int __ockl_ctz_u32(unsigned int value);
__HIPMEM_OCKL_CONST unsigned int __ockl_popcount_u32(unsigned int value);
__HIPMEM_OCKL_CONST int __ockl_mul24_i32(int a, int b);
__HIPMEM_OCKL_CONST unsigned int __ockl_mul24_u32(unsigned int a, unsigned int b);
__HIPMEM_OCKL_CONST int __ockl_mul_hi_i32(int a, int b);
__HIPMEM_OCKL_CONST unsigned int __ockl_mul_hi_u32(unsigned int a, unsigned int b);
__HIPMEM_OCKL_CONST int __ockl_add_sat_i32(int a, int b);
__HIPMEM_OCKL_CONST int __ockl_sub_sat_i32(int a, int b);
__HIPMEM_OCKL_CONST int __ockl_min3_i32(int a, int b, int c);
__HIPMEM_OCKL_CONST int __ockl_max3_i32(int a, int b, int c);
__HIPMEM_OCKL_CONST int __ockl_median3_i32(int a, int b, int c);

/* Address spaces of a generic pointer. */
__HIPMEM_OCKL_CONST bool __ockl_is_local_addr(const void* pointer);
__HIPMEM_OCKL_CONST bool __ockl_is_private_addr(const void* pointer);

/* Clocks: the shader clock and the constant-rate real-time counter. */
__HIPMEM_OCKL unsigned long __ockl_memtime_u64(void);
__HIPMEM_OCKL unsigned long __ockl_memrealtime_u64(void);

/* Global wave sync (cooperative launches only, see above). `count_minus_one`: the waves to wait for, less one. */
__HIPMEM_OCKL void __ockl_gws_init(unsigned int count_minus_one, unsigned int resource);
__HIPMEM_OCKL void __ockl_gws_barrier(unsigned int count_minus_one, unsigned int resource);
__HIPMEM_OCKL void __ockl_grid_sync(void);
/* Non-zero in a cooperative launch (hidden_multigrid_sync_arg set). ockl's multi_grid functions are left out: hipmem's
 * multi-device launch does not give them the state they read (cooperative groups' multi_grid_group, in
 * amd_hip_cooperative_groups.h, is the supported way). */
__HIPMEM_OCKL unsigned int __ockl_grid_is_valid(void);

#undef __HIPMEM_OCKL
#undef __HIPMEM_OCKL_CONST

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_LIBRARY_DECLS_H */
