// Kernels for scalar_kernel_test.cc, compiled by clang-19 for each GFX9 target: work that is uniform across the
// wave, so clang keeps it on the scalar unit (SALU and SMEM), with just enough VALU to store the results.
#include <stdint.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

// Not inlined: the kernel reaches it through s_getpc_b64 + s_add_u32/s_addc_u32 + s_swappc_b64, and it returns
// with s_setpc_b64.
__device__ __attribute__((noinline)) uint64_t Finish(uint64_t x, uint32_t k) { return x ^ (uint64_t{k} << 32); }

// A 64-bit mix of n kernarg-addressed words (splitmix64's finalizer, a rotate, bit counts, a minimum, an
// arithmetic shift and a data-dependent branch), all uniform: s_load_dwordx2, s_mul_i32/s_mul_hi_u32,
// s_lshr_b64/s_lshl_b64/s_ashr_i64, s_xor_b64/s_or_b64, s_bcnt1_i32_b64, s_flbit_i32_b64, s_min_u32,
// s_add_u32/s_addc_u32, s_sub_u32/s_subb_u32, s_bitcmp0_b32, s_cmp_eq_u32 and scalar branches. When n is 0, clang
// materializes `low` with s_mov_b64 of a 32-bit literal, which must be zero-extended.
extern "C" __global__ void scalar_mix(const uint64_t* in, uint64_t* out, uint32_t n) {
  uint64_t acc = 0x9e3779b97f4a7c15ull;
  uint32_t bits = 0;
  uint32_t low = 0xffffffffu;
  int64_t sum = 0;
  for (uint32_t k = 0; k < n; ++k) {
    uint64_t x = acc + in[k];
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    acc = (x << 13) | (x >> 51);
    bits += __builtin_popcountll(acc) + __builtin_clzll(acc | 1);
    low = __builtin_elementwise_min(low, static_cast<uint32_t>(acc >> 20) & 0xfff);
    sum += static_cast<int64_t>(acc) >> 7;
    if ((bits & 4) != 0) {
      acc -= k;
    } else {
      acc += uint64_t{k} << 40;
    }
  }
  out[0] = acc;
  out[1] = bits;
  out[2] = low;
  out[3] = static_cast<uint64_t>(sum);
  out[4] = Finish(acc, n);
}
