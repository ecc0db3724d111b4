// VALU integer, bitwise, move and lane instructions (valu_int.cc), each encoded by llvm-mc-19 for gfx908, gfx90a
// and gfx942 (testdata/valu_int.s; gfx942-only opcodes in testdata/valu_int_gfx942.s), run on one wave.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/decoder.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/valu_test_util.h"
#include "testing/kfd_sim/engines/gfx9/valu_int_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/valu_int_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/valu_int_encodings_gfx942.h"
#include "testing/kfd_sim/engines/gfx9/valu_int_gfx942_encodings.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::AsmEncoding;

constexpr uint32_t kOld = 0xdeadbeefu;                    // every destination's value before the instruction
constexpr uint64_t kOld64 = 0xdeadbeefdeadbeefull;
constexpr uint64_t kExec = ~(uint64_t{1} << 63);          // lane 63 inactive: its destination must stay kOld
constexpr uint64_t kAll = ~uint64_t{0};

// Row flags: a 64-bit result; the carry-in set; the expected carry-out of every active lane (0 or 1).
constexpr uint8_t kWide = 1, kCin = 2, kCarry0 = 4, kCarry1 = 8;

// One instruction on uniform inputs: a, b and c are in v1, v2, v3 (low halves) and in v[6:7], v[8:9], v[10:11];
// the 32-bit result is read from v0, a kWide one from v[4:5]. VCC and s[4:5] hold the carry-in (all lanes, or none);
// the carry-out is checked in VCC or, for a line that names it, s[2:3].
struct Case {
  const char* line;
  uint64_t a, b, c;
  uint64_t want;
  uint8_t flags = 0;
};

