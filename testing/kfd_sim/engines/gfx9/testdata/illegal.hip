// Kernels whose waves stop before s_endpgm, for the CPs' error paths: an instruction the engine does not implement
// (ds_gws_init: the global wave sync unit of GDS) is an illegal instruction; llvm.trap (s_trap 2, what HIP's abort()
// and a failed device assert reach) is a trap; llvm.debugtrap (s_trap 3) does nothing without a debugger.
#define __global__ __attribute__((global))

extern "C" __global__ void illegal_gws(float* out, float a, float b) {
  __builtin_amdgcn_ds_gws_init(static_cast<unsigned>(a), 0);
  out[0] = a + b;
}

// Stores, then traps: what reaches memory before the trap stays there.
extern "C" __global__ void trap_after_store(float* out, float a, float b) {
  out[0] = a + b;
  __builtin_trap();
}

extern "C" __global__ void debugtrap_then_store(float* out, float a, float b) {
  __builtin_debugtrap();
  out[0] = a + b;
}
