// VALU integer, bitwise, move and lane instructions for valu_int_test.cc (one per line; encoded by llvm-mc-19 for
// gfx908, gfx90a and gfx942 at build time).
v_cndmask_b32_e32 v0, v1, v2, vcc
v_cndmask_b32_e64 v0, v1, v2, s[4:5]
v_cndmask_b32_e64 v0, |v1|, -v2, s[4:5]
v_mul_i32_i24_e32 v0, v1, v2
v_mul_i32_i24_e64 v0, v1, v2 clamp
v_mul_hi_i32_i24_e32 v0, v1, v2
v_mul_u32_u24_e32 v0, v1, v2
v_mul_u32_u24_e64 v0, v1, v2 clamp
v_mul_hi_u32_u24_e32 v0, v1, v2
v_min_i32_e32 v0, v1, v2
v_max_i32_e32 v0, v1, v2
v_min_u32_e32 v0, v1, v2
v_max_u32_e32 v0, v1, v2
v_min_u32_e64 v0, v1, v2
v_lshrrev_b32_e32 v0, v1, v2
v_ashrrev_i32_e32 v0, v1, v2
v_lshlrev_b32_e32 v0, v1, v2
v_and_b32_e32 v0, v1, v2
v_or_b32_e32 v0, v1, v2
v_xor_b32_e32 v0, v1, v2
v_xnor_b32_e32 v0, v1, v2
v_add_co_u32_e32 v0, vcc, v1, v2
v_add_co_u32_e64 v0, s[2:3], v1, v2 clamp
v_sub_co_u32_e32 v0, vcc, v1, v2
v_sub_co_u32_e64 v0, s[2:3], v1, v2 clamp
v_subrev_co_u32_e32 v0, vcc, v1, v2
v_addc_co_u32_e32 v0, vcc, v1, v2, vcc
v_addc_co_u32_e64 v0, s[2:3], v1, v2, s[4:5]
v_subb_co_u32_e32 v0, vcc, v1, v2, vcc
v_subbrev_co_u32_e32 v0, vcc, v1, v2, vcc
v_add_u32_e32 v0, v1, v2
v_add_u32_e64 v0, v1, v2 clamp
v_sub_u32_e32 v0, v1, v2
v_sub_u32_e64 v0, v1, v2 clamp
v_subrev_u32_e32 v0, v1, v2
v_subrev_u32_e64 v0, v1, v2 clamp
v_add_i32 v0, v1, v2
v_add_i32 v0, v1, v2 clamp
v_sub_i32 v0, v1, v2
v_sub_i32 v0, v1, v2 clamp
v_add_u16_e32 v0, v1, v2
v_add_u16_e64 v0, v1, v2 clamp
v_sub_u16_e32 v0, v1, v2
v_sub_u16_e64 v0, v1, v2 clamp
v_subrev_u16_e32 v0, v1, v2
v_mul_lo_u16_e32 v0, v1, v2
v_lshlrev_b16_e32 v0, v1, v2
v_lshrrev_b16_e32 v0, v1, v2
v_ashrrev_i16_e32 v0, v1, v2
v_max_u16_e32 v0, v1, v2
v_max_i16_e32 v0, v1, v2
v_min_u16_e32 v0, v1, v2
v_min_i16_e32 v0, v1, v2
v_add_u16_e64 v0, v1, v2
v_add_i16 v0, v1, v2
v_add_i16 v0, v1, v2 clamp
v_add_i16 v0, v1, v2 op_sel:[1,1,1]
v_sub_i16 v0, v1, v2 clamp
v_mad_u16 v0, v1, v2, v3
v_mad_u16 v0, v1, v2, v3 clamp
v_mad_u16 v0, v1, v2, v3 op_sel:[0,0,0,1]
v_mad_i16 v0, v1, v2, v3
v_min3_i16 v0, v1, v2, v3
v_min3_u16 v0, v1, v2, v3
v_max3_i16 v0, v1, v2, v3
v_max3_i16 v0, v1, v2, v3 op_sel:[1,0,0,1]
v_max3_u16 v0, v1, v2, v3
v_med3_i16 v0, v1, v2, v3
v_med3_u16 v0, v1, v2, v3
v_mad_legacy_u16 v0, v1, v2, v3
v_mad_legacy_u16 v0, v1, v2, v3 clamp
v_mad_legacy_i16 v0, v1, v2, v3
v_mad_u32_u16 v0, v1, v2, v3
v_mad_u32_u16 v0, v1, v2, v3 op_sel:[1,1,0,0]
v_mad_i32_i16 v0, v1, v2, v3
v_dot2c_i32_i16_e32 v0, v1, v2
v_dot4c_i32_i8_e32 v0, v1, v2
v_dot8c_i32_i4_e32 v0, v1, v2
v_mov_b32_e32 v0, v1
v_mov_b32_e32 v0, -4.0
v_mov_b32_e32 v0, -16
v_mov_b32_e32 v0, 0x12345678
v_not_b32_e32 v0, v1
v_not_b32_e64 v0, v1
v_bfrev_b32_e32 v0, v1
v_bfrev_b32_e64 v0, v1
v_ffbh_u32_e32 v0, v1
v_ffbl_b32_e32 v0, v1
v_ffbh_i32_e32 v0, v1
v_sat_pk_u8_i16_e32 v0, v1
v_mad_i32_i24 v0, v1, v2, v3
v_mad_u32_u24 v0, v1, v2, v3
v_mad_u32_u24 v0, v1, v2, v3 clamp
v_bfe_u32 v0, v1, v2, v3
v_bfe_i32 v0, v1, v2, v3
v_bfi_b32 v0, v1, v2, v3
v_bfm_b32 v0, v1, v2
v_lerp_u8 v0, v1, v2, v3
v_alignbit_b32 v0, v1, v2, v3
v_alignbyte_b32 v0, v1, v2, v3
v_min3_i32 v0, v1, v2, v3
v_max3_i32 v0, v1, v2, v3
v_med3_i32 v0, v1, v2, v3
v_min3_u32 v0, v1, v2, v3
v_max3_u32 v0, v1, v2, v3
v_med3_u32 v0, v1, v2, v3
v_sad_u8 v0, v1, v2, v3
v_sad_hi_u8 v0, v1, v2, v3
v_msad_u8 v0, v1, v2, v3
v_sad_u16 v0, v1, v2, v3
v_sad_u32 v0, v1, v2, v3
v_sad_u32 v0, v1, v2, v3 clamp
v_perm_b32 v0, v1, v2, v3
v_xad_u32 v0, v1, v2, v3
v_lshl_add_u32 v0, v1, v2, v3
v_add_lshl_u32 v0, v1, v2, v3
v_add3_u32 v0, v1, v2, v3
v_lshl_or_b32 v0, v1, v2, v3
v_and_or_b32 v0, v1, v2, v3
v_or3_b32 v0, v1, v2, v3
v_mul_lo_u32 v0, v1, v2
v_mul_hi_u32 v0, v1, v2
v_mul_hi_i32 v0, v1, v2
v_bcnt_u32_b32 v0, v1, v2
v_cvt_pk_u16_u32 v0, v1, v2
v_cvt_pk_i16_i32 v0, v1, v2
v_pack_b32_f16 v0, v1, v2
v_pack_b32_f16 v0, -v1, |v2| op_sel:[1,0,0]
v_lshlrev_b64 v[4:5], v1, v[8:9]
v_lshrrev_b64 v[4:5], v1, v[8:9]
v_ashrrev_i64 v[4:5], v1, v[8:9]
v_mad_u64_u32 v[4:5], s[2:3], v1, v2, v[10:11]
v_mad_u64_u32 v[4:5], s[2:3], v1, v2, v[10:11] clamp
v_mad_i64_i32 v[4:5], s[2:3], v1, v2, v[10:11]
v_qsad_pk_u16_u8 v[4:5], v[6:7], v2, v[10:11]
v_mqsad_pk_u16_u8 v[4:5], v[6:7], v2, v[10:11]
v_readlane_b32 s10, v1, s4
v_readlane_b32 s11, v1, m0
v_readfirstlane_b32 s12, v1
v_writelane_b32 v0, s5, 5
v_writelane_b32 v0, s5, m0
v_mbcnt_lo_u32_b32 v0, s4, 0
v_mbcnt_hi_u32_b32 v0, s5, v0
v_swap_b32 v0, v1
v_mqsad_u32_u8 v[12:15], v[6:7], v2, v[16:19]