// Hand-computed results; each comment shows the arithmetic.
constexpr Case kCases[] = {
    // v_cndmask_b32: src1 where the mask bit is set.
    {"v_cndmask_b32_e32 v0, v1, v2, vcc", 1, 2, 0, 2, kCin},
    {"v_cndmask_b32_e32 v0, v1, v2, vcc", 1, 2, 0, 1},
    {"v_cndmask_b32_e64 v0, v1, v2, s[4:5]", 1, 2, 0, 2, kCin},
    // ... the e64 form's abs/neg act on bit 31 (as LLVM folds fabs/fneg of a select): |-1.0f| and -(2.0f).
    {"v_cndmask_b32_e64 v0, |v1|, -v2, s[4:5]", 0xbf800000, 0x40000000, 0, 0x3f800000},
    {"v_cndmask_b32_e64 v0, |v1|, -v2, s[4:5]", 0xbf800000, 0x40000000, 0, 0xc0000000, kCin},
    // 24-bit multiplies ignore the top byte; the signed ones sign-extend bit 23.
    {"v_mul_i32_i24_e32 v0, v1, v2", 0x00800000, 2, 0, 0xff000000},          // -2^23 * 2
    {"v_mul_i32_i24_e32 v0, v1, v2", 0xff000003, 5, 0, 15},
    {"v_mul_i32_i24_e64 v0, v1, v2 clamp", 0x7fffff, 0x7fffff, 0, 0x7fffffff},  // 2^46-ish saturates
    {"v_mul_hi_i32_i24_e32 v0, v1, v2", 0x800000, 0x800000, 0, 0x4000},        // 2^46 >> 32
    {"v_mul_hi_i32_i24_e32 v0, v1, v2", 0x800000, 1, 0, 0xffffffff},           // -2^23 >> 32
    {"v_mul_u32_u24_e32 v0, v1, v2", 0xffffffff, 0x1000002, 0, 0x01fffffe},    // 0xffffff * 2
    {"v_mul_u32_u24_e64 v0, v1, v2 clamp", 0xffffff, 0xffffff, 0, 0xffffffff},
    {"v_mul_hi_u32_u24_e32 v0, v1, v2", 0xffffff, 0xffffff, 0, 0xffff},        // 0xfffffe000001 >> 32
    // min/max: -1 against 1.
    {"v_min_i32_e32 v0, v1, v2", 0xffffffff, 1, 0, 0xffffffff},
    {"v_max_i32_e32 v0, v1, v2", 0xffffffff, 1, 0, 1},
    {"v_min_u32_e32 v0, v1, v2", 0xffffffff, 1, 0, 1},
    {"v_max_u32_e32 v0, v1, v2", 0xffffffff, 1, 0, 0xffffffff},
    {"v_min_u32_e64 v0, v1, v2", 7, 3, 0, 3},
    // Shifts take the amount from src0, mod 32.
    {"v_lshrrev_b32_e32 v0, v1, v2", 33, 0x80000000, 0, 0x40000000},
    {"v_ashrrev_i32_e32 v0, v1, v2", 31, 0x80000000, 0, 0xffffffff},
    {"v_lshlrev_b32_e32 v0, v1, v2", 36, 0xf000000f, 0, 0xf0},
    {"v_and_b32_e32 v0, v1, v2", 0xff00ff00, 0x0ff00ff0, 0, 0x0f000f00},
    {"v_or_b32_e32 v0, v1, v2", 0xff00ff00, 0x0ff00ff0, 0, 0xfff0fff0},
    {"v_xor_b32_e32 v0, v1, v2", 0xff00ff00, 0x0ff00ff0, 0, 0xf0f0f0f0},
    {"v_xnor_b32_e32 v0, v1, v2", 0xff00ff00, 0x0ff00ff0, 0, 0x0f0f0f0f},
    // Carry arithmetic: the carry (borrow) out of bit 31.
    {"v_add_co_u32_e32 v0, vcc, v1, v2", 0xffffffff, 2, 0, 1, kCarry1},
    {"v_add_co_u32_e32 v0, vcc, v1, v2", 1, 2, 0, 3, kCarry0},
    {"v_add_co_u32_e64 v0, s[2:3], v1, v2 clamp", 0xffffffff, 2, 0, 0xffffffff, kCarry1},
    {"v_sub_co_u32_e32 v0, vcc, v1, v2", 1, 2, 0, 0xffffffff, kCarry1},
    {"v_sub_co_u32_e64 v0, s[2:3], v1, v2 clamp", 1, 2, 0, 0, kCarry1},
    {"v_subrev_co_u32_e32 v0, vcc, v1, v2", 1, 2, 0, 1, kCarry0},
    {"v_addc_co_u32_e32 v0, vcc, v1, v2, vcc", 0xffffffff, 0, 0, 0, kCin | kCarry1},
    {"v_addc_co_u32_e32 v0, vcc, v1, v2, vcc", 5, 6, 0, 12, kCin | kCarry0},
    {"v_addc_co_u32_e64 v0, s[2:3], v1, v2, s[4:5]", 0xfffffffe, 1, 0, 0, kCin | kCarry1},
    {"v_subb_co_u32_e32 v0, vcc, v1, v2, vcc", 0, 0, 0, 0xffffffff, kCin | kCarry1},
    {"v_subb_co_u32_e32 v0, vcc, v1, v2, vcc", 5, 3, 0, 1, kCin | kCarry0},
    {"v_subbrev_co_u32_e32 v0, vcc, v1, v2, vcc", 3, 5, 0, 1, kCin | kCarry0},   // 5 - 3 - 1
    {"v_subbrev_co_u32_e32 v0, vcc, v1, v2, vcc", 5, 5, 0, 0xffffffff, kCin | kCarry1},
    // 32-bit add/sub: wrap, or saturate under clamp.
    {"v_add_u32_e32 v0, v1, v2", 0xffffffff, 2, 0, 1},
    {"v_add_u32_e64 v0, v1, v2 clamp", 0xffffffff, 2, 0, 0xffffffff},
    {"v_sub_u32_e32 v0, v1, v2", 1, 2, 0, 0xffffffff},
    {"v_sub_u32_e64 v0, v1, v2 clamp", 1, 2, 0, 0},
    {"v_subrev_u32_e32 v0, v1, v2", 1, 2, 0, 1},
    {"v_subrev_u32_e64 v0, v1, v2 clamp", 2, 1, 0, 0},
    {"v_add_i32 v0, v1, v2", 0x7fffffff, 1, 0, 0x80000000},
    {"v_add_i32 v0, v1, v2 clamp", 0x7fffffff, 1, 0, 0x7fffffff},
    {"v_sub_i32 v0, v1, v2", 0x80000000, 1, 0, 0x7fffffff},
    {"v_sub_i32 v0, v1, v2 clamp", 0x80000000, 1, 0, 0x80000000},
    // VOP2 16-bit ops read the low halves and zero the destination's high half (GFX9).
    {"v_add_u16_e32 v0, v1, v2", 0x1234ffff, 0xabcd0002, 0, 0x00000001},
    {"v_add_u16_e64 v0, v1, v2 clamp", 0xffff, 2, 0, 0x0000ffff},
    {"v_sub_u16_e32 v0, v1, v2", 1, 2, 0, 0x0000ffff},
    {"v_sub_u16_e64 v0, v1, v2 clamp", 1, 2, 0, 0},
    {"v_subrev_u16_e32 v0, v1, v2", 1, 2, 0, 1},
    {"v_mul_lo_u16_e32 v0, v1, v2", 0x100, 0x101, 0, 0x0100},                  // 0x10100 mod 2^16
    {"v_lshlrev_b16_e32 v0, v1, v2", 17, 0x8001, 0, 0x0002},                   // shift mod 16
    {"v_lshrrev_b16_e32 v0, v1, v2", 15, 0x8000, 0, 1},
    {"v_ashrrev_i16_e32 v0, v1, v2", 4, 0x8000, 0, 0xf800},
    {"v_max_u16_e32 v0, v1, v2", 0x1234ffff, 1, 0, 0xffff},
    {"v_max_i16_e32 v0, v1, v2", 0x1234ffff, 1, 0, 1},
    {"v_min_u16_e32 v0, v1, v2", 0x1234ffff, 1, 0, 1},
    {"v_min_i16_e32 v0, v1, v2", 0x1234ffff, 1, 0, 0xffff},
    {"v_add_u16_e64 v0, v1, v2", 0x10, 0x20, 0, 0x30},
    // The op_sel-capable VOP3 16-bit ops keep the half they do not write.
    {"v_add_i16 v0, v1, v2", 0x7fff, 1, 0, 0xdead8000},
    {"v_add_i16 v0, v1, v2 clamp", 0x7fff, 1, 0, 0xdead7fff},
    {"v_add_i16 v0, v1, v2 op_sel:[1,1,1]", 0x00050000, 0x00060000, 0, 0x000bbeef},
    {"v_sub_i16 v0, v1, v2 clamp", 0x8000, 1, 0, 0xdead8000},
    {"v_mad_u16 v0, v1, v2, v3", 3, 4, 5, 0xdead0011},
    {"v_mad_u16 v0, v1, v2, v3 clamp", 0x100, 0x100, 0, 0xdeadffff},
    {"v_mad_u16 v0, v1, v2, v3 op_sel:[0,0,0,1]", 3, 4, 5, 0x0011beef},
    {"v_mad_i16 v0, v1, v2, v3", 0xffff, 3, 1, 0xdeadfffe},                   // -1 * 3 + 1
    {"v_min3_i16 v0, v1, v2, v3", 5, 0xfffe, 3, 0xdeadfffe},
    {"v_min3_u16 v0, v1, v2, v3", 5, 0xfffe, 3, 0xdead0003},
    {"v_max3_i16 v0, v1, v2, v3", 5, 0xfffe, 3, 0xdead0005},
    {"v_max3_i16 v0, v1, v2, v3 op_sel:[1,0,0,1]", 0x00070000, 1, 2, 0x0007beef},
    {"v_max3_u16 v0, v1, v2, v3", 5, 0xfffe, 3, 0xdeadfffe},
    {"v_med3_i16 v0, v1, v2, v3", 5, 0xfffe, 3, 0xdead0003},
    {"v_med3_u16 v0, v1, v2, v3", 5, 0xfffe, 3, 0xdead0005},
    // The legacy 16-bit mads zero the high half like the VOP2 ops.
    {"v_mad_legacy_u16 v0, v1, v2, v3", 0x12340100, 0x100, 5, 0x00000005},      // 0x10005 mod 2^16
    {"v_mad_legacy_u16 v0, v1, v2, v3 clamp", 0x100, 0x100, 5, 0x0000ffff},
    {"v_mad_legacy_i16 v0, v1, v2, v3", 0xffff, 5, 2, 0x0000fffd},            // -5 + 2
    // 16-bit factors, 32-bit sum.
    {"v_mad_u32_u16 v0, v1, v2, v3", 0xffff, 0xffff, 1, 0xfffe0002},
    {"v_mad_u32_u16 v0, v1, v2, v3 op_sel:[1,1,0,0]", 0x00020000, 0x00030000, 1, 7},
    {"v_mad_i32_i16 v0, v1, v2, v3", 0xffff, 2, 10, 8},
    // Integer dot products accumulate into vdst (kOld).
    {"v_dot2c_i32_i16_e32 v0, v1, v2", 0x0002ffff, 0x00030004, 0, kOld + 2},   // -1*4 + 2*3
    {"v_dot4c_i32_i8_e32 v0, v1, v2", 0x01ff0280, 0x02020202, 0, kOld - 252},  // (-128 + 2 - 1 + 1) * 2
    {"v_dot8c_i32_i4_e32 v0, v1, v2", 0x8f, 0x22, 0, kOld - 18},               // -1*2 + -8*2
    // VOP1.
    {"v_mov_b32_e32 v0, v1", 0x12345678, 0, 0, 0x12345678},
    {"v_mov_b32_e32 v0, -4.0", 0, 0, 0, 0xc0800000},
    {"v_mov_b32_e32 v0, -16", 0, 0, 0, 0xfffffff0},
    {"v_mov_b32_e32 v0, 0x12345678", 0, 0, 0, 0x12345678},
    {"v_not_b32_e32 v0, v1", 0x0f0f0f0f, 0, 0, 0xf0f0f0f0},
    {"v_not_b32_e64 v0, v1", 0, 0, 0, 0xffffffff},
    {"v_bfrev_b32_e32 v0, v1", 1, 0, 0, 0x80000000},
    {"v_bfrev_b32_e64 v0, v1", 0x12345678, 0, 0, 0x1e6a2c48},
    {"v_ffbh_u32_e32 v0, v1", 0x00010000, 0, 0, 15},
    {"v_ffbh_u32_e32 v0, v1", 0, 0, 0, 0xffffffff},
    {"v_ffbl_b32_e32 v0, v1", 0x00010000, 0, 0, 16},
    {"v_ffbl_b32_e32 v0, v1", 0, 0, 0, 0xffffffff},
    {"v_ffbh_i32_e32 v0, v1", 0x40000000, 0, 0, 1},
    {"v_ffbh_i32_e32 v0, v1", 0xc0000000, 0, 0, 2},                           // first 0 below the sign
    {"v_ffbh_i32_e32 v0, v1", 0x80000000, 0, 0, 1},
    {"v_ffbh_i32_e32 v0, v1", 0xffffffff, 0, 0, 0xffffffff},
    {"v_ffbh_i32_e32 v0, v1", 0, 0, 0, 0xffffffff},
    {"v_sat_pk_u8_i16_e32 v0, v1", 0xff800123, 0, 0, 0x000000ff},             // -128 -> 0, 291 -> 255
    {"v_sat_pk_u8_i16_e32 v0, v1", 0x007f0010, 0, 0, 0x00007f10},
    // VOP3-only 32-bit.
    {"v_mad_i32_i24 v0, v1, v2, v3", 0xfffffe, 3, 10, 4},                     // -2 * 3 + 10
    {"v_mad_u32_u24 v0, v1, v2, v3", 0x1000003, 5, 0xfffffff0, 0xffffffff},
    {"v_mad_u32_u24 v0, v1, v2, v3", 0xffffff, 0xffffff, 0, 0xfe000001},
    {"v_mad_u32_u24 v0, v1, v2, v3 clamp", 0xffffff, 0xffffff, 0, 0xffffffff},
    {"v_bfe_u32 v0, v1, v2, v3", 0xabcd1234, 8, 12, 0xd12},
    {"v_bfe_u32 v0, v1, v2, v3", 0xabcd1234, 28, 8, 0xa},                      // the field runs off the top
    {"v_bfe_u32 v0, v1, v2, v3", 0xabcd1234, 4, 0, 0},
    {"v_bfe_i32 v0, v1, v2, v3", 0xabcd1234, 8, 12, 0xfffffd12},
    {"v_bfe_i32 v0, v1, v2, v3", 0xabcd1234, 28, 8, 0xfffffffa},
    {"v_bfe_i32 v0, v1, v2, v3", 0xabcd1234, 4, 4, 3},
    {"v_bfe_i32 v0, v1, v2, v3", 0xabcd1234, 0, 0, 0},
    {"v_bfi_b32 v0, v1, v2, v3", 0xffff0000, 0x12345678, 0x9abcdef0, 0x1234def0},
    {"v_bfm_b32 v0, v1, v2", 4, 8, 0, 0xf00},
    {"v_bfm_b32 v0, v1, v2", 32, 8, 0, 0},                                     // width mod 32
    {"v_lerp_u8 v0, v1, v2, v3", 0x01020304, 0x03040506, 0x01000100, 0x02030405},
    {"v_lerp_u8 v0, v1, v2, v3", 0xff000000, 0xff000000, 0x01000000, 0xff000000},
    {"v_alignbit_b32 v0, v1, v2, v3", 0x12345678, 0x9abcdef0, 4, 0x89abcdef},
    {"v_alignbit_b32 v0, v1, v2, v3", 0x12345678, 0x9abcdef0, 36, 0x89abcdef},
    {"v_alignbit_b32 v0, v1, v2, v3", 0x12345678, 0x9abcdef0, 0, 0x9abcdef0},
    {"v_alignbyte_b32 v0, v1, v2, v3", 0x12345678, 0x9abcdef0, 1, 0x789abcde},
    {"v_alignbyte_b32 v0, v1, v2, v3", 0x12345678, 0x9abcdef0, 5, 0x789abcde},
    {"v_min3_i32 v0, v1, v2, v3", 5, 0xfffffffe, 3, 0xfffffffe},
    {"v_max3_i32 v0, v1, v2, v3", 5, 0xfffffffe, 3, 5},
    {"v_med3_i32 v0, v1, v2, v3", 5, 0xfffffffe, 3, 3},
    {"v_min3_u32 v0, v1, v2, v3", 5, 0xfffffffe, 3, 3},
    {"v_max3_u32 v0, v1, v2, v3", 5, 0xfffffffe, 3, 0xfffffffe},
    {"v_med3_u32 v0, v1, v2, v3", 5, 0xfffffffe, 3, 5},
    // |0x10-0x08| + |5-10| + |0xff-0| + |1-2| = 269.
    {"v_sad_u8 v0, v1, v2, v3", 0x01ff0510, 0x02000a08, 100, 369},
    {"v_sad_hi_u8 v0, v1, v2, v3", 0x01ff0510, 0x02000a08, 100, (269u << 16) + 100},
    {"v_msad_u8 v0, v1, v2, v3", 0x01ff0510, 0x02000a08, 100, 114},            // byte 2 of src1 is 0: skipped
    {"v_sad_u16 v0, v1, v2, v3", 0x0001ffff, 0x00030000, 7, 0x10008},          // 65535 + 2 + 7
    {"v_sad_u32 v0, v1, v2, v3", 1, 0xffffffff, 1, 0xffffffff},
    {"v_sad_u32 v0, v1, v2, v3", 0, 0xffffffff, 5, 4},                         // wraps
    {"v_sad_u32 v0, v1, v2, v3 clamp", 0, 0xffffffff, 5, 0xffffffff},
    // bytes 0-3 from src1 (88 77 66 55), 4-7 from src0 (44 33 22 11); 12 -> 0x00, 13 -> 0xff.
    {"v_perm_b32 v0, v1, v2, v3", 0x11223344, 0x55667788, 0x0c0d0704, 0x00ff1144},
    // 8-11 replicate the signs of bytes 1, 3, 5, 7.
    {"v_perm_b32 v0, v1, v2, v3", 0x91223344, 0x80667788, 0x08090a0b, 0x00ff00ff},
    {"v_xad_u32 v0, v1, v2, v3", 0xf0, 0xff, 1, 0x10},
    {"v_lshl_add_u32 v0, v1, v2, v3", 1, 33, 5, 7},
    {"v_add_lshl_u32 v0, v1, v2, v3", 1, 2, 4, 48},
    {"v_add3_u32 v0, v1, v2, v3", 1, 2, 0xffffffff, 2},
    {"v_lshl_or_b32 v0, v1, v2, v3", 1, 4, 1, 0x11},
    {"v_and_or_b32 v0, v1, v2, v3", 0xff, 0x0f, 0x100, 0x10f},
    {"v_or3_b32 v0, v1, v2, v3", 1, 2, 4, 7},
    {"v_mul_lo_u32 v0, v1, v2", 0x10001, 0x10001, 0, 0x00020001},
    {"v_mul_hi_u32 v0, v1, v2", 0xffffffff, 0xffffffff, 0, 0xfffffffe},
    {"v_mul_hi_i32 v0, v1, v2", 0xffffffff, 0xffffffff, 0, 0},                // -1 * -1
    {"v_mul_hi_i32 v0, v1, v2", 0x80000000, 2, 0, 0xffffffff},                // -2^32
    {"v_bcnt_u32_b32 v0, v1, v2", 0xf0f0, 3, 0, 11},
    {"v_cvt_pk_u16_u32 v0, v1, v2", 0x12345, 7, 0, 0x0007ffff},
    {"v_cvt_pk_i16_i32 v0, v1, v2", 0xffff0000, 0x7000, 0, 0x70008000},       // -65536 saturates to -32768
    {"v_pack_b32_f16 v0, v1, v2", 0x11113c00, 0x2222c000, 0, 0xc0003c00},
    {"v_pack_b32_f16 v0, -v1, |v2| op_sel:[1,0,0]", 0x3c001111, 0x2222c000, 0, 0x4000bc00},
    // 64-bit.
    {"v_lshlrev_b64 v[4:5], v1, v[8:9]", 4, 0x0123456789abcdef, 0, 0x123456789abcdef0, kWide},
    {"v_lshlrev_b64 v[4:5], v1, v[8:9]", 68, 0x0123456789abcdef, 0, 0x123456789abcdef0, kWide},
    {"v_lshlrev_b64 v[4:5], v1, v[8:9]", 63, 1, 0, 0x8000000000000000, kWide},
    {"v_lshrrev_b64 v[4:5], v1, v[8:9]", 4, 0x0123456789abcdef, 0, 0x00123456789abcde, kWide},
    {"v_ashrrev_i64 v[4:5], v1, v[8:9]", 60, 0x8000000000000000, 0, 0xfffffffffffffff8, kWide},
    {"v_mad_u64_u32 v[4:5], s[2:3], v1, v2, v[10:11]", 0xffffffff, 0xffffffff, ~uint64_t{0}, 0xfffffffe00000000,
     kWide | kCarry1},
    {"v_mad_u64_u32 v[4:5], s[2:3], v1, v2, v[10:11]", 2, 3, 4, 10, kWide | kCarry0},
    {"v_mad_u64_u32 v[4:5], s[2:3], v1, v2, v[10:11] clamp", 0xffffffff, 0xffffffff, ~uint64_t{0}, ~uint64_t{0},
     kWide | kCarry1},
    // The signed form's sdst bit is bit 64 of the 65-bit result: set for a negative one.
    {"v_mad_i64_i32 v[4:5], s[2:3], v1, v2, v[10:11]", 0xffffffff, 5, 3, 0xfffffffffffffffe, kWide | kCarry1},
    {"v_mad_i64_i32 v[4:5], s[2:3], v1, v2, v[10:11]", 2, 3, 4, 10, kWide | kCarry0},
    // Four SADs of src1 against src0's byte windows 0-3, each into a 16-bit lane of src2.
    {"v_qsad_pk_u16_u8 v[4:5], v[6:7], v2, v[10:11]", 0x0807060504030201, 0x04030201, 0x0004000300020001,
     0x0010000b00060001, kWide},
    {"v_mqsad_pk_u16_u8 v[4:5], v[6:7], v2, v[10:11]", 0x0807060504030201, 0x04030001, 0x0004000300020001,
     0x000d000900050001, kWide},
};

