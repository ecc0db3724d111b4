// A kernel with an instruction the engine does not implement (ds_gws_init: the global wave sync unit of GDS), for
// the CP's illegal-instruction path.
#define __global__ __attribute__((global))

extern "C" __global__ void illegal_gws(float* out, float a, float b) {
  __builtin_amdgcn_ds_gws_init(static_cast<unsigned>(a), 0);
  out[0] = a + b;
}
