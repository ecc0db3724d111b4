// Scalar ALU and control instructions for sop_test.cc (one per line, in the test's order; encoded by llvm-mc-19 at
// build time for gfx908, gfx90a and gfx942).
s_add_u32 s0, s2, s4
s_sub_u32 s0, s2, s4
s_add_i32 s0, s2, s4
s_sub_i32 s0, s2, s4
s_addc_u32 s0, s2, s4
s_subb_u32 s0, s2, s4
s_min_i32 s0, s2, s4
s_min_u32 s0, s2, s4
s_max_i32 s0, s2, s4
s_max_u32 s0, s2, s4
s_mul_i32 s0, s2, s4
s_mul_hi_u32 s0, s2, s4
s_mul_hi_i32 s0, s2, s4
s_absdiff_i32 s0, s2, s4
s_lshl1_add_u32 s0, s2, s4
s_lshl2_add_u32 s0, s2, s4
s_lshl3_add_u32 s0, s2, s4
s_lshl4_add_u32 s0, s2, s4
s_add_u32 s0, s2, 0x12345678
s_cselect_b32 s0, s2, s4
s_cselect_b64 s[0:1], s[2:3], s[4:5]
s_and_b32 s0, s2, s4
s_or_b32 s0, s2, s4
s_xor_b32 s0, s2, s4
s_andn2_b32 s0, s2, s4
s_orn2_b32 s0, s2, s4
s_nand_b32 s0, s2, s4
s_nor_b32 s0, s2, s4
s_xnor_b32 s0, s2, s4
s_and_b64 s[0:1], s[2:3], s[4:5]
s_or_b64 s[0:1], s[2:3], s[4:5]
s_xor_b64 s[0:1], s[2:3], s[4:5]
s_andn2_b64 s[0:1], s[2:3], s[4:5]
s_orn2_b64 s[0:1], s[2:3], s[4:5]
s_nand_b64 s[0:1], s[2:3], s[4:5]
s_nor_b64 s[0:1], s[2:3], s[4:5]
s_xnor_b64 s[0:1], s[2:3], s[4:5]
s_and_b64 s[0:1], s[2:3], -1
s_mov_b64 s[0:1], 0xffffffff
s_mov_b64 s[0:1], 1.0
s_mov_b32 s0, 1.0
s_lshl_b32 s0, s2, s4
s_lshr_b32 s0, s2, s4
s_ashr_i32 s0, s2, s4
s_lshl_b64 s[0:1], s[2:3], s4
s_lshr_b64 s[0:1], s[2:3], s4
s_ashr_i64 s[0:1], s[2:3], s4
s_bfm_b32 s0, s2, s4
s_bfm_b64 s[0:1], s2, s4
s_bfe_u32 s0, s2, s4
s_bfe_i32 s0, s2, s4
s_bfe_u64 s[0:1], s[2:3], s4
s_bfe_i64 s[0:1], s[2:3], s4
s_pack_ll_b32_b16 s0, s2, s4
s_pack_lh_b32_b16 s0, s2, s4
s_pack_hh_b32_b16 s0, s2, s4
s_movk_i32 s0, 0x8000
s_movk_i32 s0, 0x7fff
s_cmovk_i32 s0, 0x8000
s_addk_i32 s0, 0x8000
s_addk_i32 s0, 0x1
s_mulk_i32 s0, 0xfffe
s_cmpk_eq_i32 s2, 0xfffe
s_cmpk_lg_i32 s2, 0xfffe
s_cmpk_gt_i32 s2, 0xfffe
s_cmpk_ge_i32 s2, 0xfffe
s_cmpk_lt_i32 s2, 0xfffe
s_cmpk_le_i32 s2, 0xfffe
s_cmpk_eq_u32 s2, 0xfffe
s_cmpk_lg_u32 s2, 0xfffe
s_cmpk_gt_u32 s2, 0xfffe
s_cmpk_ge_u32 s2, 0xfffe
s_cmpk_lt_u32 s2, 0xfffe
s_cmpk_le_u32 s2, 0xfffe
s_mov_b32 s0, s2
s_mov_b64 s[0:1], s[2:3]
s_cmov_b32 s0, s2
s_cmov_b64 s[0:1], s[2:3]
s_not_b32 s0, s2
s_not_b64 s[0:1], s[2:3]
s_wqm_b32 s0, s2
s_wqm_b64 s[0:1], s[2:3]
s_quadmask_b32 s0, s2
s_quadmask_b64 s[0:1], s[2:3]
s_brev_b32 s0, s2
s_brev_b64 s[0:1], s[2:3]
s_bcnt0_i32_b32 s0, s2
s_bcnt0_i32_b64 s0, s[2:3]
s_bcnt1_i32_b32 s0, s2
s_bcnt1_i32_b64 s0, s[2:3]
s_ff0_i32_b32 s0, s2
s_ff0_i32_b64 s0, s[2:3]
s_ff1_i32_b32 s0, s2
s_ff1_i32_b64 s0, s[2:3]
s_flbit_i32_b32 s0, s2
s_flbit_i32_b64 s0, s[2:3]
s_flbit_i32 s0, s2
s_flbit_i32_i64 s0, s[2:3]
s_sext_i32_i8 s0, s2
s_sext_i32_i16 s0, s2
s_abs_i32 s0, s2
s_bitreplicate_b64_b32 s[0:1], s2
s_bitset0_b32 s0, s2
s_bitset1_b32 s0, s2
s_bitset0_b64 s[0:1], s2
s_bitset1_b64 s[0:1], s2
s_cmp_eq_i32 s2, s4
s_cmp_lg_i32 s2, s4
s_cmp_gt_i32 s2, s4
s_cmp_ge_i32 s2, s4
s_cmp_lt_i32 s2, s4
s_cmp_le_i32 s2, s4
s_cmp_eq_u32 s2, s4
s_cmp_lg_u32 s2, s4
s_cmp_gt_u32 s2, s4
s_cmp_ge_u32 s2, s4
s_cmp_lt_u32 s2, s4
s_cmp_le_u32 s2, s4
s_cmp_eq_u64 s[2:3], s[4:5]
s_cmp_lg_u64 s[2:3], s[4:5]
s_bitcmp0_b32 s2, s4
s_bitcmp1_b32 s2, s4
s_bitcmp0_b64 s[2:3], s4
s_bitcmp1_b64 s[2:3], s4
s_and_saveexec_b64 s[0:1], s[2:3]
s_or_saveexec_b64 s[0:1], s[2:3]
s_xor_saveexec_b64 s[0:1], s[2:3]
s_andn2_saveexec_b64 s[0:1], s[2:3]
s_orn2_saveexec_b64 s[0:1], s[2:3]
s_nand_saveexec_b64 s[0:1], s[2:3]
s_nor_saveexec_b64 s[0:1], s[2:3]
s_xnor_saveexec_b64 s[0:1], s[2:3]
s_andn1_saveexec_b64 s[0:1], s[2:3]
s_orn1_saveexec_b64 s[0:1], s[2:3]
s_andn1_wrexec_b64 s[0:1], s[2:3]
s_andn2_wrexec_b64 s[0:1], s[2:3]
s_movrels_b32 s0, s10
s_movreld_b32 s10, s2
s_movrels_b64 s[0:1], s[10:11]
s_movreld_b64 s[10:11], s[4:5]
s_cbranch_scc0 1
s_cbranch_scc1 1
s_cbranch_vccz 1
s_cbranch_vccnz 1
s_cbranch_execz 1
s_cbranch_execnz 1
s_branch 1
s_cbranch_cdbgsys 1
s_cbranch_cdbguser 1
s_cbranch_cdbgsys_or_user 1
s_cbranch_cdbgsys_and_user 1
s_mov_b32 s7, 1
s_mov_b32 s8, 2
s_add_u32 s1, s1, s3
s_sub_u32 s2, s2, 1
s_cmp_lg_u32 s2, 0
s_cbranch_scc1 -4
s_getpc_b64 s[0:1]
s_add_u32 s0, s0, 24
s_addc_u32 s1, s1, 0
s_swappc_b64 s[30:31], s[0:1]
s_mov_b32 s9, 2
s_endpgm
s_nop 0
s_mov_b32 s8, 1
s_setpc_b64 s[30:31]
s_call_b64 s[30:31], 2
s_add_u32 s0, s0, 12
s_rfe_b64 s[0:1]
s_getreg_b32 s0, hwreg(HW_REG_MODE)
s_getreg_b32 s1, hwreg(HW_REG_STATUS)
s_getreg_b32 s2, hwreg(HW_REG_HW_ID)
s_getreg_b32 s3, hwreg(HW_REG_GPR_ALLOC)
s_getreg_b32 s4, hwreg(HW_REG_LDS_ALLOC)
s_getreg_b32 s5, hwreg(HW_REG_IB_STS)
s_getreg_b32 s6, hwreg(HW_REG_SH_MEM_BASES)
s_getreg_b32 s7, hwreg(HW_REG_SH_MEM_BASES, 16, 16)
s_getreg_b32 s8, hwreg(HW_REG_MODE, 4, 4)
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3
s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s2
s_setreg_b32 hwreg(HW_REG_TRAPSTS, 8, 4), s3
s_setreg_b32 hwreg(HW_REG_HW_ID), s2
s_getreg_b32 s1, hwreg(HW_REG_TRAPSTS)
s_getreg_b32 s4, hwreg(HW_REG_HW_ID)
s_nop 7
s_waitcnt vmcnt(0) lgkmcnt(0)
s_sleep 1
s_wakeup
s_setprio 2
s_sendmsg 3
s_icache_inv
s_incperflevel 1
s_decperflevel 1
s_ttracedata
s_setkill 1
s_sethalt 0
s_barrier
s_endpgm_saved
s_trap 2
s_trap 3
s_trap 1
s_trap 0x107
s_sethalt 1
s_sendmsghalt 3
s_endpgm_ordered_ps_done
s_set_gpr_idx_on s2, gpr_idx(SRC0)
s_set_gpr_idx_off
s_set_gpr_idx_mode gpr_idx(DST)
s_set_gpr_idx_idx s2
s_setvskip s2, s4
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 27, 1), 1
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 1
s_cbranch_g_fork s[2:3], s[4:5]
s_cbranch_i_fork s[2:3], 4
s_cbranch_join s2
s_rfe_restore_b64 s[2:3], s4
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 0
s_getreg_b32 s9, hwreg(HW_REG_MODE, 28, 1)
v_mov_b32_e32 v1, 5
v_mov_b32_e32 v2, 6
v_cmp_eq_u32_e32 vcc, v1, v1
ds_write_b32 v3, v1
global_store_dword v[4:5], v1, off
s_mov_b32 s8, 1
