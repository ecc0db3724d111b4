// The read-modify-write semantics every atomic family shares (GLOBAL/FLAT, MUBUF, DS), as one table the three
// instruction tests run: each row is an operation on one memory word with its expected result, worked out by hand
// from the ISA's definition, and the instruction text (llvm-mc-19 encodes it at build time) of every family that
// has the operation, with and without return. Registers: the data operand is v4 (64-bit: v[4:5]), the compare (or
// DS's mask or limit) operand v5 (v[6:7]); GLOBAL and DS return to v1 (v[0:1]), MUBUF to v4 (v[4:5]).
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_MEMORY_TEST_CASES_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_MEMORY_TEST_CASES_H_

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

struct AtomicCase {
  const char* name;
  bool gfx942;  // the lines exist on gfx942 only (their return bit is then written sc0)
  int bits;     // 32 or 64
  uint64_t memory;    // the word before
  uint64_t data;      // v4 / v[4:5]
  uint64_t compare;   // v5 / v[6:7]
  uint64_t expected;  // the word after; the returning forms return `memory`
  const char* global_rtn;
  const char* global;
  const char* buffer_rtn;
  const char* buffer;
  const char* ds_rtn;
  const char* ds;
};

// Puts a case's data and compare operands in their registers on every lane.
inline void SetAtomicOperands(Wave& w, const AtomicCase& c) {
  const int dwords = c.bits / 32;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    for (int k = 0; k < dwords; ++k) {
      w.vgpr(4 + k)[lane] = static_cast<uint32_t>(c.data >> (32 * k));
      w.vgpr(4 + dwords + k)[lane] = static_cast<uint32_t>(c.compare >> (32 * k));
    }
  }
}

// Reads a 32- or 64-bit value from v[first] (and v[first + 1]) of `lane`.
inline uint64_t ReadResult(const Wave& w, int first, int bits, int lane) {
  uint64_t v = w.vgpr(first)[lane];
  if (bits == 64) v |= uint64_t{w.vgpr(first + 1)[lane]} << 32;
  return v;
}

