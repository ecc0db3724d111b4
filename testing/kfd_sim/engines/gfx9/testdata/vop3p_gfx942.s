// VOP3P instructions vop3p_test.cc runs on gfx942 (MFMA: an illegal instruction this round).
v_mfma_f32_4x4x1_16b_f32 v[0:3], v1, v2, v[4:7]
v_pk_add_f32 v[0:1], v[2:3], v[4:5]
