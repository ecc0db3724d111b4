/* Surface object types, rewritten for hipmem. Values are upstream's (amd_hip_surface_types.h). */
#ifndef HIP_INCLUDE_HIP_SURFACE_TYPES_H
#define HIP_INCLUDE_HIP_SURFACE_TYPES_H

#include <hip/driver_types.h>

/* An opaque handle, as upstream declares it (not CUDA's integer): the C++ functions taking it are mangled with
   this type, so a binary built against AMD's headers links against ours. */
struct __hip_surface;
typedef struct __hip_surface* hipSurfaceObject_t;

struct surfaceReference {
  hipSurfaceObject_t surfaceObject;
};

enum hipSurfaceBoundaryMode {
  hipBoundaryModeZero = 0,
  hipBoundaryModeTrap = 1,
  hipBoundaryModeClamp = 2
};

#endif /* HIP_INCLUDE_HIP_SURFACE_TYPES_H */
