// DPP lane permutations and SDWA sub-dword selections for dpp_sdwa_test.cc (encoded by llvm-mc-19 for gfx908, gfx90a
// and gfx942 at build time). gfx90a's row_newbcast is in valu_int_gfx942.s.
v_mov_b32_dpp v0, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 quad_perm:[1,1,0,2] row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] row_mask:0x5 bank_mask:0x3
v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
v_mov_b32_dpp v0, v1 row_shl:15 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_shr:3 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:0
v_mov_b32_dpp v0, v1 row_ror:5 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 wave_shl:1 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 wave_rol:1 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 wave_shr:1 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 wave_ror:1 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_mirror row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_half_mirror row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_bcast:15 row_mask:0xa bank_mask:0xf
v_mov_b32_dpp v0, v1 row_bcast:31 row_mask:0xc bank_mask:0xf
v_add_u32_dpp v0, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
v_mov_b32_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1
v_mov_b32_sdwa v0, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1
v_mov_b32_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
v_mov_b32_sdwa v0, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
v_mov_b32_sdwa v0, v1 dst_sel:BYTE_2 dst_unused:UNUSED_PAD src0_sel:DWORD
v_mov_b32_sdwa v0, v1 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:DWORD
v_mov_b32_sdwa v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD
v_mov_b32_sdwa v0, v1 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:DWORD
v_mov_b32_sdwa v0, v1 dst_sel:BYTE_3 dst_unused:UNUSED_SEXT src0_sel:DWORD
v_mov_b32_sdwa v0, s4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3
v_add_u32_sdwa v0, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1
v_sub_u32_sdwa v0, sext(v1), v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_add_u32_sdwa v0, v1, v2 clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD
v_add_u16_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0
v_not_b32_sdwa v0, v1 dst_sel:BYTE_0 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1
v_cndmask_b32_sdwa v0, v1, v2, vcc dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:BYTE_1
v_cmp_eq_u32_sdwa s[2:3], v1, v2 src0_sel:BYTE_1 src1_sel:WORD_0
v_cmp_lt_i32_sdwa vcc, sext(v1), v2 src0_sel:BYTE_0 src1_sel:DWORD
v_cmp_lt_i32_sdwa vcc, v1, v2 src0_sel:BYTE_0 src1_sel:DWORD
v_add_co_u32_sdwa v0, vcc, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
