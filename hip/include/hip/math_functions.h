/* <hip/math_functions.h>, written for hipmem: the HIP device math library.
 *
 * HIP-Clang (clang -x hip) gets the float and double math functions, the fast and directed-rounding intrinsics and
 * the std:: overloads device code calls (amd_detail/amd_math_functions.h; <hip/hip_runtime.h> includes them too, as
 * upstream's does). A host compiler gets its own <cmath> / <math.h>: nothing here runs on the host.
 */
#ifndef HIP_INCLUDE_HIP_MATH_FUNCTIONS_H
#define HIP_INCLUDE_HIP_MATH_FUNCTIONS_H

#include <hip/hip_common.h>

#if defined(__clang__) && defined(__HIP__)
#include <hip/amd_detail/amd_math_functions.h>
#elif defined(__cplusplus)
#include <cmath>
#else
#include <math.h>
#endif

#endif /* HIP_INCLUDE_HIP_MATH_FUNCTIONS_H */
