/* abort() and assert() in device code, written for hipmem (HIP-Clang only; included by amd_hip_runtime.h).
 *
 * Upstream's names and behaviour (HIP's amd_device_functions.h): a device abort() is a trap (llvm.trap, s_trap 2);
 * a failed assert() prints "<file>:<line>: <function>: Device-side assertion `<condition>' failed." to the host's
 * stderr, one line per failing work-item, then traps. glibc's assert macro calls __assert_fail, so the device
 * overload below is what a kernel's assert reaches; NDEBUG removes it as on the host. __assertfail (CUDA's name)
 * and __hip_assert trap without a message, as upstream's do.
 *
 * The trap fails the launch: the stream answers hipErrorLaunchFailure (kernel_trap_test.hip), where CLR's queue
 * callback would end the process. The message reaches stderr when the runtime sees the failed dispatch (a
 * synchronising call on its stream, or the device), as device printf's output does (amd_device_printf.h).
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_ASSERT_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_ASSERT_H

#if !defined(__clang__) || !defined(__HIP__)
#error "amd_device_assert.h is for HIP-Clang (clang -x hip)"
#endif

#include <hip/amd_detail/host_defines.h>

extern "C" __device__ inline __attribute__((weak)) void abort() { __builtin_trap(); }

/* Noinline, so the printf expansion stays out of every kernel that asserts; weak, so each translation unit may define
 * it. */
extern "C" __device__ __attribute__((noinline)) __attribute__((weak)) void __assert_fail(const char* assertion,
                                                                                        const char* file,
                                                                                        unsigned int line,
                                                                                        const char* function);
extern "C" __device__ __attribute__((noinline)) __attribute__((weak)) void __assertfail() { __builtin_trap(); }

#if defined(__HIP_DEVICE_COMPILE__)

/* The length printf's string appends take: the bytes with the terminating NUL. */
__device__ inline unsigned long long __hipmem_assert_length(const char* text) {
  unsigned long long n = 0;
  while (text[n] != '\0') ++n;
  return n + 1;
}

extern "C" __device__ __attribute__((noinline)) __attribute__((weak)) void __assert_fail(const char* assertion,
                                                                                        const char* file,
                                                                                        unsigned int line,
                                                                                        const char* function) {
  const char format[] = "%s:%u: %s: Device-side assertion `%s' failed.\n";
  unsigned long long record = __ockl_fprintf_stderr_begin();
  record = __ockl_printf_append_string_n(record, format, sizeof(format), 0);
  record = __ockl_printf_append_string_n(record, file, __hipmem_assert_length(file), 0);
  record = __ockl_printf_append_args(record, 1, line, 0, 0, 0, 0, 0, 0, 0);
  record = __ockl_printf_append_string_n(record, function, __hipmem_assert_length(function), 0);
  (void)__ockl_printf_append_string_n(record, assertion, __hipmem_assert_length(assertion), 1);
  __builtin_trap();
}

#endif /* __HIP_DEVICE_COMPILE__ */

#if defined(NDEBUG)
#define __hip_assert(COND)
#else
#define __hip_assert(COND)              \
  do {                                  \
    if (!(COND)) __builtin_trap();      \
  } while (0)
#endif

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_ASSERT_H */