const std::array<TargetEncodings, 3> kTargets = Gfx9Targets(hipmem_testing::valu_int_encodings_gfx908,
                                                             hipmem_testing::valu_int_encodings_gfx90a,
                                                             hipmem_testing::valu_int_encodings_gfx942);


void RunCase(const TargetEncodings& t, const Case& k, std::span<const AsmEncoding> encodings) {
  SCOPED_TRACE(std::string(t.name) + ": " + k.line);
  IsaHarness h(t.target);
  Wave& w = h.wave();
  Broadcast(w, 1, static_cast<uint32_t>(k.a));
  Broadcast(w, 2, static_cast<uint32_t>(k.b));
  Broadcast(w, 3, static_cast<uint32_t>(k.c));
  Broadcast64(w, 6, k.a);
  Broadcast64(w, 8, k.b);
  Broadcast64(w, 10, k.c);
  Broadcast(w, 0, kOld);
  Broadcast64(w, 4, kOld64);
  const bool cin = (k.flags & kCin) != 0;
  w.set_vcc(cin ? kAll : 0);
  w.Write64(4, cin ? kAll : 0);
  w.Write64(2, 0x5555);
  w.set_exec(kExec);
  const absl::Status run = h.Run(encodings, {k.line});
  ASSERT_TRUE(run.ok()) << run;
  for (int l = 0; l < kWaveSize - 1; ++l) {
    if ((k.flags & kWide) != 0) {
      ASSERT_EQ(Lane64(w, 4, l), k.want) << "lane " << l;
    } else {
      ASSERT_EQ(w.vgpr(0)[l], static_cast<uint32_t>(k.want)) << "lane " << l;
    }
  }
  EXPECT_EQ(w.vgpr(0)[63], kOld) << "inactive lane written";
  EXPECT_EQ(Lane64(w, 4, 63), kOld64) << "inactive lane written";
  if ((k.flags & (kCarry0 | kCarry1)) != 0) {
    const bool sgpr = std::string_view(k.line).find("s[2:3]") != std::string_view::npos;
    EXPECT_EQ(sgpr ? w.Read64(2) : w.vcc(), (k.flags & kCarry1) != 0 ? kExec : 0);
  }
}

