// A trivial kernel built for gfx1100 (RDNA3): the rx7900xtx preset loads it, the GFX9 presets refuse it.
#define __global__ __attribute__((global))
extern "C" __global__ void loader_rdna_kernel(int* out) { out[__builtin_amdgcn_workitem_id_x()] = 7; }