// Floats by their bit patterns: 1.5f 0x3fc00000, 2.25f 0x40100000, 3.75f 0x40700000, -0.0f 0x80000000, 1.0f
// 0x3f800000, -2.0f 0xc0000000, 5.0f 0x40a00000; doubles 1.5 0x3ff8..., 2.25 0x4002..., 3.75 0x400e..., 1.0
// 0x3ff0..., -2.0 0xc000..., 5.0 0x4014...; f16 1.0 0x3c00, 2.0 0x4000, 3.0 0x4200, 65504 0x7bff, inf 0x7c00;
// bf16 1.0 0x3f80, 2.0 0x4000, 3.0 0x4040, -1.0 0xbf80, 2^-8 0x3b80.
inline constexpr AtomicCase kAtomicCases[] = {
    {"swap", false, 32, 0x1, 0x2, 0x0, 0x2,
     "global_atomic_swap v1, v[2:3], v4, off glc", "global_atomic_swap v[2:3], v4, off",
     "buffer_atomic_swap v4, off, s[8:11], 0 glc", "buffer_atomic_swap v4, off, s[8:11], 0",
     "ds_wrxchg_rtn_b32 v1, v0, v4", nullptr},
    {"cmpswap equal", false, 32, 0x7, 0x9, 0x7, 0x9,
     "global_atomic_cmpswap v1, v[2:3], v[4:5], off glc", "global_atomic_cmpswap v[2:3], v[4:5], off",
     "buffer_atomic_cmpswap v[4:5], off, s[8:11], 0 glc", "buffer_atomic_cmpswap v[4:5], off, s[8:11], 0",
     "ds_cmpst_rtn_b32 v1, v0, v5, v4", "ds_cmpst_b32 v0, v5, v4"},
    {"cmpswap unequal", false, 32, 0x7, 0x9, 0x8, 0x7,
     "global_atomic_cmpswap v1, v[2:3], v[4:5], off glc", "global_atomic_cmpswap v[2:3], v[4:5], off",
     "buffer_atomic_cmpswap v[4:5], off, s[8:11], 0 glc", "buffer_atomic_cmpswap v[4:5], off, s[8:11], 0",
     "ds_cmpst_rtn_b32 v1, v0, v5, v4", "ds_cmpst_b32 v0, v5, v4"},
    {"add wraps", false, 32, 0xfffffff0, 0x20, 0x0, 0x10,
     "global_atomic_add v1, v[2:3], v4, off glc", "global_atomic_add v[2:3], v4, off",
     "buffer_atomic_add v4, off, s[8:11], 0 glc", "buffer_atomic_add v4, off, s[8:11], 0",
     "ds_add_rtn_u32 v1, v0, v4", "ds_add_u32 v0, v4"},
    {"sub wraps", false, 32, 0x5, 0x7, 0x0, 0xfffffffe,
     "global_atomic_sub v1, v[2:3], v4, off glc", "global_atomic_sub v[2:3], v4, off",
     "buffer_atomic_sub v4, off, s[8:11], 0 glc", "buffer_atomic_sub v4, off, s[8:11], 0",
     "ds_sub_rtn_u32 v1, v0, v4", "ds_sub_u32 v0, v4"},
    {"rsub", false, 32, 0x5, 0x7, 0x0, 0x2,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_rsub_rtn_u32 v1, v0, v4", "ds_rsub_u32 v0, v4"},
    {"smin", false, 32, 0x5, 0xfffffffe, 0x0, 0xfffffffe,
     "global_atomic_smin v1, v[2:3], v4, off glc", "global_atomic_smin v[2:3], v4, off",
     "buffer_atomic_smin v4, off, s[8:11], 0 glc", "buffer_atomic_smin v4, off, s[8:11], 0",
     "ds_min_rtn_i32 v1, v0, v4", "ds_min_i32 v0, v4"},
    {"umin", false, 32, 0x5, 0xfffffffe, 0x0, 0x5,
     "global_atomic_umin v1, v[2:3], v4, off glc", "global_atomic_umin v[2:3], v4, off",
     "buffer_atomic_umin v4, off, s[8:11], 0 glc", "buffer_atomic_umin v4, off, s[8:11], 0",
     "ds_min_rtn_u32 v1, v0, v4", "ds_min_u32 v0, v4"},
    {"smax", false, 32, 0x5, 0xfffffffe, 0x0, 0x5,
     "global_atomic_smax v1, v[2:3], v4, off glc", "global_atomic_smax v[2:3], v4, off",
     "buffer_atomic_smax v4, off, s[8:11], 0 glc", "buffer_atomic_smax v4, off, s[8:11], 0",
     "ds_max_rtn_i32 v1, v0, v4", "ds_max_i32 v0, v4"},
    {"umax", false, 32, 0x5, 0xfffffffe, 0x0, 0xfffffffe,
     "global_atomic_umax v1, v[2:3], v4, off glc", "global_atomic_umax v[2:3], v4, off",
     "buffer_atomic_umax v4, off, s[8:11], 0 glc", "buffer_atomic_umax v4, off, s[8:11], 0",
     "ds_max_rtn_u32 v1, v0, v4", "ds_max_u32 v0, v4"},
    {"and", false, 32, 0xf0f0, 0xff00, 0x0, 0xf000,
     "global_atomic_and v1, v[2:3], v4, off glc", "global_atomic_and v[2:3], v4, off",
     "buffer_atomic_and v4, off, s[8:11], 0 glc", "buffer_atomic_and v4, off, s[8:11], 0",
     "ds_and_rtn_b32 v1, v0, v4", "ds_and_b32 v0, v4"},
    {"or", false, 32, 0xf0f0, 0xff00, 0x0, 0xfff0,
     "global_atomic_or v1, v[2:3], v4, off glc", "global_atomic_or v[2:3], v4, off",
     "buffer_atomic_or v4, off, s[8:11], 0 glc", "buffer_atomic_or v4, off, s[8:11], 0",
     "ds_or_rtn_b32 v1, v0, v4", "ds_or_b32 v0, v4"},
    {"xor", false, 32, 0xf0f0, 0xff00, 0x0, 0xff0,
     "global_atomic_xor v1, v[2:3], v4, off glc", "global_atomic_xor v[2:3], v4, off",
     "buffer_atomic_xor v4, off, s[8:11], 0 glc", "buffer_atomic_xor v4, off, s[8:11], 0",
     "ds_xor_rtn_b32 v1, v0, v4", "ds_xor_b32 v0, v4"},
    {"inc below limit", false, 32, 0x3, 0x7, 0x0, 0x4,
     "global_atomic_inc v1, v[2:3], v4, off glc", "global_atomic_inc v[2:3], v4, off",
     "buffer_atomic_inc v4, off, s[8:11], 0 glc", "buffer_atomic_inc v4, off, s[8:11], 0",
     "ds_inc_rtn_u32 v1, v0, v4", "ds_inc_u32 v0, v4"},
    {"inc wraps at limit", false, 32, 0x7, 0x7, 0x0, 0x0,
     "global_atomic_inc v1, v[2:3], v4, off glc", "global_atomic_inc v[2:3], v4, off",
     "buffer_atomic_inc v4, off, s[8:11], 0 glc", "buffer_atomic_inc v4, off, s[8:11], 0",
     "ds_inc_rtn_u32 v1, v0, v4", "ds_inc_u32 v0, v4"},
    {"dec from zero", false, 32, 0x0, 0x9, 0x0, 0x9,
     "global_atomic_dec v1, v[2:3], v4, off glc", "global_atomic_dec v[2:3], v4, off",
     "buffer_atomic_dec v4, off, s[8:11], 0 glc", "buffer_atomic_dec v4, off, s[8:11], 0",
     "ds_dec_rtn_u32 v1, v0, v4", "ds_dec_u32 v0, v4"},
    {"dec above limit", false, 32, 0xa, 0x9, 0x0, 0x9,
     "global_atomic_dec v1, v[2:3], v4, off glc", "global_atomic_dec v[2:3], v4, off",
     "buffer_atomic_dec v4, off, s[8:11], 0 glc", "buffer_atomic_dec v4, off, s[8:11], 0",
     "ds_dec_rtn_u32 v1, v0, v4", "ds_dec_u32 v0, v4"},
    {"dec below limit", false, 32, 0x4, 0x9, 0x0, 0x3,
     "global_atomic_dec v1, v[2:3], v4, off glc", "global_atomic_dec v[2:3], v4, off",
     "buffer_atomic_dec v4, off, s[8:11], 0 glc", "buffer_atomic_dec v4, off, s[8:11], 0",
     "ds_dec_rtn_u32 v1, v0, v4", "ds_dec_u32 v0, v4"},
    {"mskor", false, 32, 0xffff, 0x12, 0xff, 0xff12,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_mskor_rtn_b32 v1, v0, v5, v4", "ds_mskor_b32 v0, v5, v4"},
    {"wrap at limit", false, 32, 0xa, 0x3, 0x8, 0x2,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_wrap_rtn_b32 v1, v0, v5, v4", nullptr},
    {"wrap below limit", false, 32, 0x5, 0x3, 0x8, 0x8,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_wrap_rtn_b32 v1, v0, v5, v4", nullptr},
    {"add_f32", false, 32, 0x3fc00000, 0x40100000, 0x0, 0x40700000,
     "global_atomic_add_f32 v1, v[2:3], v4, off glc", "global_atomic_add_f32 v[2:3], v4, off",
     "buffer_atomic_add_f32 v4, off, s[8:11], 0 glc", "buffer_atomic_add_f32 v4, off, s[8:11], 0",
     "ds_add_rtn_f32 v1, v0, v4", "ds_add_f32 v0, v4"},
    {"add_f32 flushes denormals", false, 32, 0x1, 0x1, 0x0, 0x0,
     "global_atomic_add_f32 v1, v[2:3], v4, off glc", "global_atomic_add_f32 v[2:3], v4, off",
     "buffer_atomic_add_f32 v4, off, s[8:11], 0 glc", "buffer_atomic_add_f32 v4, off, s[8:11], 0",
     "ds_add_rtn_f32 v1, v0, v4", "ds_add_f32 v0, v4"},
    {"add_f32 -0", false, 32, 0x80000000, 0x80000000, 0x0, 0x80000000,
     "global_atomic_add_f32 v1, v[2:3], v4, off glc", "global_atomic_add_f32 v[2:3], v4, off",
     "buffer_atomic_add_f32 v4, off, s[8:11], 0 glc", "buffer_atomic_add_f32 v4, off, s[8:11], 0",
     "ds_add_rtn_f32 v1, v0, v4", "ds_add_f32 v0, v4"},
    {"min_f32", false, 32, 0x3f800000, 0xc0000000, 0x0, 0xc0000000,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_min_rtn_f32 v1, v0, v4", "ds_min_f32 v0, v4"},
    {"max_f32", false, 32, 0x3f800000, 0xc0000000, 0x0, 0x3f800000,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_max_rtn_f32 v1, v0, v4", "ds_max_f32 v0, v4"},
    {"min_f32 NaN", false, 32, 0x7fc00000, 0x3f800000, 0x0, 0x3f800000,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_min_rtn_f32 v1, v0, v4", "ds_min_f32 v0, v4"},
    {"max_f32 -0 +0", false, 32, 0x80000000, 0x0, 0x0, 0x0,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_max_rtn_f32 v1, v0, v4", "ds_max_f32 v0, v4"},
    {"cmpst_f32 -0 equals +0", false, 32, 0x80000000, 0x40a00000, 0x0, 0x40a00000,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_cmpst_rtn_f32 v1, v0, v5, v4", "ds_cmpst_f32 v0, v5, v4"},
    {"cmpst_f32 NaN equals nothing", false, 32, 0x7fc00000, 0x40a00000, 0x7fc00000, 0x7fc00000,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_cmpst_rtn_f32 v1, v0, v5, v4", "ds_cmpst_f32 v0, v5, v4"},
    {"pk_add_f16", false, 32, 0x7bff3c00, 0x7bff4000, 0x0, 0x7c004200,
     "global_atomic_pk_add_f16 v1, v[2:3], v4, off glc", "global_atomic_pk_add_f16 v[2:3], v4, off",
     "buffer_atomic_pk_add_f16 v4, off, s[8:11], 0 glc", "buffer_atomic_pk_add_f16 v4, off, s[8:11], 0",
     nullptr, nullptr},
    {"pk_add_f16 denormals", false, 32, 0x80010001, 0x10001, 0x0, 0x2,
     "global_atomic_pk_add_f16 v1, v[2:3], v4, off glc", "global_atomic_pk_add_f16 v[2:3], v4, off",
     "buffer_atomic_pk_add_f16 v4, off, s[8:11], 0 glc", "buffer_atomic_pk_add_f16 v4, off, s[8:11], 0",
     nullptr, nullptr},
    {"ds_pk_add_f16", true, 32, 0x7bff3c00, 0x7bff4000, 0x0, 0x7c004200,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_pk_add_rtn_f16 v1, v0, v4", "ds_pk_add_f16 v0, v4"},
    {"pk_add_bf16", true, 32, 0x40403f80, 0xbf803f80, 0x0, 0x40004000,
     "global_atomic_pk_add_bf16 v1, v[2:3], v4, off sc0", "global_atomic_pk_add_bf16 v[2:3], v4, off",
     nullptr, nullptr,
     "ds_pk_add_rtn_bf16 v1, v0, v4", "ds_pk_add_bf16 v0, v4"},
    {"pk_add_bf16 rounds to even", true, 32, 0x3f80, 0x3b80, 0x0, 0x3f80,
     "global_atomic_pk_add_bf16 v1, v[2:3], v4, off sc0", "global_atomic_pk_add_bf16 v[2:3], v4, off",
     nullptr, nullptr,
     "ds_pk_add_rtn_bf16 v1, v0, v4", "ds_pk_add_bf16 v0, v4"},
    {"swap_x2", false, 64, 0x1, 0x100000002, 0x0, 0x100000002,
     "global_atomic_swap_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_swap_x2 v[2:3], v[4:5], off",
     "buffer_atomic_swap_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_swap_x2 v[4:5], off, s[8:11], 0",
     "ds_wrxchg_rtn_b64 v[0:1], v8, v[4:5]", nullptr},
    {"cmpswap_x2 equal", false, 64, 0x100000007, 0x9, 0x100000007, 0x9,
     "global_atomic_cmpswap_x2 v[0:1], v[2:3], v[4:7], off glc", "global_atomic_cmpswap_x2 v[2:3], v[4:7], off",
     "buffer_atomic_cmpswap_x2 v[4:7], off, s[8:11], 0 glc", "buffer_atomic_cmpswap_x2 v[4:7], off, s[8:11], 0",
     "ds_cmpst_rtn_b64 v[0:1], v8, v[6:7], v[4:5]", "ds_cmpst_b64 v8, v[6:7], v[4:5]"},
    {"cmpswap_x2 high half differs", false, 64, 0x100000007, 0x9, 0x200000007, 0x100000007,
     "global_atomic_cmpswap_x2 v[0:1], v[2:3], v[4:7], off glc", "global_atomic_cmpswap_x2 v[2:3], v[4:7], off",
     "buffer_atomic_cmpswap_x2 v[4:7], off, s[8:11], 0 glc", "buffer_atomic_cmpswap_x2 v[4:7], off, s[8:11], 0",
     "ds_cmpst_rtn_b64 v[0:1], v8, v[6:7], v[4:5]", "ds_cmpst_b64 v8, v[6:7], v[4:5]"},
    {"add_x2 carries", false, 64, 0xffffffff, 0x1, 0x0, 0x100000000,
     "global_atomic_add_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_add_x2 v[2:3], v[4:5], off",
     "buffer_atomic_add_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_add_x2 v[4:5], off, s[8:11], 0",
     "ds_add_rtn_u64 v[0:1], v8, v[4:5]", "ds_add_u64 v8, v[4:5]"},
    {"sub_x2 borrows", false, 64, 0x100000000, 0x1, 0x0, 0xffffffff,
     "global_atomic_sub_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_sub_x2 v[2:3], v[4:5], off",
     "buffer_atomic_sub_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_sub_x2 v[4:5], off, s[8:11], 0",
     "ds_sub_rtn_u64 v[0:1], v8, v[4:5]", "ds_sub_u64 v8, v[4:5]"},
    {"rsub_x2", false, 64, 0x1, 0x100000000, 0x0, 0xffffffff,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_rsub_rtn_u64 v[0:1], v8, v[4:5]", "ds_rsub_u64 v8, v[4:5]"},
    {"smin_x2", false, 64, 0x5, 0xfffffffffffffffe, 0x0, 0xfffffffffffffffe,
     "global_atomic_smin_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_smin_x2 v[2:3], v[4:5], off",
     "buffer_atomic_smin_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_smin_x2 v[4:5], off, s[8:11], 0",
     "ds_min_rtn_i64 v[0:1], v8, v[4:5]", "ds_min_i64 v8, v[4:5]"},
    {"umin_x2", false, 64, 0x5, 0xfffffffffffffffe, 0x0, 0x5,
     "global_atomic_umin_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_umin_x2 v[2:3], v[4:5], off",
     "buffer_atomic_umin_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_umin_x2 v[4:5], off, s[8:11], 0",
     "ds_min_rtn_u64 v[0:1], v8, v[4:5]", "ds_min_u64 v8, v[4:5]"},
    {"smax_x2", false, 64, 0x5, 0xfffffffffffffffe, 0x0, 0x5,
     "global_atomic_smax_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_smax_x2 v[2:3], v[4:5], off",
     "buffer_atomic_smax_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_smax_x2 v[4:5], off, s[8:11], 0",
     "ds_max_rtn_i64 v[0:1], v8, v[4:5]", "ds_max_i64 v8, v[4:5]"},
    {"umax_x2", false, 64, 0x5, 0xfffffffffffffffe, 0x0, 0xfffffffffffffffe,
     "global_atomic_umax_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_umax_x2 v[2:3], v[4:5], off",
     "buffer_atomic_umax_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_umax_x2 v[4:5], off, s[8:11], 0",
     "ds_max_rtn_u64 v[0:1], v8, v[4:5]", "ds_max_u64 v8, v[4:5]"},
    {"and_x2", false, 64, 0xf0f00000f0f0, 0xff000000ff00, 0x0, 0xf0000000f000,
     "global_atomic_and_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_and_x2 v[2:3], v[4:5], off",
     "buffer_atomic_and_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_and_x2 v[4:5], off, s[8:11], 0",
     "ds_and_rtn_b64 v[0:1], v8, v[4:5]", "ds_and_b64 v8, v[4:5]"},
    {"or_x2", false, 64, 0xf0f00000f0f0, 0xff000000ff00, 0x0, 0xfff00000fff0,
     "global_atomic_or_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_or_x2 v[2:3], v[4:5], off",
     "buffer_atomic_or_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_or_x2 v[4:5], off, s[8:11], 0",
     "ds_or_rtn_b64 v[0:1], v8, v[4:5]", "ds_or_b64 v8, v[4:5]"},
    {"xor_x2", false, 64, 0xf0f00000f0f0, 0xff000000ff00, 0x0, 0xff000000ff0,
     "global_atomic_xor_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_xor_x2 v[2:3], v[4:5], off",
     "buffer_atomic_xor_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_xor_x2 v[4:5], off, s[8:11], 0",
     "ds_xor_rtn_b64 v[0:1], v8, v[4:5]", "ds_xor_b64 v8, v[4:5]"},
    {"inc_x2 wraps", false, 64, 0x100000000, 0x100000000, 0x0, 0x0,
     "global_atomic_inc_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_inc_x2 v[2:3], v[4:5], off",
     "buffer_atomic_inc_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_inc_x2 v[4:5], off, s[8:11], 0",
     "ds_inc_rtn_u64 v[0:1], v8, v[4:5]", "ds_inc_u64 v8, v[4:5]"},
    {"inc_x2 carries", false, 64, 0xffffffff, 0x100000000, 0x0, 0x100000000,
     "global_atomic_inc_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_inc_x2 v[2:3], v[4:5], off",
     "buffer_atomic_inc_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_inc_x2 v[4:5], off, s[8:11], 0",
     "ds_inc_rtn_u64 v[0:1], v8, v[4:5]", "ds_inc_u64 v8, v[4:5]"},
    {"dec_x2 from zero", false, 64, 0x0, 0x100000000, 0x0, 0x100000000,
     "global_atomic_dec_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_dec_x2 v[2:3], v[4:5], off",
     "buffer_atomic_dec_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_dec_x2 v[4:5], off, s[8:11], 0",
     "ds_dec_rtn_u64 v[0:1], v8, v[4:5]", "ds_dec_u64 v8, v[4:5]"},
    {"dec_x2 borrows", false, 64, 0x100000000, 0x200000000, 0x0, 0xffffffff,
     "global_atomic_dec_x2 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_dec_x2 v[2:3], v[4:5], off",
     "buffer_atomic_dec_x2 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_dec_x2 v[4:5], off, s[8:11], 0",
     "ds_dec_rtn_u64 v[0:1], v8, v[4:5]", "ds_dec_u64 v8, v[4:5]"},
    {"mskor_b64", false, 64, 0xffff0000ffff, 0x12, 0xff000000ff, 0xff000000ff12,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_mskor_rtn_b64 v[0:1], v8, v[6:7], v[4:5]", "ds_mskor_b64 v8, v[6:7], v[4:5]"},
    {"add_f64", false, 64, 0x3ff8000000000000, 0x4002000000000000, 0x0, 0x400e000000000000,
     "global_atomic_add_f64 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_add_f64 v[2:3], v[4:5], off",
     "buffer_atomic_add_f64 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_add_f64 v[4:5], off, s[8:11], 0",
     "ds_add_rtn_f64 v[0:1], v8, v[4:5]", "ds_add_f64 v8, v[4:5]"},
    {"add_f64 keeps denormals", false, 64, 0x1, 0x1, 0x0, 0x2,
     "global_atomic_add_f64 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_add_f64 v[2:3], v[4:5], off",
     "buffer_atomic_add_f64 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_add_f64 v[4:5], off, s[8:11], 0",
     "ds_add_rtn_f64 v[0:1], v8, v[4:5]", "ds_add_f64 v8, v[4:5]"},
    {"min_f64", false, 64, 0x3ff0000000000000, 0xc000000000000000, 0x0, 0xc000000000000000,
     "global_atomic_min_f64 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_min_f64 v[2:3], v[4:5], off",
     "buffer_atomic_min_f64 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_min_f64 v[4:5], off, s[8:11], 0",
     "ds_min_rtn_f64 v[0:1], v8, v[4:5]", "ds_min_f64 v8, v[4:5]"},
    {"max_f64", false, 64, 0x3ff0000000000000, 0xc000000000000000, 0x0, 0x3ff0000000000000,
     "global_atomic_max_f64 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_max_f64 v[2:3], v[4:5], off",
     "buffer_atomic_max_f64 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_max_f64 v[4:5], off, s[8:11], 0",
     "ds_max_rtn_f64 v[0:1], v8, v[4:5]", "ds_max_f64 v8, v[4:5]"},
    {"max_f64 NaN", false, 64, 0x7ff8000000000000, 0x3ff0000000000000, 0x0, 0x3ff0000000000000,
     "global_atomic_max_f64 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_max_f64 v[2:3], v[4:5], off",
     "buffer_atomic_max_f64 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_max_f64 v[4:5], off, s[8:11], 0",
     "ds_max_rtn_f64 v[0:1], v8, v[4:5]", "ds_max_f64 v8, v[4:5]"},
    {"min_f64 -0 +0", false, 64, 0x0, 0x8000000000000000, 0x0, 0x8000000000000000,
     "global_atomic_min_f64 v[0:1], v[2:3], v[4:5], off glc", "global_atomic_min_f64 v[2:3], v[4:5], off",
     "buffer_atomic_min_f64 v[4:5], off, s[8:11], 0 glc", "buffer_atomic_min_f64 v[4:5], off, s[8:11], 0",
     "ds_min_rtn_f64 v[0:1], v8, v[4:5]", "ds_min_f64 v8, v[4:5]"},
    {"cmpst_f64", false, 64, 0x8000000000000000, 0x4014000000000000, 0x0, 0x4014000000000000,
     nullptr, nullptr,
     nullptr, nullptr,
     "ds_cmpst_rtn_f64 v[0:1], v8, v[6:7], v[4:5]", "ds_cmpst_f64 v8, v[6:7], v[4:5]"},
};

// Loads and stores, one row per width and extension, with each family's instruction. Every lane has its own 16-byte
// slot: GLOBAL addresses it through v[2:3], MUBUF through v0 (offen), DS through v0. Loads write v10 (v[10:13]),
// stores take their data from v4 (v[4:7]).
struct LoadCase {
  const char* name;
  uint32_t bytes;   // read from memory
  int dwords;       // destination registers written
  // The expected value of destination dword `k` after reading the slot `m`, the register having held `previous`.
  uint32_t (*expected)(const uint8_t* m, uint32_t previous, int k);
  const char* global;
  const char* buffer;
  const char* ds;
};

inline uint32_t Le16(const uint8_t* m) { return uint32_t{m[0]} | (uint32_t{m[1]} << 8); }
inline uint32_t Le32(const uint8_t* m) { return Le16(m) | (Le16(m + 2) << 16); }

inline constexpr LoadCase kLoadCases[] = {
    {"ubyte", 1, 1, [](const uint8_t* m, uint32_t, int) { return uint32_t{m[0]}; },
     "global_load_ubyte v10, v[2:3], off", "buffer_load_ubyte v10, v0, s[8:11], 0 offen", "ds_read_u8 v10, v0"},
    {"sbyte", 1, 1, [](const uint8_t* m, uint32_t, int) { return static_cast<uint32_t>(static_cast<int8_t>(m[0])); },
     "global_load_sbyte v10, v[2:3], off", "buffer_load_sbyte v10, v0, s[8:11], 0 offen", "ds_read_i8 v10, v0"},
    {"ushort", 2, 1, [](const uint8_t* m, uint32_t, int) { return Le16(m); },
     "global_load_ushort v10, v[2:3], off", "buffer_load_ushort v10, v0, s[8:11], 0 offen", "ds_read_u16 v10, v0"},
    {"sshort", 2, 1,
     [](const uint8_t* m, uint32_t, int) { return static_cast<uint32_t>(static_cast<int16_t>(Le16(m))); },
     "global_load_sshort v10, v[2:3], off", "buffer_load_sshort v10, v0, s[8:11], 0 offen", "ds_read_i16 v10, v0"},
    {"dword", 4, 1, [](const uint8_t* m, uint32_t, int) { return Le32(m); },
     "global_load_dword v10, v[2:3], off", "buffer_load_dword v10, v0, s[8:11], 0 offen", "ds_read_b32 v10, v0"},
    {"dwordx2", 8, 2, [](const uint8_t* m, uint32_t, int k) { return Le32(m + 4 * k); },
     "global_load_dwordx2 v[10:11], v[2:3], off", "buffer_load_dwordx2 v[10:11], v0, s[8:11], 0 offen",
     "ds_read_b64 v[10:11], v0"},
    {"dwordx3", 12, 3, [](const uint8_t* m, uint32_t, int k) { return Le32(m + 4 * k); },
     "global_load_dwordx3 v[10:12], v[2:3], off", "buffer_load_dwordx3 v[10:12], v0, s[8:11], 0 offen",
     "ds_read_b96 v[10:12], v0"},
    {"dwordx4", 16, 4, [](const uint8_t* m, uint32_t, int k) { return Le32(m + 4 * k); },
     "global_load_dwordx4 v[10:13], v[2:3], off", "buffer_load_dwordx4 v[10:13], v0, s[8:11], 0 offen",
     "ds_read_b128 v[10:13], v0"},
    {"ubyte_d16", 1, 1, [](const uint8_t* m, uint32_t p, int) { return (p & 0xffff0000u) | m[0]; },
     "global_load_ubyte_d16 v10, v[2:3], off", "buffer_load_ubyte_d16 v10, v0, s[8:11], 0 offen",
     "ds_read_u8_d16 v10, v0"},
    {"ubyte_d16_hi", 1, 1, [](const uint8_t* m, uint32_t p, int) { return (p & 0xffffu) | (uint32_t{m[0]} << 16); },
     "global_load_ubyte_d16_hi v10, v[2:3], off", "buffer_load_ubyte_d16_hi v10, v0, s[8:11], 0 offen",
     "ds_read_u8_d16_hi v10, v0"},
    {"sbyte_d16", 1, 1,
     [](const uint8_t* m, uint32_t p, int) {
       return (p & 0xffff0000u) | static_cast<uint16_t>(static_cast<int16_t>(static_cast<int8_t>(m[0])));
     },
     "global_load_sbyte_d16 v10, v[2:3], off", "buffer_load_sbyte_d16 v10, v0, s[8:11], 0 offen",
     "ds_read_i8_d16 v10, v0"},
    {"sbyte_d16_hi", 1, 1,
     [](const uint8_t* m, uint32_t p, int) {
       return (p & 0xffffu) |
              (uint32_t{static_cast<uint16_t>(static_cast<int16_t>(static_cast<int8_t>(m[0])))} << 16);
     },
     "global_load_sbyte_d16_hi v10, v[2:3], off", "buffer_load_sbyte_d16_hi v10, v0, s[8:11], 0 offen",
     "ds_read_i8_d16_hi v10, v0"},
    {"short_d16", 2, 1, [](const uint8_t* m, uint32_t p, int) { return (p & 0xffff0000u) | Le16(m); },
     "global_load_short_d16 v10, v[2:3], off", "buffer_load_short_d16 v10, v0, s[8:11], 0 offen",
     "ds_read_u16_d16 v10, v0"},
    {"short_d16_hi", 2, 1, [](const uint8_t* m, uint32_t p, int) { return (p & 0xffffu) | (Le16(m) << 16); },
     "global_load_short_d16_hi v10, v[2:3], off", "buffer_load_short_d16_hi v10, v0, s[8:11], 0 offen",
     "ds_read_u16_d16_hi v10, v0"},
};

struct StoreCase {
  const char* name;
  // Fills the bytes the store writes from the data registers' values `data` (v4..v7); returns how many.
  uint32_t (*expected)(const uint32_t* data, uint8_t* out);
  const char* global;
  const char* buffer;
  const char* ds;
};

inline uint32_t StoreDwords(const uint32_t* data, uint8_t* out, int n) {
  for (int k = 0; k < 4 * n; ++k) out[k] = static_cast<uint8_t>(data[k / 4] >> (8 * (k % 4)));
  return static_cast<uint32_t>(4 * n);
}

inline constexpr StoreCase kStoreCases[] = {
    {"byte", [](const uint32_t* d, uint8_t* o) { o[0] = static_cast<uint8_t>(d[0]); return 1u; },
     "global_store_byte v[2:3], v4, off", "buffer_store_byte v4, v0, s[8:11], 0 offen", "ds_write_b8 v0, v4"},
    {"byte_d16_hi", [](const uint32_t* d, uint8_t* o) { o[0] = static_cast<uint8_t>(d[0] >> 16); return 1u; },
     "global_store_byte_d16_hi v[2:3], v4, off", "buffer_store_byte_d16_hi v4, v0, s[8:11], 0 offen",
     "ds_write_b8_d16_hi v0, v4"},
    {"short",
     [](const uint32_t* d, uint8_t* o) {
       o[0] = static_cast<uint8_t>(d[0]);
       o[1] = static_cast<uint8_t>(d[0] >> 8);
       return 2u;
     },
     "global_store_short v[2:3], v4, off", "buffer_store_short v4, v0, s[8:11], 0 offen", "ds_write_b16 v0, v4"},
    {"short_d16_hi",
     [](const uint32_t* d, uint8_t* o) {
       o[0] = static_cast<uint8_t>(d[0] >> 16);
       o[1] = static_cast<uint8_t>(d[0] >> 24);
       return 2u;
     },
     "global_store_short_d16_hi v[2:3], v4, off", "buffer_store_short_d16_hi v4, v0, s[8:11], 0 offen",
     "ds_write_b16_d16_hi v0, v4"},
    {"dword", [](const uint32_t* d, uint8_t* o) { return StoreDwords(d, o, 1); },
     "global_store_dword v[2:3], v4, off", "buffer_store_dword v4, v0, s[8:11], 0 offen", "ds_write_b32 v0, v4"},
    {"dwordx2", [](const uint32_t* d, uint8_t* o) { return StoreDwords(d, o, 2); },
     "global_store_dwordx2 v[2:3], v[4:5], off", "buffer_store_dwordx2 v[4:5], v0, s[8:11], 0 offen",
     "ds_write_b64 v0, v[4:5]"},
    {"dwordx3", [](const uint32_t* d, uint8_t* o) { return StoreDwords(d, o, 3); },
     "global_store_dwordx3 v[2:3], v[4:6], off", "buffer_store_dwordx3 v[4:6], v0, s[8:11], 0 offen",
     "ds_write_b96 v0, v[4:6]"},
    {"dwordx4", [](const uint32_t* d, uint8_t* o) { return StoreDwords(d, o, 4); },
     "global_store_dwordx4 v[2:3], v[4:7], off", "buffer_store_dwordx4 v[4:7], v0, s[8:11], 0 offen",
     "ds_write_b128 v0, v[4:7]"},
};

// The byte every lane's slot holds before a load: distinct per lane and byte, with the sign bits of bytes and
// halves set in some lanes and clear in others.
inline uint8_t SlotByte(int lane, int k) { return static_cast<uint8_t>(0x71 + 37 * lane + 13 * k); }

// A load case's steps around running its line: FillLoadSlots writes every lane's 16-byte slot (at slots + 16 * lane)
// and marks the destination registers v10-v14; ExpectLoaded checks what each lane loaded and that the register past
// the destination kept its mark.
inline uint32_t Mark(int lane) { return 0xdead0000u + static_cast<uint32_t>(lane); }

inline void FillLoadSlots(Wave& w, uint8_t* slots) {
  for (int lane = 0; lane < kWaveSize; ++lane) {
    for (int k = 0; k < 16; ++k) slots[16 * lane + k] = SlotByte(lane, k);
    for (int r = 10; r < 15; ++r) w.vgpr(r)[lane] = Mark(lane);
  }
}

inline void ExpectLoaded(const Wave& w, const LoadCase& c, const uint8_t* slots) {
  for (int lane = 0; lane < kWaveSize; ++lane) {
    for (int k = 0; k < c.dwords; ++k) {
      ASSERT_EQ(w.vgpr(10 + k)[lane], c.expected(&slots[16 * lane], Mark(lane), k)) << "lane " << lane << " dword " << k;
    }
    ASSERT_EQ(w.vgpr(10 + c.dwords)[lane], Mark(lane)) << "a register past the destination, lane " << lane;
  }
}

// A store case's steps: FillStoreData fills every lane's 32-byte slot with 0xcc and the data registers v4-v7;
// ExpectStored checks each slot holds the store's bytes and 0xcc after them.
inline void FillStoreData(Wave& w, uint8_t* slots) {
  std::memset(slots, 0xcc, 32 * kWaveSize);
  for (int k = 0; k < 4; ++k) {
    for (int lane = 0; lane < kWaveSize; ++lane) w.vgpr(4 + k)[lane] = 0x01020304u * (lane + 1) + 0x11111111u * k;
  }
}

inline void ExpectStored(const Wave& w, const StoreCase& c, const uint8_t* slots) {
  for (int lane = 0; lane < kWaveSize; ++lane) {
    uint32_t data[4];
    for (int k = 0; k < 4; ++k) data[k] = w.vgpr(4 + k)[lane];
    uint8_t expected[32];
    std::memset(expected, 0xcc, sizeof(expected));
    c.expected(data, expected);
    ASSERT_EQ(0, std::memcmp(&slots[32 * lane], expected, 32)) << "lane " << lane;
  }
}

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_MEMORY_TEST_CASES_H_