TEST(ValuIntTest, EveryOpcodeOnEveryTargetMatchesHandComputedResults) {
  for (const TargetEncodings& t : kTargets) {
    for (const Case& k : kCases) RunCase(t, k, t.encodings);
  }
}

TEST(ValuIntTest, Gfx942MovB64AndLshlAddU64) {
  constexpr Case kGfx942[] = {
      {"v_mov_b64_e32 v[4:5], v[6:7]", 0x0123456789abcdef, 0, 0, 0x0123456789abcdef, kWide},
      {"v_mov_b64_e32 v[4:5], -1", 0, 0, 0, ~uint64_t{0}, kWide},  // inline integers sign-extend
      // (src0 << src1[2:0]) + src2
      {"v_lshl_add_u64 v[4:5], v[6:7], v2, v[10:11]", 0x100000001, 3, 5, 0x80000000d, kWide},
      {"v_lshl_add_u64 v[4:5], v[6:7], v2, v[10:11]", 0x8000000000000001, 1, ~uint64_t{0}, 1, kWide},
  };
  for (const Case& k : kGfx942) RunCase(kTargets[2], k, hipmem_testing::valu_int_gfx942_encodings);
}

// Fills `reg` with lane * step + base in every lane.
void Iota(Wave& w, uint32_t reg, uint32_t base, uint32_t step) {
  for (int l = 0; l < kWaveSize; ++l) w.vgpr(reg)[l] = base + static_cast<uint32_t>(l) * step;
}

