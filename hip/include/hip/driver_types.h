/* HIP driver-level types, rewritten for hipmem.
 *
 * The subset of ROCm HIP's <hip/driver_types.h> (October 2024) that hipmem's memory API uses.
 * Names and enumerator values are upstream's. Plain C.
 */
#ifndef HIPMEM_HIP_DRIVER_TYPES_H_
#define HIPMEM_HIP_DRIVER_TYPES_H_

#ifdef __cplusplus
extern "C" {
#endif

/* A device address as the driver API passes it. */
typedef void* hipDeviceptr_t;

/* Direction argument of hipMemcpy. The runtime classifies both pointers itself and uses the kind
 * only for validation; DeviceToDeviceNoCU asks for a copy engine rather than a shader. */
typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4,
  hipMemcpyDeviceToDeviceNoCU = 1024
} hipMemcpyKind;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPMEM_HIP_DRIVER_TYPES_H_ */
