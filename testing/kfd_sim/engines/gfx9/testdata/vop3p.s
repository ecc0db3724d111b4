// Packed math (VOP3P) for vop3p_test.cc (one per line; encoded by llvm-mc-19 at build time).
v_pk_add_f16 v0, v1, v2
v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]
v_pk_add_f16 v0, v1, v2 neg_lo:[1,0] neg_hi:[0,1]
v_pk_add_f16 v0, v1, v2 clamp
v_pk_mul_f16 v0, v1, v2
v_pk_fma_f16 v0, v1, v2, v3
v_pk_min_f16 v0, v1, v2
v_pk_max_f16 v0, v1, v2
v_pk_add_f16 v0, v1, 1.0
v_pk_add_u16 v0, v1, v2
v_pk_add_u16 v0, v1, v2 clamp
v_pk_sub_u16 v0, v1, v2 clamp
v_pk_add_i16 v0, v1, v2 clamp
v_pk_sub_i16 v0, v1, v2
v_pk_mul_lo_u16 v0, v1, v2
v_pk_mad_u16 v0, v1, v2, v3
v_pk_mad_i16 v0, v1, v2, v3
v_pk_lshlrev_b16 v0, v1, v2
v_pk_lshrrev_b16 v0, v1, v2
v_pk_ashrrev_i16 v0, v1, v2
v_pk_max_i16 v0, v1, v2
v_pk_min_i16 v0, v1, v2
v_pk_max_u16 v0, v1, v2
v_pk_min_u16 v0, v1, v2
v_fma_mix_f32 v0, v1, v2, v3 op_sel_hi:[1,1,0]
v_fma_mix_f32 v0, v1, v2, v3 op_sel:[0,1,0] op_sel_hi:[1,1,0]
v_fma_mix_f32 v0, v1, v2, v3
v_fma_mixlo_f16 v0, v1, v2, v3 op_sel_hi:[1,1,0]
v_fma_mixhi_f16 v0, v1, v2, v3 op_sel_hi:[1,1,0]
v_dot2_f32_f16 v0, v1, v2, v3
v_dot2_i32_i16 v0, v1, v2, v3
v_dot2_u32_u16 v0, v1, v2, v3
v_dot4_i32_i8 v0, v1, v2, v3
v_dot4_u32_u8 v0, v1, v2, v3
v_dot8_i32_i4 v0, v1, v2, v3
v_dot8_u32_u4 v0, v1, v2, v3
v_dot2_i32_i16 v0, v1, v2, v3 clamp
v_pk_add_f32 v[0:1], v[2:3], v[4:5]
v_pk_mul_f32 v[0:1], v[2:3], v[4:5]
v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]
v_pk_add_f32 v[0:1], v[2:3], v[4:5] op_sel:[1,0] op_sel_hi:[0,1]
v_pk_mul_f32 v[0:1], v[2:3], v[4:5] neg_lo:[1,0] neg_hi:[0,1]
v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[1,0]
v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[0,1]
v_accvgpr_write_b32 a5, v1
v_accvgpr_read_b32 v6, a5
v_accvgpr_write_b32 a7, 17