TEST(ValuIntTest, CarryAndSelectAreDecidedPerLane) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  Iota(w, 1, 0xffffffc0u, 1);  // + 32 carries from lane 32 up
  Broadcast(w, 2, 32);
  w.set_exec(kExec);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_encodings_gfx90a, {"v_add_co_u32_e32 v0, vcc, v1, v2"}).ok());
  const uint64_t want_carry = kExec & ~uint64_t{0xffffffff};
  for (int l = 0; l < 63; ++l) EXPECT_EQ(w.vgpr(0)[l], 0xffffffe0u + static_cast<uint32_t>(l));
  EXPECT_EQ(w.vcc(), want_carry);
  // The carry then selects per lane: alternate lanes.
  w.set_vcc(0xaaaaaaaaaaaaaaaaull);
  Iota(w, 1, 100, 1);
  Iota(w, 2, 200, 1);
  w.set_exec(kAll);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_encodings_gfx90a, {"v_cndmask_b32_e32 v0, v1, v2, vcc"}).ok());
  for (int l = 0; l < kWaveSize; ++l) EXPECT_EQ(w.vgpr(0)[l], static_cast<uint32_t>((l % 2 != 0 ? 200 : 100) + l));
}

TEST(ValuIntTest, ExecZeroWritesNothing) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  Broadcast(w, 0, kOld);
  Broadcast(w, 1, 5);
  w.set_exec(0);
  w.set_vcc(0x1234);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_encodings_gfx90a,
                    {"v_mov_b32_e32 v0, v1", "v_add_co_u32_e32 v0, vcc, v1, v2", "v_swap_b32 v0, v1"})
                  .ok());
  for (int l = 0; l < kWaveSize; ++l) {
    EXPECT_EQ(w.vgpr(0)[l], kOld);
    EXPECT_EQ(w.vgpr(1)[l], 5u);
  }
  EXPECT_EQ(w.vcc(), 0u);  // no active lane carries
}

