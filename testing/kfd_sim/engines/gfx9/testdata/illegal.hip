// A kernel with an instruction the engine does not implement this round (an MFMA), for the CP's
// illegal-instruction path.
#define __global__ __attribute__((global))
typedef float float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ void illegal_mfma(float4* out, float a, float b) {
  out[0] = __builtin_amdgcn_mfma_f32_4x4x1f32(a, b, out[0], 0, 0, 0);
}
