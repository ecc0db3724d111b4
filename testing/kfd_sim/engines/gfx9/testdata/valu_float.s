// VALU floating-point instructions for valu_float_test.cc (one per line; encoded by llvm-mc-19 at build time).
v_add_f32_e32 v0, v1, v2
v_add_f32_e32 v0, 0.5, v2
v_add_f32_e32 v0, 0x40400000, v2
v_add_f32_e64 v0, -v1, |v2|
v_add_f32_e64 v0, v1, v2 clamp
v_add_f32_e64 v0, v1, v2 mul:2
v_add_f32_e64 v0, v1, v2 mul:4
v_add_f32_e64 v0, v1, v2 div:2
v_mul_f32_e32 v0, v1, v2
v_sub_f32_e32 v0, v1, v2
v_subrev_f32_e32 v0, v1, v2
v_mul_legacy_f32_e64 v0, v1, v2
v_fma_f32 v0, v1, v2, v3
v_fma_f32 v0, v1, v2, -v3
v_min_f32_e32 v0, v1, v2
v_max_f32_e32 v0, v1, v2
v_min3_f32 v0, v1, v2, v3
v_max3_f32 v0, v1, v2, v3
v_med3_f32 v0, v1, v2, v3
v_fract_f32_e32 v0, v1
v_trunc_f32_e32 v0, v1
v_ceil_f32_e32 v0, v1
v_floor_f32_e32 v0, v1
v_rndne_f32_e32 v0, v1
v_frexp_mant_f32_e32 v0, v1
v_frexp_exp_i32_f32_e32 v0, v1
v_ldexp_f32 v0, v1, v2
v_exp_f32_e32 v0, v1
v_log_f32_e32 v0, v1
v_rcp_f32_e32 v0, v1
v_rcp_iflag_f32_e32 v0, v1
v_rsq_f32_e32 v0, v1
v_sqrt_f32_e32 v0, v1
v_sin_f32_e32 v0, v1
v_cos_f32_e32 v0, v1
v_div_fixup_f32 v0, v1, v2, v3
v_div_fmas_f32 v0, v1, v2, v3
v_div_scale_f32 v0, vcc, v1, v2, v3
v_div_scale_f32 v0, vcc, v1, v2, v1
v_fmac_f32_e32 v0, v1, v2
v_mac_f32_e32 v0, v1, v2
v_fmac_f64_e32 v[0:1], v[2:3], v[4:5]
v_mad_f32 v0, v1, v2, v3
v_mad_legacy_f32 v0, v1, v2, v3
v_madmk_f32 v0, v1, 0x41000000, v2
v_madak_f32 v0, v1, v2, 0x41000000
v_add_f32_dpp v0, v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
v_cvt_f32_f16_sdwa v3, v4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
v_cmp_eq_f32_e32 vcc, v1, v2
v_add_f64 v[0:1], v[2:3], v[4:5]
v_add_f64 v[0:1], v[2:3], -v[4:5]
v_mul_f64 v[0:1], v[2:3], v[4:5]
v_mul_f64 v[0:1], v[2:3], v[4:5] clamp
v_min_f64 v[0:1], v[2:3], v[4:5]
v_max_f64 v[0:1], v[2:3], v[4:5]
v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]
v_ldexp_f64 v[0:1], v[2:3], v4
v_trig_preop_f64 v[0:1], v[2:3], v4
v_fract_f64_e32 v[0:1], v[2:3]
v_trunc_f64_e32 v[0:1], v[2:3]
v_ceil_f64_e32 v[0:1], v[2:3]
v_rndne_f64_e32 v[0:1], v[2:3]
v_floor_f64_e32 v[0:1], v[2:3]
v_rcp_f64_e32 v[0:1], v[2:3]
v_rsq_f64_e32 v[0:1], v[2:3]
v_sqrt_f64_e32 v[0:1], v[2:3]
v_frexp_mant_f64_e32 v[0:1], v[2:3]
v_div_fixup_f64 v[0:1], v[2:3], v[4:5], v[6:7]
v_div_fmas_f64 v[0:1], v[2:3], v[4:5], v[6:7]
v_frexp_exp_i32_f64_e32 v0, v[2:3]
v_cvt_i32_f64_e32 v0, v[2:3]
v_cvt_u32_f64_e32 v0, v[2:3]
v_cvt_f32_f64_e32 v0, v[2:3]
v_div_scale_f64 v[0:1], s[4:5], v[2:3], v[4:5], v[2:3]
v_cvt_f32_i32_e32 v0, v1
v_cvt_f32_u32_e32 v0, v1
v_cvt_u32_f32_e32 v0, v1
v_cvt_i32_f32_e32 v0, v1
v_cvt_rpi_i32_f32_e32 v0, v1
v_cvt_flr_i32_f32_e32 v0, v1
v_cvt_off_f32_i4_e32 v0, v1
v_cvt_f32_ubyte0_e32 v0, v1
v_cvt_f32_ubyte1_e32 v0, v1
v_cvt_f32_ubyte2_e32 v0, v1
v_cvt_f32_ubyte3_e32 v0, v1
v_cvt_f16_f32_e32 v0, v1
v_cvt_f32_f16_e32 v0, v1
v_cvt_f16_u16_e32 v0, v1
v_cvt_f16_i16_e32 v0, v1
v_cvt_u16_f16_e32 v0, v1
v_cvt_i16_f16_e32 v0, v1
v_cvt_norm_i16_f16_e32 v0, v1
v_cvt_norm_u16_f16_e32 v0, v1
v_cvt_pkrtz_f16_f32 v0, v1, v2
v_cvt_pknorm_i16_f32 v0, v1, v2
v_cvt_pknorm_u16_f32 v0, v1, v2
v_cvt_pknorm_i16_f16 v0, v1, v2
v_cvt_pknorm_u16_f16 v0, v1, v2
v_cvt_pk_u16_u32 v0, v1, v2
v_cvt_pk_i16_i32 v0, v1, v2
v_cvt_pk_u8_f32 v0, v1, v2, v3
v_cvt_f64_i32_e32 v[0:1], v2
v_cvt_f64_u32_e32 v[0:1], v2
v_cvt_f64_f32_e32 v[0:1], v2
v_add_f16_e32 v0, v1, v2
v_add_f16_e64 v0, v1, v2 clamp
v_sub_f16_e32 v0, v1, v2
v_subrev_f16_e32 v0, v1, v2
v_mul_f16_e32 v0, v1, v2
v_mul_f16_e64 v0, -v1, |v2|
v_max_f16_e32 v0, v1, v2
v_min_f16_e32 v0, v1, v2
v_ldexp_f16_e32 v0, v1, v2
v_rcp_f16_e32 v0, v1
v_sqrt_f16_e32 v0, v1
v_rsq_f16_e32 v0, v1
v_log_f16_e32 v0, v1
v_exp_f16_e32 v0, v1
v_frexp_mant_f16_e32 v0, v1
v_frexp_exp_i16_f16_e32 v0, v1
v_floor_f16_e32 v0, v1
v_ceil_f16_e32 v0, v1
v_trunc_f16_e32 v0, v1
v_rndne_f16_e32 v0, v1
v_fract_f16_e32 v0, v1
v_sin_f16_e32 v0, v1
v_cos_f16_e32 v0, v1
v_fma_f16 v0, v1, v2, v3
v_fma_f16 v0, v1, v2, v3 op_sel:[1,0,1,1]
v_mad_f16 v0, v1, v2, v3
v_mad_legacy_f16 v0, v1, v2, v3
v_fma_legacy_f16 v0, v1, v2, v3
v_min3_f16 v0, v1, v2, v3
v_max3_f16 v0, v1, v2, v3
v_med3_f16 v0, v1, v2, v3
v_div_fixup_f16 v0, v1, v2, v3
v_div_fixup_legacy_f16 v0, v1, v2, v3
v_pack_b32_f16 v0, v1, v2
v_pack_b32_f16 v0, -v1, v2 op_sel:[1,0]
v_mac_f16_e32 v0, v1, v2
v_madmk_f16 v0, v1, 0x4400, v2
v_madak_f16 v5, v1, v2, 0x4400
v_dot2c_f32_f16_e32 v0, v1, v2
v_dot2c_i32_i16_e32 v0, v1, v2
v_dot4c_i32_i8_e32 v0, v1, v2
v_dot8c_i32_i4_e32 v0, v1, v2
v_cmp_lt_f32_e64 s[8:9], v1, v2
v_cmpx_lt_f32_e64 s[8:9], v1, v2
v_cmp_lt_f32_e64 s[8:9], -v1, -v2
v_cmp_class_f32_e32 vcc, v1, v2
v_cmpx_class_f32_e32 vcc, v1, v2
v_cmp_class_f16_e32 vcc, v1, v2
v_cmpx_class_f16_e32 vcc, v1, v2
v_cmp_class_f64_e32 vcc, v[2:3], v4
v_cmpx_class_f64_e32 vcc, v[2:3], v4
v_mul_legacy_f32 v0, v1, v2
v_cmp_f_f16_e32 vcc, v1, v2
v_cmpx_f_f16_e32 vcc, v1, v2
v_cmp_f_f32_e32 vcc, v1, v2
v_cmpx_f_f32_e32 vcc, v1, v2
v_cmp_f_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_f_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_lt_f16_e32 vcc, v1, v2
v_cmpx_lt_f16_e32 vcc, v1, v2
v_cmp_lt_f32_e32 vcc, v1, v2
v_cmpx_lt_f32_e32 vcc, v1, v2
v_cmp_lt_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_lt_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_eq_f16_e32 vcc, v1, v2
v_cmpx_eq_f16_e32 vcc, v1, v2
v_cmpx_eq_f32_e32 vcc, v1, v2
v_cmp_eq_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_eq_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_le_f16_e32 vcc, v1, v2
v_cmpx_le_f16_e32 vcc, v1, v2
v_cmp_le_f32_e32 vcc, v1, v2
v_cmpx_le_f32_e32 vcc, v1, v2
v_cmp_le_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_le_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_gt_f16_e32 vcc, v1, v2
v_cmpx_gt_f16_e32 vcc, v1, v2
v_cmp_gt_f32_e32 vcc, v1, v2
v_cmpx_gt_f32_e32 vcc, v1, v2
v_cmp_gt_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_gt_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_lg_f16_e32 vcc, v1, v2
v_cmpx_lg_f16_e32 vcc, v1, v2
v_cmp_lg_f32_e32 vcc, v1, v2
v_cmpx_lg_f32_e32 vcc, v1, v2
v_cmp_lg_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_lg_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_ge_f16_e32 vcc, v1, v2
v_cmpx_ge_f16_e32 vcc, v1, v2
v_cmp_ge_f32_e32 vcc, v1, v2
v_cmpx_ge_f32_e32 vcc, v1, v2
v_cmp_ge_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_ge_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_o_f16_e32 vcc, v1, v2
v_cmpx_o_f16_e32 vcc, v1, v2
v_cmp_o_f32_e32 vcc, v1, v2
v_cmpx_o_f32_e32 vcc, v1, v2
v_cmp_o_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_o_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_u_f16_e32 vcc, v1, v2
v_cmpx_u_f16_e32 vcc, v1, v2
v_cmp_u_f32_e32 vcc, v1, v2
v_cmpx_u_f32_e32 vcc, v1, v2
v_cmp_u_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_u_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_nge_f16_e32 vcc, v1, v2
v_cmpx_nge_f16_e32 vcc, v1, v2
v_cmp_nge_f32_e32 vcc, v1, v2
v_cmpx_nge_f32_e32 vcc, v1, v2
v_cmp_nge_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_nge_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_nlg_f16_e32 vcc, v1, v2
v_cmpx_nlg_f16_e32 vcc, v1, v2
v_cmp_nlg_f32_e32 vcc, v1, v2
v_cmpx_nlg_f32_e32 vcc, v1, v2
v_cmp_nlg_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_nlg_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_ngt_f16_e32 vcc, v1, v2
v_cmpx_ngt_f16_e32 vcc, v1, v2
v_cmp_ngt_f32_e32 vcc, v1, v2
v_cmpx_ngt_f32_e32 vcc, v1, v2
v_cmp_ngt_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_ngt_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_nle_f16_e32 vcc, v1, v2
v_cmpx_nle_f16_e32 vcc, v1, v2
v_cmp_nle_f32_e32 vcc, v1, v2
v_cmpx_nle_f32_e32 vcc, v1, v2
v_cmp_nle_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_nle_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_neq_f16_e32 vcc, v1, v2
v_cmpx_neq_f16_e32 vcc, v1, v2
v_cmp_neq_f32_e32 vcc, v1, v2
v_cmpx_neq_f32_e32 vcc, v1, v2
v_cmp_neq_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_neq_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_nlt_f16_e32 vcc, v1, v2
v_cmpx_nlt_f16_e32 vcc, v1, v2
v_cmp_nlt_f32_e32 vcc, v1, v2
v_cmpx_nlt_f32_e32 vcc, v1, v2
v_cmp_nlt_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_nlt_f64_e32 vcc, v[2:3], v[4:5]
v_cmp_tru_f16_e32 vcc, v1, v2
v_cmpx_tru_f16_e32 vcc, v1, v2
v_cmp_tru_f32_e32 vcc, v1, v2
v_cmpx_tru_f32_e32 vcc, v1, v2
v_cmp_tru_f64_e32 vcc, v[2:3], v[4:5]
v_cmpx_tru_f64_e32 vcc, v[2:3], v[4:5]