TEST(ValuIntTest, LaneAccessIgnoresExec) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  Iota(w, 1, 1000, 3);
  Broadcast(w, 0, kOld);
  w.s[4] = 70;  // lane 70 mod 64 = 6
  w.s[5] = 0xabcd;
  w.s[124] = 33;  // M0
  w.set_exec(uint64_t{1} << 40);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_encodings_gfx90a,
                    {"v_readlane_b32 s10, v1, s4", "v_readlane_b32 s11, v1, m0", "v_readfirstlane_b32 s12, v1",
                     "v_writelane_b32 v0, s5, 5", "v_writelane_b32 v0, s5, m0"})
                  .ok());
  EXPECT_EQ(w.s[10], 1000u + 6 * 3);
  EXPECT_EQ(w.s[11], 1000u + 33 * 3);
  EXPECT_EQ(w.s[12], 1000u + 40 * 3);  // the first active lane
  for (int l = 0; l < kWaveSize; ++l) EXPECT_EQ(w.vgpr(0)[l], l == 5 || l == 33 ? 0xabcdu : kOld) << l;
  w.set_exec(0);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_encodings_gfx90a, {"v_readfirstlane_b32 s12, v1"}).ok());
  EXPECT_EQ(w.s[12], 1000u);  // no active lane: lane 0
}

