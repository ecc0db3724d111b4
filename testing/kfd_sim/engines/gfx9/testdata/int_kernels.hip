// Integer kernels for int_kernel_test.cc, compiled by clang-19 for each GFX9 target: 64-bit integer arithmetic and
// wave-level operations (DPP scans, readlane, readfirstlane, ballots counted with mbcnt). Workgroups are one full
// wave of 64, so no kernel reads the implicit arguments.
#include <stdint.h>

#define __global__ __attribute__((global))

static __attribute__((device)) inline unsigned Lane() { return __builtin_amdgcn_workitem_id_x(); }
static __attribute__((device)) inline unsigned GlobalId() { return __builtin_amdgcn_workgroup_id_x() * 64 + Lane(); }

// Twelve results per element, from 64-bit operands (shift amounts from b's low bits).
extern "C" __global__ void int64_math(const uint64_t* a, const uint64_t* b, uint64_t* out) {
  const unsigned i = GlobalId();
  const uint64_t x = a[i], y = b[i];
  const unsigned s = static_cast<unsigned>(y) & 63;
  uint64_t* o = out + 12 * i;
  o[0] = x + y;
  o[1] = x - y;
  o[2] = x * y;
  o[3] = static_cast<uint64_t>((static_cast<unsigned __int128>(x) * y) >> 64);
  o[4] = x << s;
  o[5] = x >> s;
  o[6] = static_cast<uint64_t>(static_cast<int64_t>(x) >> s);
  o[7] = x < y ? x : y;
  o[8] = static_cast<int64_t>(x) > static_cast<int64_t>(y) ? x : y;
  o[9] = static_cast<uint64_t>(__builtin_popcountll(x)) + static_cast<uint64_t>(__builtin_clzll(y | 1)) * 100;
  o[10] = __builtin_bitreverse64(x) ^ __builtin_bswap64(y);
  o[11] = (x << 13 | x >> 51) + (static_cast<int64_t>(x) < 0 ? 7 : 3);
}

// Per wave: the inclusive prefix sum of `in` through DPP (row shifts, then the row broadcasts as LLVM's atomic
// optimizer does on GFX9), the wave total through readlane, the first lane's value through readfirstlane, and each
// lane's rank among the lanes holding an odd value (a ballot counted with mbcnt).
extern "C" __global__ void wave_ops(const uint32_t* in, uint32_t* scan, uint32_t* total, uint32_t* first,
                                    uint32_t* odd_rank) {
  const unsigned i = GlobalId();
  const uint32_t x = in[i];
  uint32_t v = x;
  v += __builtin_amdgcn_update_dpp(0u, v, 0x111, 0xf, 0xf, true);  // row_shr:1
  v += __builtin_amdgcn_update_dpp(0u, v, 0x112, 0xf, 0xf, true);  // row_shr:2
  v += __builtin_amdgcn_update_dpp(0u, v, 0x114, 0xf, 0xf, true);  // row_shr:4
  v += __builtin_amdgcn_update_dpp(0u, v, 0x118, 0xf, 0xf, true);  // row_shr:8
  v += __builtin_amdgcn_update_dpp(0u, v, 0x142, 0xa, 0xf, false);  // row_bcast:15 into rows 1 and 3
  v += __builtin_amdgcn_update_dpp(0u, v, 0x143, 0xc, 0xf, false);  // row_bcast:31 into rows 2 and 3
  scan[i] = v;
  const uint64_t odd = __builtin_amdgcn_ballot_w64((x & 1) != 0);
  odd_rank[i] = __builtin_amdgcn_mbcnt_hi(static_cast<uint32_t>(odd >> 32),
                                          __builtin_amdgcn_mbcnt_lo(static_cast<uint32_t>(odd), 0u));
  const uint32_t wave_total = __builtin_amdgcn_readlane(v, 63);
  const uint32_t first_value = __builtin_amdgcn_readfirstlane(x);
  if (Lane() == 0) {
    total[__builtin_amdgcn_workgroup_id_x()] = wave_total;
    first[__builtin_amdgcn_workgroup_id_x()] = first_value;
  }
}

// A private array the compiler keeps in VGPRs, indexed dynamically: with a wave-uniform index (a kernel argument)
// clang-19 reads and writes it through VGPR indexing mode (s_set_gpr_idx_on ... gpr_idx(SRC0) / gpr_idx(DST)) on
// gfx908, gfx90a and gfx942; a per-lane index becomes compares and selects. in[16 * i + k] fills the array.
extern "C" __global__ void register_array_index(const uint32_t* in, const uint32_t* lane_index, uint32_t* out,
                                                uint32_t uniform) {
  const unsigned i = GlobalId();
  uint32_t a[16];
  for (int k = 0; k < 16; ++k) a[k] = in[i * 16 + k];
  a[uniform & 15] += 1000;
  a[lane_index[i] & 15] ^= 0x5a5a;
  uint32_t s = 0;
  for (int k = 0; k < 16; ++k) s = s * 31 + a[k];
  out[2 * i] = s;
  out[2 * i + 1] = a[(uniform >> 4) & 15] + a[(lane_index[i] >> 4) & 15];
}
