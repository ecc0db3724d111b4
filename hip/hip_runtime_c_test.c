/* <hip/hip_runtime.h> from C: upstream layouts and values at compile time, and C callers linking
 * against //hip:hipmem (implemented and not-yet-implemented entry points). */
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#include <stddef.h>
#include <stdio.h>

_Static_assert(sizeof(hipDeviceProp_t) == 1472, "R0600 layout");
_Static_assert(offsetof(hipDeviceProp_t, totalGlobalMem) == 288, "");
_Static_assert(offsetof(hipDeviceProp_t, gcnArchName) == 1160, "");
_Static_assert(sizeof(hipMemcpy3DParms) == 160 && sizeof(HIP_MEMCPY3D) == 184, "");
_Static_assert(sizeof(hip_Memcpy2D) == 128, "");
_Static_assert(sizeof(hipGraphNodeParams) == 256, "");
_Static_assert(sizeof(dim3) == 12 && sizeof(float4) == 16 && sizeof(float3) == 12, "");
_Static_assert(sizeof(hipIpcMemHandle_t) == HIP_IPC_HANDLE_SIZE, "");
_Static_assert(hipDeviceAttributeMultiprocessorCount == 63, "");
_Static_assert(HIP_R_8F_E4M3_FNUZ == 1000 && HIP_C_64U == 27, "library_types.h");
_Static_assert(hipHostMallocDefault == 0 && hipStreamDefault == 0, "");
/* hip_fp16.h and hip_bf16.h give C their raw patterns. */
_Static_assert(sizeof(struct __half_raw) == 2 && sizeof(struct __half2_raw) == 4, "");
_Static_assert(sizeof(__hip_bfloat16_raw) == 2 && sizeof(__hip_bfloat162_raw) == 4, "");

static int Fail(const char* what) {
  fprintf(stderr, "FAILED: %s\n", what);
  return 1;
}

int main(void) {
  int version = 0;
  if (hipRuntimeGetVersion(&version) != hipSuccess || version != HIP_VERSION) {
    return Fail("hipRuntimeGetVersion");
  }
  hipGraph_t graph = NULL;
  if (hipGraphCreate(&graph, 0) != hipErrorNotSupported) return Fail("hipGraphCreate");
  if (hipGetLastError() != hipErrorNotSupported) return Fail("last error after a stub");
  /* No default arguments in C: every parameter is spelled out (hipEventRecord's stream too). */
  hipEvent_t event = NULL;
  if (hipEventCreate(&event) != hipSuccess) return Fail("hipEventCreate");
  if (hipEventRecord(event, NULL) != hipSuccess) return Fail("hipEventRecord");
  if (hipEventSynchronize(event) != hipSuccess || hipEventDestroy(event) != hipSuccess) return Fail("event");
  void* device = NULL;
  if (hipMalloc(&device, 4096) != hipSuccess || device == NULL) return Fail("hipMalloc");
  if (hipFree(device) != hipSuccess) return Fail("hipFree");
  const float4 v = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
  if (v.z != 3.0f) return Fail("make_float4");
  const dim3 d = {4, 1, 1};
  if (d.x != 4) return Fail("dim3");
  printf("hip_runtime.h from C: ok\n");
  return 0;
}