TEST(ValuIntTest, MbcntCountsTheMaskBitsBelowEachLane) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  w.s[4] = 0xffffffffu;  // every lane of the low half
  w.s[5] = 0x0000000fu;  // lanes 32-35
  Broadcast(w, 0, kOld);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_encodings_gfx90a,
                    {"v_mbcnt_lo_u32_b32 v0, s4, 0", "v_mbcnt_hi_u32_b32 v0, s5, v0"})
                  .ok());
  for (int l = 0; l < kWaveSize; ++l) {
    const uint32_t want = l < 32 ? l : 32 + std::min(l - 32, 4);
    EXPECT_EQ(w.vgpr(0)[l], want) << "lane " << l;
  }
}

TEST(ValuIntTest, SwapExchangesActiveLanesOnly) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  Iota(w, 0, 0, 1);
  Iota(w, 1, 100, 1);
  w.set_exec(0x00000000ffffffffull);
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_encodings_gfx90a, {"v_swap_b32 v0, v1"}).ok());
  for (int l = 0; l < kWaveSize; ++l) {
    EXPECT_EQ(w.vgpr(0)[l], static_cast<uint32_t>(l < 32 ? 100 + l : l));
    EXPECT_EQ(w.vgpr(1)[l], static_cast<uint32_t>(l < 32 ? l : 100 + l));
  }
}

