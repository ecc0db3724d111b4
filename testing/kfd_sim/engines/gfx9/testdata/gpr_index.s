// VGPR indexing mode (s_set_gpr_idx_*) and the VALU operands it offsets; assembled for gfx90a (gpr_index_test.cc).
s_set_gpr_idx_on s2, gpr_idx(SRC0)
s_set_gpr_idx_on s2, gpr_idx(SRC1)
s_set_gpr_idx_on s2, gpr_idx(SRC2)
s_set_gpr_idx_on s2, gpr_idx(DST)
s_set_gpr_idx_on s2, gpr_idx(SRC0,DST)
s_set_gpr_idx_on s2, gpr_idx(SRC0,SRC1,DST)
s_set_gpr_idx_on s2, gpr_idx(SRC0,SRC1,SRC2,DST)
s_set_gpr_idx_on 5, gpr_idx(SRC0)
s_set_gpr_idx_off
s_set_gpr_idx_mode gpr_idx(DST)
s_set_gpr_idx_mode gpr_idx(SRC0)
s_set_gpr_idx_idx s3
s_getreg_b32 s6, hwreg(HW_REG_MODE)
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 27, 1), 1
v_mov_b32_e32 v1, v2
v_mov_b32_e32 v1, v1
v_mov_b32_e32 v1, s5
v_add_u32_e32 v1, v2, v3
v_add_u32_e64 v1, v2, v3
v_add3_u32 v1, v2, v3, v4
v_mac_f32_e32 v1, v2, v3
v_madmk_f32 v1, v2, 0x40000000, v3
v_madak_f32 v1, v2, v3, 0x40000000
v_lshlrev_b64 v[6:7], 1, v[2:3]
v_readfirstlane_b32 s1, v2
v_writelane_b32 v1, s5, 3
v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0
ds_write_b32 v2, v3
