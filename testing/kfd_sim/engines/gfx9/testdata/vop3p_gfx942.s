// VOP3P instructions vop3p_test.cc runs on gfx942 (MFMA: mfma_test.cc).
v_pk_add_f32 v[0:1], v[2:3], v[4:5]