TEST(ValuIntTest, AccvgprMovCopiesBetweenAgprs) {
  for (const TargetEncodings& t : {kTargets[1], kTargets[2]}) {
    SCOPED_TRACE(t.name);
    IsaHarness h(t.target);
    Wave& w = h.wave();
    for (int l = 0; l < kWaveSize; ++l) {
      w.agpr(2)[l] = 7u * l;
      w.agpr(1)[l] = kOld;
    }
    w.set_exec(kExec);
    ASSERT_TRUE(h.Run(hipmem_testing::valu_int_gfx942_encodings, {"v_accvgpr_mov_b32 a1, a2"}).ok());
    for (int l = 0; l < kWaveSize; ++l) EXPECT_EQ(w.agpr(1)[l], l == 63 ? kOld : 7u * l);
  }
}

TEST(ValuIntTest, AgprMovesAreCheckedAgainstTheAgprFile) {
  // A kernel with 8 VGPRs and 16 AGPRs may name a12 where it may not name v12.
  const auto words = [](std::span<const AsmEncoding> table, const char* line) {
    std::vector<uint32_t> out;
    for (const AsmEncoding& e : table) {
      if (std::string_view(e.text) != line) continue;
      for (size_t k = 0; k < e.bytes.size(); k += 4) {
        out.push_back(e.bytes[k] | (e.bytes[k + 1] << 8) | (e.bytes[k + 2] << 16) | (uint32_t{e.bytes[k + 3]} << 24));
      }
    }
    return out;
  };
  const RegisterLimits limits{8, 16};
  for (const char* line : {"v_accvgpr_mov_b32 a12, a13", "v_accvgpr_read_b32 v1, a13", "v_accvgpr_write_b32 a13, v1"}) {
    SCOPED_TRACE(line);
    const std::vector<uint32_t> w = words(hipmem_testing::valu_int_gfx942_encodings, line);
    ASSERT_FALSE(w.empty());
    EXPECT_TRUE(Decode(w.data(), static_cast<uint32_t>(w.size()), Target::kGfx90a, limits).ok());
  }
  const std::vector<uint32_t> w = words(hipmem_testing::valu_int_gfx942_encodings, "v_accvgpr_mov_b32 a12, a17");
  EXPECT_EQ(Decode(w.data(), static_cast<uint32_t>(w.size()), Target::kGfx90a, limits).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ValuIntTest, MqsadU32AccumulatesFourDwords) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  Broadcast64(w, 6, 0x0807060504030201ull);
  Broadcast(w, 2, 0x04030001);  // byte 1 is 0: masked out
  for (uint32_t k = 0; k < 4; ++k) Broadcast(w, 16 + k, 10 * (k + 1));
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_encodings_gfx90a, {"v_mqsad_u32_u8 v[12:15], v[6:7], v2, v[16:19]"}).ok());
  // Masked SADs of the windows starting at bytes 0-3: 0, 3, 6, 9.
  const uint32_t want[] = {10, 23, 36, 49};
  for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(w.vgpr(12 + k)[17], want[k]) << k;
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
